/**
 * An MCP client as a service: one connection to one server, in either era.
 *
 * - **Handshake era**: `initialize` with our latest handshake revision, an older offer we speak
 *   accepted (any other is a `VersionMismatch` naming both), `notifications/initialized`; the
 *   server's requests (sampling, elicitation, roots, ping) are answered by the user's handlers.
 * - **Stateless era** (2026-07-28): every request carries the revision, the capabilities, the
 *   client info and the log level in `_meta`. An `input_required` result is fulfilled with the
 *   handlers (its input requests in parallel) and retried with the same params, the answers under
 *   the server's keys and `requestState` byte for byte, up to `maxRoundTrips`; the caller sees
 *   only the final result.
 * - **`auto`** (the default) probes with `server/discover`: a result means the stateless era; a
 *   -32022 naming handshake revisions, any other error or no answer in time means the handshake.
 *
 * Every call is an Effect with typed errors (`ClientError`); interrupting one cancels it on the
 * wire. Notifications (list changes, logs, resource updates) are a `Stream`.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/core"
import { McpError, Meta, Method, Peer, Revision, Schema as McpSchema, SubscriptionFilter } from "@effect-mcp/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientError from "./ClientError.js"
import { McpClientTransport } from "./McpClientTransport.js"
import * as ResponseCache from "./ResponseCache.js"

type Implementation = McpSchema.Base.Implementation
type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel
type InputRequest = McpSchema.InputRequired.InputRequest

/** The server, as the client's transport sees it: the protocol's one client. */
const server = 0

/** A result's structured value: `structuredContent`, else the JSON of its one text content. */
const structuredOf = (result: McpSchema.Tool.CallToolResult): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  const text = result.content.length === 1 && result.content[0]!.type === "text" ? result.content[0]!.text : undefined
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * How the client picks its era: probe (`auto`), or pin one and never fall back.
 *
 * @since 0.1.0
 * @category models
 */
export type EraChoice = "auto" | Revision.Era

/**
 * What the user answers the server's asks with. A kind without a handler is not declared, and a
 * request for it fails (`MissingHandler` in a stateless request; -32601 to a handshake server).
 *
 * @since 0.1.0
 * @category models
 */
export interface Handlers<R = never> {
  readonly sampling?: (
    params: McpSchema.Sampling.CreateMessageRequestParams
  ) => Effect.Effect<McpSchema.Sampling.CreateMessageResult, McpError.McpError, R>
  readonly elicitation?: (
    params: McpSchema.Elicitation.ElicitRequestParams
  ) => Effect.Effect<McpSchema.Elicitation.ElicitResult, McpError.McpError, R>
  readonly roots?: Effect.Effect<ReadonlyArray<McpSchema.Roots.Root>, McpError.McpError, R>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> {
  readonly clientInfo: Implementation
  /** Declared capabilities (default: those the handlers make). */
  readonly capabilities?: ClientCapabilities
  readonly era?: EraChoice
  readonly handlers?: Handlers<R>
  /** Rounds of one multi-round-trip request before `RoundTripsExceeded` (default 8). */
  readonly maxRoundTrips?: number
  /** The log level asked of the server (stateless: in every request's `_meta`). */
  readonly logLevel?: LoggingLevel
  /** Timeout of one request (default 60 seconds), restarted by its progress up to `maxTimeout`. */
  readonly timeout?: Duration.DurationInput
  readonly maxTimeout?: Duration.DurationInput
  /** How long `auto` waits for the answer to its `server/discover` probe (default 5 seconds). */
  readonly probeTimeout?: Duration.DurationInput
  /** Pages a listing follows before it stops (default 100). */
  readonly maxPages?: number
  /**
   * The response cache (2026-07-28): `false` turns it off; a `Store` replaces the in-memory one.
   * Results are kept only as long as their `ttlMs` says (the server's default 0: not at all).
   */
  readonly cache?: boolean | ResponseCache.Store
  /** Who the client acts for, for `private` cache entries (an auth context; default one for all). */
  readonly cachePartition?: string
}

/**
 * Options of one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** Receives the call's progress (and asks the server for it). */
  readonly onProgress?: (progress: Peer.Progress) => Effect.Effect<void>
  readonly timeout?: Duration.DurationInput
}

/**
 * What a typed call needs to know of a tool: its name and Schemas, the same ones the server's
 * `Tool.make(name, { parameters, success, failure }, handler)` is given (share one object).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolSpec<P = unknown, PI = unknown, S = unknown, SI = unknown, F = unknown, FI = unknown> {
  readonly name: string
  readonly parameters?: Schema.Schema<P, PI>
  readonly success?: Schema.Schema<S, SI>
  readonly failure?: Schema.Schema<F, FI>
}

/**
 * An open subscription: what the server acknowledged it can serve, and the notifications the
 * filter asked for. The stream ends when the server closes the subscription gracefully; closing
 * the scope ends the subscription (a 2026-07-28 listen is cancelled; handshake resource
 * subscriptions are unsubscribed).
 *
 * @since 0.1.0
 * @category models
 */
export interface Subscription {
  readonly acknowledged: McpSchema.Subscription.SubscriptionFilter
  readonly notifications: Stream.Stream<JsonRpc.Notification, ClientError.ClientError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The era spoken with this server. */
  readonly era: Revision.Era
  /** The revision spoken with this server. */
  readonly revision: Revision.Revision
  readonly serverInfo: Option.Option<Implementation>
  readonly serverCapabilities: ServerCapabilities
  readonly instructions: Option.Option<string>
  /** Any request, with the era's envelope and (stateless) the multi-round-trip driver. */
  readonly request: (
    method: string,
    params?: object,
    options?: CallOptions
  ) => Effect.Effect<unknown, ClientError.ClientError>
  /** `ping` (handshake era); in the stateless era, which has none, a `server/discover`. */
  readonly ping: Effect.Effect<void, ClientError.ClientError>
  /** `server/discover` (stateless era). */
  readonly discover: Effect.Effect<McpSchema.Discovery.DiscoverResult, ClientError.ClientError>
  /** Every tool, following the pages (at most `maxPages`). */
  readonly listTools: Effect.Effect<ReadonlyArray<McpSchema.Tool.Tool>, ClientError.ClientError>
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.Tool.CallToolResult, ClientError.ClientError>
  /**
   * `tools/call` typed by the tool's Schemas: the arguments are encoded with `parameters` (a
   * mismatch is `InvalidArguments`, and nothing is sent); the value is decoded with `success`
   * from `structuredContent` (else from the JSON of the text, as revisions before 2025-06-18 carry
   * it); an `isError` answer fails with `ToolFailed` carrying the decoded `failure`.
   */
  readonly callToolWith: <P, PI, S, SI, F = unknown, FI = unknown>(
    tool: ToolSpec<P, PI, S, SI, F, FI> & { readonly success: Schema.Schema<S, SI> },
    args: P,
    options?: CallOptions
  ) => Effect.Effect<S, ClientError.ClientError | ClientError.InvalidArguments | ClientError.ToolFailed<F>>
  readonly listResources: Effect.Effect<ReadonlyArray<McpSchema.Resource.Resource>, ClientError.ClientError>
  readonly listResourceTemplates: Effect.Effect<
    ReadonlyArray<McpSchema.Resource.ResourceTemplate>,
    ClientError.ClientError
  >
  readonly readResource: (
    uri: string,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.Resource.ReadResourceResult, ClientError.ClientError>
  readonly listPrompts: Effect.Effect<ReadonlyArray<McpSchema.Prompt.Prompt>, ClientError.ClientError>
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.Prompt.GetPromptResult, ClientError.ClientError>
  readonly complete: (
    params: McpSchema.Completion.CompleteRequestParams
  ) => Effect.Effect<McpSchema.Completion.CompleteResult, ClientError.ClientError>
  /** `logging/setLevel` (handshake era; in the stateless era the level rides in each request). */
  readonly setLogLevel: (level: LoggingLevel) => Effect.Effect<void, ClientError.ClientError>
  /** Every notification the server sends from now on (list changes, logs, resource updates, ...). */
  readonly notifications: Stream.Stream<JsonRpc.Notification>
  /**
   * Tells the server the roots changed (`notifications/roots/list_changed`; handshake era, where
   * it may keep the roots it asked for; a stateless server asks in each request that needs them).
   */
  readonly rootsChanged: Effect.Effect<void, ClientError.ClientError>
  /** How often the response cache answered, and how often it could not. */
  readonly cacheStats: Effect.Effect<{ readonly hits: number; readonly misses: number }>
  /**
   * Subscribes to list changes and resource updates: a `subscriptions/listen` in the stateless
   * era; in a session, `resources/subscribe` for the URIs and the session's own list changes.
   */
  readonly subscribe: (
    filter: McpSchema.Subscription.SubscriptionFilter
  ) => Effect.Effect<Subscription, ClientError.ClientError, Scope.Scope>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpClient extends Context.Tag("@effect-mcp/client/McpClient")<McpClient, Service>() {}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The capabilities the handlers make. */
const capabilitiesOf = (handlers: Handlers<any>): ClientCapabilities => ({
  ...(handlers.sampling !== undefined ? { sampling: {} } : {}),
  ...(handlers.elicitation !== undefined ? { elicitation: { form: {}, url: {} } } : {}),
  ...(handlers.roots !== undefined ? { roots: { listChanged: true } } : {})
})

const handlerOf = (method: string): "sampling" | "elicitation" | "roots" | undefined =>
  method === "sampling/createMessage"
    ? "sampling"
    : method === "elicitation/create"
    ? "elicitation"
    : method === "roots/list"
    ? "roots"
    : undefined

/**
 * Connects, picks the era and the revision, and serves the server's asks, for the lifetime of the
 * scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never>(
  options: Options<R>
): Effect.Effect<Service, ClientError.ClientError, McpClientTransport | Scope.Scope | R> =>
  Effect.gen(function*() {
    const transport = yield* McpClientTransport
    const { protocol } = transport
    const context = yield* Effect.context<R>()
    const handlers = options.handlers ?? {}
    const capabilities = options.capabilities ?? capabilitiesOf(handlers)
    const maxRoundTrips = options.maxRoundTrips ?? 8
    const maxPages = options.maxPages ?? 100
    const notifications = yield* Effect.acquireRelease(PubSub.unbounded<JsonRpc.Notification>(), PubSub.shutdown)
    const store = options.cache === false
      ? undefined
      : options.cache === undefined || options.cache === true
      ? yield* ResponseCache.memory
      : options.cache
    const stats = yield* Ref.make({ hits: 0, misses: 0 })
    // The revision server requests are decoded with: known once negotiated.
    let spoken: Revision.Revision = Revision.latestHandshake

    /** One ask of the server, answered by the user's handler. */
    const answer = (
      method: string,
      params: unknown
    ): Effect.Effect<unknown, McpError.McpError | ClientError.MissingHandler> => {
      switch (method) {
        case "sampling/createMessage":
          return handlers.sampling === undefined
            ? Effect.fail(new ClientError.MissingHandler({ method, handler: "sampling" }))
            : Effect.provide(handlers.sampling(params as McpSchema.Sampling.CreateMessageRequestParams), context)
        case "elicitation/create":
          return handlers.elicitation === undefined
            ? Effect.fail(new ClientError.MissingHandler({ method, handler: "elicitation" }))
            : Effect.provide(handlers.elicitation(params as McpSchema.Elicitation.ElicitRequestParams), context)
        case "roots/list":
          return handlers.roots === undefined
            ? Effect.fail(new ClientError.MissingHandler({ method, handler: "roots" }))
            : Effect.map(Effect.provide(handlers.roots, context), (roots) => ({ roots }))
        default:
          return Effect.fail(new McpError.MethodNotFound({ method }))
      }
    }

    const peer = yield* Peer.make({
      protocol,
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.maxTimeout !== undefined ? { maxTimeout: options.maxTimeout } : {}),
      revision: () => Effect.succeed(spoken),
      onRequest: (_client, request) => {
        if (request.method === "ping") return Effect.succeed({})
        const entry = Method.lookup(spoken, request.method)
        if (entry === undefined || handlerOf(request.method) === undefined) {
          return Effect.fail(new McpError.MethodNotFound({ method: request.method }))
        }
        const params = entry.decodeParams(request.params)
        if (params._tag === "Left") return Effect.fail(params.left)
        return Effect.catchTag(
          answer(request.method, params.right),
          "MissingHandler",
          (missing) => Effect.fail(new McpError.MethodNotFound({ method: missing.method, detail: missing.message }))
        )
      },
      onNotification: (_client, notification) => {
        // What it makes stale is dropped before anyone hears of it.
        const stale = store === undefined
          ? undefined
          : ResponseCache.staleAfter(notification.method, notification.params)
        return Effect.zipRight(
          stale === undefined ? Effect.void : store!.invalidate(stale),
          Effect.asVoid(PubSub.publish(notifications, notification))
        )
      }
    })

    // Progress is asked for (a progressToken) only by a caller that listens; then it also restarts
    // the timeout, up to `maxTimeout`. Without a token no progress comes, and nothing is raced.
    const requestOptions = (call: CallOptions | undefined): Peer.RequestOptions => ({
      ...(call?.onProgress !== undefined ? { onProgress: call.onProgress, resetTimeoutOnProgress: true } : {}),
      ...(call?.timeout !== undefined ? { timeout: call.timeout } : {})
    })

    /** A result checked against its method's schema in the revision spoken. */
    const decoded = (revision: Revision.Revision, method: string, result: unknown) => {
      const decode = Method.lookup(revision, method)?.decodeResult
      if (decode === undefined) return Effect.succeed(result)
      const checked = decode(result)
      return checked._tag === "Right"
        ? Effect.succeed(checked.right)
        : Effect.fail(new ClientError.InvalidResult({ method, detail: Method.describeError(checked.left) }))
    }

    // ------------------------------------------------------------------------ the stateless era

    // The newest stateless revision of the table: what every stateless request of this client speaks.
    const stateless: Revision.Revision = Revision.stateless[Revision.stateless.length - 1]
    const meta: McpSchema.Base.MetaObject = {
      [Meta.protocolVersion]: stateless,
      [Meta.clientCapabilities]: capabilities,
      [Meta.clientInfo]: options.clientInfo,
      ...(options.logLevel !== undefined ? { [Meta.logLevel]: options.logLevel } : {})
    }
    const versionMismatch = (error: McpError.UnsupportedProtocolVersion) =>
      new ClientError.VersionMismatch({ offered: error.supported, supported: Revision.all })

    /**
     * A -32022 whose `supported` lists the revision we speak is retried once (a server may reject a
     * first choice it then accepts); otherwise, or again, it is a `VersionMismatch` naming both.
     */
    const retryOnce = <A>(
      send: () => Effect.Effect<A, Exclude<ClientError.ClientError, ClientError.VersionMismatch>>
    ) =>
      Effect.catchTag(send(), "UnsupportedProtocolVersion", (error) =>
        error.supported.includes(stateless)
          ? Effect.catchTag(send(), "UnsupportedProtocolVersion", (again) => Effect.fail(versionMismatch(again)))
          : Effect.fail(versionMismatch(error)))

    /** Fulfils every input request of one round, in parallel, with the handlers. */
    const fulfil = (requests: Readonly<Record<string, InputRequest>>) =>
      Effect.all(
        Object.fromEntries(
          Object.entries(requests).map(([key, input]) => [
            key,
            answer(input.method, "params" in input ? input.params : undefined)
          ])
        ),
        { concurrency: "unbounded" }
      )

    /** A stateless request: `_meta` on it, rounds driven until the result is complete. */
    const statelessRequest = (
      method: string,
      params: object | undefined,
      call: CallOptions | undefined,
      /** Told a result that came without a multi-round trip (only those may be cached). */
      firstRound?: (result: Record<string, unknown>) => void
    ) => {
      const round = (
        n: number,
        extra: object
      ): Effect.Effect<unknown, ClientError.ClientError> =>
        Effect.flatMap(
          retryOnce(() =>
            peer.request(server, method, Meta.withMeta({ ...params, ...extra }, meta), requestOptions(call))
          ),
          (result): Effect.Effect<unknown, ClientError.ClientError> => {
            if (!isObject(result) || result.resultType !== "input_required") {
              if (n === 1 && isObject(result)) firstRound?.(result)
              return decoded(stateless, method, result)
            }
            if (n >= maxRoundTrips) return Effect.fail(new ClientError.RoundTripsExceeded({ method, rounds: n }))
            const requests = (result.inputRequests ?? {}) as Readonly<Record<string, InputRequest>>
            return Effect.flatMap(fulfil(requests), (inputResponses) =>
              round(n + 1, {
                ...(Object.keys(inputResponses).length > 0 ? { inputResponses } : {}),
                ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {})
              }))
          }
        )
      return round(1, {})
    }

    // ------------------------------------------------------------------------ the handshake era

    const initialize = Effect.gen(function*() {
      const result = yield* Effect.catchTag(
        peer.request(server, "initialize", {
          protocolVersion: Revision.latestHandshake,
          capabilities,
          clientInfo: options.clientInfo
        }),
        // A stateless-only server says which revisions would work.
        "UnsupportedProtocolVersion",
        (error) =>
          Effect.fail(new ClientError.VersionMismatch({ offered: error.supported, supported: Revision.handshake }))
      )
      const offered = isObject(result) ? result.protocolVersion : undefined
      if (!Revision.isRevision(offered) || !Revision.handshake.includes(offered)) {
        return yield* new ClientError.VersionMismatch({
          offered: [String(offered)],
          supported: Revision.handshake
        })
      }
      const checked = (yield* decoded(offered, "initialize", result)) as McpSchema.Lifecycle.InitializeResult
      spoken = offered
      yield* peer.notify(server, "notifications/initialized", {})
      return { revision: offered, result: checked }
    })

    const discoverNow = Effect.flatMap(
      statelessRequest("server/discover", {}, undefined),
      (result) => Effect.succeed(result as McpSchema.Discovery.DiscoverResult)
    )

    /** `auto`: the era the server answers the probe with. */
    const probe = Effect.gen(function*() {
      const answered = yield* Effect.either(
        Effect.timeoutFail(discoverNow, {
          duration: options.probeTimeout ?? Duration.seconds(5),
          onTimeout: () => new McpError.InternalError({ message: "no answer to server/discover" })
        })
      )
      if (answered._tag === "Right") return Option.some(answered.right)
      const error = answered.left
      // A modern server that speaks no revision of ours, and no handshake one either.
      if (
        error._tag === "VersionMismatch" &&
        !error.offered.some((v) => (Revision.handshake as ReadonlyArray<string>).includes(v))
      ) {
        return yield* error
      }
      return Option.none()
    })

    const probed = options.era === "handshake" || options.era === "stateless" ? Option.none() : yield* probe
    const era: Revision.Era = options.era === "handshake"
      ? "handshake"
      : options.era === "stateless" || Option.isSome(probed)
      ? "stateless"
      : "handshake"

    let discovered = Option.getOrUndefined(probed)
    let initialized: McpSchema.Lifecycle.InitializeResult | undefined
    if (era === "stateless") {
      spoken = stateless
      if (discovered === undefined) discovered = yield* discoverNow
    } else {
      initialized = (yield* initialize).result
    }

    /** A cacheable stateless request: answered from the cache while fresh, kept for its `ttlMs`. */
    const cached = (method: string, params: object | undefined, call: CallOptions | undefined) => {
      if (store === undefined || !ResponseCache.cacheable.has(method)) return statelessRequest(method, params, call)
      const canonical = JSON.stringify(params ?? {})
      const publicKey = `public ${method} ${canonical}`
      const privateKey = `private ${options.cachePartition ?? ""} ${method} ${canonical}`
      return Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        for (const key of [privateKey, publicKey]) {
          const hit = yield* store.get(key)
          if (Option.isSome(hit) && hit.value.expiresAt > now) {
            yield* Ref.update(stats, (s) => ({ ...s, hits: s.hits + 1 }))
            return hit.value.value
          }
        }
        yield* Ref.update(stats, (s) => ({ ...s, misses: s.misses + 1 }))
        let keep: Record<string, unknown> | undefined
        const value = yield* statelessRequest(method, params, call, (result) => keep = result)
        const ttl = keep?.ttlMs
        if (typeof ttl === "number" && ttl > 0) {
          const uri = method === "resources/read" ? (params as { readonly uri?: string } | undefined)?.uri : undefined
          yield* store.set(keep!.cacheScope === "private" ? privateKey : publicKey, {
            method,
            uri,
            value,
            expiresAt: (yield* Clock.currentTimeMillis) + ttl
          })
        }
        return value
      })
    }

    const request: Service["request"] = (method, params, call) =>
      era === "stateless"
        ? cached(method, params, call)
        : Effect.flatMap(
          peer.request(server, method, params, requestOptions(call)),
          (result) => decoded(spoken, method, result)
        )

    const listAll = <A>(method: string, key: string): Effect.Effect<ReadonlyArray<A>, ClientError.ClientError> => {
      const page = (
        cursor: string | undefined,
        got: ReadonlyArray<A>,
        n: number
      ): Effect.Effect<ReadonlyArray<A>, ClientError.ClientError> =>
        Effect.flatMap(request(method, cursor === undefined ? {} : { cursor }), (result) => {
          const r = result as Record<string, unknown>
          const all = [...got, ...((r[key] ?? []) as ReadonlyArray<A>)]
          const next = r.nextCursor
          return typeof next === "string" && n < maxPages ? page(next, all, n + 1) : Effect.succeed(all)
        })
      return page(undefined, [], 1)
    }

    const infoOf = (): Option.Option<Implementation> =>
      initialized !== undefined ? Option.some(initialized.serverInfo) : Meta.getServerInfo(discovered?._meta)

    const subscriptionIdOf = (n: JsonRpc.Notification) => Meta.getSubscriptionId(Meta.of(n.params))

    /** 2026-07-28: one held-open `subscriptions/listen`, its notifications tagged with its id. */
    const listen = (filter: McpSchema.Subscription.SubscriptionFilter) =>
      Effect.gen(function*() {
        const inbox = yield* PubSub.subscribe(notifications)
        const id = yield* Deferred.make<JsonRpc.RequestId>()
        const listening = yield* Effect.forkScoped(
          peer.request(server, "subscriptions/listen", Meta.withMeta({ notifications: filter }, meta), {
            timeout: Duration.infinity,
            onId: (assigned) => Deferred.unsafeDone(id, Exit.succeed(assigned)),
            cancelReason: "subscription closed"
          }).pipe(
            Effect.catchTag("UnsupportedProtocolVersion", (error) => Effect.fail(versionMismatch(error)))
          )
        )
        const mine = yield* Deferred.await(id)
        const ours = (n: JsonRpc.Notification) =>
          Option.match(subscriptionIdOf(n), { onNone: () => false, onSome: (sid) => sid === mine })
        // The acknowledgement first (or the listen's own failure, when it is refused).
        const ack = yield* Effect.raceFirst(
          Effect.flatMap(
            Effect.repeat(Queue.take(inbox), {
              until: (n) => n.method === "notifications/subscriptions/acknowledged" && ours(n)
            }),
            (n) =>
              Effect.succeed(
                ((n.params as { readonly notifications?: McpSchema.Subscription.SubscriptionFilter }).notifications ??
                  {}) as McpSchema.Subscription.SubscriptionFilter
              )
          ),
          Effect.flatMap(Fiber.join(listening), () =>
            Effect.fail(
              new ClientError.InvalidResult({
                method: "subscriptions/listen",
                detail: "answered before it was acknowledged"
              })
            ))
        )
        return {
          acknowledged: ack,
          notifications: Stream.fromQueue(inbox).pipe(
            Stream.filter((n) => ours(n) && n.method !== "notifications/subscriptions/acknowledged"),
            Stream.interruptWhen(Fiber.join(listening))
          )
        } satisfies Subscription
      })

    /** A session: resource subscriptions by URI, and the session's own list changes. */
    const sessionSubscription = (filter: McpSchema.Subscription.SubscriptionFilter) =>
      Effect.gen(function*() {
        const inbox = yield* PubSub.subscribe(notifications)
        const acknowledged = SubscriptionFilter.servable(
          filter,
          (initialized?.capabilities ?? {}) as ServerCapabilities
        )
        const uris = acknowledged.resourceSubscriptions ?? []
        yield* Effect.forEach(uris, (uri) => request("resources/subscribe", { uri }), { discard: true })
        yield* Effect.addFinalizer(() =>
          Effect.ignore(Effect.forEach(uris, (uri) => request("resources/unsubscribe", { uri }), { discard: true }))
        )
        return {
          acknowledged,
          notifications: Stream.fromQueue(inbox).pipe(Stream.filter((n) => SubscriptionFilter.wants(acknowledged, n)))
        } satisfies Subscription
      })

    const callToolWith = <P, PI, S, SI, F, FI>(
      tool: ToolSpec<P, PI, S, SI, F, FI> & { readonly success: Schema.Schema<S, SI> },
      args: P,
      call?: CallOptions
    ): Effect.Effect<S, ClientError.ClientError | ClientError.InvalidArguments | ClientError.ToolFailed<F>> =>
      Effect.gen(function*() {
        const encoded = tool.parameters === undefined ? args : yield* Schema.encodeUnknown(tool.parameters)(args).pipe(
          Effect.mapError((error) =>
            new ClientError.InvalidArguments({
              tool: tool.name,
              detail: Method.describeError(error)
            })
          )
        )
        const result = (yield* request(
          "tools/call",
          encoded === undefined ? { name: tool.name } : { name: tool.name, arguments: encoded },
          call
        )) as McpSchema.Tool.CallToolResult
        if (result.isError === true) {
          // Where the server put it: `_meta` when the tool has an output schema, else structured
          // content, else the JSON of the text.
          const given = Meta.of(result)?.[Meta.toolFailure]
          const carried = given !== undefined ? given : structuredOf(result)
          if (tool.failure === undefined) {
            return yield* new ClientError.ToolFailed({ tool: tool.name, failure: carried as F, result })
          }
          const failure = yield* Schema.decodeUnknown(tool.failure)(carried).pipe(
            Effect.mapError((error) =>
              new ClientError.InvalidResult({
                method: `tools/call ${tool.name}`,
                detail: `the failure does not fit the tool's failure schema: ${Method.describeError(error)}`
              })
            )
          )
          return yield* new ClientError.ToolFailed({ tool: tool.name, failure, result })
        }
        const carried = structuredOf(result)
        return yield* Schema.decodeUnknown(tool.success)(carried).pipe(
          Effect.mapError((error) =>
            new ClientError.InvalidResult({
              method: `tools/call ${tool.name}`,
              detail: Method.describeError(error)
            })
          )
        )
      })

    return {
      era,
      revision: spoken,
      serverInfo: infoOf(),
      serverCapabilities: (initialized?.capabilities ?? discovered?.capabilities ?? {}) as ServerCapabilities,
      instructions: Option.fromNullable(initialized?.instructions ?? discovered?.instructions),
      request,
      // 2026-07-28 has no ping: a discover is the cheapest request that proves the server answers.
      ping: Effect.asVoid(era === "stateless" ? discoverNow : request("ping", {})),
      discover: era === "stateless"
        ? discoverNow
        : Effect.fail(
          new McpError.MethodNotFound({ method: "server/discover", detail: "server/discover is a 2026-07-28 method" })
        ),
      listTools: Effect.flatMap(listAll<McpSchema.Tool.Tool>("tools/list", "tools"), (listed) => {
        const offered = transport.tools === undefined || era === "handshake" ? listed : transport.tools(listed)
        const hidden = listed.filter((tool) => !offered.includes(tool)).map((tool) => tool.name)
        return hidden.length === 0 ? Effect.succeed(offered) : Effect.as(
          Effect.logWarning(
            `effect-mcp: tools with invalid x-mcp-header annotations are not offered: ${hidden.join(", ")}`
          ),
          offered
        )
      }),
      callTool: (name, args, call) =>
        Effect.map(
          request("tools/call", args === undefined ? { name } : { name, arguments: args }, call),
          (r) => r as McpSchema.Tool.CallToolResult
        ),
      callToolWith: (tool, args, call) => callToolWith(tool, args, call),
      listResources: listAll<McpSchema.Resource.Resource>("resources/list", "resources"),
      listResourceTemplates: listAll<McpSchema.Resource.ResourceTemplate>(
        "resources/templates/list",
        "resourceTemplates"
      ),
      readResource: (uri, call) =>
        Effect.map(request("resources/read", { uri }, call), (r) => r as McpSchema.Resource.ReadResourceResult),
      listPrompts: listAll<McpSchema.Prompt.Prompt>("prompts/list", "prompts"),
      getPrompt: (name, args, call) =>
        Effect.map(
          request("prompts/get", args === undefined ? { name } : { name, arguments: args }, call),
          (r) => r as McpSchema.Prompt.GetPromptResult
        ),
      complete: (params) =>
        Effect.map(request("completion/complete", params), (r) => r as McpSchema.Completion.CompleteResult),
      setLogLevel: (level) =>
        era === "handshake"
          ? Effect.asVoid(request("logging/setLevel", { level }))
          : Effect.fail(
            new McpError.MethodNotFound({
              method: "logging/setLevel",
              detail: "logging/setLevel is a handshake-era method"
            })
          ),
      notifications: Stream.fromPubSub(notifications),
      cacheStats: Ref.get(stats),
      rootsChanged: era === "handshake" ? peer.notify(server, "notifications/roots/list_changed", {}) : Effect.void,
      subscribe: (filter) => era === "stateless" ? listen(filter) : sessionSubscription(filter)
    } satisfies Service
  })

/**
 * The client as a layer, on a `McpClientTransport`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R = never>(
  options: Options<R>
): Layer.Layer<McpClient, ClientError.ClientError, McpClientTransport | R> => Layer.scoped(McpClient, make(options))
