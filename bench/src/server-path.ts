/**
 * The server request path for `tools/call add`, in one process: text over the in-memory
 * transport → a handshake session of `McpServer` (catalog decode, tool argument decode, the
 * handler, structured output, revision shaping, catalog encode) → text. With
 * `BENCH_ENVELOPE=2026-07-28` (`envelope.ts`), the stateless revision instead: no handshake, every
 * request its own `_meta`, answered with the 2026 envelope.
 *
 * Prints requests per second and latency percentiles. A benchmark, not a test.
 */
import { MemoryTransport } from "@effect-mcp/core"
import { McpServer, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { drive, report } from "./driver.js"
import * as Envelope from "./envelope.js"

const total = Number(process.env.BENCH_REQUESTS ?? 100_000)
const warmup = Number(process.env.BENCH_WARMUP ?? 20_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 64)
const envelope = Envelope.fromEnv()

const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const run = (count: number) =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* McpServer.make({
      serverInfo: { name: "bench", version: "1" },
      tools: [Add],
      revisions: [envelope.revision]
    })
    const { protocol, remote } = yield* MemoryTransport.connection
    yield* Effect.forkScoped(server.serve(protocol))
    if (envelope.handshake !== undefined) {
      yield* remote.write(envelope.handshake.initialize)
      yield* remote.read
      yield* remote.write(envelope.handshake.initialized)
    }
    return yield* drive(remote, Array.from({ length: count }, (_, i) => envelope.addCall(i + 1)), window)
  }))

const main = Effect.gen(function*() {
  yield* run(warmup)
  const result = yield* run(total)
  yield* Effect.sync(() =>
    process.stdout.write(report(`server tools/call path, ${envelope.revision}`, result, total, window) + "\n")
  )
})

Effect.runPromise(main).catch((error) => {
  process.stderr.write(String(error) + "\n")
  process.exit(1)
})
