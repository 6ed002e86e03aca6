/**
 * The server request path for `tools/call add`, in one process: text over the in-memory
 * transport → a handshake session of `McpServer` (catalog decode, tool argument decode, the
 * handler, structured output, revision shaping, catalog encode) → text.
 *
 * Prints requests per second and latency percentiles. A benchmark, not a test.
 */
import { Transport } from "@effect-mcp/core"
import { McpServer, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const total = Number(process.env.BENCH_REQUESTS ?? 100_000)
const warmup = Number(process.env.BENCH_WARMUP ?? 20_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 64)

const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

const run = (count: number) =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* McpServer.make({ serverInfo: { name: "bench", version: "1" }, tools: [Add] })
    const { remote, transport } = yield* Transport.memory
    yield* Effect.forkScoped(server.serve(transport))
    yield* remote.write(
      `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`
    )
    yield* remote.read
    yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
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
  yield* Effect.sync(() =>
    process.stdout.write(
      `server tools/call path: ${Math.round(result.rps).toLocaleString("en-US")} req/s, ` +
        `p50 ${result.p50.toFixed(3)} ms, p99 ${
          result.p99.toFixed(3)
        } ms (${total} requests, ${window} in flight, one process)\n`
    )
  )
})

Effect.runPromise(main).catch((error) => {
  process.stderr.write(String(error) + "\n")
  process.exit(1)
})
