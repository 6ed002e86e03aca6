/**
 * Errors that cross the wire. Each is a `Schema.TaggedError` that knows how to render
 * itself as a JSON-RPC error object for a given revision (resource-not-found is -32002
 * before 2026-07-28 and -32602 in it), and `fromWire` reads any peer error back into
 * the matching class.
 *
 * @since 0.1.0
 */
import * as ConfigError from "effect/ConfigError"
import * as Schema from "effect/Schema"
import { ClientCapabilities } from "./internal/schema/capabilities.js"
import * as JsonRpc from "./JsonRpc.js"
import * as Revision from "./Revision.js"
import { JsonValue } from "./Schema/Base.js"
import type { ClientCapabilities as ClientCapabilitiesType } from "./Schema/Capabilities.js"

/**
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@effect-mcp/core/McpError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * What every wire error can do.
 *
 * @since 0.1.0
 * @category models
 */
export interface Renderable {
  readonly [TypeId]: TypeId
  /** The JSON-RPC error object for `revision`. */
  readonly toWire: (revision: Revision.Revision) => JsonRpc.ErrorObject
}

const data = { data: Schema.optional(JsonValue) }

const render = (code: number, message: string, data: unknown): JsonRpc.ErrorObject =>
  data === undefined ? { code, message } : { code, message, data }

/**
 * -32700: the text was not JSON.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.ParseError({ message: "Parse error: Unexpected end of JSON input" })
 * console.log(error.toWire("2025-11-25")) // { code: -32700, message: "Parse error: Unexpected end of JSON input" }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class ParseError extends Schema.TaggedError<ParseError>("@effect-mcp/core/ParseError")("ParseError", {
  message: Schema.String,
  ...data
}) implements Renderable {
  /**
   * What was wrong with the text, as the peer reads it in `error.message`.
   *
   * @since 0.1.0
   */
  declare readonly message: string
  /**
   * Optional extra detail for the peer, sent as the error's `data` (any JSON value).
   *
   * @since 0.1.0
   */
  declare readonly data?: unknown
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return render(JsonRpc.Code.ParseError, this.message, this.data)
  }
}

/**
 * -32600: not a valid request (also a batch where the revision forbids batches, or a
 * duplicate in-flight id).
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.InvalidRequest({ message: "Already initialized" })
 * console.log(error.toWire("2025-11-25")) // { code: -32600, message: "Already initialized" }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>("@effect-mcp/core/InvalidRequest")(
  "InvalidRequest",
  { message: Schema.String, ...data }
) implements Renderable {
  /**
   * Why the request is refused, as the peer reads it in `error.message`.
   *
   * @since 0.1.0
   */
  declare readonly message: string
  /**
   * Optional extra detail for the peer, sent as the error's `data` (any JSON value).
   *
   * @since 0.1.0
   */
  declare readonly data?: unknown
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return render(JsonRpc.Code.InvalidRequest, this.message, this.data)
  }
}

/**
 * -32601: the method does not exist (or is not served in this phase, or needs a
 * capability the receiver did not advertise).
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.MethodNotFound({ method: "tools/frobnicate" })
 * console.log(error.message) // "Method not found: tools/frobnicate"
 * console.log(new McpError.MethodNotFound({ method: "sampling/createMessage", detail: "No sampling here" }).message)
 * // "No sampling here"
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class MethodNotFound extends Schema.TaggedError<MethodNotFound>("@effect-mcp/core/MethodNotFound")(
  "MethodNotFound",
  { method: Schema.String, detail: Schema.optional(Schema.String) }
) implements Renderable {
  /**
   * The method asked for (the request's `method`).
   *
   * @since 0.1.0
   */
  declare readonly method: string
  /**
   * The message to send instead of `Method not found: <method>`.
   *
   * @since 0.1.0
   */
  declare readonly detail?: string
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return this.detail ?? `Method not found: ${this.method}`
  }
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return { code: JsonRpc.Code.MethodNotFound, message: this.message }
  }
}

/**
 * -32602: the params are not what the method takes.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.InvalidParams({ message: "Unknown tool: frobnicate", data: { name: "frobnicate" } })
 * console.log(error.toWire("2025-11-25")) // { code: -32602, message: "Unknown tool: frobnicate", data: { ... } }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidParams extends Schema.TaggedError<InvalidParams>("@effect-mcp/core/InvalidParams")(
  "InvalidParams",
  { message: Schema.String, ...data }
) implements Renderable {
  /**
   * What is wrong with the params, as the peer reads it in `error.message`.
   *
   * @since 0.1.0
   */
  declare readonly message: string
  /**
   * Optional extra detail for the peer, sent as the error's `data` (any JSON value).
   *
   * @since 0.1.0
   */
  declare readonly data?: unknown
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return render(JsonRpc.Code.InvalidParams, this.message, this.data)
  }
}

/**
 * -32603: the receiver failed. Defects in handlers become this.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.InternalError({ message: "The database is unreachable" })
 * console.log(error.toWire("2025-11-25")) // { code: -32603, message: "The database is unreachable" }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class InternalError extends Schema.TaggedError<InternalError>("@effect-mcp/core/InternalError")(
  "InternalError",
  { message: Schema.String, ...data }
) implements Renderable {
  /**
   * What failed, as the peer reads it in `error.message` (say nothing secret).
   *
   * @since 0.1.0
   */
  declare readonly message: string
  /**
   * Optional extra detail for the peer, sent as the error's `data` (any JSON value).
   *
   * @since 0.1.0
   */
  declare readonly data?: unknown
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return render(JsonRpc.Code.InternalError, this.message, this.data)
  }
}

/**
 * The resource does not exist: -32002 up to 2025-11-25, -32602 in 2026-07-28.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 * import { Effect } from "effect"
 *
 * // A template's read for a URI it has nothing at: the client gets the code of its revision.
 * export const missing = (uri: string) => Effect.fail(new McpError.ResourceNotFound({ uri }))
 *
 * const error = new McpError.ResourceNotFound({ uri: "notes://nope" })
 * console.log(error.message) // "Resource not found: notes://nope"
 * console.log(error.toWire("2025-11-25")) // { code: -32002, message: "...", data: { uri: "notes://nope" } }
 * console.log(error.toWire("2026-07-28").code) // -32602
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>("@effect-mcp/core/ResourceNotFound")(
  "ResourceNotFound",
  { uri: Schema.String }
) implements Renderable {
  /**
   * The URI asked for; sent as `data.uri` and named in the message (`Resource not found: <uri>`).
   *
   * @since 0.1.0
   */
  declare readonly uri: string
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `Resource not found: ${this.uri}`
  }
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(revision: Revision.Revision): JsonRpc.ErrorObject {
    return { code: Revision.resourceNotFoundCode(revision), message: this.message, data: { uri: this.uri } }
  }
}

/**
 * -32042 (2025-11-25): the request needs these URL elicitations completed first.
 * Other revisions have no such code; there it renders as -32602 with the same data.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.UrlElicitationRequired({
 *   elicitations: [{
 *     mode: "url",
 *     elicitationId: "login-1",
 *     url: "https://example.com/login",
 *     message: "Sign in to continue"
 *   }],
 *   detail: "Sign in first"
 * })
 * console.log(error.toWire("2025-11-25").code) // -32042
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class UrlElicitationRequired
  extends Schema.TaggedError<UrlElicitationRequired>("@effect-mcp/core/UrlElicitationRequired")(
    "UrlElicitationRequired",
    { elicitations: Schema.Array(JsonValue), detail: Schema.optional(Schema.String) }
  )
  implements Renderable
{
  /**
   * The URL elicitations to complete first (`ElicitRequestURLParams`), sent as `data.elicitations`.
   *
   * @since 0.1.0
   */
  declare readonly elicitations: ReadonlyArray<unknown>
  /**
   * The message to send instead of `URL elicitation required`.
   *
   * @since 0.1.0
   */
  declare readonly detail?: string
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return this.detail ?? "URL elicitation required"
  }
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(revision: Revision.Revision): JsonRpc.ErrorObject {
    const code = Revision.features(revision).urlElicitationRequiredError
      ? JsonRpc.Code.UrlElicitationRequired
      : JsonRpc.Code.InvalidParams
    return { code, message: this.message, data: { elicitations: this.elicitations } }
  }
}

/**
 * -32020 (2026-07-28): HTTP headers missing, malformed, or disagreeing with the body.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.HeaderMismatch({ message: "Mcp-Method says tools/list, the body tools/call" })
 * console.log(error.toWire("2026-07-28").code) // -32020
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class HeaderMismatch extends Schema.TaggedError<HeaderMismatch>("@effect-mcp/core/HeaderMismatch")(
  "HeaderMismatch",
  { message: Schema.String, ...data }
) implements Renderable {
  /**
   * Which header is missing, malformed or disagrees with the body, as the peer reads it.
   *
   * @since 0.1.0
   */
  declare readonly message: string
  /**
   * Optional extra detail for the peer, sent as the error's `data` (any JSON value).
   *
   * @since 0.1.0
   */
  declare readonly data?: unknown
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return render(JsonRpc.Code.HeaderMismatch, this.message, this.data)
  }
}

/**
 * -32021 (2026-07-28): the request needs a client capability it did not declare.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.MissingRequiredClientCapability({
 *   requiredCapabilities: { elicitation: {} },
 *   detail: "This tool asks the user: declare elicitation"
 * })
 * console.log(error.toWire("2026-07-28").data) // { requiredCapabilities: { elicitation: {} } }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingRequiredClientCapability
  extends Schema.TaggedError<MissingRequiredClientCapability>("@effect-mcp/core/MissingRequiredClientCapability")(
    "MissingRequiredClientCapability",
    { requiredCapabilities: ClientCapabilities, detail: Schema.optional(Schema.String) }
  )
  implements Renderable
{
  /**
   * The client capabilities the request needs, sent as `data.requiredCapabilities`.
   *
   * @since 0.1.0
   */
  declare readonly requiredCapabilities: ClientCapabilitiesType
  /**
   * The message to send instead of `Missing required client capability`.
   *
   * @since 0.1.0
   */
  declare readonly detail?: string
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return this.detail ?? "Missing required client capability"
  }
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return {
      code: JsonRpc.Code.MissingRequiredClientCapability,
      message: this.message,
      data: { requiredCapabilities: this.requiredCapabilities }
    }
  }
}

/**
 * -32022 (2026-07-28): the requested protocol version is not supported.
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * const error = new McpError.UnsupportedProtocolVersion({ supported: ["2026-07-28"], requested: "2099-01-01" })
 * console.log(error.message) // "Unsupported protocol version: 2099-01-01"
 * console.log(error.toWire("2026-07-28").data) // { supported: ["2026-07-28"], requested: "2099-01-01" }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedProtocolVersion
  extends Schema.TaggedError<UnsupportedProtocolVersion>("@effect-mcp/core/UnsupportedProtocolVersion")(
    "UnsupportedProtocolVersion",
    { supported: Schema.Array(Schema.String), requested: Schema.String }
  )
  implements Renderable
{
  /**
   * The versions the receiver speaks, sent as `data.supported`.
   *
   * @since 0.1.0
   */
  declare readonly supported: ReadonlyArray<string>
  /**
   * The version the request asked for, sent as `data.requested` and named in the message.
   *
   * @since 0.1.0
   */
  declare readonly requested: string
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `Unsupported protocol version: ${this.requested}`
  }
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return {
      code: JsonRpc.Code.UnsupportedProtocolVersion,
      message: this.message,
      data: { supported: this.supported, requested: this.requested }
    }
  }
}

/**
 * Any other error a peer sent (application-defined codes, legacy codes).
 *
 * @example
 * ```ts
 * import { McpError } from "@effect-mcp/core"
 *
 * // An application-defined code.
 * const error = new McpError.RpcError({ code: -31000, message: "Quota exceeded", data: { retryAfter: 60 } })
 * console.log(error.toWire("2025-11-25")) // { code: -31000, message: "Quota exceeded", data: { retryAfter: 60 } }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class RpcError extends Schema.TaggedError<RpcError>("@effect-mcp/core/RpcError")("RpcError", {
  code: Schema.Int,
  message: Schema.String,
  ...data
}) implements Renderable {
  /**
   * The JSON-RPC error code, sent as it is.
   *
   * @since 0.1.0
   */
  declare readonly code: number
  /**
   * The error's message, sent as it is.
   *
   * @since 0.1.0
   */
  declare readonly message: string
  /**
   * Optional extra detail for the peer, sent as the error's `data` (any JSON value).
   *
   * @since 0.1.0
   */
  declare readonly data?: unknown
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * The error as the wire carries it in `revision`.
   *
   * @since 0.1.0
   */
  toWire(_revision: Revision.Revision): JsonRpc.ErrorObject {
    return render(this.code, this.message, this.data)
  }
}

/**
 * Every wire error.
 *
 * @since 0.1.0
 * @category models
 */
export type McpError =
  | ParseError
  | InvalidRequest
  | MethodNotFound
  | InvalidParams
  | InternalError
  | ResourceNotFound
  | UrlElicitationRequired
  | HeaderMismatch
  | MissingRequiredClientCapability
  | UnsupportedProtocolVersion
  | RpcError

/**
 * Is this value one of our wire errors?
 *
 * @since 0.1.0
 * @category guards
 */
export const isMcpError = (u: unknown): u is McpError => typeof u === "object" && u !== null && TypeId in u

/**
 * Reads a peer's error object into the matching class. Unknown codes become `RpcError`.
 * `-32002` is always a resource-not-found (clients of 2026-07-28 still accept it from
 * older servers); a `-32602` is `InvalidParams` (a 2026 resource-not-found has the
 * same code; its `data.uri`, when present, is kept in `data`).
 *
 * `method`, the request the error answers: a `-32601` whose message does not name its method
 * (`Method not found`, as many servers say) is given it (`Method not found: resources/list`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromWire = (error: JsonRpc.ErrorObject, method?: string): McpError => {
  const d = error.data as any
  const withData = <A extends object>(fields: A): A & { data?: unknown } =>
    d === undefined ? fields : { ...fields, data: d }
  switch (error.code) {
    case JsonRpc.Code.ParseError:
      return new ParseError(withData({ message: error.message }))
    case JsonRpc.Code.InvalidRequest:
      return new InvalidRequest(withData({ message: error.message }))
    case JsonRpc.Code.MethodNotFound: {
      const named = typeof d?.method === "string" ? d.method : method ?? ""
      return new MethodNotFound({ method: named, detail: namingMethod(error.message, named) })
    }
    case JsonRpc.Code.InvalidParams:
      return new InvalidParams(withData({ message: error.message }))
    case JsonRpc.Code.InternalError:
      return new InternalError(withData({ message: error.message }))
    case JsonRpc.Code.ResourceNotFound:
      return new ResourceNotFound({ uri: typeof d?.uri === "string" ? d.uri : "" })
    case JsonRpc.Code.UrlElicitationRequired:
      if (Array.isArray(d?.elicitations)) {
        return new UrlElicitationRequired({ elicitations: d.elicitations, detail: error.message })
      }
      break
    case JsonRpc.Code.HeaderMismatch:
      return new HeaderMismatch(withData({ message: error.message }))
    case JsonRpc.Code.MissingRequiredClientCapability:
      if (typeof d?.requiredCapabilities === "object" && d.requiredCapabilities !== null) {
        return new MissingRequiredClientCapability({
          requiredCapabilities: d.requiredCapabilities,
          detail: error.message
        })
      }
      break
    case JsonRpc.Code.UnsupportedProtocolVersion:
      if (Array.isArray(d?.supported)) {
        return new UnsupportedProtocolVersion({
          supported: d.supported.filter((s: unknown) => typeof s === "string"),
          requested: typeof d.requested === "string" ? d.requested : ""
        })
      }
      break
  }
  return new RpcError(withData({ code: error.code, message: error.message }))
}

/** A -32601's message that names its method: `Method not found: m`, or the peer's own and `(m)`. */
const namingMethod = (message: string, method: string): string =>
  method === "" || message.includes(method)
    ? message
    : /^\s*method not found\.?\s*$/i.test(message)
    ? `Method not found: ${method}`
    : `${message} (${method})`

/** What Effect puts in place of a config error's message when the config is `Config.redacted`. */
const redactedMessage = "<redacted>"

/**
 * A config error as a sentence naming its path: `PORT is missing (Expected PORT to exist in the
 * process context)`, `PORT is invalid: Expected an integer value but received "abc"`. The message of
 * a `Config.redacted` value is `<redacted>` (Effect hides it), so the path alone is said.
 */
const configMessage = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
      return `${configMessage(error.left)}; ${configMessage(error.right)}`
    case "Or":
      return `${configMessage(error.left)}, or ${configMessage(error.right)}`
    default: {
      const path = error.path.length === 0 ? "the config" : error.path.join(".")
      const detail = error.message === redactedMessage || error.message.length === 0 ? undefined : error.message
      switch (error._op) {
        case "MissingData":
          return detail === undefined ? `${path} is missing` : `${path} is missing (${detail})`
        case "InvalidData":
          return detail === undefined ? `${path} is invalid` : `${path} is invalid: ${detail}`
        case "SourceUnavailable":
          return detail === undefined ? `${path} could not be read` : `${path} could not be read: ${detail}`
        case "Unsupported":
          return detail === undefined ? `${path} is not supported` : `${path} is not supported: ${detail}`
      }
    }
  }
}

/**
 * A failure's own message, as a person reads it: a string as it is; a config error as what is
 * wrong with which path (`MCP_REQUEST_STATE_KEY is missing`, even for a `Config.redacted` one);
 * an error's `message` (a `Schema.TaggedError` without a message of its own shows its tag and
 * fields, `Tag: { ... }`); a bare tag; else its JSON.
 *
 * @since 0.1.0
 * @category rendering
 */
export const messageOf = (failure: unknown): string => {
  if (typeof failure === "string") return failure
  if (ConfigError.isConfigError(failure)) return configMessage(failure)
  if (typeof failure === "object" && failure !== null) {
    const tag = (failure as { readonly _tag?: unknown })._tag
    const message = (failure as { readonly message?: unknown }).message
    if (typeof message === "string" && message.length > 0) {
      return typeof tag === "string" && message.startsWith("{") ? `${tag}: ${message}` : message
    }
    if (typeof tag === "string") return tag
  }
  try {
    return JSON.stringify(failure) ?? String(failure)
  } catch {
    return String(failure)
  }
}
