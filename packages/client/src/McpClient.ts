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
 * wire. Notifications (list changes, logs, resource updates) are a `Stream`. A tool call may run
 * as a task (`callTool(name, args, { task: true })`, both eras): a `Task` handle whose status is a
 * `Stream` and whose result is waited for; `tasks` gets, lists, cancels and takes up tasks by id.
 *
 * @since 0.1.0
 */
import type { JsonRpc, McpError, Method, Peer, Revision, Schema as McpSchema } from "@effect-mcp/core"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as ClientError from "./ClientError.js"
import * as Client from "./internal/client.js"
import * as Request from "./internal/request.js"
import type { McpClientTransport } from "./McpClientTransport.js"
import type * as ResponseCache from "./ResponseCache.js"

type Implementation = McpSchema.Base.Implementation
type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel

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
  /**
   * How long `auto` waits for the answer to its `server/discover` probe (default 5 seconds): from
   * its sending, or, on a transport whose server may still be starting (stdio), from when it has
   * started (see `McpClientTransport.Service.started`).
   */
  readonly probeTimeout?: Duration.DurationInput
  /**
   * Pages a listing (`listTools`, `listResources`, `listResourceTemplates`, `listPrompts`, the
   * tasks' `list`) follows (default 100): a server offering a page past it fails the listing with
   * `ListingExceeded`, as does a `nextCursor` it gave already (a listing that would never end).
   */
  readonly maxPages?: number
  /**
   * Bytes of items a listing holds (default 64 MiB), estimated from their parsed values as
   * `maxQueuedNotificationBytes` estimates: past it the listing fails with `ListingExceeded`.
   */
  readonly maxListingBytes?: number
  /**
   * Notifications a subscriber (`notifications`, a subscription's stream) may fall behind by before
   * it loses the oldest of them (default 10,000): a flooding server cannot grow a slow reader's
   * backlog without end.
   */
  readonly maxQueuedNotifications?: number
  /**
   * Bytes of notifications a subscriber may fall behind by before it loses the oldest of them
   * (default 16 MiB), as `maxQueuedNotifications` counts them: the notifications the client holds
   * for subscribers that have not taken them, in all (they are shared), the newest always kept.
   * A notification's size is estimated from its parsed value (its strings' lengths, 8 bytes a
   * number, a few bytes a key), close to its length as sent.
   */
  readonly maxQueuedNotificationBytes?: number
  /**
   * The server's requests (its asks: sampling, elicitation, roots; pings) answered at once (default
   * 100): one past it is refused at once with a JSON-RPC error (-32603) carrying its id, so a
   * server that asks without end, or asks what a handler never answers, holds no more than this.
   */
  readonly maxServerRequests?: number
  /**
   * The response cache (2026-07-28): `false` turns it off; a `Store` replaces the in-memory one.
   * Results are kept only as long as their `ttlMs` says (the server's default 0: not at all).
   */
  readonly cache?: boolean | ResponseCache.Store
  /** Who the client acts for, for `private` cache entries (an auth context; default one for all). */
  readonly cachePartition?: string
  /**
   * 2025-11-25: declare the `tasks` capability (`{ list: {}, cancel: {} }`) in the handshake, for
   * servers that look for it (default false). Task calls need no capability of the client's; it
   * runs no tasks of its own, so a server's `tasks/list` is answered empty and a task id unknown.
   */
  readonly declareTasks?: boolean
}

/**
 * A notification the server sent, and the request of ours it came related to (on that request's
 * response stream, Streamable HTTP), if any: a log sent for one request is that request's caller's,
 * not the session's.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReceivedNotification {
  readonly notification: JsonRpc.Notification
  readonly related: JsonRpc.RequestId | undefined
}

/**
 * Options of one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /**
   * Receives the call's progress (and asks the server for it). Of a 2025-11-25 task call, the
   * task's progress for its whole life (the revision keeps the token valid until the task ends),
   * until its handle's `result` ends.
   */
  readonly onProgress?: (progress: Peer.Progress) => Effect.Effect<void>
  /**
   * Receives the log messages the server sends on this call's own response stream (Streamable
   * HTTP, either era), which then are not published on `notifications`. Over stdio a log message
   * is not told apart by call: it is published on `notifications`.
   */
  readonly onLog?: (message: Peer.LogMessage) => Effect.Effect<void>
  /**
   * 2026-07-28: the log level asked of the server for this call (`_meta`), instead of the
   * client's `logLevel`. A handshake server logs at the session's level (`setLogLevel`).
   */
  readonly logLevel?: LoggingLevel
  readonly timeout?: Duration.DurationInput
}

/**
 * Options of a tool call made as a task (`callTool(name, args, { task: true })`).
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskCallOptions extends CallOptions {
  readonly task: true
  /** How long the server should keep the task (2025-11-25 `params.task.ttl`; a 2026-07-28 server decides alone). */
  readonly ttl?: Duration.DurationInput
  /** Interrupting the fiber waiting on `result` cancels the task too (`tasks/cancel`); by default it does not. */
  readonly cancelOnInterrupt?: boolean
}

/**
 * Options of a handle on a task known by its id (`client.tasks.handle(taskId)`).
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskHandleOptions {
  /** Interrupting the fiber waiting on `result` cancels the task too; by default it does not. */
  readonly cancelOnInterrupt?: boolean
}

/**
 * A task as the server last told of it, in either revision's words made one: `ttlMs` and
 * `pollIntervalMs` (2025-11-25 says `ttl` and `pollInterval`). A 2026-07-28 server's `tasks/get`
 * inlines more: the open input requests (`input_required`), the result (`completed`) or the error
 * (`failed`).
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskInfo {
  readonly taskId: string
  readonly status: McpSchema.Tasks.TaskStatus
  readonly statusMessage?: string | undefined
  /** ISO 8601. */
  readonly createdAt: string
  readonly lastUpdatedAt: string
  /** How long the task is kept from its creation (milliseconds); `null`: without limit. */
  readonly ttlMs: number | null
  /** How often the server would have the task polled (milliseconds). */
  readonly pollIntervalMs?: number | undefined
  /** 2026-07-28, `input_required`: the task's open input requests, by key. */
  readonly inputRequests?: Readonly<Record<string, McpSchema.InputRequired.InputRequest>> | undefined
  /** 2026-07-28, `completed`: the tool's result, as sent (`Task.result` checks it). */
  readonly result?: Readonly<Record<string, unknown>> | undefined
  /** 2026-07-28, `failed`: the JSON-RPC error the task failed with. */
  readonly error?: JsonRpc.ErrorObject | undefined
}

/**
 * A handle on a tool call that runs as a task on the server.
 *
 * - `status` follows the task until it ends: polled with `tasks/get` at the interval the server
 *   asks for (held between 50 ms and 60 s), or, with a 2026-07-28 server that declares the tasks
 *   extension, heard on a `subscriptions/listen` for the task. A change of status, message or
 *   open input requests is one element; the last is the terminal one.
 * - `result` waits for the end: 2025-11-25 `tasks/result` (the task's asks reach the handlers
 *   on its stream); 2026-07-28 the status followed, the task's input requests answered with the
 *   handlers (`tasks/update`, each key once). A tool's `isError` result is a result, as
 *   `callTool` gives it; a failed task is `TaskFailed`, a cancelled one `TaskCancelled`.
 * - Both are bounded by the task's time to live (`TaskExpired`). Interrupting `result` leaves the
 *   task running unless the handle was made with `cancelOnInterrupt`.
 *
 * A call the server answered at once (a tool that does not run as a task, or a server without
 * tasks) gives a handle already done: no `taskId`, an empty `status`, `result` that result.
 *
 * @since 0.1.0
 * @category models
 */
export interface Task {
  /** The task's id (keep it to come back to the task: `client.tasks.handle(taskId)`); none for a call answered at once. */
  readonly taskId: Option.Option<string>
  /** The task as the server answered the call with it (none for a call answered at once). */
  readonly created: Option.Option<TaskInfo>
  readonly status: Stream.Stream<TaskInfo, ClientError.ClientError | ClientError.TaskExpired>
  readonly result: Effect.Effect<RequestResult<"tools/call">, ClientError.ClientError | ClientError.TaskError>
  /** Asks the server to cancel the task (`tasks/cancel`); a 2025-11-25 server refuses a task that ended (-32602). */
  readonly cancel: Effect.Effect<void, ClientError.ClientError>
}

/**
 * The tasks of this client on the server, by id: got, listed (2025-11-25 only: 2026-07-28 has no
 * `tasks/list`, an `EraMismatch`), cancelled, or taken up again with a handle (a task id kept
 * across processes; a 2025-11-25 server keeps a task for its session only).
 *
 * @since 0.1.0
 * @category models
 */
export interface Tasks {
  readonly get: (taskId: string) => Effect.Effect<TaskInfo, ClientError.ClientError>
  /** Every task, following the pages (within `maxPages` and `maxListingBytes`: `ListingExceeded` past them). */
  readonly list: Effect.Effect<ReadonlyArray<TaskInfo>, ClientError.ClientError>
  readonly cancel: (taskId: string) => Effect.Effect<void, ClientError.ClientError>
  /** A handle on a task known by its id (its `tasks/get` first: an unknown id fails here, -32602). */
  readonly handle: (taskId: string, options?: TaskHandleOptions) => Effect.Effect<Task, ClientError.ClientError>
}

/**
 * `callTool`: a call whose result is the tool's, or, with `{ task: true }`, a `Task` handle.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallTool {
  (
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: TaskCallOptions
  ): Effect.Effect<Task, ClientError.ClientError>
  (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ): Effect.Effect<RequestResult<"tools/call">, ClientError.ClientError>
}

/**
 * What a typed call needs to know of a tool: its name and Schemas, the same ones the server's
 * `Tool.make(name, { parameters, success, failure }, handler)` is given (share one object), or the
 * tool `Tool.make` made (it carries them).
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
 * The requests a client may make: every client-sent request of the catalog but `initialize` (the
 * client's own). A name outside it is a compile error (`requestUnknown` sends an extension's).
 *
 * @since 0.1.0
 * @category models
 */
export type Requests = Exclude<Method.RequestSentBy<"client">, "initialize">

type Strip<P> = P extends unknown ? Omit<P, "_meta" | "inputResponses" | "requestState"> & {
    readonly _meta?: McpSchema.Base.MetaObject | undefined
  }
  : never

/**
 * What the caller gives a request of `method`: its params in any revision that has it, without
 * what the client adds itself (the 2026-07-28 envelope in `_meta`, the multi-round-trip fields).
 *
 * @since 0.1.0
 * @category models
 */
export type RequestParams<M extends Method.Name> = Strip<Method.Params<M>>

/**
 * What a request of `method` answers with: its result in any revision that has it, complete (the
 * client fulfils `input_required` itself; `request` never asks for a task, and a task is refused:
 * `callTool(name, args, { task: true })` asks for one).
 *
 * @since 0.1.0
 * @category models
 */
export type RequestResult<M extends Method.Name> = Merged<
  Exclude<
    Method.Result<M>,
    { readonly resultType: "input_required" } | { readonly resultType: "task" } | { readonly task: unknown }
  >
>

type KeysOf<U> = U extends unknown ? keyof U : never

/**
 * A union of the revisions' shapes where every member has every member's fields (absent ones as
 * optional `undefined`): `result.structuredContent` reads in any revision, `undefined` where the
 * revision has no such field.
 */
type Merged<U, All = U> = U extends unknown ? U & { readonly [K in Exclude<KeysOf<All>, keyof U>]?: undefined } : never

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
  /**
   * A request of the catalog, typed by it: the params of `method`, its result checked against the
   * revision spoken. The era's envelope is added, and (2026-07-28) `input_required` is fulfilled
   * by the multi-round-trip driver. A method of the other era only fails with `EraMismatch`.
   */
  readonly request: <M extends Requests>(
    method: M,
    params: RequestParams<M>,
    options?: CallOptions
  ) => Effect.Effect<RequestResult<M>, ClientError.ClientError>
  /** A request outside the catalog (an extension's): sent as given, its result unchecked. */
  readonly requestUnknown: (
    method: string,
    params?: object,
    options?: CallOptions
  ) => Effect.Effect<unknown, ClientError.ClientError>
  /** `ping` (handshake era); in the stateless era, which has none, a `server/discover`. */
  readonly ping: Effect.Effect<void, ClientError.ClientError>
  /** `server/discover` (stateless era; `EraMismatch` in a session). */
  readonly discover: Effect.Effect<McpSchema.Discovery.DiscoverResult, ClientError.ClientError>
  /** Every tool, following the pages (within `maxPages` and `maxListingBytes`: `ListingExceeded` past them). */
  readonly listTools: Effect.Effect<ReadonlyArray<McpSchema.Tool.Tool>, ClientError.ClientError>
  /** `tools/call`; with `{ task: true }`, made as a task when the server can run it as one (a `Task` handle). */
  readonly callTool: CallTool
  /** The tasks of this client on the server: get, list, cancel, a handle by id. */
  readonly tasks: Tasks
  /**
   * `tools/call` typed by the tool's Schemas (the tool itself, as the server's `Tool.make` made it,
   * or a spec of its name and Schemas): the arguments are encoded with `parameters` (a mismatch is
   * `InvalidArguments`, and nothing is sent); the value is decoded with `success` from
   * `structuredContent` (else from the JSON of the text, as revisions before 2025-06-18 carry it;
   * a tool without `success`: that value as it came, `unknown`); an `isError` answer fails with
   * `ToolFailed` carrying the decoded `failure`.
   */
  readonly callToolWith: <P, PI, S = unknown, SI = unknown, F = unknown, FI = unknown>(
    tool: ToolSpec<P, PI, S, SI, F, FI>,
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
  ) => Effect.Effect<RequestResult<"resources/read">, ClientError.ClientError>
  readonly listPrompts: Effect.Effect<ReadonlyArray<McpSchema.Prompt.Prompt>, ClientError.ClientError>
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: CallOptions
  ) => Effect.Effect<RequestResult<"prompts/get">, ClientError.ClientError>
  readonly complete: (
    params: RequestParams<"completion/complete">
  ) => Effect.Effect<RequestResult<"completion/complete">, ClientError.ClientError>
  /** `logging/setLevel` (handshake era; in the stateless era the level rides in each request: `EraMismatch`). */
  readonly setLogLevel: (level: LoggingLevel) => Effect.Effect<void, ClientError.ClientError>
  /** Every notification the server sends from now on (list changes, logs, resource updates, ...). */
  readonly notifications: Stream.Stream<JsonRpc.Notification>
  /**
   * The same notifications as `notifications`, each with the request of ours it came related to:
   * one the server sent on that request's response stream (Streamable HTTP) after the request's
   * `onLog`, if any, did not take it, or after its answer. `related` is undefined for one sent
   * outside any request (a session's stream, stdio).
   */
  readonly notificationsReceived: Stream.Stream<ReceivedNotification>
  /**
   * Tells the server the roots changed (`notifications/roots/list_changed`; handshake era, where
   * it may keep the roots it asked for; a stateless server asks in each request that needs them).
   */
  readonly rootsChanged: Effect.Effect<void, ClientError.ClientError>
  /** How often the response cache answered, and how often it could not. */
  readonly cacheStats: Effect.Effect<{ readonly hits: number; readonly misses: number }>
  /**
   * Subscribes to list changes and resource updates: a `subscriptions/listen` in the stateless
   * era; in a session, `resources/subscribe` for the URIs and the session's own list changes
   * (`NoEventStream` when the server offers no stream they could arrive on: over Streamable HTTP,
   * a GET answered 405 or refused otherwise, or not answered within the transport's
   * `eventStreamTimeout`, 10 seconds).
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

/**
 * Who is asking, as the handlers see it. A server's ask belongs to one of our requests: a
 * 2026-07-28 server's are rounds of the request itself, and run in its fibers; a handshake
 * server's arrive on the request's own stream when the transport has one (Streamable HTTP). Either
 * way the handler runs with the value this ref had where the request was made, so a client that
 * makes requests for several parties (a proxy, a multi-user agent) can tell whom to ask. Where the
 * ask's request cannot be known (stdio, legacy SSE, a session's standalone stream), it is
 * `undefined`.
 *
 * @since 0.1.0
 * @category fiber refs
 */
export const currentCaller: FiberRef.FiberRef<unknown> = Request.currentCaller

/**
 * Connects, picks the era and the revision, and serves the server's asks, for the lifetime of the
 * scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: <R = never>(
  options: Options<R>
) => Effect.Effect<Service, ClientError.ClientError, McpClientTransport | Scope.Scope | R> = Client.make

/**
 * The client as a layer, on a `McpClientTransport`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R = never>(
  options: Options<R>
): Layer.Layer<McpClient, ClientError.ClientError, McpClientTransport | R> => Layer.scoped(McpClient, make(options))
