/**
 * The SERVER span and histogram sample of a 2026-07-28 request over HTTP are the same whether its
 * answer is there at once (a handler that completed synchronously: answered with no fiber, recorded
 * by `Peer.Requests.answeredAtOnce`) or comes from a fiber (`Peer.Requests.serve`): the same name,
 * kind, parent (the caller's `traceparent` in `_meta`), exactly the same attributes and status, as
 * OpenTelemetry's in-memory exporter receives them; and one histogram sample each, labelled alike.
 * What pins the spans on the wire while the request path changes under them.
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Tool } from "@effect-mcp/server"
import { HttpWire, Services } from "@effect-mcp/test-support"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { assert, describe, it } from "@effect/vitest"
import { SpanKind, SpanStatusCode } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

const parameters = Schema.Struct({ a: Schema.Number, b: Schema.Number })
const success = Schema.Struct({ sum: Schema.Number })

/** Done at once: its answer is there when the request is prepared. */
const AtOnce = Tool.make("at-once", { parameters, success }, ({ a, b }) => Effect.succeed({ sum: a + b }))
/** Served in a fiber: it yields before it answers. */
const InFiber = Tool.make(
  "in-fiber",
  { parameters, success },
  ({ a, b }) => Effect.as(Effect.yieldNow(), { sum: a + b })
)
/** A tool error, at once. */
const Refuses = Tool.make("refuses", { failure: Schema.String }, () => Effect.fail("no"))

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
const callerId = "00f067aa0ba902b7"

const call = (port: number, id: number, name: string) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: HttpWire.statelessHeaders("tools/call", name),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name,
          arguments: { a: 1, b: 2 },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            traceparent: `00-${traceId}-${callerId}-01`
          }
        }
      })
    }).then((response) => response.text())
  )

const served = (spans: ReadonlyArray<ReadableSpan>, name: string) => {
  const found = spans.filter((s) => s.name === `tools/call ${name}` && s.kind === SpanKind.SERVER)
  assert.strictEqual(found.length, 1, `SERVER spans of ${name} in ${spans.map((s) => s.name).join(", ")}`)
  return found[0]!
}

describe("Telemetry: a request answered at once is recorded as one served in a fiber", () => {
  it.scopedLive("the same span (name, kind, parent, attributes, status) and one histogram sample each", () => {
    const exporter = new InMemorySpanExporter()
    const otel = NodeSdk.layer(() => ({
      resource: { serviceName: "at-once-test" },
      spanProcessor: new SimpleSpanProcessor(exporter)
    }))
    return Effect.gen(function*() {
      const port = yield* Services.freePort
      yield* Layer.build(
        NodeMcpServer.layerHttp({ port }).pipe(
          Layer.provide(McpServer.layer({
            serverInfo: { name: "at-once-test", version: "1.0.0" },
            tools: [AtOnce, InFiber, Refuses],
            revisions: ["2026-07-28"],
            requestStateKey: Redacted.make("the requestState key of the at-once test")
          })),
          Layer.provide(otel)
        )
      )
      for (const [id, name] of [[7, "at-once"], [8, "in-fiber"]] as const) {
        const text = yield* call(port, id, name)
        assert.deepStrictEqual(JSON.parse(text).result.structuredContent, { sum: 3 })
      }
      yield* call(port, 9, "refuses")
      const spans = exporter.getFinishedSpans()
      const expected = (name: string, id: string): Record<string, unknown> => ({
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": name,
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": id,
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "mcp.protocol.version": "2026-07-28"
      })
      for (const [name, id] of [["at-once", "7"], ["in-fiber", "8"]] as const) {
        const span = served(spans, name)
        assert.deepStrictEqual({ ...span.attributes }, expected(name, id), name)
        assert.strictEqual(span.spanContext().traceId, traceId, name)
        assert.strictEqual(span.parentSpanContext?.spanId, callerId, name)
        assert.deepStrictEqual(span.status, { code: SpanStatusCode.OK }, name)
        assert.deepStrictEqual(span.events, [], name)
      }
      const refused = served(spans, "refuses")
      assert.deepStrictEqual({ ...refused.attributes }, { ...expected("refuses", "9"), "error.type": "tool_error" })
      assert.deepStrictEqual(refused.status, { code: SpanStatusCode.ERROR, message: "no" })

      const samples = (yield* Metric.snapshot).filter((pair) => pair.metricKey.name === "mcp.server.operation.duration")
      const labelsOf = (tool: string) => {
        const found = samples.filter((pair) =>
          pair.metricKey.tags.some((tag) => tag.key === "gen_ai.tool.name" && tag.value === tool)
        )
        assert.strictEqual(found.length, 1, tool)
        assert.strictEqual((found[0]!.metricState as unknown as { readonly count: number }).count, 1, tool)
        return found[0]!.metricKey.tags.map((tag) => `${tag.key}=${tag.value}`).sort()
      }
      const inFiber = labelsOf("in-fiber")
      assert.deepStrictEqual(labelsOf("at-once"), inFiber.map((label) => label.replace("in-fiber", "at-once")))
      assert.deepStrictEqual(inFiber, [
        "gen_ai.operation.name=execute_tool",
        "gen_ai.tool.name=in-fiber",
        "mcp.method.name=tools/call",
        "mcp.protocol.version=2026-07-28",
        "network.protocol.name=http",
        "network.transport=tcp",
        "unit=s"
      ])
      assert.include(labelsOf("refuses"), "error.type=tool_error")
    }).pipe(Effect.provide(otel))
  })
})
