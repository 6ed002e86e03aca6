/**
 * Spans per the OpenTelemetry conventions for MCP, seen by OpenTelemetry's in-memory exporter
 * (`@effect/opentelemetry`'s `NodeSdk` layer, the one a user provides): our client and our server
 * in one process, over Streamable HTTP (both eras) and over stdio framing; names, kinds,
 * attributes, status and parent links; a tool error, a protocol error, a server-to-client ask and
 * a multi-round trip.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { Revision, Telemetry } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import * as TelemetryTracer from "@effect-mcp/platform-node/TelemetryTracer"
import { McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as Resource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { SpanKind, SpanStatusCode } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { PassThrough } from "node:stream"
import { Ask, Broken } from "./tools.js"

const freePort = Services.freePort

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.withSpan(Effect.succeed({ sum: a + b }), "adding"))

const Build = Tool.make(
  "build",
  { task: { support: "required", start: "immediately" } },
  () => Effect.as(Effect.withSpan(Effect.sleep("50 millis"), "compiling"), "built")
)

const tools = [Add, Broken, Ask, Build]

/**
 * The tracers the spans are checked through: `@effect/opentelemetry`'s (`NodeSdk.layer`, what a
 * user provides) and ours on the OpenTelemetry API (`TelemetryTracer`, what `NodeTelemetry.layer`
 * sets), over the same SDK.
 */
const tracers = ["@effect/opentelemetry", "TelemetryTracer"] as const

/** The OpenTelemetry SDK with an in-memory exporter, through `tracer`: what a user provides, and what it recorded. */
const otelThrough = (tracer: typeof tracers[number]) => () => {
  const exporter = new InMemorySpanExporter()
  const layer = tracer === "@effect/opentelemetry"
    ? NodeSdk.layer(() => ({
      resource: { serviceName: "telemetry-test" },
      spanProcessor: new SimpleSpanProcessor(exporter)
    }))
    : TelemetryTracer.layer.pipe(
      Layer.provideMerge(OtelTracer.layerTracer),
      Layer.provide(NodeSdk.layerTracerProvider(new SimpleSpanProcessor(exporter))),
      Layer.provideMerge(Resource.layer({ serviceName: "telemetry-test" }))
    )
  return { exporter, layer }
}

const server = (revisions: ReadonlyArray<Revision.Revision>) =>
  McpServer.layer({
    serverInfo: { name: "telemetry-test", version: "1.0.0" },
    tools,
    revisions,
    requestStateKey: Redacted.make("the requestState key of the telemetry test")
  })

const clientLayer = McpClient.layer({
  clientInfo: { name: "telemetry-client", version: "1.0.0" },
  handlers: { elicitation: () => Effect.succeed({ action: "accept" as const, content: { name: "Ada" } }) }
})

/** Our server on a free port serving `revisions`, and our client of it, built with `layer` (the SDK) in place. */
const overHttp = (revisions: ReadonlyArray<Revision.Revision>) =>
  Effect.gen(function*() {
    const port = yield* freePort
    yield* Layer.build(NodeMcpServer.layerHttp({ port }).pipe(Layer.provideMerge(server(revisions))))
    const context = yield* Layer.build(
      clientLayer.pipe(
        Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
        Layer.provide(FetchHttpClient.layer)
      )
    )
    return { client: Effect.runSync(Effect.provide(McpClient.McpClient, context)), port }
  })

/** Our server and client on two pipes, framed as stdio is (newline-delimited JSON). */
const overPipes = Effect.gen(function*() {
  const toServer = new PassThrough()
  const toClient = new PassThrough()
  const built = yield* Layer.build(server(Revision.handshake))
  const mcp = Effect.runSync(Effect.provide(McpServer.McpServer, built))
  yield* Effect.forkScoped(mcp.serve(NodeMcpServer.protocol(toServer, toClient)))
  const context = yield* Layer.build(
    clientLayer.pipe(Layer.provide(McpClientTransport.layerProtocol(NodeMcpServer.protocol(toClient, toServer))))
  )
  return Effect.runSync(Effect.provide(McpClient.McpClient, context))
})

/** A raw JSON-RPC POST to our server on `port` (in `session`, when given). */
const postTo = (port: number, body: unknown, session?: string) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session !== undefined ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {})
      },
      body: JSON.stringify(body)
    })
  )

const finished = (exporter: InMemorySpanExporter) => exporter.getFinishedSpans()
const named = (spans: ReadonlyArray<ReadableSpan>, name: string, kind: SpanKind) => {
  const found = spans.filter((s) => s.name === name && s.kind === kind)
  assert.isAbove(found.length, 0, `no ${SpanKind[kind]} span ${name} in ${spans.map((s) => s.name).join(", ")}`)
  return found
}
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
const traceOf = (span: ReadableSpan) => span.spanContext().traceId
const idOf = (span: ReadableSpan) => span.spanContext().spanId

for (const tracer of tracers) {
  const otel = otelThrough(tracer)
  describe(`Telemetry: spans per the MCP conventions (in-memory exporter, ${tracer})`, () => {
    for (const [era, revisions] of [["handshake", Revision.handshake], ["stateless", ["2026-07-28"]]] as const) {
      it.scopedLive(`a tools/call over HTTP (${era}): a CLIENT span, the SERVER span its child, one trace`, () => {
        const { exporter, layer } = otel()
        return Effect.gen(function*() {
          const { client, port } = yield* overHttp(revisions)
          assert.strictEqual(client.era, era)
          const result = yield* Effect.withSpan(client.callTool("add", { a: 1, b: 2 }), "caller")
          assert.deepStrictEqual(result.structuredContent, { sum: 3 })
          const spans = finished(exporter)
          const caller = named(spans, "caller", SpanKind.INTERNAL)[0]!
          const sent = named(spans, "tools/call add", SpanKind.CLIENT).at(-1)!
          const served = named(spans, "tools/call add", SpanKind.SERVER).at(-1)!
          const work = named(spans, "adding", SpanKind.INTERNAL).at(-1)!
          // One trace: caller → CLIENT → SERVER (its parent from `_meta.traceparent`) → the handler's own span.
          assert.strictEqual(parentOf(sent), idOf(caller))
          assert.strictEqual(parentOf(served), idOf(sent))
          assert.strictEqual(parentOf(work), idOf(served))
          for (const s of [sent, served, work]) assert.strictEqual(traceOf(s), traceOf(caller))
          for (const s of [sent, served]) {
            assert.strictEqual(s.attributes["mcp.method.name"], "tools/call")
            assert.strictEqual(s.attributes["gen_ai.tool.name"], "add")
            assert.strictEqual(s.attributes["gen_ai.operation.name"], "execute_tool")
            assert.strictEqual(s.attributes["network.transport"], "tcp")
            assert.strictEqual(s.attributes["network.protocol.name"], "http")
            assert.strictEqual(s.attributes["mcp.protocol.version"], era === "stateless" ? "2026-07-28" : "2025-11-25")
            assert.strictEqual(typeof s.attributes["jsonrpc.request.id"], "string")
            assert.strictEqual(s.status.code, SpanStatusCode.OK)
            assert.isUndefined(s.attributes["error.type"])
            // Arguments and results are opt-in only.
            assert.isUndefined(s.attributes["gen_ai.tool.call.arguments"])
            assert.isUndefined(s.attributes["gen_ai.tool.call.result"])
          }
          assert.strictEqual(sent.attributes["server.address"], "127.0.0.1")
          assert.strictEqual(sent.attributes["server.port"], port)
          assert.strictEqual(sent.attributes["jsonrpc.request.id"], served.attributes["jsonrpc.request.id"])
          if (era === "handshake") {
            const session = served.attributes["mcp.session.id"]
            assert.strictEqual(typeof session, "string")
            assert.strictEqual(sent.attributes["mcp.session.id"], session)
            // The handshake itself: initialize, in its own trace (nothing called it from a span).
            named(spans, "initialize", SpanKind.CLIENT)
            named(spans, "initialize", SpanKind.SERVER)
          } else {
            assert.isUndefined(served.attributes["mcp.session.id"])
          }
        }).pipe(Effect.provide(layer))
      })
    }

    it.scopedLive("a tools/call over stdio framing: network.transport is pipe on both sides", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const client = yield* overPipes
        yield* client.callTool("add", { a: 2, b: 2 })
        const spans = finished(exporter)
        const sent = named(spans, "tools/call add", SpanKind.CLIENT).at(-1)!
        const served = named(spans, "tools/call add", SpanKind.SERVER).at(-1)!
        assert.strictEqual(parentOf(served), idOf(sent))
        assert.strictEqual(sent.attributes["network.transport"], "pipe")
        assert.strictEqual(served.attributes["network.transport"], "pipe")
        assert.isUndefined(sent.attributes["server.address"])
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("a tool error: error.type tool_error, ERROR status with the tool's message, on both sides", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const { client } = yield* overHttp(["2026-07-28"])
        const result = yield* client.callTool("broken")
        assert.strictEqual(result.isError, true)
        const spans = finished(exporter)
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const s = named(spans, "tools/call broken", kind).at(-1)!
          assert.strictEqual(s.attributes["error.type"], "tool_error")
          assert.isUndefined(s.attributes["rpc.response.status_code"])
          assert.strictEqual(s.status.code, SpanStatusCode.ERROR)
          assert.include(s.status.message ?? "", "the disk is full")
        }
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("a protocol error: error.type and rpc.response.status_code are the JSON-RPC code, the status its message", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const { client } = yield* overHttp(Revision.handshake)
        const failed = yield* Effect.flip(client.callTool("missing"))
        assert.strictEqual(failed._tag, "InvalidParams")
        const spans = finished(exporter)
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const s = named(spans, "tools/call missing", kind).at(-1)!
          assert.strictEqual(s.attributes["error.type"], "-32602")
          assert.strictEqual(s.attributes["rpc.response.status_code"], "-32602")
          assert.strictEqual(s.status.code, SpanStatusCode.ERROR)
          assert.include(s.status.message ?? "", "missing")
        }
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("what a peer chooses is cut to 1,024 characters on both sides' spans, before the SDK (no limit of its own here)", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const { client, port } = yield* overHttp(Revision.handshake)
        const long = (prefix: string) => `${prefix}-${"x".repeat(100_000)}`
        // Our client calls a tool by a long name the server does not have, and one it has with long arguments.
        const failed = yield* Effect.flip(client.callTool(long("tool")))
        assert.strictEqual(failed._tag, "InvalidParams")
        yield* client.callTool("add", { a: 1, b: 2, note: long("note") })
        // A raw peer's request id of 100,000 characters: answered whole.
        const init = yield* postTo(port, {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
        })
        const session = init.headers.get("mcp-session-id")!
        yield* Effect.promise(() => init.text())
        const id = long("id")
        const answer = yield* postTo(port, {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "add", arguments: { a: 1, b: 1 } }
        }, session)
        assert.include(yield* Effect.promise(() => answer.text()), `"id":"${id}"`)

        const spans = finished(exporter)
        for (const s of spans) {
          assert.isAtMost(s.name.length, 1024)
          assert.isAtMost(s.status.message?.length ?? 0, 1024, s.name)
          for (const value of Object.values(s.attributes)) assert.isAtMost(String(value).length, 1024, s.name)
          for (const event of s.events) {
            assert.isAtMost(String(event.attributes?.["exception.message"] ?? "").length, 1024, s.name)
          }
        }
        const name = `tools/call ${long("tool")}`.slice(0, 1024)
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const s = named(spans, name, kind).at(-1)!
          assert.strictEqual(s.attributes["gen_ai.tool.name"], long("tool").slice(0, 1024))
          assert.strictEqual(s.status.code, SpanStatusCode.ERROR)
          const sent = named(spans, "tools/call add", kind).find((s) => s.attributes["gen_ai.tool.call.arguments"])!
          assert.strictEqual(String(sent.attributes["gen_ai.tool.call.arguments"]).length, 1024)
        }
        const raw = spans.find((s) =>
          s.kind === SpanKind.SERVER && s.attributes["jsonrpc.request.id"] === id.slice(0, 1024)
        )
        assert.isDefined(raw)
      }).pipe(Effect.provide(Telemetry.layer({ toolCallContent: true })), Effect.provide(layer))
    })

    it.scopedLive("a server-to-client ask (handshake elicitation): the server's CLIENT span is a child of the call it serves", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const { client } = yield* overHttp(Revision.handshake)
        const result = yield* client.callTool("ask")
        assert.deepStrictEqual(result.content, [{ type: "text", text: "hello Ada" }])
        const spans = finished(exporter)
        const served = named(spans, "tools/call ask", SpanKind.SERVER).at(-1)!
        const asked = named(spans, "elicitation/create", SpanKind.CLIENT).at(-1)!
        const answered = named(spans, "elicitation/create", SpanKind.SERVER).at(-1)!
        assert.strictEqual(parentOf(asked), idOf(served))
        assert.strictEqual(parentOf(answered), idOf(asked))
        assert.strictEqual(traceOf(answered), traceOf(served))
        assert.strictEqual(asked.attributes["mcp.method.name"], "elicitation/create")
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("a multi-round trip (2026-07-28): each round a CLIENT span, a later one linking the first; the ask answered in a child of the round that asked", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const { client } = yield* overHttp(["2026-07-28"])
        const result = yield* Effect.withSpan(client.callTool("ask"), "caller")
        assert.deepStrictEqual(result.content, [{ type: "text", text: "hello Ada" }])
        const spans = finished(exporter)
        const caller = named(spans, "caller", SpanKind.INTERNAL)[0]!
        const rounds = named(spans, "tools/call ask", SpanKind.CLIENT).filter((s) => traceOf(s) === traceOf(caller))
        assert.strictEqual(rounds.length, 2)
        const [first, second] = [...rounds].sort((a, b) => Number(a.startTime[1]) - Number(b.startTime[1]))
          .sort((a, b) => a.startTime[0] - b.startTime[0])
        for (const round of rounds) assert.strictEqual(parentOf(round), idOf(caller))
        assert.strictEqual(second!.links.length, 1)
        assert.strictEqual(second!.links[0]!.context.spanId, idOf(first!))
        const answered = named(spans, "elicitation/create", SpanKind.SERVER).at(-1)!
        assert.strictEqual(parentOf(answered), idOf(first!))
        // Each round served in a SERVER span, a child of its round.
        const served = named(spans, "tools/call ask", SpanKind.SERVER).filter((s) => traceOf(s) === traceOf(caller))
        assert.deepStrictEqual(served.map(parentOf).sort(), rounds.map(idOf).sort())
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("trace context in _meta: a caller's traceparent is the parent, tracestate and baggage are passed on to the asks", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const port = yield* freePort
        yield* Layer.build(NodeMcpServer.layerHttp({ port }).pipe(Layer.provideMerge(server(Revision.handshake))))
        const post = (body: unknown, session?: string) => postTo(port, body, session)
        const init = yield* post({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: { elicitation: {} },
            clientInfo: { name: "raw", version: "1" },
            _meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }
          }
        })
        const session = init.headers.get("mcp-session-id")!
        yield* Effect.promise(() => init.text())
        const initialized = yield* post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)
        assert.strictEqual(initialized.status, 202)
        const spans = finished(exporter)
        const served = named(spans, "initialize", SpanKind.SERVER).at(-1)!
        assert.strictEqual(traceOf(served), "0af7651916cd43dd8448eb211c80319c")
        assert.strictEqual(parentOf(served), "b7ad6b7169203331")
        // A traceparent that is not one: a root span, no failure.
        const bad = yield* post({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "add", arguments: { a: 1, b: 1 }, _meta: { traceparent: "00-zz-yy-01" } }
        }, session)
        assert.strictEqual(bad.status, 200)
        yield* Effect.promise(() => bad.text())
        const root = named(finished(exporter), "tools/call add", SpanKind.SERVER).at(-1)!
        assert.isUndefined(parentOf(root))
        // What arrived as tracestate and baggage rides on the asks the handler makes, under its own span.
        const asking = yield* post({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: {
            name: "ask",
            _meta: {
              traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
              tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
              baggage: "userId=alice"
            }
          }
        }, session)
        const reader = asking.body!.getReader()
        let text = ""
        while (!text.includes("elicitation/create")) {
          const chunk = yield* Effect.promise(() => reader.read())
          if (chunk.done) break
          text += new TextDecoder().decode(chunk.value)
        }
        yield* Effect.promise(() => reader.cancel())
        const line = text.split("\n").find((l) => l.startsWith("data:") && l.includes("elicitation/create"))!
        const ask = JSON.parse(line.slice(5))
        const meta = ask.params._meta
        assert.match(meta.traceparent, /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/)
        assert.notInclude(meta.traceparent, "00f067aa0ba902b7")
        assert.strictEqual(meta.tracestate, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        assert.strictEqual(meta.baggage, "userId=alice")
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("a caller's sampled flag decides under the SDK's default parent-based sampler: 00 is not recorded, 01 is", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const port = yield* freePort
        yield* Layer.build(NodeMcpServer.layerHttp({ port }).pipe(Layer.provideMerge(server(Revision.handshake))))
        const initialize = (traceparent: string) =>
          Effect.flatMap(
            postTo(port, {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: {
                protocolVersion: "2025-11-25",
                capabilities: {},
                clientInfo: { name: "raw", version: "1" },
                _meta: { traceparent }
              }
            }),
            (response) => Effect.promise(async () => ({ status: response.status, text: await response.text() }))
          )
        const unsampled = yield* initialize("00-11111111111111111111111111111111-2222222222222222-00")
        assert.strictEqual(unsampled.status, 200)
        assert.include(unsampled.text, "serverInfo")
        const sampled = yield* initialize("00-33333333333333333333333333333333-4444444444444444-01")
        assert.strictEqual(sampled.status, 200)
        const traces = finished(exporter).map(traceOf)
        assert.include(traces, "33333333333333333333333333333333")
        assert.notInclude(traces, "11111111111111111111111111111111")
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("the histograms: mcp.server.operation.duration and mcp.client.operation.duration, by method, tool and error", () => {
      const { layer } = otel()
      return Effect.gen(function*() {
        const { client } = yield* overHttp(["2026-07-28"])
        yield* client.callTool("add", { a: 1, b: 2 })
        yield* client.callTool("broken")
        const pairs = yield* Metric.snapshot
        const of = (name: string, tool: string) =>
          pairs.filter((p) =>
            p.metricKey.name === name &&
            p.metricKey.tags.some((t) => t.key === "gen_ai.tool.name" && t.value === tool)
          )
        for (const name of ["mcp.server.operation.duration", "mcp.client.operation.duration"]) {
          const ok = of(name, "add")
          assert.isAbove(ok.length, 0, name)
          assert.isTrue(ok.some((p) => !p.metricKey.tags.some((t) => t.key === "error.type")))
          const failed = of(name, "broken")
          assert.isTrue(
            failed.some((p) => p.metricKey.tags.some((t) => t.key === "error.type" && t.value === "tool_error")),
            name
          )
          const state = ok[0]!.metricState as unknown as { readonly buckets: ReadonlyArray<readonly [number, number]> }
          assert.deepStrictEqual(
            state.buckets.map(([bound]) => bound).filter(Number.isFinite),
            Telemetry.durationBuckets
          )
        }
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("the SDK's layer provided to the server's layer (Layer.provide), as a user composes it", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const port = yield* freePort
        yield* Layer.build(
          NodeMcpServer.layerHttp({ port }).pipe(Layer.provide(server(["2026-07-28"])), Layer.provide(layer))
        )
        const answer = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/mcp`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": "2026-07-28",
              "mcp-method": "tools/call",
              "mcp-name": "add"
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: {
                name: "add",
                arguments: { a: 1, b: 1 },
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}
                }
              }
            })
          }).then((response) => response.json())
        )
        assert.deepStrictEqual(answer.result.structuredContent, { sum: 2 })
        const served = named(finished(exporter), "tools/call add", SpanKind.SERVER).at(-1)!
        assert.strictEqual(served.attributes["jsonrpc.request.id"], "1")
        assert.strictEqual(served.attributes["mcp.protocol.version"], "2026-07-28")
      })
    })

    it.scopedLive("a task (2026-07-28): its handler runs in a tasks/run span under the call that created it", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const { client } = yield* overHttp(["2026-07-28"])
        const task = yield* client.callTool("build", {}, { task: true })
        const statuses = Chunk.toReadonlyArray(yield* Stream.runCollect(task.status))
        assert.strictEqual(statuses.at(-1)?.status, "completed")
        const taskId = statuses.at(-1)!.taskId
        const spans = finished(exporter)
        const created = named(spans, "tools/call build", SpanKind.SERVER).at(-1)!
        const run = named(spans, "tasks/run build", SpanKind.INTERNAL).at(-1)!
        const work = named(spans, "compiling", SpanKind.INTERNAL).at(-1)!
        assert.strictEqual(parentOf(run), idOf(created))
        assert.strictEqual(parentOf(work), idOf(run))
        assert.strictEqual(run.attributes["mcp.task.id"], taskId)
        assert.strictEqual(run.attributes["gen_ai.tool.name"], "build")
        named(spans, "tasks/get", SpanKind.SERVER)
      }).pipe(Effect.provide(layer))
    })

    it.scopedLive("opt-in content: tool arguments and result on the spans with toolCallContent", () => {
      const { exporter, layer } = otel()
      return Effect.gen(function*() {
        const { client } = yield* overHttp(["2026-07-28"])
        yield* client.callTool("add", { a: 1, b: 2 })
        const spans = finished(exporter)
        const served = named(spans, "tools/call add", SpanKind.SERVER).at(-1)!
        assert.strictEqual(served.attributes["gen_ai.tool.call.arguments"], JSON.stringify({ a: 1, b: 2 }))
        assert.include(String(served.attributes["gen_ai.tool.call.result"]), "\"sum\":3")
      }).pipe(Effect.provide(Telemetry.layer({ toolCallContent: true })), Effect.provide(layer))
    })
  })
}
