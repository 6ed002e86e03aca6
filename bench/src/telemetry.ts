/**
 * What telemetry costs: `tools/call add` over Streamable HTTP through `NodeMcpServer.layerHttp`
 * (`ours-http-server.ts`), in the handshake era (one session per connection) and in the stateless
 * 2026-07-28 revision, against servers in child processes (the engine, rounds and ratios:
 * `http-bench.ts`), servers in alternating rounds:
 *
 * - `off`: this tree, no telemetry layer (Effect's default tracer: nothing recorded);
 * - `on-spans`: this tree with `--otlp --otlp-no-metrics`: every request's SERVER span exported
 *   over OTLP/HTTP protobuf (`NodeTelemetry.layer`, spans in batches of 512 or every second) to a
 *   sink in this process that reads each batch, counts its spans and answers 200;
 * - `on`: the same with the operation histogram too (metrics every second);
 * - `floor-off`, `floor-spans`, `floor`: the OpenTelemetry SDK's own cost, the floor
 *   (`otel-floor-http-server.ts`): a bare `node:http` server answering the same JSON, with no
 *   telemetry, with one SDK span per request (the same name, attributes, sampler, limits,
 *   `BatchSpanProcessor` and protobuf exporter, to the same sink), and with the SDK's histogram too;
 * - `on-json` (opt-in): `on` over OTLP/JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`);
 * - `sampled` (opt-in): `on` with one trace in ten recorded (`parentbased_traceidratio`, 0.1),
 *   the histograms still of every request: shown, no target;
 * - `today`: the same server built from the commit before telemetry (`BENCH_TELEMETRY_BASELINE`,
 *   default d960d16; `baseline.ts` builds it once, or `BENCH_BASELINE=<dir>` names a built tree).
 *
 * Targets (medians of per-round ratios): off ≥ 98% of today (telemetry off costs nothing); the CPU
 * per request telemetry adds to ours (`on-spans` − `off`, `on` − `off`) ÷ what it adds to the
 * floor (`floor-spans` − `floor-off`, `floor` − `floor-off`) ≤ 1.2, spans alone and spans +
 * metrics. The sink's counts show the spans were exported, not dropped: spans received per second
 * of the whole run, and per request answered.
 *
 * Environment: BENCH_ROUNDS (4), BENCH_HTTP_MILLIS (1500), BENCH_TELEMETRY_ERAS ("handshake,stateless"),
 * BENCH_HTTP_SERVERS (keys: off, on-spans, on, floor-off, floor-spans, floor, on-json, sampled, today), and
 * those of `http-bench.ts` (BENCH_PROFILE=<dir> for CPU profiles of the measured runs).
 *
 * A benchmark, not a test.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { baseline } from "./baseline.js"
import { type Envelope, handshakeEra, stateless } from "./envelope.js"
import { type Measured, run } from "./http-bench.js"
import { BenchFailure, here, median, num, table } from "./proc.js"
import { record, type Row } from "./summary.js"

/** Reads a protobuf varint at `at`: its value and where the next field starts. */
const varint = (bytes: Uint8Array, at: number): [number, number] => {
  let value = 0
  let shift = 0
  for (;;) {
    if (at >= bytes.length) throw new BenchFailure("truncated protobuf")
    const byte = bytes[at++]
    value += (byte & 0x7f) * 2 ** shift
    if (byte < 0x80) return [value, at]
    shift += 7
  }
}

/** The length-delimited fields numbered `field` of a protobuf message. */
const fields = (bytes: Uint8Array, field: number): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  let at = 0
  while (at < bytes.length) {
    const [tag, next] = varint(bytes, at)
    at = next
    const type = tag & 7
    if (type === 0) at = varint(bytes, at)[1]
    else if (type === 1) at += 8
    else if (type === 5) at += 4
    else if (type === 2) {
      const [length, start] = varint(bytes, at)
      if (tag >>> 3 === field) out.push(bytes.subarray(start, start + length))
      at = start + length
    } else throw new BenchFailure(`protobuf wire type ${type}`)
  }
  return out
}

/**
 * The spans of an `ExportTraceServiceRequest`: resource_spans (1) → scope_spans (2) → spans (2).
 */
const spanCount = (body: Uint8Array): number => {
  let spans = 0
  for (const resource of fields(body, 1)) {
    for (const scope of fields(resource, 2)) spans += fields(scope, 2).length
  }
  return spans
}

const startTime = Buffer.from(`"startTimeUnixNano"`)

/**
 * The spans of an `ExportTraceServiceRequest` in OTLP/JSON: each span has one `startTimeUnixNano`
 * (events and links have none). Counted in the bytes, not parsed: the sink shares its process with
 * the load, and parsing 512 spans 15 times a second would slow the load, not the server.
 */
const jsonSpanCount = (body: Buffer): number => {
  let spans = 0
  for (let at = body.indexOf(startTime); at >= 0; at = body.indexOf(startTime, at + startTime.length)) spans++
  return spans
}

interface Sink {
  readonly url: string
  readonly counts: { spans: number; traceBatches: number; metricBatches: number; bytes: number; bad: number }
  readonly close: () => Promise<void>
}

/** An OTLP/HTTP receiver on 127.0.0.1 that counts what it is sent and keeps nothing. */
const startSink = (): Promise<Sink> =>
  new Promise((resolve, reject) => {
    const counts = { spans: 0, traceBatches: 0, metricBatches: 0, bytes: 0, bad: 0 }
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const body = Buffer.concat(chunks)
        counts.bytes += body.length
        try {
          if (request.url === "/v1/traces") {
            counts.traceBatches++
            counts.spans += (request.headers["content-type"] ?? "").includes("json")
              ? jsonSpanCount(body)
              : spanCount(body)
          } else if (request.url === "/v1/metrics") counts.metricBatches++
          else counts.bad++
        } catch {
          counts.bad++
        }
        response.writeHead(200, { "content-type": "application/x-protobuf", "content-length": 0 }).end()
      })
    })
    server.keepAliveTimeout = 30_000
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        counts,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      }))
  })

const eras: ReadonlyArray<{ readonly key: string; readonly title: string; readonly envelope: Envelope }> = [
  { key: "handshake", title: "2025-11-25, one session per connection", envelope: handshakeEra },
  { key: "stateless", title: "2026-07-28, stateless: one POST per call", envelope: stateless }
]

/** The added CPU per request of telemetry: ours (`on` − `off`) over the floor's (`floor` − `floor-off`). */
const added: ReadonlyArray<{
  readonly key: string
  readonly label: string
  readonly ours: readonly [string, string]
  readonly floor: readonly [string, string]
}> = [
  { key: "spans", label: "spans", ours: ["on-spans", "off"], floor: ["floor-spans", "floor-off"] },
  { key: "spans+metrics", label: "spans + metrics", ours: ["on", "off"], floor: ["floor", "floor-off"] }
]

/** The largest ratio of added CPU per request (ours ÷ the floor's) the target allows. */
const addedTarget = 1.2

/**
 * Prints and records, for each connection count, the CPU per request each telemetry adds, ours and
 * the floor's, and their ratio: per round (the four servers of a round measured a few seconds
 * apart), the median of the rounds' ratios judged against the target.
 */
const addedCpu = (section: string, measured: Map<string, Array<Measured>>): void => {
  const rows = [["added CPU/req (median of rounds)", "conns", "ours", "floor", "ours ÷ floor", "per round", "target"]]
  const summary: Array<Row> = []
  for (const { floor, label, ours } of added) {
    const servers = [...ours, ...floor].map((key) => measured.get(key))
    if (servers.some((server) => server === undefined)) continue
    const [on, off, floorOn, floorOff] = servers as Array<Array<Measured>>
    on.forEach((_, c) => {
      const cpu = (server: Array<Measured>, r: number) => server[c].rounds[r].serverCpuPerRequest
      const rounds = on[c].rounds.map((_, r) => r)
      const oursAdded = rounds.map((r) => cpu(on, r) - cpu(off, r))
      const floorAdded = rounds.map((r) => cpu(floorOn, r) - cpu(floorOff, r))
      const ratios = rounds.map((r) => oursAdded[r] / floorAdded[r])
      const value = median(ratios)
      const met = value <= addedTarget
      rows.push([
        label,
        String(on[c].connections),
        `${median(oursAdded).toFixed(1)} µs`,
        `${median(floorAdded).toFixed(1)} µs`,
        `${value.toFixed(2)}${met ? "" : " (!)"}`,
        ratios.map((x) => x.toFixed(2)).join(", "),
        `≤ ${addedTarget}${met ? " met" : " NOT MET"}`
      ])
      summary.push({
        section,
        label: `added CPU/req, ${label}, ours ÷ OpenTelemetry SDK floor (${on[c].connections} conns)`,
        value: `${value.toFixed(2)} (ours +${median(oursAdded).toFixed(1)} µs, floor +${
          median(floorAdded).toFixed(1)
        } µs; rounds ${ratios.map((x) => x.toFixed(2)).join(", ")})`,
        target: `≤ ${addedTarget}`,
        met
      })
    })
  }
  if (summary.length === 0) return
  process.stdout.write(
    [
      ...table(rows),
      "added CPU/req: a server's CPU time per request with telemetry on minus without it, in the same round; " +
      "ours: on-spans / on − off, the floor's: floor-spans / floor − floor-off."
    ].join("\n") + "\n"
  )
  record(summary)
}

const main = async () => {
  const commit = process.env.BENCH_TELEMETRY_BASELINE ?? "d960d16"
  const wanted = (process.env.BENCH_TELEMETRY_ERAS ?? "handshake,stateless").split(",")
  const chosen = eras.filter((era) => wanted.includes(era.key))
  if (chosen.length === 0) throw new BenchFailure(`BENCH_TELEMETRY_ERAS=${wanted.join(",")}: handshake, stateless`)
  const servers = process.env.BENCH_HTTP_SERVERS?.split(",")
  // Built (once) only when it is measured.
  const today = servers !== undefined && !servers.includes("today")
    ? ""
    : join(baseline(commit), "bench/dist/ours-http-server.js")
  const sink = await startSink()
  try {
    for (const era of chosen) {
      const revisions = ["--revisions", era.key]
      const before = { ...sink.counts }
      const started = performance.now()
      const section = era.key === "handshake" ? "telemetry" : "telemetry-stateless"
      const ours = here("./ours-http-server.js")
      const floor = here("./otel-floor-http-server.js")
      const measured = await run({
        section,
        title: `HTTP tools/call add, telemetry off / on / before it / the OpenTelemetry SDK's floor (${era.title})`,
        envelope: era.envelope,
        rounds: Number(process.env.BENCH_ROUNDS ?? 4),
        millis: Number(process.env.BENCH_HTTP_MILLIS ?? 1_500),
        servers: [
          { key: "off", name: "effect-mcp layerHttp, telemetry off", file: ours, args: revisions },
          {
            key: "on-spans",
            name: "effect-mcp layerHttp, spans, OTLP protobuf",
            file: ours,
            args: [...revisions, "--otlp", sink.url, "--otlp-no-metrics"]
          },
          {
            key: "on",
            name: "effect-mcp layerHttp, spans + metrics, OTLP protobuf",
            file: ours,
            args: [...revisions, "--otlp", sink.url]
          },
          { key: "floor-off", name: "node:http, no telemetry (floor off)", file: floor, args: [] },
          {
            key: "floor-spans",
            name: "node:http + OpenTelemetry SDK span, OTLP protobuf",
            file: floor,
            args: ["--otlp", sink.url]
          },
          {
            key: "floor",
            name: "node:http + OpenTelemetry SDK span + histogram, OTLP protobuf",
            file: floor,
            args: ["--otlp", sink.url, "--otlp-metrics"]
          },
          {
            key: "on-json",
            name: "effect-mcp layerHttp, spans + metrics, OTLP JSON",
            file: ours,
            args: [...revisions, "--otlp", sink.url, "--otlp-json"],
            optIn: true
          },
          {
            key: "sampled",
            name: "effect-mcp layerHttp, 1 trace in 10 + metrics, OTLP protobuf",
            file: ours,
            args: [...revisions, "--otlp", sink.url, "--otlp-ratio", "0.1"],
            optIn: true
          },
          { key: "today", name: `effect-mcp layerHttp at ${commit} (before telemetry)`, file: today, args: revisions }
        ],
        pairs: [
          {
            a: "off",
            b: "today",
            label: `off / ${commit}`,
            unit: "%",
            fine: true,
            target: { threshold: 0.98, shown: "98%" }
          },
          { a: "on-spans", b: "off", label: "on (spans) / off", unit: "%", fine: true },
          { a: "on", b: "off", label: "on (protobuf) / off", unit: "%", fine: true },
          { a: "floor", b: "floor-off", label: "floor on / floor off", unit: "%", fine: true },
          { a: "on-json", b: "off", label: "on (JSON) / off", unit: "%", fine: true },
          { a: "sampled", b: "off", label: "1 trace in 10 / off", unit: "%", fine: true }
        ],
        notes: [
          "on-spans, on, on-json: NodeTelemetry.layer, OTLP/HTTP (protobuf, JSON) to a sink in the benchmark's " +
          "process that counts each batch's spans and answers 200 with an empty body; floor-spans, floor: " +
          "otel-floor-http-server.ts, the OpenTelemetry SDK alone (BatchSpanProcessor, OTLPTraceExporter; " +
          "MeterProvider, OTLPMetricExporter) to the same sink."
        ]
      })
      addedCpu(section, measured)
      const seconds = (performance.now() - started) / 1000
      // Spans of the "on" servers and a tenth of the "sampled" one's.
      const spans = sink.counts.spans - before.spans
      const traceBatches = sink.counts.traceBatches - before.traceBatches
      const metricBatches = sink.counts.metricBatches - before.metricBatches
      const bytes = sink.counts.bytes - before.bytes
      if (sink.counts.bad > 0) throw new BenchFailure(`the sink got ${sink.counts.bad} requests it could not read`)
      if (spans === 0 || metricBatches === 0) {
        throw new BenchFailure(`the "on" servers exported ${spans} spans and ${metricBatches} metric batches`)
      }
      const line = `${num(spans)} spans in ${num(traceBatches)} batches (${
        (bytes / spans).toFixed(0)
      } bytes a span, metrics included), ${num(metricBatches)} metric batches; ${
        num(spans / seconds)
      } spans/s over the run (the "on" servers measured half of it)`
      process.stdout.write(`sink: ${line}\n`)
      record([{ section, label: "exported to the sink", value: line }])
    }
  } finally {
    await sink.close()
  }
}

main().catch((error) => {
  process.stderr.write(
    `TELEMETRY BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
