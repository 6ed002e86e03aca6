/**
 * An Effect `Tracer` written on the OpenTelemetry API: each Effect span is an OpenTelemetry span
 * of the `OtelTracer` in context, started and ended as `@effect/opentelemetry`'s tracer does it
 * (the same name, kind, parent, links, attributes, events and status, `Tracer.currentOtelSpan`
 * included), at less cost per span: no second copy of the attributes' conversion, no context
 * object made per span or per step of a fiber when nothing else is in the active context, no
 * parent looked up twice. `NodeTelemetry.layer` uses it; with an SDK set up otherwise (the
 * tracer provider and resource of `@effect/opentelemetry`), provide {@link layer} in place of
 * `@effect/opentelemetry`'s `Tracer.layerWithoutOtelTracer`:
 *
 * ```ts
 * import * as OtelTracer from "@effect/opentelemetry/Tracer"
 * import * as TelemetryTracer from "@effect-mcp/platform-node/TelemetryTracer"
 *
 * const Tracing = TelemetryTracer.layer.pipe(
 *   Layer.provideMerge(OtelTracer.layerTracer),
 *   Layer.provide(NodeSdk.layerTracerProvider(processor)),
 *   Layer.provide(Resource.layer({ serviceName: "my-server" }))
 * )
 * ```
 *
 * It needs `@opentelemetry/api` and `@effect/opentelemetry` (optional peer dependencies): this
 * module is not part of the package's index, so nothing loads them until it is imported.
 *
 * @since 0.1.0
 */
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as OtelApi from "@opentelemetry/api"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

/** `@effect/opentelemetry`'s mark of its spans: `Tracer.currentOtelSpan` then returns ours' `span` itself. */
const OtelSpanTypeId = Symbol.for("@effect/opentelemetry/Tracer/OtelSpan")

const kinds: Record<Tracer.SpanKind, OtelApi.SpanKind> = {
  internal: OtelApi.SpanKind.INTERNAL,
  client: OtelApi.SpanKind.CLIENT,
  server: OtelApi.SpanKind.SERVER,
  producer: OtelApi.SpanKind.PRODUCER,
  consumer: OtelApi.SpanKind.CONSUMER
}

const billion = 1_000_000_000n

const hrTime = (nanos: bigint): OtelApi.HrTime => {
  const seconds = nanos / billion
  return [Number(seconds), Number(nanos - seconds * billion)]
}

/** As `@effect/opentelemetry` converts an attribute's value. */
const attributeValue = (value: unknown): OtelApi.AttributeValue =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : typeof value === "bigint"
    ? value.toString()
    : Inspectable.toStringUnknown(value)

const attributesOf = (record: Record<string, unknown>): OtelApi.Attributes => {
  const out: OtelApi.Attributes = {}
  for (const key of Object.keys(record)) out[key] = attributeValue(record[key])
  return out
}

/** The span's trace flags or state: from the context it was made in, else from its own. */
const traceTag = <I, S>(span: Tracer.AnySpan, context: Context.Context<never> | undefined, tag: Context.Tag<I, S>) => {
  const own = context === undefined ? undefined : Context.getOption(context, tag)
  return own !== undefined && own._tag === "Some" ? own : Context.getOption(span.context, tag)
}

/** The OpenTelemetry span context of an Effect span (as `@effect/opentelemetry` makes it). */
const spanContextOf = (span: Tracer.AnySpan, context?: Context.Context<never>): OtelApi.SpanContext => {
  const flags = traceTag(span, context, OtelTracer.OtelTraceFlags)
  const state = traceTag(span, context, OtelTracer.OtelTraceState)
  return {
    spanId: span.spanId,
    traceId: span.traceId,
    isRemote: span._tag === "ExternalSpan",
    traceFlags: flags._tag === "Some" ? flags.value : OtelApi.TraceFlags.SAMPLED,
    // Absent as `@effect/opentelemetry` leaves it: undefined.
    traceState: (state._tag === "Some" ? state.value : undefined) as OtelApi.TraceState
  }
}

const linksOf = (links: ReadonlyArray<Tracer.SpanLink>): Array<OtelApi.Link> =>
  links.map((link) => ({ context: spanContextOf(link.span), attributes: attributesOf(link.attributes) }))

/** An OpenTelemetry span made by `@effect/opentelemetry`'s tracer or by ours. */
const otelSpanOf = (span: Tracer.AnySpan): OtelApi.Span | undefined =>
  OtelSpanTypeId in span ? (span as unknown as { readonly span: OtelApi.Span }).span : undefined

/**
 * `active` with `parent` as its span. Over the root context (nothing else active: the usual case
 * when no context manager is registered), the context of one of our spans is made once and kept.
 */
const withParent = (active: OtelApi.Context, parent: Tracer.AnySpan, context?: Context.Context<never>) => {
  if (parent instanceof Span) {
    if (active !== OtelApi.ROOT_CONTEXT) return OtelApi.trace.setSpan(active, parent.span)
    return parent.rootContext ??= OtelApi.trace.setSpan(OtelApi.ROOT_CONTEXT, parent.span)
  }
  const otel = otelSpanOf(parent)
  return otel !== undefined
    ? OtelApi.trace.setSpan(active, otel)
    : OtelApi.trace.setSpanContext(active, spanContextOf(parent, context))
}

/** The span active in OpenTelemetry's context (made by other instrumentation), as an Effect parent. */
const activeParent = (active: OtelApi.Context, context: Context.Context<never>): Option.Option<Tracer.AnySpan> => {
  const span = OtelApi.trace.getSpan(active)
  if (span === undefined) return Option.none()
  const spanContext = span.spanContext()
  return Option.some(Tracer.externalSpan({
    spanId: spanContext.spanId,
    traceId: spanContext.traceId,
    sampled: (spanContext.traceFlags & 1) === 1,
    context
  }))
}

/** The links of a span made without any (shared: `addLinks` replaces, never pushes). */
const noLinks: ReadonlyArray<Tracer.SpanLink> = []

/** What the OpenTelemetry SDK's spans expose of their attributes (`ReadableSpan`). */
interface Readable {
  readonly attributes?: OtelApi.Attributes
}

class Span implements Tracer.Span {
  declare readonly [OtelSpanTypeId]: typeof OtelSpanTypeId
  declare readonly _tag: "Span"
  readonly span: OtelApi.Span
  readonly spanId: string
  readonly traceId: string
  readonly sampled: boolean
  readonly parent: Option.Option<Tracer.AnySpan>
  status: Tracer.SpanStatus
  links: ReadonlyArray<Tracer.SpanLink>
  /** The root context with this span in it, once asked for. */
  rootContext: OtelApi.Context | undefined = undefined

  constructor(
    tracer: OtelApi.Tracer,
    readonly name: string,
    parent: Option.Option<Tracer.AnySpan>,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind,
    root: boolean
  ) {
    const active = OtelApi.context.active()
    // Nothing is active in the root context: no span of other instrumentation to be the parent.
    this.parent = parent._tag === "Some" || root || active === OtelApi.ROOT_CONTEXT
      ? parent
      : activeParent(active, context)
    this.links = links.length === 0 ? noLinks : links.slice()
    this.span = tracer.startSpan(
      name,
      {
        startTime: hrTime(startTime),
        links: (links.length > 0 ? linksOf(links) : undefined) as Array<OtelApi.Link>,
        kind: kinds[kind]
      },
      this.parent._tag === "Some"
        ? withParent(active, this.parent.value, context)
        : active === OtelApi.ROOT_CONTEXT
        ? active
        : OtelApi.trace.deleteSpan(active)
    )
    const spanContext = this.span.spanContext()
    this.spanId = spanContext.spanId
    this.traceId = spanContext.traceId
    this.sampled = (spanContext.traceFlags & 1) === 1
    this.status = { _tag: "Started", startTime }
  }

  /**
   * The span's attributes as the SDK keeps them (converted, and cut to its limits): not a second
   * copy kept per span. Empty for a span the SDK does not record.
   */
  get attributes(): ReadonlyMap<string, unknown> {
    const kept = (this.span as Readable).attributes
    return new Map(kept === undefined ? [] : Object.entries(kept))
  }

  attribute(key: string, value: unknown): void {
    this.span.setAttribute(key, attributeValue(value))
  }

  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.links = [...this.links, ...links]
    this.span.addLinks(linksOf(links))
  }

  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    this.span.addEvent(name, attributes === undefined ? undefined : attributesOf(attributes), hrTime(startTime))
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    const time = hrTime(endTime)
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    if (exit._tag === "Success") this.span.setStatus({ code: OtelApi.SpanStatusCode.OK })
    else failed(this.span, exit.cause, time)
    this.span.end(time)
  }
}
// On the prototype: nothing written per span.
Object.defineProperty(Span.prototype, OtelSpanTypeId, { value: OtelSpanTypeId })
Object.defineProperty(Span.prototype, "_tag", { value: "Span" })

/** A span's status and exception event for a failure, as `@effect/opentelemetry` records them. */
const failed = (span: OtelApi.Span, cause: Cause.Cause<unknown>, time: OtelApi.HrTime) => {
  if (Cause.isInterruptedOnly(cause)) {
    span.setStatus({ code: OtelApi.SpanStatusCode.OK, message: Cause.pretty(cause) })
    span.setAttribute("span.label", "⚠︎ Interrupted")
    span.setAttribute("status.interrupted", true)
    return
  }
  const first = Cause.prettyErrors(cause)[0]
  if (first === undefined) {
    span.setStatus({ code: OtelApi.SpanStatusCode.OK })
    return
  }
  first.stack = Cause.pretty(cause, { renderErrorCause: true })
  span.recordException(first, time)
  span.setStatus({ code: OtelApi.SpanStatusCode.ERROR, message: first.message })
}

/** The span a fiber runs in, unless it (or an ancestor up to one that allows it) disables propagation. */
const propagated = (span: Tracer.AnySpan | undefined): Tracer.AnySpan | undefined => {
  while (span !== undefined && Context.get(span.context, Tracer.DisablePropagation)) {
    span = span._tag === "Span" ? Option.getOrUndefined(span.parent) : undefined
  }
  return span
}

/**
 * The tracer over an OpenTelemetry tracer: its spans are that tracer's, and a fiber runs its steps
 * with its current span active in OpenTelemetry's context (for instrumentation beneath it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromOtel = (tracer: OtelApi.Tracer): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      new Span(tracer, name, parent, context, links, startTime, kind, options?.root === true),
    context: (execution, fiber) => {
      const span = propagated(fiber.currentSpan)
      if (span === undefined) return execution()
      return OtelApi.context.with(withParent(OtelApi.context.active(), span), execution)
    }
  })

/**
 * {@link fromOtel} over the `OtelTracer` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Tracer.Tracer, never, OtelTracer.OtelTracer> = Effect.map(
  OtelTracer.OtelTracer,
  fromOtel
)

/**
 * Sets {@link make} as the tracer: in place of `@effect/opentelemetry`'s
 * `Tracer.layerWithoutOtelTracer`, over the same `OtelTracer`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never, never, OtelTracer.OtelTracer> = Layer.unwrapEffect(
  Effect.map(make, Layer.setTracer)
)
