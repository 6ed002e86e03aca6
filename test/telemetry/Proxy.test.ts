/**
 * One trace across three processes: our client here (spans to OpenTelemetry's in-memory
 * exporter), `mcp proxy` (apps/cli, built) serving 2026-07-28 over HTTP, and the demo server
 * (apps/everything, built) behind it over stdio in the handshake era. The two children export
 * OTLP over HTTP (JSON) to a receiver this test starts, configured by the standard variables.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { Services } from "@effect-mcp/test-support"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Programs from "../support/Programs.js"
import { exportTo, receiver, start, until } from "./support.js"

const mcpMain = Programs.mcpMain
const everything = Programs.demoMain

describe("Telemetry across processes", () => {
  it.scopedLive("client → mcp proxy → demo server: one trace, each span the child of the one before", () => {
    const exporter = new InMemorySpanExporter()
    const otel = NodeSdk.layer(() => ({
      resource: { serviceName: "telemetry-client" },
      spanProcessor: new SimpleSpanProcessor(exporter)
    }))
    return Effect.gen(function*() {
      const { spans, url } = yield* receiver
      const env = exportTo(url)
      const port = yield* Services.freePort
      const upstream = `stdio:${process.execPath} ${everything} stdio --era handshake`
      const proxy = yield* start(
        // Its stdio target inherits none of the proxy's OTEL_* unless --env passes them on.
        [
          mcpMain,
          "proxy",
          upstream,
          "--port",
          String(port),
          "--serve",
          "stateless",
          ...Object.keys(env).filter((key) => key.startsWith("OTEL_")).flatMap((key) => ["--env", key])
        ],
        env,
        "mcp proxy: serving"
      )
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "telemetry-client", version: "1.0.0" }, era: "stateless" }).pipe(
          Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      const client = yield* Effect.provide(McpClient.McpClient, context)
      const result = yield* Effect.withSpan(client.callTool("test_simple_text"), "caller")
      assert.strictEqual(result.isError, undefined)
      // The proxy ends its upstream (the demo) as it stops: both flush.
      yield* proxy.stop
      const sent = exporter.getFinishedSpans().find((s) =>
        s.name === "tools/call test_simple_text" && s.kind === SpanKind.CLIENT
      )!
      assert.isDefined(sent)
      const trace = sent.spanContext().traceId
      const inTrace = () => spans.filter((s) => s.traceId === trace && s.name === "tools/call test_simple_text")
      // OTLP span kinds: 2 SERVER, 3 CLIENT.
      const find = (service: string, kind: number) => inTrace().find((s) => s.service === service && s.kind === kind)
      // What the children flush arrives when it arrives: the proxy's SERVER span and both spans of its upstream.
      yield* until(
        () =>
          find("mcp", 2) !== undefined && find("effect-mcp-everything", 2) !== undefined &&
          find("mcp", 3) !== undefined,
        "the proxy's and the demo's spans"
      )
      const proxyServed = find("mcp", 2)
      const proxySent = find("mcp", 3)
      const served = find("effect-mcp-everything", 2)
      assert.isDefined(proxyServed, `the proxy's SERVER span, in ${JSON.stringify(spans.map((s) => s.name))}`)
      assert.isDefined(proxySent, "the proxy's CLIENT span")
      assert.isDefined(served, "the demo's SERVER span")
      assert.strictEqual(proxyServed!.parentSpanId, sent.spanContext().spanId)
      assert.strictEqual(proxySent!.parentSpanId, proxyServed!.spanId)
      assert.strictEqual(served!.parentSpanId, proxySent!.spanId)
      assert.strictEqual(proxyServed!.attributes["mcp.protocol.version"], "2026-07-28")
      assert.strictEqual(proxyServed!.attributes["network.transport"], "tcp")
      assert.strictEqual(proxySent!.attributes["network.transport"], "pipe")
      assert.strictEqual(served!.attributes["network.transport"], "pipe")
      assert.strictEqual(served!.attributes["gen_ai.tool.name"], "test_simple_text")
    }).pipe(Effect.provide(otel))
  }, 60_000)
})
