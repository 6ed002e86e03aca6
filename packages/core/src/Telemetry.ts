/**
 * Traces and metrics per the OpenTelemetry semantic conventions for MCP
 * (`semantic-conventions-genai`, `docs/gen-ai/mcp.md`), through Effect's own tracer and
 * `Metric`: providing `@effect/opentelemetry`'s layer (`NodeSdk.layer`, `Otlp.layer`) is all it
 * takes. With Effect's default tracer in place, nothing is traced or measured and nothing costs.
 *
 * - A SERVER span for each request a side answers, a CLIENT span for each request it sends,
 *   named `{mcp.method.name} {target}` (the tool's or prompt's name), with the attributes of the
 *   conventions ({@link attributes}); a JSON-RPC error sets `error.type` to its code, a tool's
 *   `isError` result to `tool_error`, and either sets the span's status to ERROR with the message.
 * - Trace context rides in `params._meta` (`traceparent`, `tracestate`, `baggage`, unprefixed as
 *   SEP-414 says): injected into every request sent, extracted from every request received as
 *   the parent of its span; what arrived as `tracestate` and `baggage` is passed on by the
 *   requests made while serving it.
 * - The four histograms of the conventions, in seconds (exported with unit `s`), with their buckets.
 * - What a peer chooses is bounded: every attribute value and span name is cut to
 *   `attributeValueLengthLimit` characters (1,024 by default) before it reaches the tracer, and
 *   the histograms are labelled only by methods of the protocol and by the tool and prompt names a
 *   server has (anything else, or longer than the limit, is `_OTHER`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricKey from "effect/MetricKey"
import * as Tracer from "effect/Tracer"

/**
 * What is recorded. `"auto"` (the default): spans and metrics when a tracer other than Effect's
 * default one is in place (an OpenTelemetry layer provided); `true` / `false` force either.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Spans (default `"auto"`). */
  readonly spans?: boolean | "auto" | undefined
  /** The histograms of the conventions and the server's own gauges and counters (default `"auto"`). */
  readonly metrics?: boolean | "auto" | undefined
  /**
   * Record `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` on `tools/call` spans (default
   * false: they may hold what users would not want in their traces).
   */
  readonly toolCallContent?: boolean | undefined
  /** Put `mcp.resource.uri` in the names of resource spans (default false: names of high cardinality). */
  readonly resourceUriInName?: boolean | undefined
  /**
   * The longest a span's name, the value of one of its attributes and a metric label may be, in
   * characters (default {@link defaultAttributeValueLengthLimit}; `Infinity` for no limit). A longer
   * name or value on a span is cut to it (as the OpenTelemetry SDK's `attributeValueLengthLimit`
   * cuts, and before the span reaches any tracer); a longer tool or prompt name is `_OTHER` in the
   * histograms' labels. It bounds `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` too.
   * `NodeTelemetry` sets it from `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT` or
   * `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`.
   */
  readonly attributeValueLengthLimit?: number | undefined
}

/**
 * The default of `attributeValueLengthLimit`: 1,024 characters. Far above anything the spans carry
 * in normal use (the specification advises tool names of at most 128 characters; request ids and
 * session ids are short), and small enough that what a peer chooses (a span's name, its tool or
 * prompt name, resource URI, request id and status message: at most about six values of a span)
 * held in the SDK's span queue (2,048 spans by default) stays near 12 MB (24 MB for text outside
 * Latin-1), where with no limit each 1 MB name a peer sends is kept whole until it is exported.
 *
 * @since 0.1.0
 * @category models
 */
export const defaultAttributeValueLengthLimit = 1_024

/**
 * The tool and prompt names a server has (`Peer.Options.known`): the only ones its histograms are
 * labelled with; any other name a peer sends is recorded as `_OTHER`, so a peer naming a new tool
 * on every call adds no label set.
 *
 * @since 0.1.0
 * @category models
 */
export interface Known {
  readonly tool: (name: string) => boolean
  readonly prompt: (name: string) => boolean
}

/**
 * The telemetry options in force (a `Context.Reference`: absent, everything is `"auto"`).
 *
 * @since 0.1.0
 * @category tags
 */
export class Config extends Context.Reference<Config>()("@effect-mcp/core/Telemetry/Config", {
  defaultValue: (): Options => ({})
}) {}

/**
 * Sets the telemetry options of what is built with this layer in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<never> => Layer.succeedContext(Context.make(Config, options))

/**
 * What is recorded, the options resolved.
 *
 * @since 0.1.0
 * @category models
 */
export interface Enabled {
  readonly spans: boolean
  readonly metrics: boolean
}

/**
 * Effect's default tracer: its spans go nowhere, so `"auto"` makes none. Read from Effect's default
 * services, not by running an effect when this module is evaluated.
 */
const nativeTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/**
 * What `options` turn on with `tracer` in place (`"auto"`: on when it is not Effect's default
 * tracer); nothing is traced where the tracer is disabled (`Effect.withTracerEnabled(false)`).
 *
 * @since 0.1.0
 * @category utils
 */
export const resolve = (options: Options, tracer: Tracer.Tracer, tracerEnabled: boolean): Enabled => {
  const real = tracer !== nativeTracer && tracerEnabled
  const spans = options.spans === undefined || options.spans === "auto" ? real : options.spans
  const metrics = options.metrics === undefined || options.metrics === "auto" ? real : options.metrics
  return { spans: spans && tracerEnabled, metrics }
}

/**
 * What is recorded in the current fiber (its `Config`, its tracer).
 *
 * @since 0.1.0
 * @category utils
 */
export const enabled: Effect.Effect<Enabled> = Effect.withFiberRuntime((fiber) =>
  Effect.succeed(
    resolve(
      Context.get(fiber.currentContext, Config),
      fiber.currentTracer,
      fiber.getFiberRef(FiberRef.currentTracerEnabled)
    )
  )
)

/**
 * How a transport describes itself to telemetry (`Transport.Protocol.telemetry`).
 *
 * @since 0.1.0
 * @category models
 */
export interface TransportDescription {
  /** `network.transport`: `pipe` for stdio, `tcp` for HTTP. */
  readonly transport: string
  /** `network.protocol.name` (`http`), when there is one. */
  readonly protocol?: string | undefined
  /** `server.address` and `server.port`, as the client side sees them. */
  readonly server?: { readonly address: string; readonly port?: number | undefined } | undefined
  /** `mcp.session.id` of a client, when it is part of a session. */
  readonly sessionId?: ((client: number) => string | undefined) | undefined
}

/**
 * The attribute names the spans and metrics carry.
 *
 * @since 0.1.0
 * @category attributes
 */
export const attributes = {
  methodName: "mcp.method.name",
  requestId: "jsonrpc.request.id",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operationName: "gen_ai.operation.name",
  resourceUri: "mcp.resource.uri",
  protocolVersion: "mcp.protocol.version",
  sessionId: "mcp.session.id",
  networkTransport: "network.transport",
  networkProtocolName: "network.protocol.name",
  serverAddress: "server.address",
  serverPort: "server.port",
  errorType: "error.type",
  statusCode: "rpc.response.status_code",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result"
} as const

/**
 * The `_meta` keys of trace context (W3C Trace Context and Baggage), unprefixed.
 *
 * @since 0.1.0
 * @category keys
 */
export const metaKeys = { traceparent: "traceparent", tracestate: "tracestate", baggage: "baggage" } as const

/**
 * The bucket boundaries of the conventions' histograms, in seconds.
 *
 * @since 0.1.0
 * @category metrics
 */
export const durationBuckets: ReadonlyArray<number> = [
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300
]

const boundaries = MetricBoundaries.fromIterable(durationBuckets)

/**
 * A histogram of durations in seconds. Its unit rides as the label `unit` on its key, where
 * `@effect/opentelemetry`'s exporters (`OtlpMetrics`, `Metrics`) read it (the OTLP `unit` of the
 * metric is `s`; their points carry the label as an attribute `unit="s"` too, which
 * `NodeTelemetry` leaves off what it exports). On the key, not added per
 * update (`Metric.tagged`): the label sets of each update stay the arrays our callers keep, which
 * Effect's histogram looks up by identity.
 */
const seconds = (name: string, description: string): Metric.Metric.Histogram<number> =>
  Metric.fromMetricKey(MetricKey.tagged(MetricKey.histogram(name, boundaries, description), "unit", "s"))

/**
 * `mcp.server.operation.duration`: a request or notification as the receiver saw it, in seconds.
 *
 * @since 0.1.0
 * @category metrics
 */
export const serverOperationDuration = seconds(
  "mcp.server.operation.duration",
  "The duration of the MCP request or notification as observed on the receiver, in seconds"
)

/**
 * `mcp.client.operation.duration`: a request from its send to its answer, in seconds.
 *
 * @since 0.1.0
 * @category metrics
 */
export const clientOperationDuration = seconds(
  "mcp.client.operation.duration",
  "The duration of the MCP request or notification as observed on the sender, in seconds"
)

/**
 * `mcp.server.session.duration`: a session as the server saw it, in seconds.
 *
 * @since 0.1.0
 * @category metrics
 */
export const serverSessionDuration = seconds(
  "mcp.server.session.duration",
  "The duration of the MCP session as observed on the MCP server, in seconds"
)

/**
 * `mcp.client.session.duration`: a session as the client saw it, in seconds.
 *
 * @since 0.1.0
 * @category metrics
 */
export const clientSessionDuration = seconds(
  "mcp.client.session.duration",
  "The duration of the MCP session as observed on the MCP client, in seconds"
)
