/**
 * One trace from the downstream client through `mcp gateway` to its upstream: our client here (spans
 * to OpenTelemetry's in-memory exporter), `mcp gateway` (apps/cli, built) serving 2026-07-28 over
 * HTTP, and the demo server (apps/everything, built) behind it over stdio in the handshake era,
 * mounted as `demo`. The two children export OTLP over HTTP (JSON) to a receiver this test starts
 * (test/telemetry/support.ts), configured by the standard variables.
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
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Programs from "../support/Programs.js"
import { exportTo, receiver, start, until } from "../telemetry/support.js"

const mcpMain = Programs.mcpMain
const everything = Programs.demoMain

describe("mcp gateway: telemetry", () => {
  it.scopedLive("client → mcp gateway → demo server: one trace, each span the child of the one before", () => {
    const exporter = new InMemorySpanExporter()
    const otel = NodeSdk.layer(() => ({
      resource: { serviceName: "telemetry-client" },
      spanProcessor: new SimpleSpanProcessor(exporter)
    }))
    return Effect.gen(function*() {
      const { spans, url } = yield* receiver
      const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-trace-"))
      const file = path.join(dir, "gateway.json")
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            // An upstream gets only an allow-listed environment: its telemetry is configured here.
            demo: { command: process.execPath, args: [everything, "stdio", "--era", "handshake"], env: exportTo(url) }
          }
        })
      )
      const port = yield* Services.freePort
      const gateway = yield* start(
        [mcpMain, "gateway", "--config", file, "--port", String(port), "--serve", "stateless", "--start-timeout", "60"],
        exportTo(url)
      )
      // Serving once its upstream is up: as long as that takes here.
      yield* until(() => gateway.stderr().includes("mcp gateway: serving at"), "the gateway serving")
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "telemetry-client", version: "1.0.0" }, era: "stateless" }).pipe(
          Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      const client = yield* Effect.provide(McpClient.McpClient, context)
      const result = yield* Effect.withSpan(client.callTool("demo_test_simple_text"), "caller")
      assert.strictEqual(result.isError, undefined)
      // The gateway ends its upstream (the demo) as it stops: both flush.
      yield* gateway.stop
      const sent = exporter.getFinishedSpans().find((s) =>
        s.name === "tools/call demo_test_simple_text" && s.kind === SpanKind.CLIENT
      )!
      assert.isDefined(sent)
      const trace = sent.spanContext().traceId
      // OTLP span kinds: 2 SERVER, 3 CLIENT.
      const find = (service: string, name: string, kind: number) =>
        spans.find((s) => s.traceId === trace && s.service === service && s.name === name && s.kind === kind)
      const gatewayServed = () => find("mcp", "tools/call demo_test_simple_text", 2)
      const gatewaySent = () => find("mcp", "tools/call test_simple_text", 3)
      const served = () => find("effect-mcp-everything", "tools/call test_simple_text", 2)
      // What the children flush arrives when it arrives.
      yield* until(
        () => gatewayServed() !== undefined && gatewaySent() !== undefined && served() !== undefined,
        "the gateway's and the demo's spans"
      ).pipe(Effect.catchAllDefect(() => Effect.void))
      const names = JSON.stringify(spans.map((s) => [s.service, s.name, s.kind, s.traceId === trace]))
      assert.isDefined(gatewayServed(), `the gateway's SERVER span, in ${names}`)
      assert.isDefined(gatewaySent(), `the gateway's CLIENT span to the upstream, in ${names}`)
      assert.isDefined(served(), `the demo's SERVER span, in ${names}`)
      assert.strictEqual(gatewayServed()!.parentSpanId, sent.spanContext().spanId)
      assert.strictEqual(gatewaySent()!.parentSpanId, gatewayServed()!.spanId)
      assert.strictEqual(served()!.parentSpanId, gatewaySent()!.spanId)
      assert.strictEqual(served()!.attributes["gen_ai.tool.name"], "test_simple_text")
    }).pipe(Effect.provide(otel))
  }, 90_000)
})
