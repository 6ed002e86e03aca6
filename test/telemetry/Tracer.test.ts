/**
 * Our tracer on the OpenTelemetry API (`TelemetryTracer`, what `NodeTelemetry.layer` sets) records
 * what `@effect/opentelemetry`'s tracer records: the same calls, made once through each over the
 * same SDK (an in-memory exporter), give the same spans: names, kinds, parents, attributes,
 * status, events (a handler's log and annotation, a tool error's exception), links, and the trace
 * context our client sends in `_meta` and in its HTTP `traceparent` header. Among them: a user's
 * `Effect.withSpan` in a tool handler, under the request's SERVER span; a caller's `traceparent`
 * in `_meta` the parent of the SERVER span; and a span made by `@effect/opentelemetry`'s own tracer
 * (outside ours) the parent of the calls made under it.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import type { Revision } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import * as TelemetryTracer from "@effect-mcp/platform-node/TelemetryTracer"
import { McpServer, Tool } from "@effect-mcp/server"
import { HttpWire, Services } from "@effect-mcp/test-support"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as Resource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { context, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { Ask, Broken } from "./tools.js"

/**
 * The span OpenTelemetry's context had active in each run of the `work` handler (the handler's own,
 * for instrumentation beneath it): a context manager is registered, as `NodeSDK` or `register()` do.
 */
const active: Array<string | undefined> = []
new NodeTracerProvider().register()

const Work = Tool.make("work", {
  parameters: Schema.Struct({ a: Schema.Number }),
  success: Schema.Struct({ twice: Schema.Number })
}, ({ a }) =>
  Effect.gen(function*() {
    yield* Effect.annotateCurrentSpan("user.size", a)
    yield* Effect.logInfo("working")
    active.push(trace.getActiveSpan()?.spanContext().spanId)
    return { twice: a * 2 }
  }).pipe(Effect.withSpan("user work", { attributes: { "user.kind": "doubling" } })))

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
const callerId = "00f067aa0ba902b7"

type Through = "@effect/opentelemetry" | "TelemetryTracer"

/** The SDK over an in-memory exporter (as `NodeSdk.layer` sets it up), its spans made by `through`. */
const sdk = (through: Through, exporter: InMemorySpanExporter) =>
  (through === "@effect/opentelemetry"
    ? OtelTracer.layer
    : TelemetryTracer.layer.pipe(Layer.provideMerge(OtelTracer.layerTracer))).pipe(
      Layer.provide(NodeSdk.layerTracerProvider(new SimpleSpanProcessor(exporter))),
      Layer.provideMerge(Resource.layer({ serviceName: "tracer-test" }))
    )

/** What our client sent: each POST's `traceparent` header and the `traceparent` in its body's `_meta`. */
interface Sent {
  readonly header: string | undefined
  readonly meta: string | undefined
}

/** Our server and client over HTTP in `revisions`, the client's fetch recording what it sends. */
const serve = (revisions: ReadonlyArray<Revision.Revision>, sent: Array<Sent>) =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    yield* Layer.build(
      NodeMcpServer.layerHttp({ port }).pipe(Layer.provideMerge(McpServer.layer({
        serverInfo: { name: "tracer-test", version: "1.0.0" },
        tools: [Work, Broken, Ask],
        revisions,
        requestStateKey: Redacted.make("the requestState key of the tracer test")
      })))
    )
    const recording: typeof fetch = (input, init) => {
      const raw = init?.body
      const text = typeof raw === "string" ? raw : raw instanceof Uint8Array ? new TextDecoder().decode(raw) : undefined
      const body = text === undefined ? undefined : JSON.parse(text)
      const headers = new Headers(init?.headers)
      if (init?.method === "POST") {
        sent.push({ header: headers.get("traceparent") ?? undefined, meta: body?.params?._meta?.traceparent })
      }
      return fetch(input, init)
    }
    const context = yield* Layer.build(
      McpClient.layer({
        clientInfo: { name: "tracer-client", version: "1.0.0" },
        handlers: { elicitation: () => Effect.succeed({ action: "accept" as const, content: { name: "Ada" } }) }
      }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(Layer.succeed(FetchHttpClient.Fetch, recording))
      )
    )
    return { client: Effect.runSync(Effect.provide(McpClient.McpClient, context)), port }
  })

/** The calls, made with the tracer of `through` in place; the spans exported and what the client sent. */
const record = (through: Through) => {
  const exporter = new InMemorySpanExporter()
  const sent: Array<Sent> = []
  return Effect.gen(function*() {
    // The 2026-07-28 revision: a call in a caller's span linking another, a tool error, a raw caller's traceparent.
    const { client, port } = yield* serve(["2026-07-28"], sent)
    const linked = yield* Effect.makeSpan("linked")
    linked.end(BigInt(Date.now()) * 1_000_000n, Exit.void)
    yield* client.callTool("work", { a: 21 }).pipe(
      Effect.withSpan("caller", {
        attributes: { "caller.n": 1 },
        links: [{ _tag: "SpanLink", span: linked, attributes: { why: "x" } }]
      })
    )
    yield* client.callTool("broken")
    yield* Effect.promise(() =>
      fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: HttpWire.statelessHeaders("tools/call", "work"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 70,
          method: "tools/call",
          params: {
            name: "work",
            arguments: { a: 1 },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
              traceparent: `00-${traceId}-${callerId}-01`
            }
          }
        })
      }).then((response) => response.text())
    )
    // A span made by @effect/opentelemetry's own tracer (outside ours, when ours is set): the parent of the call.
    const theirs = yield* OtelTracer.make
    const outside = yield* Effect.withTracer(Effect.makeSpan("outside"), theirs)
    yield* Effect.withParentSpan(client.callTool("work", { a: 2 }), outside)
    outside.end(BigInt(Date.now()) * 1_000_000n, Exit.void)
    // The handshake era: a session, and a server-to-client ask under the call it serves.
    const handshake = yield* serve(["2025-11-25"], sent)
    yield* Effect.withSpan(handshake.client.callTool("ask"), "asking")
    return { spans: exporter.getFinishedSpans(), sent }
    // Its servers and clients closed before the other tracer's run.
  }).pipe(Effect.provide(sdk(through, exporter)), Effect.scoped)
}

/** A span as compared: ids and times left out, parents and links named by the span they point to. */
const shapes = (spans: ReadonlyArray<ReadableSpan>, sent: ReadonlyArray<Sent>) => {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]))
  const nameOf = (id: string | undefined) => {
    if (id === undefined) return "(none)"
    if (id === callerId) return "(the raw caller)"
    const span = byId.get(id)
    return span === undefined ? `(not exported: ${id})` : `${span.name} [${span.kind}]`
  }
  const spanOf = (traceparent: string | undefined) => nameOf(traceparent?.split("-")[2])
  const sameTrace = (span: ReadableSpan, id: string | undefined) =>
    id === undefined || id === callerId
      ? span.spanContext().traceId === (id === undefined ? span.spanContext().traceId : traceId)
      : byId.get(id)?.spanContext().traceId === span.spanContext().traceId
  // What differs from run to run: ports, sessions, fibers, dates; and the stack's frames.
  const normalized = (attributes: Record<string, unknown>) => {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(attributes)) {
      out[key] = /session[.-]id$/.test(key)
        ? "(a session)"
        : key === "server.port"
        ? "(the port)"
        : key === "effect.fiberId"
        ? "(a fiber)"
        : key.endsWith(".date")
        ? "(a date)"
        : key === "exception.stacktrace"
        ? String(value).split("\n")[0]
        : typeof value === "string"
        ? value.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:(the port)")
        : value
    }
    return out
  }
  return {
    spans: spans.map((span) => ({
      name: span.name,
      kind: span.kind,
      scope: span.instrumentationScope.name,
      parent: nameOf(span.parentSpanContext?.spanId),
      parentRemote: span.parentSpanContext?.isRemote ?? false,
      sameTraceAsParent: sameTrace(span, span.parentSpanContext?.spanId),
      attributes: normalized(span.attributes),
      status: span.status,
      events: span.events.map((event) => ({ name: event.name, attributes: normalized(event.attributes ?? {}) })),
      links: span.links.map((link) => ({ to: nameOf(link.context.spanId), attributes: link.attributes }))
    })).map((shape) => JSON.stringify(shape)).sort(),
    sent: sent.map((one) => `header: ${spanOf(one.header)}; _meta: ${spanOf(one.meta)}`)
  }
}

describe("TelemetryTracer: the spans of @effect/opentelemetry's tracer, on the OpenTelemetry API", () => {
  it.scopedLive("the same calls through each tracer export the same spans and send the same trace context", () =>
    Effect.gen(function*() {
      // Each run from the root context: a span one run left active in the async context its fiber resumes
      // in would be the parent of the next run's first spans (with either tracer: Effect runs a fiber with
      // no span of its own in the context it was resumed in).
      const fresh = (through: Through) =>
        Effect.promise(() => context.with(ROOT_CONTEXT, () => Effect.runPromise(record(through))))
      const theirs = yield* fresh("@effect/opentelemetry")
      const activeInTheirs = active.splice(0)
      const ours = yield* fresh("TelemetryTracer")
      const expected = shapes(theirs.spans, theirs.sent)
      const got = shapes(ours.spans, ours.sent)
      assert.deepStrictEqual(got.spans, expected.spans)
      assert.deepStrictEqual(got.sent, expected.sent)

      // What the comparison holds, spelled out on ours.
      const find = (name: string, kind: SpanKind) => {
        const found = ours.spans.filter((span) => span.name === name && span.kind === kind)
        assert.isAbove(found.length, 0, `${name} in ${ours.spans.map((span) => span.name).join(", ")}`)
        return found
      }
      const idOf = (span: ReadableSpan) => span.spanContext().spanId
      const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
      const caller = find("caller", SpanKind.INTERNAL)[0]!
      const sentWork = find("tools/call work", SpanKind.CLIENT).find((span) => parentOf(span) === idOf(caller))!
      const servedWork = find("tools/call work", SpanKind.SERVER).find((span) => parentOf(span) === idOf(sentWork))!
      const work = find("user work", SpanKind.INTERNAL).find((span) => parentOf(span) === idOf(servedWork))!
      assert.strictEqual(work.spanContext().traceId, caller.spanContext().traceId)
      assert.deepStrictEqual(work.attributes, { "user.kind": "doubling", "user.size": 21 })
      assert.deepStrictEqual(work.events.map((event) => event.name), ["working"])
      // Active in OpenTelemetry's context while the handler runs: its own span, with either tracer.
      const works = (spans: ReadonlyArray<ReadableSpan>) =>
        spans.filter((span) => span.name === "user work").map((span) => span.spanContext().spanId).sort()
      assert.deepStrictEqual([...active].sort(), works(ours.spans))
      assert.deepStrictEqual(activeInTheirs.sort(), works(theirs.spans))
      assert.deepStrictEqual(caller.links.map((link) => link.context.spanId), [
        idOf(find("linked", SpanKind.INTERNAL)[0]!)
      ])
      const raw = find("tools/call work", SpanKind.SERVER).find((span) => parentOf(span) === callerId)!
      assert.strictEqual(raw.spanContext().traceId, traceId)
      assert.strictEqual(raw.parentSpanContext?.isRemote, true)
      const outside = find("outside", SpanKind.INTERNAL)[0]!
      assert.isDefined(find("tools/call work", SpanKind.CLIENT).find((span) => parentOf(span) === idOf(outside)))
      const broken = find("tools/call broken", SpanKind.SERVER)[0]!
      assert.deepStrictEqual(broken.events.map((event) => event.name), ["exception"])
      assert.deepStrictEqual(broken.status, { code: 2, message: "the disk is full" })
      const asked = find("elicitation/create", SpanKind.CLIENT)[0]!
      assert.strictEqual(parentOf(asked), idOf(find("tools/call ask", SpanKind.SERVER)[0]!))
      // A call's POST names its CLIENT span in `_meta`, and @effect/platform's HTTP client span in its header.
      assert.include(got.sent, "header: http.client POST [2]; _meta: tools/call work [2]")
    }))
})
