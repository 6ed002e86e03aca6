import { MemoryTransport, Telemetry } from "@effect-mcp/core"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as McpServer from "../src/McpServer.js"
import * as Tool from "../src/Tool.js"

/** A tool that answers with the name of the span it runs in, or "none". */
const SpanName = Tool.make(
  "span",
  {},
  () =>
    Effect.map(
      Effect.option(Effect.currentSpan),
      (span) => Option.match(span, { onNone: () => "none", onSome: (s) => s.name })
    )
)

const callSpanName = (spans: boolean | undefined) =>
  Effect.gen(function*() {
    const server = yield* McpServer.make({ serverInfo: { name: "t", version: "1" }, tools: [SpanName] })
    const { protocol, remote } = yield* MemoryTransport.connection
    const serve = server.serve(protocol)
    yield* Effect.forkScoped(spans === undefined ? serve : Effect.provide(serve, Telemetry.layer({ spans })))
    const call = (message: unknown) => Effect.zipRight(remote.write(JSON.stringify(message)), remote.read)
    yield* call({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }
    })
    yield* remote.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    const answer = JSON.parse(
      yield* call({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "span", arguments: {} } })
    )
    return answer.result.content[0].text as string
  })

describe("Tracing", () => {
  it.scoped("with Effect's default tracer: a request runs in no span of ours", () =>
    Effect.map(callSpanName(undefined), (name) => assert.strictEqual(name, "none")))

  it.scoped("forced on: each request runs in a span named after its method and tool", () =>
    Effect.map(callSpanName(true), (name) => assert.strictEqual(name, "tools/call span")))

  it.scoped("forced off", () => Effect.map(callSpanName(false), (name) => assert.strictEqual(name, "none")))
})
