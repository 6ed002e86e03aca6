/**
 * The server request path for `tools/call add`, in one process: text over the in-memory
 * transport → a handshake session of `McpServer` (catalog decode, tool argument decode, the
 * handler, structured output, revision shaping, catalog encode) → text.
 *
 * Prints requests per second and latency percentiles. A benchmark, not a test.
 */
import { MemoryTransport } from "@effect-mcp/core"
import { McpServer, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { addCall, drive, report } from "./driver.js"

const total = Number(process.env.BENCH_REQUESTS ?? 100_000)
const warmup = Number(process.env.BENCH_WARMUP ?? 20_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 64)

const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const run = (count: number) =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* McpServer.make({ serverInfo: { name: "bench", version: "1" }, tools: [Add] })
    const { protocol, remote } = yield* MemoryTransport.connection
    yield* Effect.forkScoped(server.serve(protocol))
    yield* remote.write(
      `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`
    )
    yield* remote.read
    yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
    return yield* drive(remote, Array.from({ length: count }, (_, i) => addCall(i)), window)
  }))

const main = Effect.gen(function*() {
  yield* run(warmup)
  const result = yield* run(total)
  yield* Effect.sync(() => process.stdout.write(report("server tools/call path", result, total, window) + "\n"))
})

Effect.runPromise(main).catch((error) => {
  process.stderr.write(String(error) + "\n")
  process.exit(1)
})
