/**
 * The stateless era (2026-07-28) on one engine: every request carries its own revision,
 * capabilities, client info and log level in `_meta`, and lives in its `McpRequest`; nothing of
 * it is kept between requests. This module owns what is the era's: the validation ladder, the
 * result envelope (`resultType`, serverInfo, caching hints), `server/discover`, and the
 * multi-round-trip requests (asks answered from the retry, or an `input_required` result with a
 * sealed `requestState`). The methods themselves are the serving core's (`serving.ts`).
 *
 * The validation ladder, every error with the request's id: missing `_meta` fields → -32602; an
 * unsupported version → -32022 with `{ supported, requested }`; an input kind the request's
 * capabilities do not declare → -32021; an unknown method → -32601.
 *
 * `subscriptions/listen` is served here too (validated, acknowledged with what the server can
 * serve at that instant, answered with the envelope when the server closes it); the open
 * subscriptions are the server's (`subscriptions.ts`), over every engine, which also refuses what
 * is past its limits (params too long, too many URIs: -32602; too many open: -32000).
 */
import type { JsonRpc, Transport } from "@effect-mcp/core"
import {
  AuthInfo,
  Capabilities,
  Dispatch,
  McpError,
  Meta,
  Method,
  Peer,
  Revision,
  Telemetry as McpTelemetry
} from "@effect-mcp/core"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Tool from "../Tool.js"
import * as Eager from "./eager.js"
import type { Host } from "./handshake.js"
import * as InputRequired from "./inputRequired.js"
import * as McpSchema from "./mcpSchema.js"
import type { Entries, Registry } from "./registry.js"
import { Request } from "./request.js"
import type { Config } from "./serving.js"
import * as Serving from "./serving.js"
import * as Shape from "./shape.js"
import { listenOf } from "./statelessListen.js"
import type { Channel, StatelessRequest } from "./statelessRequest.js"
import { EngineChannel, make as makeRequest } from "./statelessRequest.js"
import type { Subscriptions } from "./subscriptions.js"
import * as Tasks from "./tasks.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel
type InputRequest = McpSchema.InputRequired.InputRequest

/** Caching hints of one cacheable method: how long a result stays fresh, and who may share it. */
export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
}

/** The cacheable methods of 2026-07-28. */
export type Cacheable =
  | "server/discover"
  | "tools/list"
  | "prompts/list"
  | "resources/list"
  | "resources/templates/list"
  | "resources/read"

/** What the stateless era needs of the server, beyond the shared config. */
export interface StatelessConfig {
  /** The stateless revisions served. */
  readonly revisions: ReadonlyArray<Revision.Revision>
  /** Every revision served (handshake ones too, in dual mode): what `server/discover` lists. */
  readonly supportedVersions: ReadonlyArray<Revision.Revision>
  /** Caching hints per method (a handler's own `ttlMs` / `cacheScope` take precedence). */
  readonly cachePolicy: Partial<Record<Cacheable, CacheHint>>
  readonly sealer: Effect.Effect<InputRequired.Sealer>
}

const defaultHint: CacheHint = { ttlMs: 0, cacheScope: "public" }

const isLevel = (u: unknown): u is LoggingLevel =>
  typeof u === "string" && (McpSchema.Logging.levels as ReadonlyArray<string>).includes(u)
const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

// ---------------------------------------------------------------------------- the server's part

/** What a server shares between every engine it serves stateless requests on. */
export interface Server {
  readonly registry: Registry
  readonly config: Config
  readonly stateless: StatelessConfig
  /** The server's open subscriptions (`subscriptions/listen`), over every engine. */
  readonly subscriptions: Subscriptions
  /** The capabilities the registry's entries make, and the table serving them (kept per entries). */
  readonly served: (entries: Entries) => {
    readonly capabilities: ServerCapabilities
    readonly table: Serving.Table<StatelessRequest>
  }
}

/** Is this request a retry of a multi-round-trip request? (Its result must not be cached.) */
const isRetry = (params: unknown) => isObject(params) && ("inputResponses" in params || "requestState" in params)

/** The 2026-07-28 envelopes of results: `resultType`, serverInfo, caching hints. */
const envelopes = (config: Config, stateless: StatelessConfig) => {
  const hint = (method: Cacheable) => stateless.cachePolicy[method] ?? defaultHint

  // The serverInfo `_meta` of each revision, made once (results share it; nothing mutates it).
  const serverInfoMeta = new Map<Revision.Revision, McpSchema.Base.MetaObject>()
  const withServerInfo = (result: object, request: StatelessRequest) => {
    let info = serverInfoMeta.get(request.revision)
    if (info === undefined) {
      info = { [Meta.serverInfo]: Shape.implementation(config.serverInfo, request.features) }
      serverInfoMeta.set(request.revision, info)
    }
    const own = (result as { readonly _meta?: McpSchema.Base.MetaObject })._meta
    return own === undefined ? info : Meta.merge(own, info)
  }

  // The envelopes are built with Object.assign, not `{ ...result, key }`: on Node 20 a spread
  // followed by keys the result lacks takes a slow path (about 1.5 µs each, measured), which
  // every answered request would pay.

  /** The 2026-07-28 envelope of a complete result: `resultType`, serverInfo. */
  const complete = <A extends object>(
    result: A,
    request: StatelessRequest
  ): A & { readonly resultType: "complete"; readonly _meta: McpSchema.Base.MetaObject | undefined } =>
    Object.assign({}, result, { resultType: "complete" as const, _meta: withServerInfo(result, request) })

  /** The envelope of a cacheable result: caching hints too (a handler's own take precedence). */
  const cached = <A extends object>(result: A, request: StatelessRequest, method: Cacheable | CacheHint) => {
    const own = result as { readonly ttlMs?: number; readonly cacheScope?: "public" | "private" }
    const h = typeof method === "string" ? hint(method) : method
    // A retry of a multi-round-trip request is never cached.
    const ttlMs = isRetry(request.request.params) ? 0 : own.ttlMs ?? h.ttlMs
    return Object.assign(complete(result, request), { ttlMs, cacheScope: own.cacheScope ?? h.cacheScope })
  }

  return { withServerInfo, complete, cached }
}

/** Who holds the token the request came with: a sealed state is good for that holder only. */
const subjectOf = (request: StatelessRequest): string | undefined =>
  Option.isSome(request.auth) ? AuthInfo.holder(request.auth.value) : undefined

/**
 * A method that may answer `input_required`: the answers the retry carries (from the sealed
 * state, earlier rounds'; of its own, those to what the last round asked) are attached first;
 * the signals its run stops with become one `input_required` result.
 */
const multiRoundOf = (stateless: StatelessConfig) => {
  const multiRound = <A extends object>(
    method: string,
    params: object,
    request: StatelessRequest,
    run: (request: StatelessRequest) => Effect.Effect<A, McpError.McpError>
  ): Effect.Effect<A | McpSchema.InputRequired.InputRequiredResult, McpError.McpError> => {
    const raw = params as Record<string, unknown>
    const given = params as {
      readonly inputResponses?: Readonly<Record<string, unknown>>
      readonly requestState?: string
    }
    /** The signals a run stopped with become one `input_required` result (other failures stay). */
    const rounds = (cause: Cause.Cause<McpError.McpError>) => {
      const signals = Chunk.toReadonlyArray(Cause.defects(cause)).filter(InputRequired.isInputRequired)
      if (signals.length === 0) return Effect.failCause(cause)
      const inputRequests: Record<string, InputRequest> = {}
      for (const signal of signals) Object.assign(inputRequests, signal.inputRequests)
      for (const [key, input] of Object.entries(inputRequests)) {
        if (!Capabilities.declares(request.clientCapabilities, input, request.revision)) {
          return Effect.fail(
            new McpError.MissingRequiredClientCapability({
              requiredCapabilities: Capabilities.required(input),
              detail: `Input request ${key} needs a client capability this request does not declare`
            })
          )
        }
      }
      const userState = signals.find((s) => s.requestState !== undefined)?.requestState
      const sealed = Effect.flatMap(
        stateless.sealer,
        (sealer) =>
          sealer.seal(
            method,
            raw,
            request.asker.kept(inputRequests),
            Object.keys(inputRequests),
            userState,
            subjectOf(request)
          )
      )
      return Effect.map(sealed, (requestState) => ({
        resultType: "input_required" as const,
        ...(Object.keys(inputRequests).length > 0 ? { inputRequests } : {}),
        requestState
      }))
    }
    // The sealer only when a round needs it: a plain call runs without an asynchronous step, and
    // one whose run is done at once stays done (`eager.ts`).
    if (given.requestState !== undefined) {
      const attempt = Effect.catchAllCause(Effect.suspend(() => run(request)), rounds)
      const state = given.requestState
      const own = given.inputResponses ?? {}
      return Effect.zipRight(
        Effect.flatMap(
          stateless.sealer,
          (sealer) =>
            Effect.map(sealer.unseal(method, raw, state, subjectOf(request)), (unsealed) => {
              // Of the retry's own answers, only those to what the last round asked (other keys are
              // ignored); earlier rounds' come from the state, and win: a retry cannot change them.
              const answered = unsealed.asked.filter((key) => Object.hasOwn(own, key)).map((key) => [key, own[key]])
              request.asker.answers = { ...Object.fromEntries(answered), ...unsealed.answers }
              request.asker.userState = unsealed.userState
            })
        ),
        attempt
      )
    }
    // No state: the first call, which was asked nothing. Its `inputResponses` count only for what
    // the handler asks first, the round it would have asked with no answers at all: a client that
    // knows a tool's first question may answer it at once (the conformance suite's
    // `input-required-result-ignore-extra-params` has it so), but never a later round's, which the
    // server asks in its turn (a retry contributes only what the last round asked; a first call,
    // only the first round). Other keys are ignored, as the revision says of what a server does not
    // recognize or need. To know the first round, the handler runs once with no answers (handlers
    // are safe to run again up to their first ask), then again with the answers to that round.
    const own = given.inputResponses
    const ran = run(request)
    if (own === undefined || Object.keys(own).length === 0) {
      return Eager.done(ran) ? ran : Effect.catchAllCause(ran, rounds)
    }
    return Effect.catchAllCause(ran, (cause) => {
      const firstRound = Chunk.toReadonlyArray(Cause.defects(cause))
        .filter(InputRequired.isInputRequired)
        .flatMap((signal) => Object.keys(signal.inputRequests))
      const answered = firstRound.filter((key) => Object.hasOwn(own, key))
      if (answered.length === 0) return rounds(cause)
      request.asker.answers = Object.fromEntries(answered.map((key) => [key, own[key]]))
      return Effect.catchAllCause(Effect.suspend(() => run(request)), rounds)
    })
  }

  return multiRound
}

export const makeServer = (
  registry: Registry,
  config: Config,
  stateless: StatelessConfig,
  subscriptions: Subscriptions
): Server => {
  const core = Serving.make(registry, config)
  const features = Revision.features("2026-07-28")
  const { withServerInfo, complete, cached } = envelopes(config, stateless)
  const multiRound = multiRoundOf(stateless)
  const listen = listenOf(registry, config, subscriptions, complete)

  // An extension's methods, each result in the era's envelope; a method the catalog calls cacheable
  // gets caching hints too (the handler's own, else the extension's, else the defaults).
  const extended = Object.fromEntries(
    config.extensions.flatMap((extension) =>
      Object.entries(extension.handlers).map(([method, handler]) => {
        const cacheable = (Method.definition(method)?.cacheable ?? false)
          ? extension.cacheHint ?? defaultHint
          : undefined
        return [
          method,
          (params: unknown, request: StatelessRequest) =>
            Effect.map(
              (handler as unknown as (
                params: unknown,
                request: StatelessRequest
              ) => Effect.Effect<object, McpError.McpError>)(
                params,
                request
              ),
              (result) => cacheable === undefined ? complete(result, request) : cached(result, request, cacheable)
            )
        ]
      })
    )
  ) as Dispatch.Handlers<McpError.McpError, never, StatelessRequest>

  const handlers: Dispatch.Handlers<McpError.McpError, never, StatelessRequest> = {
    ...extended,
    "subscriptions/listen": listen,
    "server/discover": (_params, request) =>
      Effect.map(Ref.get(registry.entries), (entries) =>
        cached(
          {
            supportedVersions: stateless.supportedVersions,
            capabilities: Serving.capabilities(entries, config, features),
            ...(config.instructions !== undefined ? { instructions: config.instructions } : {})
          },
          request,
          "server/discover"
        )),
    "tools/list": (params, request) =>
      Effect.map(core["tools/list"]!(params, request), (r) => cached(r, request, "tools/list")),
    "prompts/list": (params, request) =>
      Effect.map(core["prompts/list"]!(params, request), (r) => cached(r, request, "prompts/list")),
    "resources/list": (params, request) =>
      Effect.map(core["resources/list"]!(params, request), (r) => cached(r, request, "resources/list")),
    "resources/templates/list": (params, request) =>
      Effect.map(
        core["resources/templates/list"]!(params, request),
        (r) => cached(r, request, "resources/templates/list")
      ),
    "completion/complete": (params, request) =>
      Effect.map(core["completion/complete"]!(params, request), (r) => complete(r, request)),
    "tools/call": (params, request) =>
      multiRound(
        "tools/call",
        params,
        request,
        (r) =>
          Eager.map(
            core["tools/call"]!(params, r),
            (result) =>
              Tasks.isCreated(result)
                // Answered with a task (the request declared the extension): flat, `resultType: "task"`.
                ? Object.assign(Tasks.taskExtension(result.record), {
                  resultType: "task" as const,
                  _meta: withServerInfo({}, r)
                }) as never
                : complete(result, r)
          )
      ),
    "tasks/get": (params, request) =>
      Effect.map(core["tasks/get"]!(params, request), (result) => complete(result, request)),
    "tasks/update": (params, request) =>
      Effect.map(core["tasks/update"]!(params, request), (result) => complete(result, request)),
    "tasks/cancel": (params, request) =>
      Effect.map(core["tasks/cancel"]!(params, request), (result) => complete(result, request)),
    "prompts/get": (params, request) =>
      multiRound(
        "prompts/get",
        params,
        request,
        (r) => Effect.map(core["prompts/get"]!(params, r), (result) => complete(result, r))
      ),
    "resources/read": (params, request) =>
      multiRound(
        "resources/read",
        params,
        request,
        (r) => Effect.map(core["resources/read"]!(params, r), (result) => cached(result, r, "resources/read"))
      )
  }

  // The capabilities the registry makes and their table, kept per entries (they change only with an edit).
  const tables = Serving.tables(handlers)
  const byEntries = new WeakMap<Entries, ReturnType<Server["served"]>>()
  const served = (entries: Entries) => {
    let found = byEntries.get(entries)
    if (found === undefined) {
      const capabilities = Serving.capabilities(entries, config, features)
      byEntries.set(entries, found = { capabilities, table: tables("2026-07-28", capabilities) })
    }
    return found
  }

  return { registry, config, stateless, subscriptions, served }
}

// ---------------------------------------------------------------------------- serving an engine

/**
 * Does this request speak the stateless era? It carries a protocol version in its `_meta`, or it
 * is a method only that era has (`server/discover`, `subscriptions/listen`: without their `_meta`
 * they are told -32602, not -32601).
 */
export const isStatelessRequest = (request: JsonRpc.Request): boolean => {
  if (request.method === "server/discover" || request.method === "subscriptions/listen") return true
  const meta = Meta.of(request.params)
  return meta !== undefined && Object.hasOwn(meta, Meta.protocolVersion)
}

/** The revision a stateless request's errors are rendered for. */
export const revisionOf = (request: JsonRpc.Request | undefined): Revision.Revision =>
  revisionOfVersion(Option.getOrUndefined(Meta.getProtocolVersion(Meta.of(request?.params))))

/** The revision a request naming `version` in its `_meta` is answered in (`revisionOf`, its `_meta` read already). */
export const revisionOfVersion = (version: unknown): Revision.Revision =>
  Revision.isRevision(version) && Revision.isStateless(version) ? version : Revision.latest

/**
 * A request prepared: its effect (an `Exit` when its answer is there at once), and its context
 * (none: the ladder refused it), which its fiber starts with.
 */
export interface Preparation {
  readonly effect: Effect.Effect<unknown, unknown>
  readonly request: StatelessRequest | undefined
}

/** How a request prepared is served: its effect, in the context of its `McpRequest`. */
export const handlingOf = (preparation: Preparation): Peer.Handling<never> =>
  preparation.request === undefined
    ? preparation.effect
    : { effect: preparation.effect, context: Serving.requestContext(preparation.request) }

const unsupported = (stateless: StatelessConfig, requested: string) =>
  new McpError.UnsupportedProtocolVersion({ supported: stateless.revisions, requested })

/** The validation ladder: the request's `McpRequest`, or why it is refused. */
const ladder = (
  stateless: StatelessConfig,
  channel: Channel,
  request: JsonRpc.Request,
  meta: McpSchema.Base.MetaObject | undefined,
  received: Transport.ReceiveContext | undefined
): StatelessRequest | McpError.McpError => {
  const version = meta?.[Meta.protocolVersion]
  if (
    request.method === "initialize" && (meta === undefined || !Object.hasOwn(meta, Meta.protocolVersion))
  ) {
    // A handshake client reaching a stateless-only server: told what would work. (An initialize
    // of the stateless era's own shape is a method it does not have: -32601.)
    const requested = (request.params as { readonly protocolVersion?: unknown } | undefined)?.protocolVersion
    return unsupported(stateless, typeof requested === "string" ? requested : "")
  }
  const capabilities = meta?.[Meta.clientCapabilities]
  if (meta === undefined || typeof version !== "string" || !isObject(capabilities)) {
    return new McpError.InvalidParams({
      message: `Invalid params for ${request.method}: a 2026-07-28 request carries _meta with ` +
        `${Meta.protocolVersion} and ${Meta.clientCapabilities}`
    })
  }
  if (!(stateless.revisions as ReadonlyArray<string>).includes(version)) return unsupported(stateless, version)
  const level = meta[Meta.logLevel]
  if (level !== undefined && !isLevel(level)) {
    return new McpError.InvalidParams({ message: `Invalid params: unknown log level ${JSON.stringify(level)}` })
  }
  return makeRequest(
    request,
    channel,
    version as Revision.Revision,
    meta,
    capabilities as ClientCapabilities,
    Option.fromNullable(level as LoggingLevel | undefined),
    Serving.authOf(received),
    received?.peer,
    received?.peer === undefined && received?.anonymous === true
  )
}

/**
 * A request prepared: the ladder run and the method dispatched, with `meta` read once by the
 * caller, and `tool` (a `tools/call`'s, when the caller looked it up already) not looked up again.
 * What it causes goes to `channel`.
 */
export const prepare = (
  server: Server,
  channel: Channel,
  request: JsonRpc.Request,
  meta: McpSchema.Base.MetaObject | undefined,
  received: Transport.ReceiveContext | undefined,
  tool: Tool.Tool | undefined
): Preparation => {
  const context = ladder(server.stateless, channel, request, meta, received)
  if (!(context instanceof Request)) return { effect: Effect.fail(context), request: undefined }
  context.tool = tool
  // The registry read synchronously: a request done at once is answered without a fiber. A handler
  // that throws as it is called (not in its Effect) is a defect of this request, as in the engine.
  let effect: Effect.Effect<unknown, McpError.McpError>
  try {
    effect = Dispatch.run(server.served(server.registry.unsafeEntries()).table, request, context)
  } catch (defect) {
    effect = Effect.die(defect)
  }
  return { effect, request: context }
}

/** The stateless era on one engine (stdio, an in-memory pair): each request's channel is its client of the engine. */
export const era = (server: Server, host: () => Host) => {
  const onRequest = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    received: Transport.ReceiveContext | undefined
  ): Peer.Handling<never> =>
    handlingOf(
      prepare(
        server,
        new EngineChannel(host(), client, request.id),
        request,
        Meta.of(request.params),
        received,
        undefined
      )
    )

  return { onRequest }
}

/**
 * Serving 2026-07-28 requests that each come with a channel of their own (the stateless HTTP back
 * end), without an engine: the back end prepares each request (`prepare`) and, unless its answer
 * is there at once, serves it on its channel (`requests`, `Peer.Requests`).
 */
export interface Direct {
  readonly server: Server
  /** Serves a request prepared on its channel, on the server's runtime. */
  readonly requests: Peer.Requests<never>
  /**
   * Records a request done at once that its caller answers without `requests` (its span and
   * histogram sample, when they are on); undefined when it may not be (its Debug line is logged):
   * `requests.answeredAtOnce`.
   */
  readonly answeredAtOnce:
    | ((request: JsonRpc.Request, response: JsonRpc.Response, revision: string) => void)
    | undefined
}

/**
 * Serving on channels of their own, on the runtime of the caller with `context` (the server's)
 * added, as an engine of the server would be.
 */
export const direct = (
  server: Server,
  context: Context.Context<never>,
  transport: McpTelemetry.TransportDescription
): Effect.Effect<Direct> =>
  Effect.mapInputContext(
    Effect.gen(function*() {
      const requests = yield* Peer.requests<never>({
        revision: (request) => Effect.succeed(revisionOf(request)),
        telemetry: transport,
        // Metrics are labelled by the tools and prompts the server has now, not by any name a client sends.
        known: {
          tool: (name) => server.registry.unsafeEntries().tools.has(name),
          prompt: (name) => server.registry.unsafeEntries().prompts.has(name)
        }
      })
      return { server, requests, answeredAtOnce: requests.answeredAtOnce }
    }),
    (outer: Context.Context<never>) => Context.merge(context, outer)
  )
