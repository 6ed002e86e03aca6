/**
 * The per-request context every handler can read: who is asking, in which revision,
 * with which capabilities, and helpers that belong to this request (progress, logs,
 * asks to the client). Whichever era filled it (the handshake session or the request's
 * own `_meta`), handlers read it the same way.
 *
 * @since 0.1.0
 */
import type { AuthInfo, JsonRpc, Peer, Revision, Schema as McpSchema } from "@effect-mcp/core"
import { McpError, Method } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type Implementation = McpSchema.Base.Implementation
type LoggingLevel = McpSchema.Base.LoggingLevel

/**
 * Why an ask to the client failed: the client did not declare the capability it needs
 * (`McpError.MissingRequiredClientCapability`, naming it in `requiredCapabilities`; nothing was
 * sent), the client answered with an error, it did not answer in time, or the connection closed.
 * Left unhandled, the first two reach the client as themselves (-32021 names what to declare).
 *
 * @since 0.1.0
 * @category errors
 */
export type ClientRequestError =
  | McpError.McpError
  | Peer.RequestTimeout
  | Peer.TransportClosed

/**
 * Options of an ask to the client.
 *
 * @since 0.1.0
 * @category models
 */
export interface AskOptions {
  readonly timeout?: import("effect/Duration").DurationInput
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The JSON-RPC id of the request being served. */
  readonly id: JsonRpc.RequestId
  readonly method: string
  readonly revision: Revision.Revision
  readonly era: Revision.Era
  readonly clientInfo: Option.Option<Implementation>
  readonly clientCapabilities: ClientCapabilities
  readonly progressToken: Option.Option<McpSchema.Base.ProgressToken>
  /**
   * Who holds the access token this request came with, verified by the HTTP transport's
   * `TokenVerifier` (authorization on). In a handshake session each request carries its own
   * token (a refreshed one, its subject the session's); in 2026-07-28, each request. None without
   * authorization (stdio, an HTTP transport without `auth`).
   */
  readonly auth: Option.Option<AuthInfo.AuthInfo>
  /**
   * The request's `_meta`, verbatim. A task's handler gets it frozen (a client's tasks share one
   * copy of an equal `_meta`): read it, never write to it.
   */
  readonly meta: McpSchema.Base.MetaObject | undefined
  /** The level at or above which `log` sends (the session's, or the request's in 2026); none: nothing is sent. */
  readonly logLevel: Effect.Effect<Option.Option<LoggingLevel>>
  /**
   * Sends `notifications/progress` for this request, when it asked for progress. In a task it is
   * the task's status message, and (2025-11-25, where the call's progress token stays valid for
   * the task's life) also the notification, on the requestor's session, tagged with the task.
   */
  readonly progress: (progress: number, total?: number, message?: string) => Effect.Effect<void>
  /** Sends `notifications/message` for this request, when `level` is at or above the log level. */
  readonly log: (level: LoggingLevel, data: unknown, logger?: string) => Effect.Effect<void>
  /** Asks the client to sample an LLM (`sampling/createMessage`). */
  readonly sample: (
    key: string,
    params: McpSchema.Sampling.CreateMessageRequestParams,
    options?: AskOptions
  ) => Effect.Effect<McpSchema.Sampling.CreateMessageResult, ClientRequestError>
  /** Asks the user for input (`elicitation/create`, form or URL mode). */
  readonly elicit: (
    key: string,
    params: McpSchema.Elicitation.ElicitRequestFormParams | McpSchema.Elicitation.ElicitRequestURLParams20251125,
    options?: AskOptions
  ) => Effect.Effect<McpSchema.Elicitation.ElicitResult, ClientRequestError>
  /**
   * Tells the client that the URL-mode elicitation `elicitationId` finished out of band
   * (`notifications/elicitation/complete`, 2025-11-25). The effect may be kept and run
   * after this request ended (say, when the user's browser flow completes).
   */
  readonly elicitationComplete: (elicitationId: string) => Effect.Effect<void>
  /**
   * On Streamable HTTP (2025-11-25 SSE polling): ends this request's SSE stream now, with a
   * `retry` hint; the client reconnects with `Last-Event-ID` and loses nothing. Elsewhere: nothing.
   */
  readonly closeSseStream: Effect.Effect<void>
  /** The client's roots (`roots/list`). */
  readonly roots: (
    key?: string,
    options?: AskOptions
  ) => Effect.Effect<ReadonlyArray<McpSchema.Roots.Root>, ClientRequestError>
  /**
   * 2026-07-28, the low-level side of a multi-round-trip request: the answer this retry carries
   * under `key` (this retry's `inputResponses`, when the last round asked for `key`, or an
   * earlier round's, kept in the sealed `requestState`), as the client sent it. Always none in
   * the handshake era, and on a call with no `requestState` (nothing was asked yet).
   */
  readonly inputResponse: (key: string) => Option.Option<unknown>
  /** 2026-07-28: the handler's own state, from the `requestState` it gave with `McpServer.inputRequired`. */
  readonly requestState: Option.Option<string>
}

/**
 * The per-request context.
 *
 * @since 0.1.0
 * @category tags
 */
export class McpRequest extends Context.Tag("@effect-mcp/server/McpRequest")<McpRequest, Service>() {}

/**
 * Who holds the access token of the current request (none without authorization).
 *
 * @since 0.1.0
 * @category accessors
 */
export const auth: Effect.Effect<Option.Option<AuthInfo.AuthInfo>, never, McpRequest> = Effect.map(
  McpRequest,
  (request) => request.auth
)

/**
 * Reports progress for the current request.
 *
 * @since 0.1.0
 * @category accessors
 */
export const progress = (progress: number, total?: number, message?: string): Effect.Effect<void, never, McpRequest> =>
  Effect.flatMap(McpRequest, (request) => request.progress(progress, total, message))

/**
 * Logs for the current request (sent only at or above the log level).
 *
 * @since 0.1.0
 * @category accessors
 */
export const log = (level: LoggingLevel, data: unknown, logger?: string): Effect.Effect<void, never, McpRequest> =>
  Effect.flatMap(McpRequest, (request) => request.log(level, data, logger))

/**
 * Asks the client to sample an LLM.
 *
 * @since 0.1.0
 * @category accessors
 */
export const sample = (
  key: string,
  params: McpSchema.Sampling.CreateMessageRequestParams,
  options?: AskOptions
): Effect.Effect<McpSchema.Sampling.CreateMessageResult, ClientRequestError, McpRequest> =>
  Effect.flatMap(McpRequest, (request) => request.sample(key, params, options))

/**
 * Asks the user for input.
 *
 * @since 0.1.0
 * @category accessors
 */
export const elicit = (
  key: string,
  params: McpSchema.Elicitation.ElicitRequestFormParams | McpSchema.Elicitation.ElicitRequestURLParams20251125,
  options?: AskOptions
): Effect.Effect<McpSchema.Elicitation.ElicitResult, ClientRequestError, McpRequest> =>
  Effect.flatMap(McpRequest, (request) => request.elicit(key, params, options))

/**
 * The client's roots.
 *
 * @since 0.1.0
 * @category accessors
 */
export const roots = (
  key?: string,
  options?: AskOptions
): Effect.Effect<ReadonlyArray<McpSchema.Roots.Root>, ClientRequestError, McpRequest> =>
  Effect.flatMap(McpRequest, (request) => request.roots(key, options))

/**
 * The answer the current retry carries under `key` (2026-07-28; none otherwise).
 *
 * @since 0.1.0
 * @category accessors
 */
export const inputResponse = (key: string): Effect.Effect<Option.Option<unknown>, never, McpRequest> =>
  Effect.map(McpRequest, (request) => request.inputResponse(key))

/**
 * The handler's own state from its previous round (2026-07-28; none otherwise).
 *
 * @since 0.1.0
 * @category accessors
 */
export const requestState: Effect.Effect<Option.Option<string>, never, McpRequest> = Effect.map(
  McpRequest,
  (request) => request.requestState
)

/**
 * The handler's own state from its previous round as a value of `schema` (what
 * `McpServer.inputRequiredWith(schema)` put there; none on a first round or in a handshake
 * session). State that does not decode (a schema changed between deployments) is -32602.
 *
 * @since 0.1.0
 * @category accessors
 */
export const requestStateAs = <A, I>(
  schema: Schema.Schema<A, I>
): Effect.Effect<Option.Option<A>, McpError.InvalidParams, McpRequest> => {
  const decode = Schema.decode(Schema.parseJson(schema))
  return Effect.flatMap(
    requestState,
    (state) =>
      Option.isNone(state) ?
        Effect.succeedNone :
        Effect.asSome(Effect.mapError(decode(state.value), (error) =>
          new McpError.InvalidParams({
            message: `Invalid requestState: ${Method.describeError(error)}`
          })))
  )
}
