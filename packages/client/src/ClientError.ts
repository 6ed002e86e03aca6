/**
 * The client's own errors: local failures that never pretend to be a peer's (those are
 * `McpError`s, read from the wire), besides the engine's `RequestTimeout` and `TransportClosed`.
 *
 * @since 0.1.0
 */
import { type McpError, Peer, type Revision, type Schema as McpSchema } from "@effect-mcp/core"
import * as Data from "effect/Data"

/**
 * The server speaks no revision this client does: what it offered (or supports) and what we do;
 * `pinned`, the era the client was told to speak (`era: "stateless"` or `"handshake"`), when that
 * is what kept it from the others.
 *
 * @since 0.1.0
 * @category errors
 */
export class VersionMismatch extends Data.TaggedError("VersionMismatch")<{
  readonly offered: ReadonlyArray<string>
  readonly supported: ReadonlyArray<string>
  readonly pinned?: Revision.Era | undefined
}> {
  override get message(): string {
    const offered = this.offered.join(", ") || "no revision"
    const ours = this.supported.join(", ")
    return this.pinned === undefined
      ? `The server speaks ${offered}; this client speaks ${ours}`
      : `The server speaks ${offered}; this client is pinned to the ${this.pinned} era (${ours})`
  }
}

/**
 * A multi-round-trip request still asked for input after `maxRoundTrips` rounds.
 *
 * @since 0.1.0
 * @category errors
 */
export class RoundTripsExceeded extends Data.TaggedError("RoundTripsExceeded")<{
  readonly method: string
  readonly rounds: number
}> {
  override get message(): string {
    return `${this.method} still asked for input after ${this.rounds} round trips`
  }
}

/**
 * The server asked for an input this client has no handler for (`sampling`, `elicitation`,
 * `roots`).
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingHandler extends Data.TaggedError("MissingHandler")<{
  readonly method: string
  readonly handler: "sampling" | "elicitation" | "roots"
}> {
  override get message(): string {
    return `The server asked for ${this.method}, and this client has no ${this.handler} handler`
  }
}

/**
 * The server answered with a result that does not fit its method's schema in the revision spoken.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidResult extends Data.TaggedError("InvalidResult")<{
  readonly method: string
  readonly detail: string
}> {
  override get message(): string {
    return `Invalid ${this.method} result: ${this.detail}`
  }
}

/**
 * The arguments of a typed tool call do not encode with the tool's `parameters` schema: the call
 * was not sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidArguments extends Data.TaggedError("InvalidArguments")<{
  readonly tool: string
  readonly detail: string
}> {
  override get message(): string {
    return `Invalid arguments for ${this.tool}: ${this.detail}`
  }
}

/**
 * A typed tool call answered `isError`: the tool's failure, decoded with its `failure` schema
 * when it has one (from `structuredContent`, else from the JSON of its text), and the result as sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolFailed<F = unknown> extends Data.TaggedError("ToolFailed")<{
  readonly tool: string
  readonly failure: F
  readonly result: McpSchema.Tool.CallToolResult
}> {
  override get message(): string {
    const text = this.result.content.flatMap((c) => c.type === "text" ? [c.text] : []).join(" ")
    return `${this.tool} failed${text.length > 0 ? `: ${text}` : ""}`
  }
}

/**
 * A method of the other era: this client speaks `era` with the server, and `method` exists only in
 * the other (`server/discover` of a handshake session, `logging/setLevel` of a stateless server).
 * Nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class EraMismatch extends Data.TaggedError("EraMismatch")<{
  readonly method: string
  readonly era: Revision.Era
}> {
  override get message(): string {
    const other = this.era === "handshake" ? "the stateless era (2026-07-28)" : "the handshake era"
    return `${this.method} is a method of ${other}; this client speaks the ${this.era} era with the server`
  }
}

/**
 * A subscription in the handshake era that nothing could reach: the server offers no stream for
 * what it sends outside a request (over Streamable HTTP, its GET answered 405, was refused
 * otherwise, or had no answer within `eventStreamTimeout`), so no list change or resource update
 * it raises would arrive. `reason` says what the transport saw.
 *
 * @since 0.1.0
 * @category errors
 */
export class NoEventStream extends Data.TaggedError("NoEventStream")<{
  readonly reason: string
}> {
  override get message(): string {
    return `The server has no stream for notifications outside a request (${this.reason}): nothing it raises could arrive`
  }
}

/**
 * A task ended `failed`: its id, and the error it failed with (what the server kept of it, read
 * from the wire: `McpError.fromWire`). A tool's own error result (`isError`) is not this: it is
 * the task's result.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskFailed extends Data.TaggedError("TaskFailed")<{
  readonly taskId: string
  readonly error: McpError.McpError
}> {
  override get message(): string {
    return `Task ${this.taskId} failed: ${this.error.message}`
  }
}

/**
 * A task ended `cancelled` (by this client, or by anyone else allowed to): it has no result.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskCancelled extends Data.TaggedError("TaskCancelled")<{
  readonly taskId: string
}> {
  override get message(): string {
    return `Task ${this.taskId} was cancelled`
  }
}

/**
 * A task was still not done when its time to live ran out (`ttlMs`, counted from when this client
 * first saw it): the client stopped waiting for it. The server may have dropped it by then.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskExpired extends Data.TaggedError("TaskExpired")<{
  readonly taskId: string
  readonly ttlMs: number
}> {
  override get message(): string {
    return `Task ${this.taskId} did not end within its time to live (${this.ttlMs} ms)`
  }
}

/**
 * How a task's result may fail besides the request failing: the task failed, was cancelled, or
 * outlived its time to live.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskError = TaskFailed | TaskCancelled | TaskExpired

/**
 * One challenge of a `WWW-Authenticate` header: its scheme (lower case), its parameters (names
 * lower case, values unquoted) and its token68, if it has one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Challenge {
  readonly scheme: string
  readonly params: Readonly<Record<string, string>>
  readonly token68?: string | undefined
}

/**
 * The server answered a request with an HTTP status and no JSON-RPC answer (a 401 of an OAuth
 * resource server, a gateway's 502, a redirect that was not followed): the status, the response's
 * headers, the start of its body and, for a 401 or 403, its parsed `WWW-Authenticate` challenges.
 *
 * @since 0.1.0
 * @category errors
 */
export class HttpError extends Data.TaggedError("HttpError")<{
  /** The MCP method whose request met it. */
  readonly method: string
  /** The HTTP request that met it: `POST`, `GET`. */
  readonly httpMethod: string
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The start of the body (at most 200 characters), whitespace folded. */
  readonly body: string
  /** A 401's or 403's `WWW-Authenticate` challenges (empty otherwise, or when it has none). */
  readonly challenges: ReadonlyArray<Challenge>
  /** Said after the status, when the transport knows more (a redirect to another origin). */
  readonly detail?: string | undefined
}> {
  override get message(): string {
    const detail = this.detail === undefined ? "" : ` (${this.detail})`
    const body = this.body.length > 0 ? `: ${this.body}` : ""
    return `${this.method}: ${this.httpMethod} ${this.url} answered HTTP ${this.status}${detail}${body}`
  }
}

/**
 * No connection could be made to the server (refused, no such host, TLS, reset before an answer):
 * the address and the reason as the platform said it.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConnectionFailed extends Data.TaggedError("ConnectionFailed")<{
  readonly url: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `cannot connect to ${this.url} (${this.reason})`
  }
}

/**
 * The server sent more than the client takes in one message (an HTTP body, an SSE event, a stdio
 * line): `limit` bytes (or characters, for stdio). The rest was not read.
 *
 * @since 0.1.0
 * @category errors
 */
export class MessageTooLarge extends Data.TaggedError("MessageTooLarge")<{
  readonly method: string
  readonly limit: number
  /** What `limit` counts: bytes (the default), or characters. */
  readonly unit?: "characters" | undefined
  /**
   * The client's option that sets `limit` (default `maxMessageSize`, HTTP's; `maxMessageLength` for
   * characters; Node's stdio says `maxMessageLength`, in bytes).
   */
  readonly option?: string | undefined
}> {
  override get message(): string {
    const unit = this.unit ?? "bytes"
    const option = this.option ?? (this.unit === "characters" ? "maxMessageLength" : "maxMessageSize")
    return `${this.method}: the server's answer is larger than ${this.limit} ${unit} (the client's ${option}); it was not read`
  }
}

/**
 * A listing (`listTools`, `listResources`, `listResourceTemplates`, `listPrompts`, the tasks'
 * `list`) went past a bound of the client's: more than `maxPages` pages, more than
 * `maxListingBytes` of items, or a `nextCursor` the server had given already (`repeated cursor`:
 * a listing that would never end). Nothing of it is returned: a part would pass for the whole.
 *
 * @since 0.1.0
 * @category errors
 */
export class ListingExceeded extends Data.TaggedError("ListingExceeded")<{
  readonly method: string
  readonly unit: "pages" | "bytes" | "repeated cursor"
  /** The bound passed (for a repeated cursor, the pages read). */
  readonly limit: number
  /** The pages read. */
  readonly pages: number
}> {
  override get message(): string {
    return this.unit === "repeated cursor"
      ? `${this.method}: the server gave a cursor it had given already (after ${this.pages} pages); the listing would never end`
      : `${this.method}: the server's listing goes past ${this.limit} ${this.unit} (the client's ${
        this.unit === "pages" ? "maxPages" : "maxListingBytes"
      }); it was not followed further`
  }
}

/**
 * What came back on the POST of one request was not its answer: another id (or a request, or a
 * notification, where an answer belongs), a body that is not JSON-RPC, or a stream that ended
 * without it and could not be resumed. The engine's own (`Peer.UnexpectedAnswer`), which checks
 * answers once, for every transport with a channel per request.
 *
 * @since 0.1.0
 * @category errors
 */
export const UnexpectedAnswer: typeof Peer.UnexpectedAnswer = Peer.UnexpectedAnswer

/**
 * @since 0.1.0
 * @category errors
 */
export type UnexpectedAnswer = Peer.UnexpectedAnswer

/**
 * Authorization could not be had: which step failed (`discovery`, `registration`, `authorization`,
 * `token`, `refresh`), at which URL, and why. Secrets are never part of it.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthorizationFailed extends Data.TaggedError("AuthorizationFailed")<{
  readonly step: "discovery" | "registration" | "authorization" | "token" | "refresh" | "configuration"
  readonly url: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `authorization failed (${this.step}, ${this.url}): ${this.reason}`
  }
}

/**
 * The server kept asking for more scope (403 `insufficient_scope`) after `attempts` authorizations:
 * the scopes it asked for last, and those held.
 *
 * @since 0.1.0
 * @category errors
 */
export class InsufficientScope extends Data.TaggedError("InsufficientScope")<{
  readonly url: string
  readonly required: ReadonlyArray<string>
  readonly held: ReadonlyArray<string>
  readonly attempts: number
}> {
  override get message(): string {
    return `${this.url} still asks for scope ${this.required.join(" ") || "(none named)"} after ${this.attempts} ` +
      `authorizations (held: ${this.held.join(" ") || "none"})`
  }
}

/**
 * An issuer was not the one expected: the authorization server's metadata names another issuer
 * than the one discovery started from (RFC 8414 §3.3), or the authorization response's `iss`
 * (RFC 9207) is missing where the server promised it, or names another.
 *
 * @since 0.1.0
 * @category errors
 */
export class IssuerMismatch extends Data.TaggedError("IssuerMismatch")<{
  readonly where: "metadata" | "authorization-response"
  readonly expected: string
  /** What came instead (undefined: nothing, where it was required). */
  readonly received: string | undefined
}> {
  override get message(): string {
    return this.where === "metadata"
      ? `the authorization server metadata names issuer ${this.received}, not ${this.expected}`
      : this.received === undefined
      ? `the authorization response has no iss, which ${this.expected} says it sends`
      : `the authorization response's iss is ${this.received}, not ${this.expected}`
  }
}

/**
 * The protected resource metadata is for another resource than the server asked (RFC 9728 §3.3):
 * nothing is authorized for it.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResourceMismatch extends Data.TaggedError("ResourceMismatch")<{
  readonly url: string
  readonly resource: string
}> {
  override get message(): string {
    return `the protected resource metadata of ${this.url} is for ${this.resource}; refused`
  }
}

/**
 * A failure of authorization (`McpAuth`), met by the request it was for.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthError = AuthorizationFailed | InsufficientScope | IssuerMismatch | ResourceMismatch

/**
 * Is `u` a failure of authorization?
 *
 * @since 0.1.0
 * @category guards
 */
export const isAuthError = (u: unknown): u is AuthError =>
  u instanceof AuthorizationFailed || u instanceof InsufficientScope || u instanceof IssuerMismatch ||
  u instanceof ResourceMismatch

/**
 * What a client transport may fail one request with, locally.
 *
 * @since 0.1.0
 * @category models
 */
export type TransportFailure = HttpError | ConnectionFailed | MessageTooLarge | UnexpectedAnswer | AuthError

/**
 * Every failure of a client call.
 *
 * @since 0.1.0
 * @category models
 */
export type ClientError =
  | McpError.McpError
  | Peer.RequestTimeout
  | Peer.TransportClosed
  | VersionMismatch
  | RoundTripsExceeded
  | MissingHandler
  | InvalidResult
  | EraMismatch
  | NoEventStream
  | ListingExceeded
  | TransportFailure
