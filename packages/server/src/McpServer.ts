/**
 * The MCP server: a registry of tools, prompts, resources and templates (editable while
 * running), and sessions that serve it over any transport.
 *
 * ```ts
 * const Server = McpServer.layer({ serverInfo: { name: "demo", version: "1.0.0" }, tools: [Greet] })
 * NodeMcpServer.serveStdio.pipe(Effect.provide(Server), NodeRuntime.runMain)
 * ```
 *
 * @since 0.1.0
 */
import type { Transport } from "@effect-mcp/core"
import type { Revision, Schema as McpSchema } from "@effect-mcp/core"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as InputRequired from "./internal/inputRequired.js"
import * as internal from "./internal/server.js"
import type * as Serving from "./internal/serving.js"
import type * as Stateless from "./internal/stateless.js"
import type * as McpRequest from "./McpRequest.js"
import type * as Prompt from "./Prompt.js"
import type * as RelayTable from "./RelayTable.js"
import type * as Resource from "./Resource.js"
import type * as Subscription from "./Subscription.js"
import type * as Tool from "./Tool.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly serverInfo: McpSchema.Base.Implementation
  /** The revisions this server serves, oldest first. */
  readonly revisions: ReadonlyArray<Revision.Revision>
  /**
   * Adds or replaces a tool; initialized sessions, and subscriptions that asked, get
   * `notifications/tools/list_changed` (every edit is published to the `NotificationBus`).
   */
  readonly addTool: <R>(tool: Tool.Tool<R>) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  readonly removeTool: (name: string) => Effect.Effect<boolean>
  readonly addPrompt: <R>(prompt: Prompt.Prompt<R>) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  readonly removePrompt: (name: string) => Effect.Effect<boolean>
  readonly addResource: <R>(
    resource: Resource.Resource<R> | Resource.Template<R>
  ) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  /** Removes a resource by URI, or a template by URI template. */
  readonly removeResource: (uri: string) => Effect.Effect<boolean>
  /**
   * Adds, replaces and removes many entries at once (`Changes`): each list is copied once, not
   * once per entry, and its clients are told it changed once, as for one `addTool`. Removals are
   * made before additions; a name neither held nor added is left alone.
   */
  readonly update: <R>(changes: Changes<R>) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  /**
   * Tells subscribed sessions, and subscriptions whose `resourceSubscriptions` cover the URI, that
   * a resource changed (`notifications/resources/updated`).
   */
  readonly resourceUpdated: (uri: string) => Effect.Effect<void>
  /**
   * A log message outside any request (`notifications/message`), to every handshake session of
   * every transport whose level admits it (`logging/setLevel`; a session that set none hears
   * every level), such as the logs of a server's own work, or those a gateway's upstreams send.
   * A 2026-07-28 client hears none: that era has no session, and its logs travel only on the
   * stream of the request that asked for them (`McpRequest.log`).
   */
  readonly log: (level: McpSchema.Base.LoggingLevel, data: unknown, logger?: string) => Effect.Effect<void>
  /** The tool registered under `name` right now. */
  readonly tool: (name: string) => Effect.Effect<Option.Option<Tool.Tool>>
  /**
   * Serves every client of a transport (stdio's one, each HTTP session) until the transport ends.
   * Each client is a session; sessions are plain data, served by one engine per transport.
   */
  readonly serve: (protocol: Transport.Protocol, options?: ServeOptions) => Effect.Effect<void, never, Scope.Scope>
  /**
   * 2026-07-28: the open `subscriptions/listen` requests, over every transport and client, oldest
   * first (a snapshot). Each has a server-wide `handle`, and its wire `subscriptionId` (the listen
   * request's JSON-RPC id, unique per client only).
   */
  readonly activeSubscriptions: Effect.Effect<ReadonlyArray<Subscription.Subscription>>
  /**
   * 2026-07-28: ends a subscription gracefully, by its handle (or as listed): what it had yet to
   * send is sent, then its listen request is answered `{ resultType: "complete", _meta: {
   * subscriptionId, serverInfo } }`. Completes once the answer is handed to the transport: true,
   * or false when it was not (no longer) open. The server's end closes every subscription so.
   */
  readonly closeSubscription: (
    subscription: Subscription.Handle | Subscription.Subscription
  ) => Effect.Effect<boolean>
  /** 2026-07-28: ends every subscription gracefully (as `closeSubscription`); how many were answered. */
  readonly closeAllSubscriptions: Effect.Effect<number>
}

/**
 * Changes of a server's registry made at once (`Service.update`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Changes<R = never> {
  readonly tools?: ReadonlyArray<Tool.Tool<R>> | undefined
  readonly prompts?: ReadonlyArray<Prompt.Prompt<R>> | undefined
  readonly resources?: ReadonlyArray<Resource.Resource<R> | Resource.Template<R>> | undefined
  /** Tools removed, by name. */
  readonly removeTools?: ReadonlyArray<string> | undefined
  /** Prompts removed, by name. */
  readonly removePrompts?: ReadonlyArray<string> | undefined
  /** Resources removed by URI, and templates by URI template. */
  readonly removeResources?: ReadonlyArray<string> | undefined
}

/**
 * Options of serving one transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServeOptions {
  /**
   * Serve one era only on this transport (default: every era the server speaks), as a transport
   * with a back end per era does (HTTP: 2026-07-28 POSTs apart from handshake sessions). Ignored
   * when the server does not speak that era.
   */
  readonly era?: Revision.Era
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpServer extends Context.Tag("@effect-mcp/server/McpServer")<McpServer, Service>() {}

/**
 * Options of `make` / `layer`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R> {
  readonly serverInfo: McpSchema.Base.Implementation
  readonly instructions?: string
  readonly tools?: ReadonlyArray<Tool.Tool<R>>
  readonly prompts?: ReadonlyArray<Prompt.Prompt<R>>
  readonly resources?: ReadonlyArray<Resource.Resource<R> | Resource.Template<R>>
  /**
   * The revisions served, oldest first (default: every one, `Revision.all`: both eras). With
   * `"2026-07-28"` the server speaks the stateless revision; with it and handshake ones, both
   * eras on one endpoint (dual): a request with a protocol version in its `_meta` is served
   * statelessly, `initialize` opens a handshake session. `Revision.handshake` serves the handshake
   * era only, `Revision.stateless` the stateless one only.
   */
  readonly revisions?: ReadonlyArray<Revision.Revision>
  /**
   * 2026-07-28 caching hints of the cacheable results, per method (default `ttlMs: 0`,
   * `cacheScope: "public"`); a handler's own `ttlMs` / `cacheScope` take precedence.
   */
  readonly cachePolicy?: Partial<Record<Stateless.Cacheable, Stateless.CacheHint>>
  /**
   * The key that seals 2026-07-28 `requestState` (HMAC-SHA256), so that a retry may reach any
   * process that has it. Default: a random key of each server (a state one server seals, another
   * server of the process refuses), and a warning, once per process, when the first state is
   * sealed (retries then cannot move between processes, nor between servers;
   * the warning is a log: on stderr under `NodeMcpServer`'s `runMain`, `serveStdio` and
   * `layerStderrLogger`). At least 32 bytes (UTF-8; e.g.
   * `openssl rand -base64 32`): a shorter key, an empty one included, fails a server that serves
   * 2026-07-28 when it is built, in one line (`requestStateKey must be at least 32 bytes (got 0)`).
   */
  readonly requestStateKey?: Redacted.Redacted<string> | Config.Config<Redacted.Redacted<string>>
  /** How long a sealed `requestState` stays valid (default 10 minutes). */
  readonly requestStateTtl?: Duration.DurationInput
  /**
   * The longest 2026-07-28 `requestState`, in characters (default 65536, 64 KiB): a retry whose
   * state is longer is refused with -32602 before it is read, and a round whose state would be
   * longer (the handler's own state, or the answers it carries) is the request's error, -32603,
   * not a state the client must send back. A positive integer, or the server fails when it is built.
   */
  readonly requestStateMaxLength?: number
  /**
   * Told of each resource URI a client subscribes to, before the subscription is acknowledged: a
   * handshake session's `resources/subscribe`, each URI of a 2026-07-28 listen's
   * `resourceSubscriptions` (default: nothing), once the subscription is within the server's limits
   * (one refused tells it nothing); a listen's URIs are told together, at most 32 at a time. For a
   * server whose resources live elsewhere, such as a proxy, which subscribes upstream to what its
   * clients asked for (a URI of a template, which no list names). Unsubscribes are not told. It
   * should be quick: the client waits on it.
   */
  readonly onResourceSubscribe?: (uri: string) => Effect.Effect<void>
  /**
   * Told of each `logging/setLevel` of a handshake session, before it is acknowledged (default:
   * nothing). For a server whose logs come from elsewhere, such as a gateway, which passes the
   * level on to its upstreams. It should be quick: the client waits on it.
   */
  readonly onLogLevel?: (level: McpSchema.Base.LoggingLevel) => Effect.Effect<void>
  /**
   * `tools/call`s handed on without being served (default none): the server looks a call's tool up
   * here before its engine decodes the call, and an entry may take it (see `RelayTable`). For a
   * gateway relaying calls it does not read.
   */
  readonly relay?: RelayTable.RelayTable | undefined
  /** Page size of list results (default 100). */
  readonly pageSize?: number
  /**
   * Leave out of `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`
   * what the caller's access token lacks the `scopes` for (default false: everything is listed,
   * and a call without the scopes gets a step-up challenge). Only where a token was verified
   * (HTTP with authorization on).
   */
  readonly hideUnauthorized?: boolean
  /** Declare capabilities even when the registry starts empty (for servers that add things later). */
  readonly capabilities?: Serving.Config["capabilities"]
  /**
   * Coalescing window of list_changed notifications (default 10 millis). Zero, or on a Cloudflare
   * Worker (where the window's timer would belong to the request that made the change, and end with
   * it): no window, the changes made since the last batch went out are the next batch.
   */
  readonly listChangedWindow?: Duration.DurationInput
  /**
   * 2026-07-28: the most `subscriptions/listen` requests held open at once, over every transport
   * and client (default 1,000). One more is refused with -32000 and the request's id (over HTTP a
   * 503), until one ends. Over HTTP each open listen holds a connection: keep this well below the
   * server's connection cap (`NodeMcpServer.layerHttp`'s `maxConnections`, 4,096 by default), so
   * that other clients always get in.
   */
  readonly maxSubscriptions?: number
  /**
   * 2026-07-28: the most listens one client of a transport holds open at once (default 16): the
   * one client of stdio, of an in-memory pair. Refused as `maxSubscriptions` is. Over stateless
   * HTTP a client is one POST, which holds one listen: there `maxSubscriptionsPerHolder` bounds
   * what one client (its token's holder, or its address) holds.
   */
  readonly maxSubscriptionsPerClient?: number
  /**
   * 2026-07-28: the most listens one holder keeps open at once, over every transport (default a
   * tenth of `maxSubscriptions`), so that no one holds them all: refused as `maxSubscriptions`
   * is. The holder is the token's holder (its subject at its issuer) with authorization on, else
   * an HTTP client's address (`HttpTransport.Options.trustedProxies`), never the name a client
   * gives itself; over stdio or an in-memory pair, `maxSubscriptionsPerClient` bounds the one client.
   */
  readonly maxSubscriptionsPerHolder?: number
  /**
   * The most `resourceSubscriptions` in one listen's filter (2026-07-28), and the most URIs one
   * handshake session subscribes to (`resources/subscribe`) (default 1,000): past it, -32602, the
   * limit named in its message.
   */
  readonly maxSubscriptionUris?: number
  /**
   * 2026-07-28: the longest `subscriptions/listen` params, in characters of their JSON (default
   * 65536, 64 KiB): what a held-open listen keeps for its lifetime (its filter and `_meta`), and
   * what bounds its acknowledgement. Longer params are refused with -32602. In the handshake era,
   * the most characters of one session's subscribed URIs together.
   */
  readonly subscriptionMaxLength?: number
  /**
   * How long a task is kept after its creation when neither the tool nor (2025-11-25) the client
   * says (default 1 hour). The task store in context (`TaskStore`; in memory by default) keeps it.
   */
  readonly taskTtl?: Duration.DurationInput
  /** The longest a client may ask a task to be kept (default 24 hours). */
  readonly taskMaxTtl?: Duration.DurationInput
  /** How often clients are told to poll a task (default 500 ms). */
  readonly taskPollInterval?: Duration.DurationInput
  /** This instance, as task leases name it (default: a random UUID). */
  readonly instanceId?: string
  /**
   * How long a running task's lease lasts without renewal (default 30 seconds; renewed every
   * third of it). With a shared task store, a task whose instance died is failed once its lease
   * lapses: within this long.
   */
  readonly taskLease?: Duration.DurationInput
}

/**
 * What the tools, prompts and resources of `options` require, together: the union across the
 * arrays (a tool needing `Counter` and another needing `Clock` require both), without
 * `McpRequest`, which each request provides.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<O> = Exclude<
  | (O extends { readonly tools?: ReadonlyArray<infer T> | undefined } ? T extends Tool.Tool<infer R> ? R : never
    : never)
  | (O extends { readonly prompts?: ReadonlyArray<infer P> | undefined } ? P extends Prompt.Prompt<infer R> ? R
    : never
    : never)
  | (O extends { readonly resources?: ReadonlyArray<infer X> | undefined }
    ? X extends Resource.Resource<infer R> | Resource.Template<infer R> ? R : never
    : never),
  McpRequest.McpRequest
>

/**
 * Makes a server. Handlers' requirements are taken from the context here (their union across
 * tools, prompts and resources, inferred), except `McpRequest`, which each request provides.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const O extends Options<unknown>>(
  options: O
): Effect.Effect<Service, never, Requirements<O> | Scope.Scope> => internal.make(options)

/**
 * The server as a Layer. What the handlers require (but `McpRequest`) is what the layer requires:
 * `McpServer.layer({ tools: [a, b] })` with `a` needing `Counter` and `b` needing `Clock` requires
 * `Counter | Clock`, with no type arguments.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <const O extends Options<unknown>>(
  options: O
): Layer.Layer<McpServer, never, Exclude<Requirements<O>, Scope.Scope>> => Layer.scoped(McpServer, make(options))

/**
 * Serves every client of a transport until the transport ends (stdio: its input).
 *
 * @since 0.1.0
 * @category combinators
 */
export const serve = (protocol: Transport.Protocol, options?: ServeOptions): Effect.Effect<void, never, McpServer> =>
  Effect.scoped(Effect.flatMap(McpServer, (server) => server.serve(protocol, options)))

/**
 * 2026-07-28, the low-level side of a multi-round-trip request: stops the handler with an
 * `input_required` result asking the client for `inputRequests` (by keys of the handler's choosing),
 * and carrying the handler's own `requestState`, which the library seals with its own. On the retry,
 * `McpRequest.inputResponse(key)` and `McpRequest.requestState` read them back. Only tools/call,
 * prompts/get and resources/read may answer so; an input kind the request's capabilities do not
 * declare is refused with -32021, and nothing is asked. (In a handshake session there is no
 * `input_required`: use `McpRequest.elicit`, `.sample` and `.roots`, which work in both eras.)
 *
 * ```ts
 * const Confirm = Tool.make("confirm", {}, () =>
 *   Effect.gen(function*() {
 *     const answer = yield* McpRequest.inputResponse("ok")
 *     if (Option.isNone(answer)) {
 *       return yield* McpServer.inputRequired({
 *         inputRequests: { ok: McpServer.elicitForm({ message: "Sure?", requestedSchema: { type: "object", properties: {} } }) }
 *       })
 *     }
 *     return "confirmed"
 *   }))
 * ```
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const inputRequired = (options: {
  readonly inputRequests?: Readonly<Record<string, McpSchema.InputRequired.InputRequest>>
  readonly requestState?: string
}): Effect.Effect<never> => InputRequired.signal(options.inputRequests ?? {}, options.requestState)

/**
 * `inputRequired` with the handler's own state as a value of `schema` (serialized as JSON inside
 * the sealed `requestState`); the retry reads it back with `McpRequest.requestStateAs(schema)`.
 * A value the schema cannot encode is a defect of the handler (-32603).
 *
 * @example
 * ```ts
 * import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
 * import { Effect, Option, Schema } from "effect"
 *
 * const Step = Schema.Struct({ step: Schema.Number, draft: Schema.String })
 *
 * export const Publish = Tool.make("publish", {}, () =>
 *   Effect.gen(function*() {
 *     // The retry carries the state of the round before (none in the first round).
 *     const state = yield* McpRequest.requestStateAs(Step)
 *     if (Option.isNone(state)) {
 *       return yield* McpServer.inputRequiredWith(Step)({
 *         inputRequests: {
 *           ok: McpServer.elicitForm({ message: "Sure?", requestedSchema: { type: "object", properties: {} } })
 *         },
 *         state: { step: 1, draft: "hello" }
 *       })
 *     }
 *     return `published ${state.value.draft}`
 *   }))
 * ```
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const inputRequiredWith = <A, I>(schema: Schema.Schema<A, I>) =>
(options: {
  readonly inputRequests?: Readonly<Record<string, McpSchema.InputRequired.InputRequest>>
  readonly state: A
}): Effect.Effect<never> =>
  Effect.flatMap(
    Effect.orDie(Schema.encode(Schema.parseJson(schema))(options.state)),
    (requestState) =>
      inputRequired(
        options.inputRequests === undefined ? { requestState } : { inputRequests: options.inputRequests, requestState }
      )
  )

/**
 * An input request: a form for the user to fill in.
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const elicitForm = (
  params: McpSchema.Elicitation.ElicitRequestFormParams
): McpSchema.InputRequired.InputRequest => ({ method: "elicitation/create", params })

/**
 * An input request: a URL for the user to open (the out-of-band step). The 2026-07-28 shape: no
 * `elicitationId` (the retry's `requestState` correlates it).
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const elicitUrl = (
  params: McpSchema.Elicitation.ElicitRequestURLParams
): McpSchema.InputRequired.InputRequest => ({ method: "elicitation/create", params })

/**
 * An input request: a completion of the client's LLM (`sampling/createMessage`). Data for
 * `inputRequired`; `McpRequest.sample` is the ask itself.
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const samplingRequest = (
  params: McpSchema.Sampling.CreateMessageRequestParams
): McpSchema.InputRequired.InputRequest => ({ method: "sampling/createMessage", params })

/**
 * An input request: the client's roots (`roots/list`). Data for `inputRequired`;
 * `McpRequest.roots` is the ask itself.
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const rootsRequest = (): McpSchema.InputRequired.InputRequest => ({ method: "roots/list" })
