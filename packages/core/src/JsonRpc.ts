/**
 * JSON-RPC 2.0 as MCP uses it: requests, notifications, results, errors, batches,
 * and the error codes of every revision.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonValue, RequestId } from "./Schema/Base.js"

export type {
  /**
   * A request's id: a string or an integer.
   *
   * @since 0.1.0
   * @category models
   */
  RequestId
} from "./Schema/Base.js"

/**
 * A request: has an `id`, expects exactly one response.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly jsonrpc: "2.0"
  readonly id: RequestId
  readonly method: string
  readonly params?: unknown
}

/**
 * A notification: no `id`, never answered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Notification {
  readonly jsonrpc: "2.0"
  readonly method: string
  readonly params?: unknown
}

/**
 * A successful response.
 *
 * @since 0.1.0
 * @category models
 */
export interface Success {
  readonly jsonrpc: "2.0"
  readonly id: RequestId
  readonly result: unknown
}

/**
 * The `error` member of an error response.
 *
 * @since 0.1.0
 * @category models
 */
export interface ErrorObject {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * An error response. `id` is `null` only when the request's id could not be read.
 *
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly jsonrpc: "2.0"
  readonly id: RequestId | null
  readonly error: ErrorObject
}

/**
 * @since 0.1.0
 * @category models
 */
export type Response = Success | Failure

/**
 * Any single JSON-RPC message.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = Request | Notification | Response

/**
 * What one frame (a stdio line, an HTTP body) carries: a message, or a batch of them.
 *
 * @since 0.1.0
 * @category models
 */
export type Frame = Message | ReadonlyArray<Message>

/**
 * @since 0.1.0
 * @category guards
 */
export const isRequest = (message: Message): message is Request => "method" in message && "id" in message

/**
 * @since 0.1.0
 * @category guards
 */
export const isNotification = (message: Message): message is Notification => "method" in message && !("id" in message)

/**
 * @since 0.1.0
 * @category guards
 */
export const isResponse = (message: Message): message is Response => !("method" in message)

/**
 * @since 0.1.0
 * @category guards
 */
export const isFailure = (message: Message): message is Failure => "error" in message && !("method" in message)

/**
 * @since 0.1.0
 * @category constructors
 */
export const request = (id: RequestId, method: string, params?: unknown): Request =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }

/**
 * @since 0.1.0
 * @category constructors
 */
export const notification = (method: string, params?: unknown): Notification =>
  params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }

/**
 * @since 0.1.0
 * @category constructors
 */
export const success = (id: RequestId, result: unknown): Success => ({ jsonrpc: "2.0", id, result })

/**
 * @since 0.1.0
 * @category constructors
 */
export const failure = (id: RequestId | null, error: ErrorObject): Failure => ({ jsonrpc: "2.0", id, error })

/**
 * The standard JSON-RPC codes and the MCP codes of every revision.
 *
 * @since 0.1.0
 * @category codes
 */
export const Code = {
  /** Invalid JSON. */
  ParseError: -32700,
  /** Not a valid request object (also: a batch where batches are not allowed, a duplicate in-flight id). */
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Resource not found, 2024-11-05 … 2025-11-25 (2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
  /** URL elicitation required, 2025-11-25 only. */
  UrlElicitationRequired: -32042,
  /** HTTP headers missing or disagreeing with the body, 2026-07-28. */
  HeaderMismatch: -32020,
  /** A client capability the request needs was not declared, 2026-07-28. */
  MissingRequiredClientCapability: -32021,
  /** Protocol version not supported, 2026-07-28. */
  UnsupportedProtocolVersion: -32022
} as const

/**
 * Schema of a request message (params not decoded).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestSchema = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  method: Schema.String,
  params: Schema.optional(JsonValue)
}).annotations({ identifier: "JSONRPCRequest" })

/**
 * Schema of a notification message (params not decoded).
 *
 * @since 0.1.0
 * @category schemas
 */
export const NotificationSchema = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  params: Schema.optional(JsonValue)
}).annotations({ identifier: "JSONRPCNotification" })

/**
 * Schema of a successful response (result not decoded).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SuccessSchema = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  result: JsonValue
}).annotations({ identifier: "JSONRPCResultResponse" })

/**
 * Schema of the `error` member.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorObjectSchema = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optional(JsonValue)
}).annotations({ identifier: "Error" })

/**
 * Schema of an error response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FailureSchema = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(RequestId),
  error: ErrorObjectSchema
}).annotations({ identifier: "JSONRPCErrorResponse" })
