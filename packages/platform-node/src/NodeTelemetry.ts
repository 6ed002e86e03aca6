/**
 * OpenTelemetry export configured the standard way, from `OTEL_*` environment variables:
 * traces and metrics sent as OTLP over HTTP (protobuf or JSON) with `@effect/opentelemetry`.
 * With no endpoint in the environment the layer is empty and `@effect/opentelemetry` is never
 * loaded, so a server that provides it costs nothing until someone points it at a collector.
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
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

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
  /** Each a sentence, for stderr: an unsupported protocol or exporter, a malformed number. */
  readonly warnings: ReadonlyArray<string>
}

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
 * - `OTEL_BSP_SCHEDULE_DELAY` (span batches, default 5000 ms), `OTEL_METRIC_EXPORT_INTERVAL`
 *   (default 60000 ms).
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
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") {
    return { traces: undefined, metrics: undefined, resource, warnings }
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
    const intervalName = signals[name].interval
    const intervalText = nonEmpty(env[intervalName])
    let interval: number = signals[name].defaultInterval
    if (intervalText !== undefined) {
      const parsed = Number(intervalText)
      if (Number.isFinite(parsed) && parsed > 0) interval = parsed
      else warnings.push(`${intervalName}=${intervalText} is not a positive number of milliseconds: using ${interval}`)
    }
    return {
      url,
      protocol,
      headers: {
        ...sharedHeaders,
        ...keyValues(env[`OTEL_EXPORTER_OTLP_${upper}_HEADERS`], `OTEL_EXPORTER_OTLP_${upper}_HEADERS`, warnings)
      },
      interval: Duration.millis(interval)
    }
  }
  return { traces: signal("traces"), metrics: signal("metrics"), resource, warnings }
}

/**
 * Exports what `settings` asks for (see {@link settingsFromEnv}), over `fetch`, and switches on
 * the spans and metrics of effect-mcp for the signals exported. The exporters send what is left
 * when the layer is released (a server stopped by SIGTERM or by its stdin closing included). With
 * neither signal exported this is an empty layer, and `@effect/opentelemetry` (an optional peer
 * dependency) is not loaded.
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
  const exporters = Layer.unwrapEffect(
    Effect.promise(async () => {
      const [OtlpTracer, OtlpMetrics, OtlpSerialization] = await Promise.all([
        import("@effect/opentelemetry/OtlpTracer"),
        import("@effect/opentelemetry/OtlpMetrics"),
        import("@effect/opentelemetry/OtlpSerialization")
      ])
      const serialization = (protocol: Protocol) =>
        protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
      const tracing = traces === undefined ? Layer.empty : OtlpTracer.layer({
        url: traces.url,
        resource,
        headers: traces.headers,
        exportInterval: traces.interval,
        maxBatchSize: 512
      }).pipe(Layer.provide(serialization(traces.protocol)))
      const measuring = metrics === undefined ? Layer.empty : OtlpMetrics.layer({
        url: metrics.url,
        resource,
        headers: metrics.headers,
        exportInterval: metrics.interval
      }).pipe(Layer.provide(serialization(metrics.protocol)))
      return Layer.mergeAll(tracing, measuring).pipe(Layer.provide(FetchHttpClient.layer))
    })
  )
  return Layer.mergeAll(
    report,
    exporters,
    Telemetry.layer({
      ...telemetry,
      spans: traces === undefined ? telemetry.spans : telemetry.spans ?? true,
      metrics: metrics === undefined ? telemetry.metrics : telemetry.metrics ?? true
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
