/**
 * `--max-message-bytes` of `mcp gateway` and `mcp proxy` (apps/cli, built): the largest message
 * taken from an upstream, in bytes. The demo's echo of 40,000 characters of 2 bytes each (80 KB)
 * is over a bound of 64 KiB: that call fails, naming the bound, and the next, within it, is
 * answered. A bound under 1 KiB is one line. Before, neither command had the flag (this failed).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { demoMain, mcpMain, mcpOverStdio, root } from "./support.js"

/** A client of `mcp ...args` over stdio: the echo over the bound fails, one within it does not. */
const bounded = (args: ReadonlyArray<string>, echo: string) =>
  Effect.gen(function*() {
    const client = yield* mcpOverStdio([...args, "--max-message-bytes", "65536"], { name: "bound-test" })
    const error = yield* Effect.flip(client.callTool(echo, { message: "é".repeat(40_000) }))
    assert.include(error.message, "larger than 65536 bytes")
    const small = yield* client.callTool(echo, { message: "é".repeat(1000) })
    assert.strictEqual(small.isError, undefined)
  })

describe("--max-message-bytes", () => {
  it.scopedLive("mcp gateway: an upstream's answer over it fails that call only", () =>
    Effect.gen(function*() {
      const config = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-bound-")), "gateway.json")
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [demoMain, "stdio"] } } })
      )
      yield* bounded(["gateway", "--config", config], "demo_echo")
    }), { timeout: 60_000 })

  it.scopedLive(
    "mcp proxy: its target's answer over it fails that call only",
    () => bounded(["proxy", `stdio:${process.execPath} ${demoMain} stdio`], "echo"),
    { timeout: 60_000 }
  )

  it("under 1 KiB: one line, exit 1", () => {
    const run = spawnSync(process.execPath, [mcpMain, "proxy", "stdio:true", "--max-message-bytes", "10"], {
      cwd: root,
      input: "",
      encoding: "utf8",
      timeout: 30_000
    })
    assert.deepStrictEqual({ status: run.status, stderr: run.stderr }, {
      status: 1,
      stderr: "mcp: --max-message-bytes is at least 1024 (got 10)\n"
    })
  }, 60_000)
})
