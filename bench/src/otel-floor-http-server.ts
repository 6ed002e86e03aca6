/**
 * The floor of the telemetry benchmark: the bare `node:http` server (`bare-answer.ts`) making one
 * OpenTelemetry SDK span per request, as a hand-written server instrumented with the SDK alone
 * would: what the SDK's own recording and export cost, measured beside ours (`telemetry.ts`).
 *
 * With `--otlp <url>`: a SERVER span per request through `BasicTracerProvider`, its parent the
 * `traceparent` of the request's `_meta` when there is one, named and with the attributes our
 * server's spans have for the same call (`tools/call add`: `mcp.method.name`, `gen_ai.tool.name`,
 * `gen_ai.operation.name`, `jsonrpc.request.id`, `network.transport`, `network.protocol.name`,
 * `mcp.protocol.version`, `mcp.session.id` in a session, status OK), the same sampler as
 * `ours-http-server.ts` (`parentbased_traceidratio`, ratio 1 unless `--otlp-ratio`), span limit
 * and resource, through a `BatchSpanProcessor` (queue 2048, batches of 512 or every second) and
 * `OTLPTraceExporter` (protobuf) to `<url>/v1/traces`. With `--otlp-metrics` too, the histogram
 * `mcp.server.operation.duration` (seconds, the conventions' buckets, the labels our server
 * records) through a `MeterProvider` and `OTLPMetricExporter` (protobuf) to `<url>/v1/metrics`,
 * every `BENCH_OTLP_METRICS_MILLIS` (1000). Without `--otlp`, nothing of OpenTelemetry is loaded:
 * the floor with telemetry off.
 *
 * `node dist/otel-floor-http-server.js --port N [--otlp <url> [--otlp-metrics] [--otlp-ratio r]]`
 */
import type * as OtelApi from "@opentelemetry/api"
import { createServer, type IncomingMessage } from "node:http"
import { answer, headersOf, type Message, revisionOf } from "./bare-answer.js"
import { flag, port, ready } from "./control.js"

const otlpAt = process.argv.indexOf("--otlp")
const otlp = otlpAt > 0 ? process.argv[otlpAt + 1] : undefined
const ratioAt = process.argv.indexOf("--otlp-ratio")
const ratio = ratioAt > 0 ? Number(process.argv[ratioAt + 1]) : 1

/** Records one request: called when it arrives, the returned function when it is answered. */
type Recorder = (message: Message, request: IncomingMessage) => () => void

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The conventions' buckets of the operation histogram, in seconds (as `Telemetry.durationBuckets`). */
const buckets = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]

const instrument = async (url: string): Promise<Recorder> => {
  const [api, { resourceFromAttributes }, TraceBase, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-proto")
  ])
  const resource = resourceFromAttributes({ "service.name": "bench-add" })
  const provider = new TraceBase.BasicTracerProvider({
    resource,
    sampler: new TraceBase.ParentBasedSampler({ root: new TraceBase.TraceIdRatioBasedSampler(ratio) }),
    spanLimits: { attributeValueLengthLimit: 1_024 },
    spanProcessors: [
      new TraceBase.BatchSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces` }), {
        maxQueueSize: 2048,
        maxExportBatchSize: 512,
        scheduledDelayMillis: 1_000
      })
    ]
  })
  const tracer = provider.getTracer("bench-floor")
  let histogram: OtelApi.Histogram | undefined
  if (flag("otlp-metrics")) {
    const [{ MeterProvider, PeriodicExportingMetricReader }, { OTLPMetricExporter }] = await Promise.all([
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/exporter-metrics-otlp-proto")
    ])
    const meters = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${url}/v1/metrics` }),
          exportIntervalMillis: Number(process.env.BENCH_OTLP_METRICS_MILLIS ?? 1_000)
        })
      ]
    })
    histogram = meters.getMeter("bench-floor").createHistogram("mcp.server.operation.duration", {
      unit: "s",
      description: "The duration of the MCP request or notification as observed on the receiver, in seconds",
      advice: { explicitBucketBoundaries: buckets }
    })
  }
  const parentOf = (message: Message): OtelApi.Context => {
    const traceparent = message.params?._meta?.traceparent
    const match = typeof traceparent === "string" ? traceparentPattern.exec(traceparent) : null
    if (match === null) return api.ROOT_CONTEXT
    return api.trace.setSpanContext(api.ROOT_CONTEXT, {
      traceId: match[1],
      spanId: match[2],
      traceFlags: parseInt(match[3], 16),
      isRemote: true
    })
  }
  return (message, request) => {
    const started = performance.now()
    const method = message.method ?? ""
    const tool = method === "tools/call" ? message.params?.name : undefined
    const version = revisionOf(message) ?? "2025-11-25"
    const session = request.headers["mcp-session-id"]
    const span = tracer.startSpan(
      tool === undefined ? method : `${method} ${tool}`,
      { kind: api.SpanKind.SERVER },
      parentOf(message)
    )
    span.setAttribute("mcp.method.name", method)
    if (tool !== undefined) {
      span.setAttribute("gen_ai.tool.name", tool)
      span.setAttribute("gen_ai.operation.name", "execute_tool")
    }
    span.setAttribute("jsonrpc.request.id", String(message.id))
    span.setAttribute("network.transport", "tcp")
    span.setAttribute("network.protocol.name", "http")
    if (typeof session === "string") span.setAttribute("mcp.session.id", session)
    return () => {
      span.setAttribute("mcp.protocol.version", version)
      span.setStatus({ code: api.SpanStatusCode.OK })
      span.end()
      histogram?.record((performance.now() - started) / 1000, {
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "mcp.method.name": method,
        ...(tool === undefined ? {} : { "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool" }),
        "mcp.protocol.version": version
      })
    }
  }
}

const main = async () => {
  const record = otlp === undefined ? undefined : await instrument(otlp)
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const message: Message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      if (message.id === undefined) {
        response.writeHead(202).end()
        return
      }
      const end = record?.(message, request)
      const text = answer(message)
      response.writeHead(200, headersOf(message, text)).end(text)
      end?.()
    })
  })
  server.listen(port(), "127.0.0.1", () => ready({}))
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`)
  process.exit(1)
})
