import { Telemetry } from "@effect-mcp/core"
import { NodeTelemetry } from "@effect-mcp/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as fs from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

describe("NodeTelemetry.settingsFromEnv", () => {
  it("exports nothing without an endpoint", () => {
    const settings = NodeTelemetry.settingsFromEnv({ env: {}, serviceName: "demo" })
    expect(settings.traces).toBeUndefined()
    expect(settings.metrics).toBeUndefined()
    expect(settings.resource.serviceName).toBe("demo")
    expect(settings.warnings).toEqual([])
  })

  it("bounds the last export at exit by the export timeouts where set, else half a second", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }
    const bound = (env: Record<string, string>, shutdownTimeout?: Duration.DurationInput) => {
      const settings = NodeTelemetry.settingsFromEnv({ env: { ...endpoint, ...env }, shutdownTimeout })
      return settings.shutdownTimeout === undefined ? undefined : Duration.toMillis(settings.shutdownTimeout)
    }
    expect(bound({})).toBeUndefined()
    expect(bound({ OTEL_BSP_EXPORT_TIMEOUT: "4000" })).toBe(4_000)
    expect(bound({ OTEL_BSP_EXPORT_TIMEOUT: "4000", OTEL_METRIC_EXPORT_TIMEOUT: "9000" })).toBe(9_000)
    expect(bound({ OTEL_METRIC_EXPORT_TIMEOUT: "9000" }, "2 seconds")).toBe(2_000)
    const malformed = NodeTelemetry.settingsFromEnv({ env: { ...endpoint, OTEL_BSP_EXPORT_TIMEOUT: "soon" } })
    expect(malformed.shutdownTimeout && Duration.toMillis(malformed.shutdownTimeout)).toBe(500)
    expect(malformed.warnings).toEqual([
      "OTEL_BSP_EXPORT_TIMEOUT=soon is not a positive number of milliseconds: using 500"
    ])
  })

  it("appends the signal paths to the base endpoint, protobuf by default", () => {
    const settings = NodeTelemetry.settingsFromEnv({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" }
    })
    expect(settings.traces?.url).toBe("http://127.0.0.1:4318/v1/traces")
    expect(settings.metrics?.url).toBe("http://127.0.0.1:4318/v1/metrics")
    expect(settings.traces?.protocol).toBe("http/protobuf")
    expect(Duration.toMillis(settings.traces!.interval)).toBe(5_000)
    expect(Duration.toMillis(settings.metrics!.interval)).toBe(60_000)
    expect(settings.traces).toMatchObject({
      maxQueueSize: 2048,
      maxBatchSize: 512,
      sampler: { name: "parentbased_always_on", ratio: 1 }
    })
    expect(settings.resource.serviceName).toBe("unknown_service:node")
  })

  it("takes per-signal endpoints as given, and per-signal protocols, headers and intervals", () => {
    const settings = NodeTelemetry.settingsFromEnv({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces.example/custom",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc, x-team = mcp",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: "x-team=metrics",
        OTEL_BSP_SCHEDULE_DELAY: "250",
        OTEL_BSP_MAX_QUEUE_SIZE: "100",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "20",
        OTEL_METRIC_EXPORT_INTERVAL: "1000"
      }
    })
    expect(settings.traces).toMatchObject({ maxQueueSize: 100, maxBatchSize: 20 })
    expect(settings.traces).toMatchObject({
      url: "http://traces.example/custom",
      protocol: "http/json",
      headers: { authorization: "Bearer abc", "x-team": "mcp" }
    })
    expect(settings.metrics).toMatchObject({
      url: "http://collector:4318/v1/metrics",
      protocol: "http/protobuf",
      headers: { authorization: "Bearer abc", "x-team": "metrics" }
    })
    expect(Duration.toMillis(settings.traces!.interval)).toBe(250)
    expect(Duration.toMillis(settings.metrics!.interval)).toBe(1_000)
  })

  it("reads the sampler and its ratio, and warns of one it does not know", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }
    const ratio = NodeTelemetry.settingsFromEnv({
      env: { ...base, OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }
    })
    expect(ratio.traces?.sampler).toEqual({ name: "parentbased_traceidratio", ratio: 0.25 })
    expect(ratio.warnings).toEqual([])
    const off = NodeTelemetry.settingsFromEnv({ env: { ...base, OTEL_TRACES_SAMPLER: "always_off" } })
    expect(off.traces?.sampler?.name).toBe("always_off")
    const unknown = NodeTelemetry.settingsFromEnv({
      env: { ...base, OTEL_TRACES_SAMPLER: "jaeger_remote" }
    })
    expect(unknown.traces?.sampler?.name).toBe("parentbased_always_on")
    expect(unknown.warnings.join("\n")).toMatch(/jaeger_remote/)
    const outOfRange = NodeTelemetry.settingsFromEnv({
      env: { ...base, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }
    })
    expect(outOfRange.traces?.sampler).toEqual({ name: "traceidratio", ratio: 1 })
    expect(outOfRange.warnings).toHaveLength(1)
  })

  it("names the service from OTEL_SERVICE_NAME, then the resource attributes, then the caller", () => {
    const env = {
      OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,deployment.environment=prod%2Beu,service.version=2"
    }
    const fromAttributes = NodeTelemetry.settingsFromEnv({ env, serviceName: "caller", serviceVersion: "1" })
    expect(fromAttributes.resource).toEqual({
      serviceName: "from-attrs",
      serviceVersion: "2",
      attributes: { "deployment.environment": "prod+eu" }
    })
    const named = NodeTelemetry.settingsFromEnv({ env: { ...env, OTEL_SERVICE_NAME: "named" } })
    expect(named.resource.serviceName).toBe("named")
  })

  it("honours none and OTEL_SDK_DISABLED, and warns of what it cannot do", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }
    const noTraces = NodeTelemetry.settingsFromEnv({ env: { ...base, OTEL_TRACES_EXPORTER: "none" } })
    expect(noTraces.traces).toBeUndefined()
    expect(noTraces.metrics).toBeDefined()
    const disabled = NodeTelemetry.settingsFromEnv({ env: { ...base, OTEL_SDK_DISABLED: "TRUE" } })
    expect(disabled.traces).toBeUndefined()
    expect(disabled.metrics).toBeUndefined()
    const grpc = NodeTelemetry.settingsFromEnv({
      env: { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_METRICS_EXPORTER: "prometheus" }
    })
    expect(grpc.traces).toBeUndefined()
    expect(grpc.metrics).toBeUndefined()
    expect(grpc.warnings).toHaveLength(2)
    expect(grpc.warnings.join("\n")).toMatch(/grpc/)
    expect(grpc.warnings.join("\n")).toMatch(/prometheus/)
    const badNumber = NodeTelemetry.settingsFromEnv({
      env: { ...base, OTEL_BSP_SCHEDULE_DELAY: "soon", OTEL_BSP_MAX_QUEUE_SIZE: "0" }
    })
    expect(Duration.toMillis(badNumber.traces!.interval)).toBe(5_000)
    expect(badNumber.traces?.maxQueueSize).toBe(2048)
    expect(badNumber.warnings).toHaveLength(2)
    const badUrl = NodeTelemetry.settingsFromEnv({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" } })
    expect(badUrl.traces).toBeUndefined()
    expect(badUrl.warnings).toHaveLength(1)
  })

  it("takes the caller's shutdownTimeout (the layer's default, half a second, when absent)", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }
    expect(NodeTelemetry.settingsFromEnv({ env: base }).shutdownTimeout).toBeUndefined()
    expect(Duration.toMillis(NodeTelemetry.defaultShutdownTimeout)).toBe(500)
    const given = NodeTelemetry.settingsFromEnv({ env: base, shutdownTimeout: "2 seconds" })
    expect(Duration.toMillis(given.shutdownTimeout!)).toBe(2_000)
  })

  it("reads the attribute length limit, the span one first; 1,024 when unset (the SDK's own default is none)", () => {
    const limitOf = (env: Record<string, string>) => NodeTelemetry.settingsFromEnv({ env })
    expect(limitOf({}).attributeValueLengthLimit).toBe(1024)
    expect(limitOf({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "300" }).attributeValueLengthLimit).toBe(300)
    expect(
      limitOf({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "300", OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "200" })
        .attributeValueLengthLimit
    ).toBe(200)
    const bad = limitOf({ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "short" })
    expect(bad.attributeValueLengthLimit).toBe(1024)
    expect(bad.warnings.join("\n")).toMatch(/OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT=short/)
  })
})

interface Received {
  readonly path: string
  readonly contentType: string | undefined
  readonly body: any
}

/** `count` spans, `span 0` …, each ended at once. */
const spansEnded = (count: number) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) => Effect.void.pipe(Effect.withSpan(`span ${i}`)),
    { discard: true }
  )

/** The spans of the OTLP/JSON trace batches among `received`. */
const spansOf = (received: ReadonlyArray<Received>): Array<any> =>
  received.filter((r) => r.path === "/v1/traces").flatMap((r) =>
    r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans))
  )

/** An OTLP/HTTP receiver on a free port that keeps what it is sent (JSON bodies parsed). */
const receiver = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly server: http.Server }>(
    (resume) => {
      const received: Array<Received> = []
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const text = Buffer.concat(chunks)
          const contentType = req.headers["content-type"]
          received.push({
            path: req.url ?? "",
            contentType,
            body: contentType?.includes("json") ? JSON.parse(text.toString("utf8")) : text
          })
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, received, server }))
      })
    }
  ),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("NodeTelemetry.layer", () => {
  it.live("is empty with nothing to export: spans and metrics stay off", () =>
    Effect.gen(function*() {
      const enabled = yield* Telemetry.enabled.pipe(
        Effect.provide(NodeTelemetry.layerFromEnv({ env: {}, serviceName: "x" }))
      )
      expect(enabled).toEqual({ spans: false, metrics: false })
    }))

  it.scopedLive("records only the signals it exports: spans with metrics not exported, metrics with spans not", () =>
    Effect.gen(function*() {
      const { url } = yield* receiver
      const only = (exporter: "OTEL_TRACES_EXPORTER" | "OTEL_METRICS_EXPORTER") =>
        Telemetry.enabled.pipe(
          Effect.provide(NodeTelemetry.layerFromEnv({
            env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", [exporter]: "none" }
          }))
        )
      expect(yield* only("OTEL_TRACES_EXPORTER")).toEqual({ spans: false, metrics: true })
      // Histograms nobody exports are not recorded (before: recorded, as "auto" found a tracer in place).
      expect(yield* only("OTEL_METRICS_EXPORTER")).toEqual({ spans: true, metrics: false })
      // Asked for, they are recorded all the same (for a reader of the user's own).
      const forced = yield* Telemetry.enabled.pipe(
        Effect.provide(NodeTelemetry.layerFromEnv({
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_METRICS_EXPORTER: "none" },
          telemetry: { metrics: true }
        }))
      )
      expect(forced).toEqual({ spans: true, metrics: true })
    }))

  it.scopedLive("exports spans and metrics as OTLP/JSON, flushing when released", () =>
    Effect.gen(function*() {
      const { received, url } = yield* receiver
      const counter = Metric.counter("node_telemetry_test_total")
      const durations = [
        Telemetry.serverOperationDuration,
        Telemetry.clientOperationDuration,
        Telemetry.serverSessionDuration,
        Telemetry.clientSessionDuration
      ]
      const enabled = yield* Effect.gen(function*() {
        yield* Metric.increment(counter)
        for (const histogram of durations) yield* Metric.update(histogram, 0.5)
        // A handler's own attribute: the SDK's limit cuts it.
        const attributes = { answer: 42, long: "z".repeat(5_000) }
        yield* Effect.void.pipe(Effect.withSpan("exported span", { attributes }))
        return yield* Telemetry.enabled
      }).pipe(
        Effect.provide(NodeTelemetry.layerFromEnv({
          serviceName: "node-telemetry-test",
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: url,
            OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
            OTEL_EXPORTER_OTLP_HEADERS: "x-probe=1",
            OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test"
          }
        }))
      )
      expect(enabled).toEqual({ spans: true, metrics: true })
      const traces = received.filter((r) => r.path === "/v1/traces")
      const metrics = received.filter((r) => r.path === "/v1/metrics")
      expect(traces.length).toBeGreaterThan(0)
      expect(metrics.length).toBeGreaterThan(0)
      expect(traces[0].contentType).toMatch(/application\/json/)
      const resource = traces[0].body.resourceSpans[0].resource.attributes
      expect(resource).toContainEqual({ key: "service.name", value: { stringValue: "node-telemetry-test" } })
      expect(resource).toContainEqual({ key: "deployment.environment", value: { stringValue: "test" } })
      const spans = spansOf(traces)
      expect(spans.map((s: any) => s.name)).toContain("exported span")
      const exported = spans.find((s: any) => s.name === "exported span")
      const long = exported.attributes.find((a: any) => a.key === "long")
      expect(long.value.stringValue).toBe("z".repeat(1024))
      const exportedMetrics = metrics.flatMap((r) =>
        r.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((sm: any) => sm.metrics))
      )
      expect(exportedMetrics.map((m: any) => m.name)).toContain("node_telemetry_test_total")
      // The conventions' durations are in seconds: unit "s" (not "1") on each of the four, on the metric
      // only: no point carries an attribute `unit` (the label the exporter reads the unit from).
      for (const histogram of ["server.operation", "client.operation", "server.session", "client.session"]) {
        const found = exportedMetrics.filter((m: any) => m.name === `mcp.${histogram}.duration`)
        expect(found.length).toBeGreaterThan(0)
        for (const metric of found) {
          expect(metric.unit).toBe("s")
          expect(metric.histogram.dataPoints.length).toBeGreaterThan(0)
          for (const point of metric.histogram.dataPoints) {
            expect((point.attributes ?? []).map((a: any) => a.key)).not.toContain("unit")
          }
        }
      }
    }))

  it.scopedLive("sends protobuf by default", () =>
    Effect.gen(function*() {
      const { received, url } = yield* receiver
      yield* Effect.void.pipe(
        Effect.withSpan("protobuf span"),
        Effect.provide(NodeTelemetry.layerFromEnv({
          env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces` }
        }))
      )
      expect(received).toHaveLength(1)
      expect(received[0].contentType).toBe("application/x-protobuf")
      expect(Buffer.from(received[0].body).includes(Buffer.from("protobuf span"))).toBe(true)
    }))

  it.scopedLive("holds at most OTEL_BSP_MAX_QUEUE_SIZE spans: past it they are dropped, not buffered", () =>
    Effect.gen(function*() {
      const { received, url } = yield* receiver
      yield* spansEnded(200).pipe(
        Effect.provide(NodeTelemetry.layerFromEnv({
          env: {
            OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
            OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
            OTEL_BSP_MAX_QUEUE_SIZE: "10",
            OTEL_BSP_SCHEDULE_DELAY: "60000"
          }
        }))
      )
      const spans = spansOf(received)
      // One batch in flight and a full queue behind it; the other spans were ended while both were full.
      expect(spans.length).toBeGreaterThan(0)
      expect(spans.length).toBeLessThanOrEqual(20)
    }))

  it.scopedLive("records no span with a ratio of 0, and still exports the metrics", () =>
    Effect.gen(function*() {
      const { received, url } = yield* receiver
      yield* spansEnded(20).pipe(
        Effect.provide(NodeTelemetry.layerFromEnv({
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: url,
            OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
            OTEL_TRACES_SAMPLER: "traceidratio",
            OTEL_TRACES_SAMPLER_ARG: "0"
          }
        }))
      )
      const spans = spansOf(received)
      expect(spans).toEqual([])
      expect(received.filter((r) => r.path === "/v1/metrics").length).toBeGreaterThan(0)
    }))

  // The span exporter's connections are the layer's own (to close them at exit): the TLS variables
  // the OTLP exporter reads are read for them. A self-signed certificate for 127.0.0.1, for this test.
  it.scopedLive("honours OTEL_EXPORTER_OTLP_CERTIFICATE: spans reach a collector with a certificate of its own", () =>
    Effect.gen(function*() {
      const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures")
      const certificate = path.join(fixtures, "collector-cert.pem")
      const names: Array<string> = []
      const server = https.createServer({
        cert: fs.readFileSync(certificate),
        key: fs.readFileSync(path.join(fixtures, "collector-key.pem"))
      }, (req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          for (const rs of body.resourceSpans) {
            for (const ss of rs.scopeSpans) for (const s of ss.spans) names.push(s.name)
          }
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      const port = yield* Effect.acquireRelease(
        Effect.async<number>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
        }),
        () => Effect.sync(() => server.close())
      )
      // Read from process.env, as the exporter reads it.
      const previous = process.env.OTEL_EXPORTER_OTLP_CERTIFICATE
      yield* Effect.acquireRelease(
        Effect.sync(() => process.env.OTEL_EXPORTER_OTLP_CERTIFICATE = certificate),
        () =>
          Effect.sync(() => {
            if (previous === undefined) delete process.env.OTEL_EXPORTER_OTLP_CERTIFICATE
            else process.env.OTEL_EXPORTER_OTLP_CERTIFICATE = previous
          })
      )
      yield* Effect.void.pipe(
        Effect.withSpan("over tls"),
        Effect.provide(NodeTelemetry.layerFromEnv({
          env: {
            OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `https://127.0.0.1:${port}/v1/traces`,
            OTEL_EXPORTER_OTLP_PROTOCOL: "http/json"
          }
        }))
      )
      expect(names).toEqual(["over tls"])
    }))

  it.live(
    "leaves an exporter's failures to itself: an unreachable collector fails nothing",
    () =>
      Effect.gen(function*() {
        const result = yield* Effect.succeed(1).pipe(
          Effect.withSpan("lost"),
          Effect.provide(
            NodeTelemetry.layer(NodeTelemetry.settingsFromEnv({
              env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }
            }))
          ),
          Effect.provide(Layer.empty)
        )
        expect(result).toBe(1)
      }),
    15_000
  )
})
