/**
 * effect-mcp serving the `add` tool (the one of `apps/everything`, `ours-add.ts`) over Streamable
 * HTTP, in one of the two ways the library offers, through its public API only:
 *
 * - `--mode layerHttp` (default): `NodeMcpServer.layerHttp({ port, host })`;
 * - `--mode router`: `HttpTransport.layer({ path: "/mcp" })` mounted on an `HttpLayerRouter`
 *   next to an application route (`GET /health`), served with `HttpLayerRouter.serve` (its
 *   request logger off) and `NodeHttpServer.layer(createServer, { port, host })`; with
 *   `--no-platform-tracer`, the platform's own span per request off too
 *   (`HttpMiddleware.withTracerDisabledWhen`, what a user who traces with our spans alone does).
 *
 * `--revisions handshake|stateless|dual` (`ours-add.ts`): the handshake era (default), the
 * stateless 2026-07-28 alone, or both on one endpoint.
 *
 * Idle sessions live for an hour and up to 100,000 sessions are allowed (`sessionIdleTimeout`,
 * `maxSessions`), so the memory benchmark can hold thousands; up to 20,000 connections at once
 * (its idle listens each hold one). Logs go to stderr; stdout is the control channel of
 * `control.ts`, with two commands of this server: `addTool` adds a tool (`extra-1`, `extra-2`, …)
 * through `McpServer.addTool` and answers `added <name>` once it is in; `subscriptions` answers
 * `subscriptions <n>`, the number of open `subscriptions/listen` (`McpServer.activeSubscriptions`).
 *
 * `--otlp <url>`: spans and metrics exported over OTLP/HTTP (protobuf) to `<url>/v1/traces` and
 * `<url>/v1/metrics` through `NodeTelemetry.layer` (spans in batches of 512 or every second,
 * metrics every `BENCH_OTLP_METRICS_MILLIS`, default 1000 ms), OTLP/JSON with `--otlp-json`, one
 * trace in `1/r` recorded with `--otlp-ratio <r>` (`parentbased_traceidratio`), spans alone
 * (no metrics recorded nor exported) with `--otlp-no-metrics`: what the telemetry benchmark measures. Without it, nothing of OpenTelemetry is loaded.
 *
 * `node dist/ours-http-server.js --port N [--mode layerHttp|router [--no-platform-tracer]] [--revisions handshake|stateless|dual] [--otlp <url> [--otlp-json] [--otlp-ratio r] [--otlp-no-metrics]]`
 */
import { NodeMcpServer, NodeTelemetry } from "@effect-mcp/platform-node"
import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { createServer } from "node:http"
import { port, ready } from "./control.js"
import { revisionsArg, serverOf } from "./ours-add.js"

const listen = { port: port(), host: "127.0.0.1" }
const at = process.argv.indexOf("--mode")
const mode = at > 0 ? process.argv[at + 1] : "layerHttp"

/** Generous session limits, so the memory benchmark can hold its 10,000 idle sessions (`BENCH_MAX_SESSIONS` to test a cap). */
const transportOptions: HttpTransport.Options = {
  path: "/mcp",
  sessionIdleTimeout: "1 hour",
  maxSessions: Number(process.env.BENCH_MAX_SESSIONS ?? 100_000)
}

const Health = HttpLayerRouter.add("GET", "/health", HttpServerResponse.text("ok"))

const Routed = HttpLayerRouter.serve(Layer.mergeAll(HttpTransport.layer(transportOptions), Health), {
  disableLogger: true,
  disableListenLog: true
})

const Http: Layer.Layer<never, unknown, McpServer.McpServer> = mode === "router"
  ? (process.argv.includes("--no-platform-tracer")
    ? HttpMiddleware.withTracerDisabledWhen(Routed, () => true)
    : Routed).pipe(Layer.provide(NodeHttpServer.layer(createServer, listen)))
  : NodeMcpServer.layerHttp({ ...transportOptions, ...listen, maxConnections: 20_000 })

if (mode !== "router" && mode !== "layerHttp") {
  process.stderr.write(`unknown mode ${mode}: layerHttp or router\n`)
  process.exit(2)
}

const otlpAt = process.argv.indexOf("--otlp")
const otlp = otlpAt > 0 ? process.argv[otlpAt + 1] : undefined
const protocol = process.argv.includes("--otlp-json") ? "http/json" : "http/protobuf"
const ratioAt = process.argv.indexOf("--otlp-ratio")
const ratio = ratioAt > 0 ? Number(process.argv[ratioAt + 1]) : 1
const noMetrics = process.argv.includes("--otlp-no-metrics")

/** Provided outside the server, as the README has it: the tracer must be in place when the server is built. */
const Telemetry = otlp === undefined ? Layer.empty : NodeTelemetry.layer({
  traces: {
    url: `${otlp}/v1/traces`,
    protocol,
    headers: {},
    interval: Duration.seconds(1),
    sampler: { name: "parentbased_traceidratio", ratio }
  },
  metrics: noMetrics ? undefined : {
    url: `${otlp}/v1/metrics`,
    protocol,
    headers: {},
    interval: Duration.millis(Number(process.env.BENCH_OTLP_METRICS_MILLIS ?? 1_000))
  },
  resource: { serviceName: "bench-add", attributes: {} },
  warnings: []
  // Spans alone: no histograms recorded either (exported or not, "auto" would record them).
}, noMetrics ? { metrics: false } : {})

/** Tool `extra-<n>`, added by the `addTool` command. */
const extra = (n: number) => Tool.make(`extra-${n}`, { description: "Added while running" }, () => Effect.succeed("ok"))

/** Ready, with the `addTool` and `subscriptions` commands run on the server in context. */
const control = Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  const run = Runtime.runPromise(yield* Effect.runtime<never>())
  let added = 0
  ready({
    addTool: () => {
      const tool = extra(++added)
      return run(server.addTool(tool)).then(() => `added ${tool.name}`)
    },
    subscriptions: () => run(server.activeSubscriptions).then((open) => `subscriptions ${open.length}`)
  })
})

Http.pipe(
  Layer.provideMerge(serverOf(revisionsArg())),
  Layer.tap((context) => Effect.provide(control, context)),
  Layer.provide(Telemetry),
  Layer.launch,
  Effect.tapErrorCause(Effect.logError),
  Effect.provide(NodeMcpServer.layerStderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
