/**
 * `mcp gateway --config FILE` (apps/cli, built) passes a client's `logging/setLevel` on to every
 * upstream: two upstreams written by hand (test/gateway/fixtures/level-server.mjs) that answer their
 * tool `level` with the level their client set last; our client through the gateway over stdio.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { overStdio, root } from "./support.js"

const levelServer = path.join(root, "test/gateway/fixtures/level-server.mjs")

describe("mcp gateway: logging", () => {
  it.scopedLive("a client's logging/setLevel reaches every upstream", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-logging-"))
      const file = path.join(dir, "gateway.json")
      const upstream = { command: process.execPath, args: [levelServer] }
      writeFileSync(file, JSON.stringify({ mcpServers: { one: upstream, two: upstream } }))
      const client = yield* overStdio(file, "gateway-logging-test")
      const level = (tool: string) => Effect.map(client.callTool(tool, {}), (result) => JSON.stringify(result.content))
      assert.strictEqual(yield* level("one_level"), JSON.stringify([{ type: "text", text: "none" }]))
      yield* client.setLogLevel("error")
      assert.strictEqual(yield* level("one_level"), JSON.stringify([{ type: "text", text: "error" }]))
      assert.strictEqual(yield* level("two_level"), JSON.stringify([{ type: "text", text: "error" }]))
    }), 60_000)
})
