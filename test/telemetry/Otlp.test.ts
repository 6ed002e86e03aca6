/**
 * The demo server (apps/everything, built) exporting OTLP over HTTP, as the standard OTEL_*
 * variables tell it, to a receiver this test starts: what arrives is the span of each request with
 * the conventions' attributes, parented by the traceparent the request carried in `_meta`, and the
 * histograms with the conventions' buckets, in seconds. Over HTTP in the handshake era and over stdio.
 * What a peer chooses (names, URIs, ids of a megabyte) is exported cut to the attribute length
 * limit, and kept nowhere whole: a 64 MB heap survives a stream of them with the collector down.
 */
import { Telemetry } from "@effect-mcp/core"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Programs from "../support/Programs.js"
import { exportTo, type ReceivedPoint, type ReceivedSpan, receiver, start, until } from "./support.js"

const everything = Programs.demoMain
const version = "2025-11-25"
const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
const parentId = "00f067aa0ba902b7"
const traceparent = `00-${traceId}-${parentId}-01`

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "otlp-test", version: "1.0.0" } }
}
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, _meta: { traceparent } }
})

/** The span of `name`, kind SERVER, of this test's trace. */
const served = (spans: ReadonlyArray<ReceivedSpan>, name: string) =>
  spans.find((s) => s.name === name && s.kind === 2 && s.traceId === traceId)

/**
 * A handshake session with the server at `endpoint`: `post` sends one message in it (the first
 * opens it) and gives the JSON-RPC answer (undefined for none), `close` ends it (DELETE).
 */
const sessionAt = (endpoint: string) => {
  let session: string | undefined
  const post = (message: unknown) =>
    Effect.promise(async () => {
      const response = await fetch(endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": version,
          ...(session === undefined ? {} : { "mcp-session-id": session })
        },
        body: JSON.stringify(message)
      })
      session ??= response.headers.get("mcp-session-id") ?? undefined
      const text = await response.text()
      const data = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6))
      return text === "" ? undefined : JSON.parse(data.length > 0 ? data[data.length - 1] : text)
    })
  const close = Effect.promise(() =>
    fetch(endpoint, { method: "DELETE", headers: { "mcp-session-id": session!, "mcp-protocol-version": version } })
  )
  return { post, close, id: () => session }
}

/** The operation-duration points of `method` (the exporter sends them cumulative, once per interval). */
const operation = (points: ReadonlyArray<ReceivedPoint>, method: string) =>
  points.find((p) =>
    p.name === "mcp.server.operation.duration" && p.attributes["mcp.method.name"] === method && (p.count ?? 0) > 0
  )

describe("the demo server exporting OTLP over HTTP", () => {
  it.scopedLive(
    "over Streamable HTTP: the call's span and its histograms, parented by _meta.traceparent",
    () =>
      Effect.gen(function*() {
        const { points, spans, url } = yield* receiver
        const port = yield* Services.freePort
        const server = yield* start(
          [everything, "http", "--port", String(port), "--era", "handshake"],
          exportTo(url),
          `http://127.0.0.1:${port}/mcp`
        )
        const { close, id, post } = sessionAt(`http://127.0.0.1:${port}/mcp`)
        yield* post(initialize)
        yield* post(initialized)
        const ok = yield* post(call(2, "test_simple_text"))
        assert.strictEqual(ok.id, 2)
        assert.isArray(ok.result.content)
        const bad = yield* post(call(3, "no_such_tool"))
        assert.strictEqual(bad.id, 3)
        assert.strictEqual(bad.error.code, -32602)
        const session = id()
        yield* close

        const span = yield* until(() => served(spans, "tools/call test_simple_text"), "the call's span")
        assert.strictEqual(span.service, "effect-mcp-everything")
        assert.strictEqual(span.parentSpanId, parentId)
        assert.notStrictEqual(span.statusCode, 2)
        assert.deepInclude(span.attributes, {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "test_simple_text",
          "jsonrpc.request.id": "2",
          "mcp.protocol.version": version,
          "mcp.session.id": session,
          "network.transport": "tcp"
        })
        const failed = yield* until(() => served(spans, "tools/call no_such_tool"), "the failed call's span")
        assert.strictEqual(failed.statusCode, 2)
        assert.strictEqual(failed.attributes["error.type"], "-32602")
        assert.strictEqual(failed.parentSpanId, parentId)

        const histogram = yield* until(() => operation(points, "tools/call"), "mcp.server.operation.duration")
        assert.strictEqual(histogram.type, "histogram")
        assert.strictEqual(histogram.service, "effect-mcp-everything")
        assert.deepStrictEqual(histogram.explicitBounds, Telemetry.durationBuckets)
        // Seconds, as the conventions say (it was exported as "1"), on the metric: the points carry only
        // the conventions' attributes (each carried unit="s" too, the label the exporter reads the unit from).
        assert.strictEqual(histogram.unit, "s")
        assert.notProperty(histogram.attributes, "unit")
        assert.deepInclude(histogram.attributes, { "mcp.method.name": "tools/call" })
        const sessionEnded = yield* until(
          () => points.find((p) => p.name === "mcp.server.session.duration" && (p.count ?? 0) > 0),
          "mcp.server.session.duration"
        )
        assert.deepStrictEqual(sessionEnded.explicitBounds, Telemetry.durationBuckets)
        assert.strictEqual(sessionEnded.unit, "s")
        assert.notProperty(sessionEnded.attributes, "unit")
        yield* until(() => points.find((p) => p.name === "mcp.server.sessions"), "the sessions gauge")
        yield* server.stop
      }),
    60_000
  )

  it.scopedLive("over stdio: what it buffered is flushed when its input ends", () =>
    Effect.gen(function*() {
      const { points, spans, url } = yield* receiver
      // Slow intervals: only the flush at the end can deliver in time.
      const server = yield* start([everything, "stdio", "--era", "handshake"], {
        ...exportTo(url),
        OTEL_BSP_SCHEDULE_DELAY: "60000",
        OTEL_METRIC_EXPORT_INTERVAL: "60000",
        // The flush at exit as long as a loaded machine takes (its default half a second is less than
        // a first fetch can take here).
        OTEL_BSP_EXPORT_TIMEOUT: "30000"
      })
      const stdin = server.child.stdin!
      for (const message of [initialize, initialized, call(2, "test_simple_text")]) {
        stdin.write(`${JSON.stringify(message)}\n`)
      }
      yield* until(() => server.lines.length >= 2, "the two answers")
      assert.strictEqual(JSON.parse(server.lines[1]).id, 2)
      assert.strictEqual(spans.length, 0)
      stdin.end()
      yield* server.exited
      assert.strictEqual(server.child.exitCode, 0, server.stderr())
      const span = served(spans, "tools/call test_simple_text")
      assert.isDefined(span, `the call's span, in ${JSON.stringify(spans.map((s) => s.name))}`)
      assert.strictEqual(span!.parentSpanId, parentId)
      assert.strictEqual(span!.attributes["network.transport"], "pipe")
      assert.strictEqual(span!.attributes["mcp.protocol.version"], version)
      assert.isDefined(operation(points, "tools/call"), "the operation histogram")
    }), 60_000)
  it.scopedLive(
    "a peer's long names, URI and id: cut to OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT on the spans, _OTHER in the labels",
    () =>
      Effect.gen(function*() {
        const { points, spans, url } = yield* receiver
        const port = yield* Services.freePort
        yield* start(
          [everything, "http", "--port", String(port), "--era", "handshake"],
          { ...exportTo(url), OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "64" },
          `http://127.0.0.1:${port}/mcp`
        )
        const { post } = sessionAt(`http://127.0.0.1:${port}/mcp`)
        yield* post(initialize)
        yield* post(initialized)
        const long = (prefix: string) => `${prefix}-${"x".repeat(100_000)}`
        const id = long("id")
        const requests = [
          {
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: long("tool"), arguments: {}, _meta: { traceparent } }
          },
          { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: long("prompt"), _meta: { traceparent } } },
          {
            jsonrpc: "2.0",
            id: 3,
            method: "resources/read",
            params: { uri: long("test://uri"), _meta: { traceparent } }
          }
        ]
        for (const request of requests) {
          const answer = yield* post(request)
          // The peer loses nothing: its whole id comes back, with an error naming what it asked for.
          assert.strictEqual(answer.id, request.id)
          assert.isDefined(answer.error)
        }
        const mine = () => spans.filter((s) => s.traceId === traceId && s.kind === 2)
        yield* until(() => mine().length >= 3, "the three spans")
        const [tool, prompt, resource] = ["tools/call tool-x", "prompts/get prompt-x", "resources/read"].map((start) =>
          mine().find((s) => s.name.startsWith(start))!
        )
        assert.strictEqual(tool.name, `tools/call tool-${"x".repeat(64 - "tools/call tool-".length)}`)
        assert.strictEqual(tool.attributes["gen_ai.tool.name"], long("tool").slice(0, 64))
        assert.strictEqual(tool.attributes["jsonrpc.request.id"], id.slice(0, 64))
        assert.strictEqual(prompt.attributes["gen_ai.prompt.name"], long("prompt").slice(0, 64))
        assert.strictEqual(resource.attributes["mcp.resource.uri"], long("test://uri").slice(0, 64))
        for (const span of [tool, prompt, resource]) {
          assert.isAtMost(span.name.length, 64)
          assert.strictEqual(span.statusCode, 2)
          assert.isAtMost(span.statusMessage?.length ?? 0, 64, span.name)
          for (const value of [span.attributes, ...span.events].flatMap((a) => Object.values(a))) {
            assert.isAtMost(String(value).length, 64, span.name)
          }
        }
        // A tool or prompt the server does not have is no label set of its own.
        const labelled = (name: string) =>
          points.filter((p) => p.name === "mcp.server.operation.duration" && p.attributes["mcp.method.name"] === name)
        yield* until(() => labelled("resources/read").length > 0, "the histograms")
        // (Each export sends every series again: the same label set arrives more than once.)
        const values = (method: string, key: string) => [...new Set(labelled(method).map((p) => p.attributes[key]))]
        assert.deepStrictEqual(values("tools/call", "gen_ai.tool.name"), ["_OTHER"])
        assert.deepStrictEqual(values("prompts/get", "gen_ai.prompt.name"), ["_OTHER"])
        for (const point of points) {
          for (const value of Object.values(point.attributes)) assert.isAtMost(String(value).length, 64, point.name)
        }
      }),
    60_000
  )

  it.scopedLive(
    "a 64 MB heap serves 20 calls naming a new 1 MB tool each, spans and metrics on, the collector down",
    () =>
      Effect.gen(function*() {
        // Nothing listens there: every export fails, and what waits for it stays in the server.
        const down = `http://127.0.0.1:${yield* Services.freePort}`
        const port = yield* Services.freePort
        const server = yield* start(
          ["--max-old-space-size=64", everything, "http", "--port", String(port), "--era", "handshake"],
          exportTo(down),
          `http://127.0.0.1:${port}/mcp`
        )
        const { post } = sessionAt(`http://127.0.0.1:${port}/mcp`)
        yield* post(initialize)
        yield* post(initialized)
        const megabyte = "x".repeat(1024 * 1024)
        for (let i = 0; i < 20; i++) {
          // Before the bound, each name was kept whole (span name, attribute, label set): out of memory at the 7th.
          const answer = yield* post(call(100 + i, `${i}-${megabyte}`))
          assert.strictEqual(answer.error?.code, -32602, server.stderr())
        }
        const ok = yield* post(call(2, "test_simple_text"))
        assert.isArray(ok.result.content)
        assert.strictEqual(server.child.exitCode, null)
        assert.notMatch(server.stderr(), /heap out of memory/)
      }),
    60_000
  )
})
