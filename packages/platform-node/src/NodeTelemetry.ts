/**
 * OpenTelemetry export configured the standard way, from `OTEL_*` environment variables:
 * traces and metrics sent as OTLP over HTTP (protobuf or JSON). Spans go through the OpenTelemetry
 * SDK (`TelemetryTracer`, an Effect tracer on the OpenTelemetry API, over `@effect/opentelemetry`'s
 * tracer provider, a `BatchSpanProcessor` with a bounded queue and the OTLP trace exporters);
 * metrics through `@effect/opentelemetry`'s OTLP metrics exporter. With no endpoint in the
 * environment the layer is empty and none of these (optional peer dependencies) is loaded, so a
 * server that provides it costs nothing until someone points it at a collector.
 * Install them with the ranges of this Effect line (`-otlp-http` instead of `-otlp-proto` for
 * OTLP/JSON); without ranges npm picks `@effect/opentelemetry` 4.x, which wants Effect 4:
 *
 * ```sh
 * npm install @effect/opentelemetry@^0.64 @opentelemetry/api@^1.9 @opentelemetry/resources@^2 \
 *   @opentelemetry/sdk-trace-base@^2 @opentelemetry/sdk-trace-node@^2 @opentelemetry/exporter-trace-otlp-proto@^0.223
 * ```
 *
 * ```ts
 * import { NodeMcpServer, NodeTelemetry } from "@effect-mcp/platform-node"
 *
 * NodeMcpServer.layerHttp({ port: 3000 }).pipe(
 *   Layer.provide(MyServer),
 *   Layer.provide(NodeTelemetry.layerFromEnv({ serviceName: "my-mcp-server" })),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * Nothing is written to stdout (a stdio server's channel): the few warnings go to stderr.
 *
 * @since 0.1.0
 */
import { Telemetry } from "@effect-mcp/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as CommonJs from "./internal/commonJs.js"

/**
 * The wire format of one signal: OTLP over HTTP as protobuf (the default) or as JSON.
 *
 * @since 0.1.0
 * @category models
 */
export type Protocol = "http/protobuf" | "http/json"

/**
 * Where and how one signal is exported.
 *
 * @since 0.1.0
 * @category models
 */
export interface Export {
  /** The full URL the batches are POSTed to (`…/v1/traces`, `…/v1/metrics`). */
  readonly url: string
  readonly protocol: Protocol
  readonly headers: Readonly<Record<string, string>>
  /** How often a batch is sent. */
  readonly interval: Duration.Duration
  /**
   * Spans only: how many ended spans wait for export at most (`OTEL_BSP_MAX_QUEUE_SIZE`, default
   * 2048; past it new spans are dropped, never buffered without bound), and how many go in one
   * batch (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, default 512).
   */
  readonly maxQueueSize?: number | undefined
  readonly maxBatchSize?: number | undefined
  /** Spans only: which are recorded and exported (`OTEL_TRACES_SAMPLER`); all of them when absent. */
  readonly sampler?: Sampler | undefined
}

/**
 * The standard samplers (`OTEL_TRACES_SAMPLER`, its ratio `OTEL_TRACES_SAMPLER_ARG`): the
 * `parentbased_` ones follow a sampled parent (a `traceparent` in `_meta` included) and decide
 * for a root span as the rest of the name says; `traceidratio` keeps that fraction of traces.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sampler {
  readonly name:
    | "always_on"
    | "always_off"
    | "traceidratio"
    | "parentbased_always_on"
    | "parentbased_always_off"
    | "parentbased_traceidratio"
  /** For the `traceidratio` ones, from 0 to 1. */
  readonly ratio: number
}

const samplerNames: ReadonlyArray<Sampler["name"]> = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
]

/** `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`: the default is `parentbased_always_on`. */
const samplerOf = (env: Readonly<Record<string, string | undefined>>, warnings: Array<string>): Sampler => {
  const text = (nonEmpty(env.OTEL_TRACES_SAMPLER) ?? "parentbased_always_on").toLowerCase()
  const name = samplerNames.find((known) => known === text)
  if (name === undefined) {
    warnings.push(`OTEL_TRACES_SAMPLER=${text} is not supported: using parentbased_always_on`)
  }
  const arg = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG)
  let ratio = 1
  if (arg !== undefined && name !== undefined && name.endsWith("traceidratio")) {
    const parsed = Number(arg)
    if (Number.isFinite(parsed) && parsed >= 0 && parsed <= 1) ratio = parsed
    else warnings.push(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio from 0 to 1: using 1`)
  }
  return { name: name ?? "parentbased_always_on", ratio }
}

/**
 * What the environment asks for: each signal's export (absent: that signal is not exported), the
 * resource describing this process, and what in the environment could not be honoured.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  readonly traces: Export | undefined
  readonly metrics: Export | undefined
  readonly resource: {
    readonly serviceName: string
    readonly serviceVersion?: string | undefined
    readonly attributes: Readonly<Record<string, string>>
  }
  /**
   * The longest a span's name, an attribute's value and a metric label may be, in characters
   * (`OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else
   * `Telemetry.defaultAttributeValueLengthLimit`, 1,024): see `Telemetry.Options`. Absent: the default.
   */
  readonly attributeValueLengthLimit?: number | undefined
  /**
   * How long the last export may take when the layer is released (the process stopping):
   * `EnvOptions.shutdownTimeout`, else the longer of `OTEL_BSP_EXPORT_TIMEOUT` and
   * `OTEL_METRIC_EXPORT_TIMEOUT` where set; absent, {@link defaultShutdownTimeout}.
   */
  readonly shutdownTimeout?: Duration.Duration | undefined
  /** Each a sentence, for stderr: an unsupported protocol or exporter, a malformed number. */
  readonly warnings: ReadonlyArray<string>
}

/**
 * How long the last export may take when the layer is released, unless told otherwise: half a
 * second, for both signals at once.
 *
 * What is left when a process stops is one batch of spans (at most `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`)
 * and one snapshot of the metrics, a POST each. A collector beside the process or on its network
 * (the usual agent or sidecar at `localhost:4318`) takes them in milliseconds; measured here, the
 * whole flush takes about 10 ms over an open connection and 100 to 250 ms when it is the process's
 * first `fetch` (Node loads its HTTP client then). A collector that is not there costs nothing:
 * a refused connection is not tried again at exit (the exporters would wait a second and more
 * between tries). What half a second bounds is a collector that takes the connection and does not
 * answer, or a host that does not answer at all: the process stops then at most this late, rather
 * than 3 seconds later (the SDK's bound) or, for a process that ends by itself, 10 (the exporter's
 * own timeout). A collector far away (TLS over a WAN) may need more: raise it.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultShutdownTimeout: Duration.Duration = Duration.millis(500)

/**
 * What the process calls itself when the environment does not say (`OTEL_SERVICE_NAME`,
 * `service.name` in `OTEL_RESOURCE_ATTRIBUTES`), and the telemetry options to apply.
 *
 * @since 0.1.0
 * @category models
 */
export interface EnvOptions {
  readonly serviceName?: string | undefined
  readonly serviceVersion?: string | undefined
  /** The variables to read; `process.env` when absent. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /**
   * Options for the spans and metrics themselves (`toolCallContent`, `resourceUriInName`); spans
   * and metrics are switched on for the signals the environment exports.
   */
  readonly telemetry?: Telemetry.Options | undefined
  /**
   * How long the last export may take when the layer is released (default
   * {@link defaultShutdownTimeout}, half a second): see {@link layer}.
   */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
}

const signals = {
  traces: { path: "v1/traces", interval: "OTEL_BSP_SCHEDULE_DELAY", defaultInterval: 5_000 },
  metrics: { path: "v1/metrics", interval: "OTEL_METRIC_EXPORT_INTERVAL", defaultInterval: 60_000 }
} as const

/** `k=v,k2=v2` with percent-encoded values (the W3C baggage octets), as the OTel spec reads it. */
const keyValues = (text: string | undefined, name: string, warnings: Array<string>): Record<string, string> => {
  const out: Record<string, string> = {}
  if (text === undefined) return out
  for (const item of text.split(",")) {
    if (item.trim() === "") continue
    const at = item.indexOf("=")
    const key = at < 0 ? "" : item.slice(0, at).trim()
    if (key === "") {
      warnings.push(`${name}: ignoring "${item.trim()}" (not key=value)`)
      continue
    }
    const raw = item.slice(at + 1).trim()
    try {
      out[key] = decodeURIComponent(raw)
    } catch {
      out[key] = raw
    }
  }
  return out
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim()

/** A positive number from the variable `name`, or `fallback` (with a warning when it is malformed). */
const positive = (
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  unit: string,
  warnings: Array<string>
): number => {
  const text = nonEmpty(env[name])
  if (text === undefined) return fallback
  const parsed = Number(text)
  if (Number.isFinite(parsed) && parsed >= 1) return parsed
  warnings.push(`${name}=${text} is not a positive number of ${unit}: using ${fallback}`)
  return fallback
}

/**
 * Reads the standard OpenTelemetry SDK variables (the OTLP exporter's and the SDK's):
 *
 * - `OTEL_SDK_DISABLED=true`: nothing is exported;
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL: `/v1/traces` and `/v1/metrics` are appended) or
 *   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (used as given);
 *   a signal with no endpoint is not exported;
 * - `OTEL_EXPORTER_OTLP_PROTOCOL` (and the per-signal `…_TRACES_PROTOCOL`, `…_METRICS_PROTOCOL`):
 *   `http/protobuf` (default) or `http/json`; `grpc` is not supported (a warning, and that signal
 *   is not exported);
 * - `OTEL_EXPORTER_OTLP_HEADERS` (and per signal): `key=value,…`, values percent-encoded;
 * - `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`: `otlp` (default) or `none`;
 * - `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` (`key=value,…`);
 * - `OTEL_BSP_SCHEDULE_DELAY` (span batches, default 5000 ms), `OTEL_BSP_MAX_QUEUE_SIZE` (2048),
 *   `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (512), `OTEL_METRIC_EXPORT_INTERVAL` (default 60000 ms);
 * - `OTEL_TRACES_SAMPLER` (`parentbased_always_on` by default, see {@link Sampler}) and
 *   `OTEL_TRACES_SAMPLER_ARG` (the ratio, default 1);
 * - `OTEL_BSP_EXPORT_TIMEOUT`, `OTEL_METRIC_EXPORT_TIMEOUT` (milliseconds): where either is set, the
 *   longer is also how long the last export may take when the layer is released (`shutdownTimeout`,
 *   unless `EnvOptions.shutdownTimeout` is given; neither set, {@link defaultShutdownTimeout});
 * - `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`: the longest
 *   attribute value (and span name, and metric label) in characters. Unset, 1,024
 *   (`Telemetry.defaultAttributeValueLengthLimit`), where the SDK's own default is no limit: a peer
 *   chooses tool names, URIs and request ids, and each would be kept whole until exported.
 *
 * The OTLP trace exporter also reads `OTEL_EXPORTER_OTLP_TIMEOUT` and `…_COMPRESSION` from
 * `process.env` itself, and its TLS variables (`OTEL_EXPORTER_OTLP_CERTIFICATE`,
 * `…_CLIENT_CERTIFICATE`, `…_CLIENT_KEY`, and the `_TRACES_` ones) are read from `process.env` for
 * its connections.
 *
 * @since 0.1.0
 * @category constructors
 */
export const settingsFromEnv = (options: EnvOptions = {}): Settings => {
  const env = options.env ?? process.env
  const warnings: Array<string> = []
  const attributes = keyValues(env.OTEL_RESOURCE_ATTRIBUTES, "OTEL_RESOURCE_ATTRIBUTES", warnings)
  const serviceName = nonEmpty(env.OTEL_SERVICE_NAME) ?? attributes["service.name"] ?? options.serviceName ??
    "unknown_service:node"
  const serviceVersion = attributes["service.version"] ?? options.serviceVersion
  delete attributes["service.name"]
  delete attributes["service.version"]
  const resource = { serviceName, serviceVersion, attributes }
  const generalLimit = nonEmpty(env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT) === undefined
    ? "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"
    : "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"
  const attributeValueLengthLimit = Math.floor(
    positive(env, generalLimit, Telemetry.defaultAttributeValueLengthLimit, "characters", warnings)
  )
  // The time an export may take, where one is set, is also what the last export at exit may take.
  const exportTimeouts = ["OTEL_BSP_EXPORT_TIMEOUT", "OTEL_METRIC_EXPORT_TIMEOUT"]
    .filter((name) => nonEmpty(env[name]) !== undefined)
    .map((name) => positive(env, name, Duration.toMillis(defaultShutdownTimeout), "milliseconds", warnings))
  const shutdownTimeout = options.shutdownTimeout !== undefined
    ? Duration.decode(options.shutdownTimeout)
    : exportTimeouts.length > 0
    ? Duration.millis(Math.max(...exportTimeouts))
    : undefined
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") {
    return { traces: undefined, metrics: undefined, resource, attributeValueLengthLimit, shutdownTimeout, warnings }
  }
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT)
  const sharedHeaders = keyValues(env.OTEL_EXPORTER_OTLP_HEADERS, "OTEL_EXPORTER_OTLP_HEADERS", warnings)
  const signal = (name: keyof typeof signals): Export | undefined => {
    const upper = name.toUpperCase()
    const exporter = (nonEmpty(env[`OTEL_${upper}_EXPORTER`]) ?? "otlp").toLowerCase()
    if (exporter === "none") return undefined
    if (exporter !== "otlp") {
      warnings.push(`OTEL_${upper}_EXPORTER=${exporter} is not supported (only otlp and none): ${name} not exported`)
      return undefined
    }
    const own = nonEmpty(env[`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`])
    const url = own ?? (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/${signals[name].path}`)
    if (url === undefined) return undefined
    try {
      new URL(url)
    } catch {
      warnings.push(`the ${name} endpoint ${url} is not a URL: ${name} not exported`)
      return undefined
    }
    const protocol = (nonEmpty(env[`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`]) ??
      nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? "http/protobuf").toLowerCase()
    if (protocol !== "http/protobuf" && protocol !== "http/json") {
      warnings.push(
        `OTLP protocol ${protocol} is not supported (only http/protobuf and http/json): ${name} not exported`
      )
      return undefined
    }
    const interval = positive(env, signals[name].interval, signals[name].defaultInterval, "milliseconds", warnings)
    const batching = name === "traces"
      ? {
        maxQueueSize: Math.floor(positive(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048, "spans", warnings)),
        maxBatchSize: Math.floor(positive(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512, "spans", warnings)),
        sampler: samplerOf(env, warnings)
      }
      : {}
    return {
      ...batching,
      url,
      protocol,
      headers: {
        ...sharedHeaders,
        ...keyValues(env[`OTEL_EXPORTER_OTLP_${upper}_HEADERS`], `OTEL_EXPORTER_OTLP_${upper}_HEADERS`, warnings)
      },
      interval: Duration.millis(interval)
    }
  }
  return {
    traces: signal("traces"),
    metrics: signal("metrics"),
    resource,
    attributeValueLengthLimit,
    shutdownTimeout,
    warnings
  }
}

/**
 * The ranges an install line names: the peer dependencies' lines that go with Effect 3 (unranged,
 * `@effect/opentelemetry` resolves to its 4.x line, for Effect 4, and npm refuses it).
 */
const installRanges: Record<string, string> = {
  "@effect/opentelemetry": "^0.64",
  "@opentelemetry/api": "^1.9",
  "@opentelemetry/resources": "^2",
  "@opentelemetry/sdk-trace-base": "^2",
  "@opentelemetry/sdk-trace-node": "^2",
  "@opentelemetry/exporter-trace-otlp-http": "^0.223",
  "@opentelemetry/exporter-trace-otlp-proto": "^0.223"
}

/**
 * The layer `load` builds from the optional peer dependencies it imports; when one is missing, a
 * defect that names what to install, with the ranges that work, rather than a bare module-not-found.
 */
const loading = <A>(
  signal: string,
  packages: ReadonlyArray<string>,
  load: () => Promise<A>
): Effect.Effect<A> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) =>
      new Error(
        `NodeTelemetry: exporting ${signal} needs ${packages.join(", ")} installed (npm install ${
          packages.map((name) => `${name}@${installRanges[name]}`).join(" ")
        }): ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause }
      )
  }).pipe(Effect.orDie)

/**
 * Exports what `settings` asks for (see {@link settingsFromEnv}) and switches on the spans and
 * metrics of effect-mcp for the signals exported.
 *
 * - Spans: `TelemetryTracer` (the spans `@effect/opentelemetry`'s tracer makes, on the
 *   OpenTelemetry API directly) over `@effect/opentelemetry`'s tracer provider, a
 *   `BatchSpanProcessor`
 *   (at most `maxQueueSize` spans waiting; past that new ones are dropped) and
 *   `@opentelemetry/exporter-trace-otlp-proto` or `-http` (JSON), on `node:http`; the SDK's
 *   `spanLimits.attributeValueLengthLimit` is the attribute length limit (`telemetry`'s, else the
 *   settings'), which our spans' names and attributes are cut to before they reach it.
 * - Metrics: `@effect/opentelemetry`'s OTLP metrics exporter, over `fetch`. A metric's unit (the
 *   `unit` label of its key, where that exporter reads it: `s` for the conventions' durations) is
 *   the metric's only: the label is left off the exported points.
 *
 * What is left is sent when the layer is released (a server stopped by a signal or by its stdin
 * closing, a CLI command done), both signals at once, within `shutdownTimeout` (the settings',
 * else {@link defaultShutdownTimeout}, half a second). At exit an exporter gets one try: a
 * collector that refuses the connection is not tried again, and what has not been answered when
 * the time is up is abandoned. Nothing of the exporters outlives the layer: their connections
 * are closed, and no timer of theirs keeps a process that ends by itself waiting (the span
 * exporter's own retries, up to its 10-second timeout, included).
 *
 * Metrics that are not exported are not recorded either (traces exported and metrics not: no
 * histogram is kept), unless `telemetry` asks for them (`metrics: true`, for a reader of your own).
 *
 * With neither signal exported this is an empty layer, and none of the optional peer dependencies
 * (`@effect/opentelemetry`; for spans `@opentelemetry/sdk-trace-base`, `-sdk-trace-node`,
 * `-resources` and the exporter of the protocol) is loaded.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (settings: Settings, telemetry: Telemetry.Options = {}): Layer.Layer<never> => {
  const report = settings.warnings.length === 0
    ? Layer.empty
    : Layer.effectDiscard(Effect.sync(() => {
      for (const warning of settings.warnings) process.stderr.write(`opentelemetry: ${warning}\n`)
    }))
  const { metrics, traces } = settings
  if (traces === undefined && metrics === undefined) return report
  const resource = settings.resource
  const attributeValueLengthLimit = telemetry.attributeValueLengthLimit ?? settings.attributeValueLengthLimit ??
    Telemetry.defaultAttributeValueLengthLimit
  const shutdownTimeout = settings.shutdownTimeout ?? defaultShutdownTimeout
  const tracing = traces === undefined ? Layer.empty : Layer.unwrapScoped(Effect.flatMap(
    loading("spans", [
      "@effect/opentelemetry",
      "@opentelemetry/api",
      "@opentelemetry/resources",
      "@opentelemetry/sdk-trace-base",
      "@opentelemetry/sdk-trace-node",
      traces.protocol === "http/json"
        ? "@opentelemetry/exporter-trace-otlp-http"
        : "@opentelemetry/exporter-trace-otlp-proto"
    ], () =>
      Promise.all([
        import("@effect/opentelemetry/Tracer"),
        import("./TelemetryTracer.js"),
        import("@effect/opentelemetry/NodeSdk"),
        import("@effect/opentelemetry/Resource"),
        import("@opentelemetry/sdk-trace-base"),
        traces.protocol === "http/json"
          ? import("@opentelemetry/exporter-trace-otlp-http")
          : import("@opentelemetry/exporter-trace-otlp-proto")
      ])),
    ([Tracer, TelemetryTracer, NodeSdk, Resource, traceBase, exporterModule]) =>
      Effect.gen(function*() {
        const TraceBase = CommonJs.names(traceBase, "BatchSpanProcessor")
        const Exporter = CommonJs.names(exporterModule, "OTLPTraceExporter")
        // Closed last, once the provider has flushed (or had its time): see internal/exportAgent.
        const tlsWarnings: Array<string> = []
        const ExportAgent = yield* Effect.promise(() => import("./internal/exportAgent.js"))
        const agent = yield* ExportAgent.make(tlsWarnings)
        for (const warning of tlsWarnings) process.stderr.write(`opentelemetry: ${warning}\n`)
        const exporter = new Exporter.OTLPTraceExporter({
          url: traces.url,
          headers: { ...traces.headers },
          httpAgentOptions: agent.agentFor
        })
        const maxQueueSize = traces.maxQueueSize ?? 2048
        const processor = new TraceBase.BatchSpanProcessor(exporter, {
          maxQueueSize,
          maxExportBatchSize: Math.min(traces.maxBatchSize ?? 512, maxQueueSize),
          scheduledDelayMillis: Duration.toMillis(traces.interval)
        })
        const sampler = traces.sampler ?? { name: "parentbased_always_on", ratio: 1 }
        const root = sampler.name.endsWith("always_off")
          ? new TraceBase.AlwaysOffSampler()
          : sampler.name.endsWith("traceidratio")
          ? new TraceBase.TraceIdRatioBasedSampler(sampler.ratio)
          : new TraceBase.AlwaysOnSampler()
        // Our tracer on the OpenTelemetry API (TelemetryTracer), over @effect/opentelemetry's SDK setup.
        const tracer = TelemetryTracer.layer.pipe(
          Layer.provideMerge(Tracer.layerTracer),
          Layer.provide(NodeSdk.layerTracerProvider(processor, {
            sampler: sampler.name.startsWith("parentbased_") ? new TraceBase.ParentBasedSampler({ root }) : root,
            // Also what the handlers' own spans carry (`Effect.annotateCurrentSpan`) is cut.
            spanLimits: { attributeValueLengthLimit },
            // The provider's release: its last spans flushed, within this.
            shutdownTimeout
          })),
          Layer.provide(Resource.layer({
            serviceName: resource.serviceName,
            attributes: resource.attributes,
            ...(resource.serviceVersion === undefined ? {} : { serviceVersion: resource.serviceVersion })
          }))
        )
        // Built after the tracer, so released before it: the flush finds the agent closing.
        return Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(agent.closing))).pipe(
          Layer.provideMerge(tracer)
        )
      })
  ))
  const measuring = metrics === undefined ? Layer.empty : Layer.unwrapEffect(
    loading("metrics", ["@effect/opentelemetry"], async () => {
      const [OtlpMetrics, OtlpSerialization, HttpClient, FetchHttpClient, MetricUnits] = await Promise.all([
        import("@effect/opentelemetry/OtlpMetrics"),
        import("@effect/opentelemetry/OtlpSerialization"),
        import("@effect/platform/HttpClient"),
        import("@effect/platform/FetchHttpClient"),
        import("./internal/metricUnits.js")
      ])
      return Layer.scopedDiscard(Effect.gen(function*() {
        // Set as the release begins: the exporter's last export then gets one try (it would try
        // again a second later, and again, for a collector that refuses the connection).
        const closing = yield* Ref.make(false)
        const client = HttpClient.transform(yield* HttpClient.HttpClient, (response) =>
          Effect.catchIf(
            response,
            (error) => error._tag === "RequestError" && error.reason === "Transport",
            // Abandoned: an interruption is not retried, and the exporter takes it as a failure.
            (error) => Effect.flatMap(Ref.get(closing), (closing) => closing ? Effect.interrupt : Effect.fail(error))
          ))
        yield* OtlpMetrics.make({
          url: metrics.url,
          resource,
          headers: metrics.headers,
          exportInterval: metrics.interval,
          shutdownTimeout
        }).pipe(Effect.provideService(HttpClient.HttpClient, client))
        yield* Effect.addFinalizer(() => Ref.set(closing, true))
      })).pipe(
        // The unit rides as a label, which the exporter leaves on every point: dropped from them.
        Layer.provide(
          Layer.effect(
            OtlpSerialization.OtlpSerialization,
            Effect.map(OtlpSerialization.OtlpSerialization, (serialization) => ({
              ...serialization,
              metrics: (data: unknown) => serialization.metrics(MetricUnits.withoutUnitAttribute(data))
            }))
          ).pipe(
            Layer.provide(
              metrics.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
            )
          )
        ),
        Layer.provide(FetchHttpClient.layer)
      )
    })
  )
  return Layer.mergeAll(
    report,
    tracing,
    measuring,
    Telemetry.layer({
      ...telemetry,
      attributeValueLengthLimit,
      spans: traces === undefined ? telemetry.spans : telemetry.spans ?? true,
      // Metrics not exported are not recorded unless asked for: "auto" would find our own tracer in place.
      metrics: metrics === undefined ? telemetry.metrics ?? false : telemetry.metrics ?? true
    })
  )
}

/**
 * {@link layer} with the settings of the environment: `layerFromEnv({ serviceName: "my-server" })`
 * is all a server or client needs to honour `OTEL_EXPORTER_OTLP_ENDPOINT` and its kin.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFromEnv = (options: EnvOptions = {}): Layer.Layer<never> =>
  Layer.unwrapEffect(Effect.sync(() => layer(settingsFromEnv(options), options.telemetry)))
