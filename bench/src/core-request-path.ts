/**
 * The core request path for `tools/call`, over the in-memory transport:
 * text → Wire.decode → Peer → Dispatch (params decoded by the catalog) → a trivial
 * handler → result encoded by the catalog → Wire.encode → text.
 *
 * Prints requests per second and latency percentiles. A benchmark, not a test.
 */
import { Dispatch, MemoryTransport, Peer } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import { addCall, drive, report } from "./driver.js"

const total = Number(process.env.BENCH_REQUESTS ?? 200_000)
const warmup = Number(process.env.BENCH_WARMUP ?? 20_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 64)

const run = (count: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { protocol, remote } = yield* MemoryTransport.connection
    const table = Dispatch.make("2025-11-25", {
      "tools/call": (params) => {
        const { a, b } = params.arguments as { a: number; b: number }
        return Effect.succeed({
          content: [{ type: "text" as const, text: String(a + b) }],
          structuredContent: { sum: a + b }
        })
      }
    })
    yield* Peer.make({
      protocol,
      revision: () => Effect.succeed("2025-11-25"),
      onRequest: (_client, request) => Dispatch.run(table, request, undefined)
    })
    return yield* drive(remote, Array.from({ length: count }, (_, i) => addCall(i)), window)
  }))

const main = Effect.gen(function*() {
  yield* run(warmup)
  const result = yield* run(total)
  yield* Effect.sync(() => process.stdout.write(report("core tools/call path", result, total, window) + "\n"))
})

Effect.runPromise(main).catch((error) => {
  process.stderr.write(String(error) + "\n")
  process.exit(1)
})
