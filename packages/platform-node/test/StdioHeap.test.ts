/**
 * What waits on stdio's output for a client that stops reading is held outside the JS heap: a
 * server (a gateway) under a small heap survives a client that stops reading while its upstream
 * floods. The fixture's output is bounded to 8 MiB; forty answers of 512 KiB, each written in a tick
 * of its own (5 ms apart: one write each), fill it, and the heap grows by far less than that. Before, the lines waited as strings on the pipe (a socket keeps
 * strings as given): the heap grew by the whole bound.
 */
import { assert, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const fixture = path.join(here, "fixtures", "stdio-heap.ts")
const bound = 8 * 1024 * 1024
const V = "2026-07-28"

interface Report {
  readonly pending: number
  readonly heap: number
}

it.scopedLive(
  "a client that stops reading: the bound waits on stdio's output outside the JS heap",
  () =>
    Effect.gen(function*() {
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, ["--expose-gc", "--conditions=@effect-mcp/source", "--import", "tsx", fixture], {
            cwd: root,
            stdio: ["pipe", "pipe", "pipe"]
          })
        ),
        (p) => Effect.sync(() => p.exitCode === null && p.signalCode === null ? p.kill("SIGKILL") : undefined)
      )
      // Nobody reads the answers.
      child.stdout.pause()
      const baseline = yield* Deferred.make<Report>()
      const full = yield* Deferred.make<Report>()
      let rest = ""
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => {
        rest += chunk
        let newline = rest.indexOf("\n")
        while (newline >= 0) {
          const line = rest.slice(0, newline)
          rest = rest.slice(newline + 1)
          newline = rest.indexOf("\n")
          if (!line.startsWith("{\"pending\"")) continue
          const report = JSON.parse(line) as Report
          Deferred.unsafeDone(baseline, Effect.succeed(report))
          if (report.pending >= bound - 512 * 1024) Deferred.unsafeDone(full, Effect.succeed(report))
        }
      })
      const before = yield* Deferred.await(baseline)
      const meta = {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "heap", version: "1" }
      }
      child.stdin.write(
        Array.from({ length: 40 }, (_, i) =>
          JSON.stringify({
            jsonrpc: "2.0",
            id: i + 1,
            method: "tools/call",
            params: { name: "big", arguments: { ms: 5 * i }, _meta: meta }
          }) +
          "\n").join("")
      )
      const after = yield* Deferred.await(full)
      // The bound waits on the output (and one answer at most past it) ...
      assert.isAtMost(after.pending, bound + 600 * 1024)
      // ... and the heap holds little of it (before: all of it, 8 MiB and more).
      assert.isBelow(after.heap - before.heap, bound / 4, JSON.stringify({ before, after }))
    }),
  30_000
)
