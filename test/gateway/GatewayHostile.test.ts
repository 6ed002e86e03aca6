/**
 * A hostile upstream behind `mcp gateway` (a hand-written server, test/gateway/fixtures): 100 MB
 * answers (three), junk lines, a line that never ends. The gateway runs under a 64 MiB heap: it
 * keeps none of it (an unfinished line is held as bytes, outside the heap, up to the gateway's
 * bound, 16 MiB, and let go as it passes it, the rest skipped undecoded), the call so answered is
 * an error, and the other upstream (the demo) answers all along. Before the byte reader (a 32
 * Mi-character line held as strings while it grew) the gateway died of this under 64 MiB (it needed
 * 80 on Node 20, 192 on Node 26); it now lives under 40 MiB on Node 20 and 26, where its own start
 * is the floor (under 32 MiB it does not start).
 */
import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const mcpMain = Programs.mcpMain
const demoMain = Programs.demoMain

/** The peak resident memory of a process, in MiB (Linux). */
const peakMiB = (pid: number) => {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return Number(line![1]) / 1024
}

describe("mcp gateway in front of a hostile upstream", () => {
  it.scopedLive(
    "a 100 MB answer, junk lines, an endless line: memory bounded, the other upstream unaffected",
    () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-hostile-"))
        const file = path.join(dir, "gateway.json")
        const pidFile = path.join(dir, "pid")
        writeFileSync(
          file,
          JSON.stringify({
            mcpServers: {
              hostile: { command: process.execPath, args: [path.join(here, "fixtures/hostile-server.mjs")] },
              demo: { command: process.execPath, args: [demoMain, "stdio"] }
            }
          })
        )
        const context = yield* Layer.build(
          McpClient.layer({ clientInfo: { name: "hostile-test", version: "1.0.0" }, era: "handshake" }).pipe(
            Layer.provide(NodeMcpClient.layerStdio({
              command: "sh",
              args: [
                "-c",
                `echo $$ > ${pidFile}; exec ${process.execPath} --max-old-space-size=64 ${mcpMain} gateway --config ${file} --timeout 3 --start-timeout 60`
              ],
              cwd: root,
              stderr: "ignore"
            }))
          )
        )
        const client = Context.get(context, McpClient.McpClient)
        const pid = Number(readFileSync(pidFile, "utf8").trim())
        const add = (a: number) => Effect.map(client.callTool("demo_add", { a, b: 1 }), (r) => r.structuredContent)
        assert.includeMembers((yield* client.listTools).map((t) => t.name), ["hostile_flood", "demo_add"])
        const before = peakMiB(pid)

        assert.include(JSON.stringify((yield* client.callTool("hostile_junk", {})).content), "after the junk")

        const peaks: Array<number> = []
        for (const attack of ["hostile_flood", "hostile_flood", "hostile_flood", "hostile_endless"]) {
          const call = yield* Effect.fork(client.callTool(attack, {}))
          // The other upstream answers while the attack runs, and the attack's call is an error.
          assert.deepStrictEqual(yield* add(41), { sum: 42 })
          const exit = yield* Fiber.await(call)
          assert.isTrue(
            Exit.isFailure(exit) || exit.value.isError === true,
            `${attack}: ${JSON.stringify(exit).slice(0, 200)}`
          )
          assert.deepStrictEqual(yield* add(1), { sum: 2 })
          peaks.push(peakMiB(pid))
        }
        console.log(`gateway peak RSS (MiB): ${before.toFixed(0)} before, ${
          peaks.map((p) => p.toFixed(0)).join(", ")
        } after each attack`)
        // What one over-long line costs while it is dropped is bounded (its first 16 MiB, held outside
        // the heap), and nothing of it is kept: the gateway's old space is capped at 64 MiB, so
        // keeping any of 300 MB more would have ended it (each add above answered after its attack).
        // Its peak RSS stays bounded too; how much the young generation and the buffers in flight add
        // to a peak varies with Node (after the first attack: under 24 MiB more on Node 20, 50 on 26).
        assert.isBelow(peaks[0]! - before, 100)
        assert.isBelow(peaks[3]! - peaks[0]!, 80, "the gateway's peak grew with what it was sent")
      }),
    { timeout: 90_000 }
  )
})
