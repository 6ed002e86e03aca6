/**
 * The engine's telemetry: a span and a histogram sample for each request answered (SERVER) and
 * each request sent (CLIENT), per the OpenTelemetry conventions for MCP, and the trace context
 * carried in `params._meta`. Built once per engine, and only when something records: with
 * Effect's default tracer (and metrics not forced on), `make` gives `undefined` and the engine
 * pays one check per request.
 *
 * What a peer chooses (a tool's name, a URI, a request id, an error message) is bounded before it
 * reaches the tracer or a metric label: cut to the attribute length limit on spans, `_OTHER` in
 * labels unless it is a method of the protocol or a name the server has.
 */
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Exit from "effect/Exit"
import type * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import type * as JsonRpc from "../JsonRpc.js"
import * as McpError from "../McpError.js"
import * as Meta from "../Meta.js"
import * as Method from "../Method.js"
import * as Revision from "../Revision.js"
import * as Config from "../Telemetry.js"

/** Whether spans and metrics are recorded. */
export type Switches = Config.Enabled

export const switches = Config.resolve

/** The `tracestate` and `baggage` that arrived with a request: passed on by the requests made serving it. */
export class Carried extends Context.Tag("@effect-mcp/core/Telemetry/Carried")<Carried, {
  readonly tracestate: string | undefined
  readonly baggage: string | undefined
}>() {}

/**
 * `@effect/opentelemetry`'s `OtelTraceFlags` (the same key, so the same tag): it hands an
 * external parent to the OpenTelemetry SDK as sampled unless its context says otherwise, so a
 * `parentbased_` sampler would record under an unsampled caller without it.
 */
const OtelTraceFlags = Context.GenericTag<number>("@effect/opentelemetry/Tracer/OtelTraceFlags")

const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/
const zeroTrace = "0".repeat(32)
const zeroSpan = "0".repeat(16)

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The remote parent a request's `_meta` names (a valid W3C `traceparent`), with what rides along it. */
export const extract = (params: unknown): Tracer.ExternalSpan | undefined => {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined
  const traceparent = meta?.[Config.metaKeys.traceparent]
  if (typeof traceparent !== "string" || traceparent.length > 512) return undefined
  const match = traceparentPattern.exec(traceparent.toLowerCase())
  if (match === null || match[1] === "ff" || match[2] === zeroTrace || match[3] === zeroSpan) return undefined
  // Version 00 has nothing after the flags.
  if (match[1] === "00" && traceparent.length !== 55) return undefined
  const tracestate = meta![Config.metaKeys.tracestate]
  const baggage = meta![Config.metaKeys.baggage]
  const carried = typeof tracestate === "string" && tracestate.length <= 512
    ? tracestate
    : undefined
  const bag = typeof baggage === "string" && baggage.length <= 8192 ? baggage : undefined
  const flags = parseInt(match[4]!, 16)
  const context = Context.make(OtelTraceFlags, flags & 1)
  return Tracer.externalSpan({
    traceId: match[2]!,
    spanId: match[3]!,
    sampled: (flags & 1) === 1,
    context: carried === undefined && bag === undefined
      ? context
      : Context.add(context, Carried, { tracestate: carried, baggage: bag })
  })
}

/** What the nearest remote ancestor of `span` carried. */
const carriedOf = (span: Tracer.AnySpan | undefined) => {
  let at: Tracer.AnySpan | undefined = span
  for (let depth = 0; at !== undefined && depth < 64; depth++) {
    if (at._tag === "ExternalSpan") return Context.getOption(at.context, Carried).pipe(Option.getOrUndefined)
    at = Option.getOrUndefined(at.parent)
  }
  return undefined
}

/** `params` with `span`'s trace context in its `_meta` (what was there of it replaced). */
export const inject = (params: unknown, span: Tracer.AnySpan): unknown => {
  const carried = carriedOf(span)
  const context: Record<string, string> = {
    [Config.metaKeys.traceparent]: `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`
  }
  if (carried?.tracestate !== undefined) context[Config.metaKeys.tracestate] = carried.tracestate
  if (carried?.baggage !== undefined) context[Config.metaKeys.baggage] = carried.baggage
  return Meta.withMeta(isObject(params) ? params : undefined, context)
}

/** What stands in a metric label for a value that may not be one (unknown, or too long). */
const other = "_OTHER"

/** The attribute length limit in force: `Config.Options.attributeValueLengthLimit`, else the default. */
const limitOf = (options: Config.Options): number => {
  const limit = options.attributeValueLengthLimit
  return limit !== undefined && limit >= 0 ? Math.floor(limit) : Config.defaultAttributeValueLengthLimit
}

/**
 * `text` cut to `limit` characters (not in the middle of a surrogate pair), as the OpenTelemetry
 * SDK's attribute limit cuts it; and a copy, not a slice: V8 keeps the whole of a string alive
 * behind a slice of it, so a 1,024-character slice of a 1 MB tool name would still hold the megabyte.
 */
const cut = (text: string, limit: number): string => {
  if (text.length <= limit) return text
  let end = limit
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  // JSON text is a fresh string, and so is the string parsed from it.
  return JSON.parse(JSON.stringify(text.slice(0, end)))
}

/**
 * What a request is about: its span's name and attributes (cut to the limit) and its metric labels.
 * The same for every request of one method and name (all but a resource's URI): kept, and shared.
 */
interface Described {
  readonly spanName: string
  readonly method: string
  readonly tool: string | undefined
  readonly prompt: string | undefined
  readonly uri: string | undefined
  /** `mcp.method.name` in the labels: a method of the protocol, or `_OTHER`. */
  readonly methodLabel: string
  /** `gen_ai.tool.name` / `gen_ai.prompt.name` in the labels: a name known and within the limit, or `_OTHER`. */
  readonly toolLabel: string | undefined
  readonly promptLabel: string | undefined
  /** The label sets of its successful outcomes by revision, bound once each (see `labelSetsOf`). */
  readonly ok: Map<string | undefined, ReadonlyArray<MetricLabel.MetricLabel>>
}

const isResourceMethod = (method: string) =>
  method === "resources/read" || method === "resources/subscribe" || method === "resources/unsubscribe"

/**
 * What `method` and `params` say of a request. `known` says which tool and prompt names may be
 * labels (a server's own); without it, any name within the limit may (at most `maxLabelSets` of
 * them).
 */
const describe = (
  method: string,
  name: string | undefined,
  uri: string | undefined,
  options: Config.Options,
  limit: number,
  known: Config.Known | undefined
): Described => {
  const tool = method === "tools/call" ? name : undefined
  const prompt = method === "prompts/get" ? name : undefined
  const target = tool ?? prompt ?? (options.resourceUriInName === true ? uri : undefined)
  const label = (value: string | undefined, has: ((name: string) => boolean) | undefined) =>
    value === undefined
      ? undefined
      : value.length <= limit && (has === undefined || has(value))
      ? value
      : other
  return {
    spanName: cut(target === undefined ? method : `${cut(method, limit)} ${cut(target, limit)}`, limit),
    method: cut(method, limit),
    tool: tool === undefined ? undefined : cut(tool, limit),
    prompt: prompt === undefined ? undefined : cut(prompt, limit),
    uri: uri === undefined ? undefined : cut(uri, limit),
    methodLabel: Method.definition(method) === undefined ? other : method,
    toolLabel: label(tool, known?.tool),
    promptLabel: label(prompt, known?.prompt),
    ok: new Map()
  }
}

/**
 * The most descriptions one engine keeps (one per method, and per tool or prompt name): past it, a
 * request is described anew (its label sets bounded by `maxLabelSets` all the same).
 */
const maxDescribed = 1_000

/**
 * `describe`, read once per request and kept per method and name: a request of a method and name
 * seen before (and for a server, a name it still has) costs two map lookups. Resource requests,
 * named by their URI, are described each time.
 */
const describer = (options: Config.Options, limit: number, known: Config.Known | undefined) => {
  const kept = new Map<string, Described | Map<string, Described>>()
  let size = 0
  return (method: string, params: Record<string, unknown> | undefined): Described => {
    if (isResourceMethod(method)) {
      const uri = params?.uri
      return describe(method, undefined, typeof uri === "string" ? uri : undefined, options, limit, known)
    }
    const named = method === "tools/call" || method === "prompts/get"
    const value = named ? params?.name : undefined
    const name = typeof value === "string" ? value : undefined
    const entry = kept.get(method)
    if (name === undefined) {
      if (entry !== undefined && !(entry instanceof Map)) return entry
      const described = describe(method, undefined, undefined, options, limit, known)
      if (entry === undefined && size < maxDescribed) {
        size++
        kept.set(method, described)
      }
      return described
    }
    // A name the server no longer has is `_OTHER` in the labels: described anew, not kept.
    const has = method === "tools/call" ? known?.tool : known?.prompt
    if (has !== undefined && !has(name)) return describe(method, name, undefined, options, limit, known)
    const byName = entry instanceof Map ? entry : undefined
    const seen = byName?.get(name)
    if (seen !== undefined) return seen
    const described = describe(method, name, undefined, options, limit, known)
    if (size < maxDescribed && (entry === undefined || byName !== undefined)) {
      size++
      if (byName === undefined) kept.set(method, new Map([[name, described]]))
      else byName.set(name, described)
    }
    return described
  }
}

/** `described`'s attributes on `span`. */
const annotate = (
  span: Tracer.Span,
  described: Described,
  params: Record<string, unknown> | undefined,
  options: Config.Options,
  limit: number
) => {
  span.attribute(Config.attributes.methodName, described.method)
  if (described.tool !== undefined) {
    span.attribute(Config.attributes.toolName, described.tool)
    span.attribute(Config.attributes.operationName, "execute_tool")
    const args = params?.arguments
    if (options.toolCallContent === true && args !== undefined) {
      span.attribute(Config.attributes.toolCallArguments, safeJson(args, limit))
    }
  }
  if (described.prompt !== undefined) span.attribute(Config.attributes.promptName, described.prompt)
  if (described.uri !== undefined) span.attribute(Config.attributes.resourceUri, described.uri)
}

/**
 * The most label sets the histograms of one engine record. A server labels only its own tools and
 * prompts; a client labels the names it calls, which a server may have offered: past this many,
 * the names are recorded as `_OTHER`.
 */
const maxLabelSets = 1_000

const safeJson = (value: unknown, limit: number): string => {
  try {
    return cut(JSON.stringify(value) ?? "null", limit)
  } catch {
    return "[unserializable]"
  }
}

/** The failure a span ends with: its message is the span's status description. */
class Failed extends Error {
  constructor(readonly errorType: string, message: string) {
    super(message)
    this.name = errorType === "tool_error" ? "ToolError" : "JsonRpcError"
  }
}

/** How a request ended, as telemetry records it. */
export type Outcome =
  | { readonly _tag: "Ok"; readonly result: unknown }
  | { readonly _tag: "Error"; readonly type: string; readonly code: string | undefined; readonly message: string }
  | { readonly _tag: "Interrupted" }

const interrupted: Outcome = { _tag: "Interrupted" }

/** The outcome of a response we send or receive (a result with `isError` is `tool_error`). */
export const outcomeOfResponse = (method: string, response: JsonRpc.Response): Outcome => {
  if ("error" in response) {
    const code = String(response.error.code)
    return { _tag: "Error", type: code, code, message: response.error.message }
  }
  return outcomeOfResult(method, response.result)
}

const outcomeOfResult = (method: string, result: unknown): Outcome => {
  if (method === "tools/call" && isObject(result) && result.isError === true) {
    return { _tag: "Error", type: "tool_error", code: undefined, message: toolErrorMessage(result) }
  }
  return { _tag: "Ok", result }
}

/** The first text of a tool's error result (cut to the limit where the span ends). */
const toolErrorMessage = (result: Record<string, unknown>): string => {
  const content = Array.isArray(result.content) ? result.content : []
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") return block.text
  }
  return "tool_error"
}

/** The outcome of one of our requests, from what its caller got (`Exit`). */
const outcomeOfExit = (method: string, exit: Exit.Exit<unknown, unknown>, revision: string | undefined): Outcome => {
  if (Exit.isSuccess(exit)) return outcomeOfResult(method, exit.value)
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure === undefined) {
    return exit.cause._tag === "Interrupt"
      ? interrupted
      : { _tag: "Error", type: "_OTHER", code: undefined, message: "" }
  }
  // The peer's error: its code as the revision spoken renders it.
  if (McpError.isMcpError(failure)) {
    const wire = failure.toWire((revision ?? Revision.latest) as Revision.Revision)
    const code = String(wire.code)
    return { _tag: "Error", type: code, code, message: wire.message }
  }
  const error = failure as { readonly _tag?: unknown; readonly message?: unknown }
  const type = error._tag === "RequestTimeout"
    ? "timeout"
    : error._tag === "TransportClosed"
    ? "transport_closed"
    : typeof error._tag === "string"
    ? error._tag
    : "_OTHER"
  return { _tag: "Error", type, code: undefined, message: typeof error.message === "string" ? error.message : type }
}

/** One request being served or sent: ends once, with its outcome. */
export interface Active {
  /** The request's span (undefined when only metrics are on). */
  readonly span: Tracer.Span | undefined
  readonly end: (outcome: Outcome, protocolVersion: string | undefined) => void
}

export interface Telemetry {
  readonly switches: Switches
  /**
   * A request received: its SERVER span, its parent the context in its `_meta` (`client`: none for
   * a request on a channel of its own).
   */
  readonly served: (client: number | undefined, request: JsonRpc.Request) => Active
  /** A request sent: its CLIENT span (child of `parent`), and its params with the context injected. */
  readonly sent: (
    client: number,
    id: number,
    method: string,
    params: unknown,
    parent: Tracer.AnySpan | undefined,
    links: ReadonlyArray<Tracer.SpanLink> | undefined
  ) => { readonly active: Active; readonly params: unknown }
  /** Ends `active` with what the caller of a request we sent got. */
  readonly settle: (
    active: Active,
    method: string,
    exit: Exit.Exit<unknown, unknown>,
    version: string | undefined
  ) => void
}

export interface MakeOptions {
  readonly switches: Switches
  readonly config: Config.Options
  readonly tracer: Tracer.Tracer
  readonly clock: Clock.Clock
  readonly context: Context.Context<never>
  readonly transport: Config.TransportDescription | undefined
  /** The tool and prompt names the side serves (a server's): the only ones its labels carry. */
  readonly known?: Config.Known | undefined
}

/**
 * The metric labels of a request's outcome, one array per label set, kept: Effect's histogram caches
 * its registry entry by the array's identity, so a label set seen before costs a map lookup, not a
 * metric key built and hashed. At most `maxLabelSets` sets.
 */
const labelSetsOf = (base: ReadonlyArray<MetricLabel.MetricLabel>, limit: number) => {
  const labelSets = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
  const of = (
    described: Described,
    version: string | undefined,
    outcome: Outcome
  ): ReadonlyArray<MetricLabel.MetricLabel> => {
    let errorType = outcome._tag === "Error" ? cut(outcome.type, limit) : undefined
    let code = outcome._tag === "Error" && outcome.code !== undefined ? cut(outcome.code, limit) : undefined
    let method = described.methodLabel
    let tool = described.toolLabel
    let prompt = described.promptLabel
    const keyOf = () => [method, tool, prompt, version, errorType, code].join("\u0000")
    let key = keyOf()
    const seen = labelSets.get(key)
    if (seen !== undefined) return seen
    const overflow = labelSets.size >= maxLabelSets
    if (overflow) {
      // Past the bound, only whether it failed and the revision (ours) are told apart: a few sets.
      const hide = (value: string | undefined) => value === undefined ? undefined : other
      method = other
      tool = hide(tool)
      prompt = hide(prompt)
      errorType = hide(errorType)
      code = hide(code)
      key = keyOf()
      const kept = labelSets.get(key)
      if (kept !== undefined) return kept
    }
    const labels = [...base, MetricLabel.make(Config.attributes.methodName, method)]
    if (tool !== undefined) {
      labels.push(
        MetricLabel.make(Config.attributes.toolName, tool),
        MetricLabel.make(Config.attributes.operationName, "execute_tool")
      )
    }
    if (prompt !== undefined) labels.push(MetricLabel.make(Config.attributes.promptName, prompt))
    if (version !== undefined) labels.push(MetricLabel.make(Config.attributes.protocolVersion, version))
    if (errorType !== undefined) labels.push(MetricLabel.make(Config.attributes.errorType, errorType))
    if (code !== undefined) labels.push(MetricLabel.make(Config.attributes.statusCode, code))
    labelSets.set(key, labels)
    return labels
  }
  // A success: its set bound to its description, by revision (kept among the `maxLabelSets`).
  return (
    described: Described,
    version: string | undefined,
    outcome: Outcome
  ): ReadonlyArray<MetricLabel.MetricLabel> => {
    if (outcome._tag !== "Ok") return of(described, version, outcome)
    const bound = described.ok.get(version)
    if (bound !== undefined) return bound
    const labels = of(described, version, outcome)
    // A few revisions each (a peer's odd versions are not kept past them).
    if (described.ok.size < 8) described.ok.set(version, labels)
    return labels
  }
}

/** A span's request id and transport attributes (the session, and for a client the server it calls). */
const decorate = (
  span: Tracer.Span,
  transport: Config.TransportDescription | undefined,
  limit: number,
  client: number | undefined,
  id: JsonRpc.RequestId,
  side: "server" | "client"
) => {
  span.attribute(Config.attributes.requestId, cut(String(id), limit))
  if (transport === undefined) return
  span.attribute(Config.attributes.networkTransport, transport.transport)
  if (transport.protocol !== undefined) span.attribute(Config.attributes.networkProtocolName, transport.protocol)
  const session = client === undefined ? undefined : transport.sessionId?.(client)
  if (session !== undefined) span.attribute(Config.attributes.sessionId, cut(session, limit))
  if (side === "client" && transport.server !== undefined) {
    span.attribute(Config.attributes.serverAddress, cut(transport.server.address, limit))
    if (transport.server.port !== undefined) span.attribute(Config.attributes.serverPort, transport.server.port)
  }
}

/** What every request of one engine is recorded with. */
interface Recording {
  readonly config: Config.Options
  readonly limit: number
  readonly clock: Clock.Clock
  readonly switches: Switches
  readonly labelsOf: ReturnType<typeof labelSetsOf>
}

/** One request being served or sent (`Active`): its span, if spans are on, and its histogram sample. */
class Request implements Active {
  private ended = false
  constructor(
    readonly recording: Recording,
    readonly span: Tracer.Span | undefined,
    readonly histogram: Metric.Metric.Histogram<number>,
    readonly described: Described,
    readonly started: number
  ) {}

  end(outcome: Outcome, version: string | undefined): void {
    if (this.ended) return
    this.ended = true
    const { clock, config, labelsOf, limit, switches } = this.recording
    const span = this.span
    if (version !== undefined) version = cut(version, limit)
    if (version !== undefined) span?.attribute(Config.attributes.protocolVersion, version)
    if (switches.metrics) {
      this.histogram.unsafeUpdate(
        (performance.now() - this.started) / 1000,
        labelsOf(this.described, version, outcome)
      )
    }
    if (span === undefined) return
    const now = clock.unsafeCurrentTimeNanos()
    switch (outcome._tag) {
      case "Ok":
        if (config.toolCallContent === true && this.described.tool !== undefined) {
          span.attribute(Config.attributes.toolCallResult, safeJson(outcome.result, limit))
        }
        return span.end(now, Exit.void)
      case "Interrupted":
        return span.end(now, Exit.interrupt(Option.none() as never))
      case "Error": {
        const type = cut(outcome.type, limit)
        span.attribute(Config.attributes.errorType, type)
        if (outcome.code !== undefined) span.attribute(Config.attributes.statusCode, cut(outcome.code, limit))
        // Its message is the span's status and its exception event (which the SDK's limits do not cut).
        return span.end(now, Exit.fail(new Failed(type, cut(outcome.message, limit))))
      }
    }
  }
}

/** The engine's telemetry, or `undefined` when nothing records. */
export const make = (options: MakeOptions): Telemetry | undefined => {
  const { clock, config, known, switches, tracer, transport } = options
  if (!switches.spans && !switches.metrics) return undefined
  const limit = limitOf(config)
  const base: Array<MetricLabel.MetricLabel> = []
  if (transport !== undefined) {
    base.push(MetricLabel.make(Config.attributes.networkTransport, transport.transport))
    if (transport.protocol !== undefined) {
      base.push(MetricLabel.make(Config.attributes.networkProtocolName, transport.protocol))
    }
  }

  const labelsOf = labelSetsOf(base, limit)
  const servedDescription = describer(config, limit, known)
  // What we call: any name (a server may offer many), within the limit and `maxLabelSets`.
  const sentDescription = describer(config, limit, undefined)
  const recording: Recording = { config, limit, clock, switches, labelsOf }

  const served: Telemetry["served"] = (client, request) => {
    // Read for the histogram only.
    const started = switches.metrics ? performance.now() : 0
    const { method } = request
    const params = isObject(request.params) ? request.params : undefined
    const described = servedDescription(method, params)
    if (!switches.spans) return new Request(recording, undefined, Config.serverOperationDuration, described, started)
    const parent = extract(params)
    const span = tracer.span(
      described.spanName,
      parent === undefined ? Option.none() : Option.some(parent),
      options.context,
      [],
      clock.unsafeCurrentTimeNanos(),
      "server"
    )
    annotate(span, described, params, config, limit)
    decorate(span, transport, limit, client, request.id, "server")
    return new Request(recording, span, Config.serverOperationDuration, described, started)
  }

  const sent: Telemetry["sent"] = (client, id, method, params, parent, links) => {
    // Read for the histogram only.
    const started = switches.metrics ? performance.now() : 0
    const described = sentDescription(method, isObject(params) ? params : undefined)
    if (!switches.spans) {
      return { active: new Request(recording, undefined, Config.clientOperationDuration, described, started), params }
    }
    const span = tracer.span(
      described.spanName,
      parent === undefined ? Option.none() : Option.some(parent),
      options.context,
      links ?? [],
      clock.unsafeCurrentTimeNanos(),
      "client"
    )
    annotate(span, described, isObject(params) ? params : undefined, config, limit)
    decorate(span, transport, limit, client, id, "client")
    return {
      active: new Request(recording, span, Config.clientOperationDuration, described, started),
      params: inject(params, span)
    }
  }

  const settle: Telemetry["settle"] = (active, method, exit, version) =>
    active.end(outcomeOfExit(method, exit, version), version)

  return { switches, served, sent, settle }
}

/** The outcome of a request received that was interrupted (cancelled, its client gone). */
export const cancelled: Outcome = interrupted
