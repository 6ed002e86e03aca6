/**
 * `mcp gateway --max-mirrored-entries N` (apps/cli, built): the entries (tools, prompts, resources
 * and templates) mirrored from every upstream together are at most N. Two demo upstreams, N what
 * one of them lists: the gateway serves no more than N in all, an upstream's listing past the
 * bound is not served, and a warning names the bound (before: each upstream was bounded alone, 1,000
 * of each kind, with no total across upstreams, and the flag did not exist).
 */
import type { McpClient } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { demoMain, mcpOverStdio } from "./support.js"

const configOf = (names: ReadonlyArray<string>) => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-mirror-total-")), "gateway.json")
  const demo = { command: process.execPath, args: [demoMain, "stdio"] }
  writeFileSync(file, JSON.stringify({ mcpServers: Object.fromEntries(names.map((name) => [name, demo])) }))
  return file
}

/** Everything the gateway serves now: each kind's names or URIs. */
const served = (client: McpClient.Service) =>
  Effect.all([
    Effect.map(client.listTools, (all) => all.map((t) => t.name)),
    Effect.map(client.listPrompts, (all) => all.map((p) => p.name)),
    Effect.map(client.listResources, (all) => all.map((r) => r.uri)),
    Effect.map(client.listResourceTemplates, (all) => all.map((t) => t.uriTemplate))
  ]).pipe(Effect.map((kinds) => kinds.flat()))

describe("mcp gateway --max-mirrored-entries", () => {
  it.scopedLive(
    "bounds the entries of every upstream together, with a warning naming the bound",
    () =>
      Effect.gen(function*() {
        // What one demo lists (the gateway serves once its upstreams' first listings are mirrored).
        const one = yield* Effect.scoped(Effect.flatMap(
          mcpOverStdio(["gateway", "--config", configOf(["a"]), "--start-timeout", "60"]),
          served
        ))
        assert.isAbove(one.length, 3)
        const warnings: Array<string> = []
        const client = yield* mcpOverStdio(
          [
            "gateway",
            "--config",
            configOf(["a", "b"]),
            "--start-timeout",
            "60",
            "--max-mirrored-entries",
            `${one.length}`
          ],
          { stderr: (line) => void (line.includes("maxMirroredEntries") && warnings.push(line)) }
        )
        const both = yield* served(client)
        assert.isAtMost(both.length, one.length)
        assert.isAbove(both.length, 0)
        assert.isAbove(warnings.length, 0)
        assert.include(warnings[0], `more than ${one.length} (maxMirroredEntries); this listing is not served`)
      }),
    { timeout: 120_000 }
  )
})
