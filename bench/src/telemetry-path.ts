/**
 * What telemetry costs on the request path itself, in one process, without HTTP or export: the CPU
 * per request of recording a stateless `tools/call` done at once, against the OpenTelemetry SDK's
 * own calls for the same span. Steadier than `telemetry.ts` on a busy machine (no sockets, no
 * children, the same process for every case, rounds alternating), and it names the parts:
 *
 * - `floor`: the SDK alone, as `otel-floor-http-server.ts` calls it: `startSpan` (SERVER), the
 *   same seven attributes, status OK, `end`; `floor + histogram`: and the SDK's histogram
 *   (`MeterProvider`) with the same labels;
 * - `bridge`: the same span through `@effect/opentelemetry`'s tracer (Effect's `Tracer.span`,
 *   `attribute`, `end`), as our engine hands it over: the bridge's own cost;
 * - `at once`: `Peer.requests(...).answeredAtOnce` (what the stateless HTTP back end records a
 *   request done at once with): our description of the request, the span through the bridge and
 *   the histogram when metrics are on;
 * - `at once, TelemetryTracer`: the same through the library's own tracer on the OpenTelemetry API
 *   (`@effect-mcp/platform-node/TelemetryTracer`, what `NodeTelemetry.layer` sets) instead of the
 *   bridge; `… + histogram`: and the histogram;
 * - `in a fiber`: `Peer.requests(...).serve` of the same request (its span, then a fiber that
 *   answers it): the path such a request took with telemetry on before `answeredAtOnce`.
 *
 * Every span goes through a `BatchSpanProcessor` (queue 2048, batches of 512) to an exporter that
 * drops it; the histograms' readers export nothing. Prints the median CPU per request of each
 * case over the rounds and each one's added CPU over the floor's (all less the cost of building
 * the request itself). Environment: BENCH_ROUNDS (9), BENCH_REQUESTS (20,000 a round).
 *
 * A benchmark, not a test.
 */
import { type JsonRpc, Peer, Telemetry } from "@effect-mcp/core"
import * as TelemetryTracer from "@effect-mcp/platform-node/TelemetryTracer"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as Api from "@opentelemetry/api"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import * as TraceBase from "@opentelemetry/sdk-trace-base"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { median, table } from "./proc.js"
import { record } from "./summary.js"

const resource = resourceFromAttributes({ "service.name": "bench-add" })
const provider = new TraceBase.BasicTracerProvider({
  resource,
  sampler: new TraceBase.ParentBasedSampler({ root: new TraceBase.TraceIdRatioBasedSampler(1) }),
  spanLimits: { attributeValueLengthLimit: 1_024 },
  spanProcessors: [
    new TraceBase.BatchSpanProcessor({ export: (_, done) => done({ code: 0 }), shutdown: async () => {} }, {
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduledDelayMillis: 1_000
    })
  ]
})
const meters = new MeterProvider({
  resource,
  readers: [
    new PeriodicExportingMetricReader({
      exporter: {
        export: (_, done) => done({ code: 0 }),
        shutdown: async () => {},
        forceFlush: async () => {},
        selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE
      },
      exportIntervalMillis: 1_000
    })
  ]
})
const histogram = meters.getMeter("bench").createHistogram("mcp.server.operation.duration", {
  unit: "s",
  advice: { explicitBucketBoundaries: [...Telemetry.durationBuckets] }
})
const otel = provider.getTracer("bench")
const tracer = Effect.runSync(Effect.provideService(OtelTracer.make, OtelTracer.OtelTracer, otel))
const clock = Effect.runSync(Effect.clock)

/** The library's tracer on the OpenTelemetry API (what `NodeTelemetry.layer` sets), over the same SDK tracer. */
const direct = TelemetryTracer.fromOtel(otel)

/** Our engine's serving of requests on channels of their own, spans (and metrics) on. */
const requests = (metrics: boolean, through = tracer) =>
  Effect.runSync(
    Peer.requests({
      revision: () => Effect.succeed("2026-07-28" as const),
      telemetry: { transport: "tcp", protocol: "http" },
      known: { tool: (name) => name === "add", prompt: () => false }
    }).pipe(Effect.withTracer(through), Effect.provide(Telemetry.layer({ spans: true, metrics })))
  )
const spansOnly = requests(false)
const withMetrics = requests(true)
const directSpans = requests(false, direct)
const directWithMetrics = requests(true, direct)

const request = (id: number): JsonRpc.Request => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: {
    name: "add",
    arguments: { a: 1, b: 2 },
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }
  }
})
const result = { content: [{ type: "text", text: `{"sum":3}` }], structuredContent: { sum: 3 } }

/** Requests answered so far (a fiber answers later). */
let answered = 0
const sink = {
  answer: () =>
    Effect.sync(() => {
      answered++
    }),
  unanswered: () => {}
}

const nameOf = (message: JsonRpc.Request) => `${message.method} ${(message.params as { name: string }).name}`

const floorSpan = (message: JsonRpc.Request) => {
  const span = otel.startSpan(nameOf(message), { kind: Api.SpanKind.SERVER }, Api.ROOT_CONTEXT)
  span.setAttribute("mcp.method.name", message.method)
  span.setAttribute("gen_ai.tool.name", (message.params as { name: string }).name)
  span.setAttribute("gen_ai.operation.name", "execute_tool")
  span.setAttribute("jsonrpc.request.id", String(message.id))
  span.setAttribute("network.transport", "tcp")
  span.setAttribute("network.protocol.name", "http")
  span.setAttribute("mcp.protocol.version", "2026-07-28")
  span.setStatus({ code: Api.SpanStatusCode.OK })
  span.end()
}

const atOnce = (served: Peer.Requests<never>) => (id: number) => {
  served.answeredAtOnce!(request(id), { jsonrpc: "2.0", id, result }, "2026-07-28")
  answered++
}

const cases: ReadonlyArray<readonly [string, (id: number) => void]> = [
  ["nothing (the request built)", (id) => {
    request(id)
    answered++
  }],
  ["floor: SDK span", (id) => {
    floorSpan(request(id))
    answered++
  }],
  ["floor + histogram: SDK span and histogram", (id) => {
    const started = performance.now()
    const message = request(id)
    floorSpan(message)
    histogram.record((performance.now() - started) / 1000, {
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "mcp.method.name": message.method,
      "gen_ai.tool.name": (message.params as { name: string }).name,
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": "2026-07-28"
    })
    answered++
  }],
  ["bridge: the span through @effect/opentelemetry", (id) => {
    const message = request(id)
    const span = tracer.span(
      nameOf(message),
      Option.none(),
      Context.empty(),
      [],
      clock.unsafeCurrentTimeNanos(),
      "server"
    )
    span.attribute("mcp.method.name", message.method)
    span.attribute("gen_ai.tool.name", (message.params as { name: string }).name)
    span.attribute("gen_ai.operation.name", "execute_tool")
    span.attribute("jsonrpc.request.id", String(message.id))
    span.attribute("network.transport", "tcp")
    span.attribute("network.protocol.name", "http")
    span.attribute("mcp.protocol.version", "2026-07-28")
    span.end(clock.unsafeCurrentTimeNanos(), Exit.void)
    answered++
  }],
  ["at once: Peer.requests answeredAtOnce, spans", atOnce(spansOnly)],
  ["at once: spans + histogram", atOnce(withMetrics)],
  ["at once, TelemetryTracer: spans", atOnce(directSpans)],
  ["at once, TelemetryTracer: spans + histogram", atOnce(directWithMetrics)],
  ["in a fiber: Peer.requests serve, spans", (id) => {
    spansOnly.serve(request(id), sink, () => Exit.succeed(result))
  }],
  ["in a fiber: spans + histogram", (id) => {
    withMetrics.serve(request(id), sink, () => Exit.succeed(result))
  }]
]

const perRound = Number(process.env.BENCH_REQUESTS ?? 20_000)
const turn = () => new Promise((resolve) => setImmediate(resolve))

/** CPU per request of one case, µs: batches of 200 a turn (the processor's timers and the fibers run between). */
const measure = async (run: (id: number) => void): Promise<number> => {
  answered = 0
  const before = process.cpuUsage()
  for (let start = 0; start < perRound; start += 200) {
    for (let id = start; id < start + 200; id++) run(id)
    await turn()
  }
  while (answered < perRound) await turn()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / perRound
}

const main = async () => {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 9)
  for (const [, run] of cases) await measure(run)
  const figures = cases.map(() => [] as Array<number>)
  for (let round = 0; round < rounds; round++) {
    for (const [c, [, run]] of cases.entries()) figures[c].push(await measure(run))
  }
  const medians = figures.map(median)
  const base = medians[0]
  const floor = medians[1] - base
  const floorMetrics = medians[2] - base
  const rows = [["case", "CPU/req", "added", "÷ floor's added", "rounds"]]
  cases.forEach(([name], c) => {
    const added = medians[c] - base
    const against = name.includes("histogram") ? floorMetrics : floor
    rows.push([
      name,
      `${medians[c].toFixed(2)} µs`,
      c === 0 ? "" : `${added.toFixed(2)} µs`,
      c === 0 ? "" : (added / against).toFixed(2),
      figures[c].map((x) => x.toFixed(1)).join(" ")
    ])
  })
  process.stdout.write(
    [
      `Telemetry on the request path, in process (no HTTP, no export): CPU per request, median of ${rounds} rounds ` +
      `of ${perRound} requests; added: less the request built; ÷ floor's: over the SDK's own added cost ` +
      `(span, or span + histogram)`,
      ...table(rows)
    ].join("\n") + "\n"
  )
  const ratio = (c: number, against: number) => ((medians[c] - base) / against).toFixed(2)
  record([
    { section: "telemetry-path", label: "bridge ÷ SDK span", value: ratio(3, floor) },
    { section: "telemetry-path", label: "at once, spans ÷ SDK span", value: ratio(4, floor) },
    { section: "telemetry-path", label: "at once, spans + histogram ÷ SDK's", value: ratio(5, floorMetrics) },
    { section: "telemetry-path", label: "at once, TelemetryTracer, spans ÷ SDK span", value: ratio(6, floor) },
    {
      section: "telemetry-path",
      label: "at once, TelemetryTracer, spans + histogram ÷ SDK's",
      value: ratio(7, floorMetrics)
    },
    { section: "telemetry-path", label: "in a fiber, spans ÷ SDK span", value: ratio(8, floor) }
  ])
  await provider.shutdown()
  await meters.shutdown()
}

main().catch((error) => {
  process.stderr.write(`TELEMETRY PATH BENCHMARK FAILED: ${String(error?.stack ?? error)}\n`)
  process.exit(1)
})
