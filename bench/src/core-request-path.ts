/**
 * The core request path for `tools/call`, over the in-memory transport:
 * text → Wire.decode → Peer → Dispatch (params decoded by the catalog) → a trivial
 * handler → result encoded by the catalog → Wire.encode → text.
 *
 * Prints requests per second and latency percentiles. A benchmark, not a test.
 */
import { Dispatch, Peer, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"

const total = Number(process.env.BENCH_REQUESTS ?? 200_000)
const warmup = Number(process.env.BENCH_WARMUP ?? 20_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 64)

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

const run = (count: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { remote, transport } = yield* Transport.memory
    yield* Peer.make({
      transport,
      revision: Effect.succeed("2025-11-25"),
      onRequest: Dispatch.make({
        revision: Effect.succeed("2025-11-25"),
        handlers: {
          "tools/call": (params) => {
            const { a, b } = params.arguments as { a: number; b: number }
            return Effect.succeed({
              content: [{ type: "text", text: String(a + b) }],
              structuredContent: { sum: a + b }
            })
          }
        }
      })
    })
    // The client side is kept cheap: request texts are made before the clock starts,
    // and only the id is read back from each response.
    const texts = Array.from(
      { length: count },
      (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"add","arguments":{"a":${i},"b":1}}}`
    )
    const sentAt = new Float64Array(count)
    const latency = new Float64Array(count)
    let next = 0
    const send = Effect.suspend(() => {
      const i = next++
      sentAt[i] = performance.now()
      return remote.write(texts[i])
    })
    const start = performance.now()
    for (let i = 0; i < Math.min(window, count); i++) yield* send
    for (let done = 0; done < count; done++) {
      const text = yield* remote.read
      const id = Number(text.slice(22, text.indexOf(",", 22)))
      latency[id] = performance.now() - sentAt[id]
      if (next < count) yield* send
    }
    const seconds = (performance.now() - start) / 1000
    latency.sort()
    return { rps: count / seconds, p50: percentile(latency, 0.5), p99: percentile(latency, 0.99) }
  }))

const main = Effect.gen(function*() {
  yield* run(warmup)
  const result = yield* run(total)
  const line = `core tools/call path: ${Math.round(result.rps).toLocaleString("en-US")} req/s, ` +
    `p50 ${result.p50.toFixed(3)} ms, p99 ${result.p99.toFixed(3)} ms ` +
    `(${total} requests, ${window} in flight, one process)`
  yield* Effect.sync(() => process.stdout.write(line + "\n"))
})

Effect.runPromise(main).catch((error) => {
  process.stderr.write(String(error) + "\n")
  process.exit(1)
})
