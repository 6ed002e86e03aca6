/**
 * The wire boundary: text → message and message → text, exactly once each.
 *
 * `decode` parses the JSON once and checks only the JSON-RPC envelope; the parsed
 * object is kept as it is, so `_meta`, namespaced keys and unknown fields survive
 * verbatim. Params are decoded by the method's own schema when the method is
 * dispatched, so one bad request is one error response, never a dead loop.
 *
 * @since 0.1.0
 */
import * as JsonRpc from "./JsonRpc.js"
import * as McpError from "./McpError.js"

/**
 * One valid message.
 *
 * @since 0.1.0
 * @category models
 */
export interface Single {
  readonly _tag: "Single"
  readonly message: JsonRpc.Message
}

/**
 * A JSON array of messages. Each item is checked on its own: one bad item is one
 * error response, the rest are served.
 *
 * @since 0.1.0
 * @category models
 */
export interface Batch {
  readonly _tag: "Batch"
  readonly items: ReadonlyArray<Single | Invalid>
}

/**
 * Something that is not a message: invalid JSON (-32700, `id: null`) or a JSON value
 * that is not a JSON-RPC message (-32600, with the id when one could be read).
 *
 * @since 0.1.0
 * @category models
 */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly id: JsonRpc.RequestId | null
  readonly error: McpError.ParseError | McpError.InvalidRequest
}

/**
 * What one inbound frame decodes to.
 *
 * @since 0.1.0
 * @category models
 */
export type Inbound = Single | Batch | Invalid

const invalid = (id: JsonRpc.RequestId | null, message: string): Invalid => ({
  _tag: "Invalid",
  id,
  error: new McpError.InvalidRequest({ message })
})

const isId = (u: unknown): u is JsonRpc.RequestId =>
  typeof u === "string" || (typeof u === "number" && Number.isFinite(u))

const isParams = (u: unknown): boolean => u === undefined || (typeof u === "object" && u !== null)

const readableId = (o: Record<string, unknown>): JsonRpc.RequestId | null => isId(o.id) ? o.id : null

/**
 * Checks the envelope of one parsed JSON value.
 *
 * @since 0.1.0
 * @category decoding
 */
export const message = (value: unknown): Single | Invalid => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalid(null, "Invalid Request: a JSON-RPC message must be an object")
  }
  const o = value as Record<string, unknown>
  if (o.jsonrpc !== "2.0") {
    return invalid(readableId(o), "Invalid Request: jsonrpc must be \"2.0\"")
  }
  if ("method" in o) {
    if (typeof o.method !== "string") {
      return invalid(readableId(o), "Invalid Request: method must be a string")
    }
    if ("id" in o && !isId(o.id)) {
      return invalid(null, "Invalid Request: id must be a string or a number")
    }
    if (!isParams(o.params) || Array.isArray(o.params)) {
      return invalid(readableId(o), "Invalid Request: params must be an object")
    }
    return { _tag: "Single", message: o as unknown as JsonRpc.Message }
  }
  if ("result" in o) {
    return isId(o.id)
      ? { _tag: "Single", message: o as unknown as JsonRpc.Success }
      : invalid(null, "Invalid Request: a response needs the request's id")
  }
  if ("error" in o) {
    const e = o.error as Record<string, unknown> | null
    if (
      typeof e !== "object" || e === null || typeof e.code !== "number" || !Number.isInteger(e.code) ||
      typeof e.message !== "string"
    ) {
      return invalid(readableId(o), "Invalid Request: error must have an integer code and a string message")
    }
    if (!(o.id === null || isId(o.id))) {
      return invalid(null, "Invalid Request: id must be a string, a number or null")
    }
    return { _tag: "Single", message: o as unknown as JsonRpc.Failure }
  }
  return invalid(readableId(o), "Invalid Request: not a request, notification or response")
}

const hasOwn = Object.prototype.hasOwnProperty

/**
 * Removes every own `__proto__` key, at any depth (in place: the value is freshly parsed).
 * Iterative: a value nested thousands deep is bad input, not a stack overflow.
 */
const stripProto = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  const stack: Array<object> = [value]
  while (stack.length > 0) {
    const current = stack.pop()!
    if (Array.isArray(current)) {
      for (const item of current) {
        if (typeof item === "object" && item !== null) stack.push(item)
      }
      continue
    }
    if (hasOwn.call(current, "__proto__")) delete (current as any)["__proto__"]
    for (const key in current) {
      const item = (current as any)[key]
      if (typeof item === "object" && item !== null) stack.push(item)
    }
  }
  return value
}

/**
 * Text → JSON value, once. Own `__proto__` keys are removed: decoding them into objects
 * would set the object's prototype (prototype pollution), so no such key ever reaches a
 * schema. Every other key, `_meta` and namespaced keys included, is kept verbatim.
 * Throws `SyntaxError` on invalid JSON.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parse = (text: string): unknown => {
  const value = JSON.parse(text)
  // The walk costs; only texts that may spell the key, plainly or with `\u` escapes, pay for it.
  return text.includes("\"__proto__\"") || text.includes("\\u") ? stripProto(value) : value
}

/**
 * Removes own `__proto__` keys from a value parsed elsewhere (see {@link parse}).
 *
 * @since 0.1.0
 * @category decoding
 */
export const sanitize: (value: unknown) => unknown = stripProto

/**
 * Classifies an already parsed JSON value (an HTTP body parsed by the platform, say).
 * Own `__proto__` keys are removed first (see {@link parse}).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeValue = (value: unknown): Inbound => classify(stripProto(value))

const classify = (value: unknown): Inbound => {
  if (Array.isArray(value)) {
    if (value.length === 0) return invalid(null, "Invalid Request: empty batch")
    return { _tag: "Batch", items: value.map(message) }
  }
  return message(value)
}

/**
 * Text → message: parses the JSON once and checks the envelope.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (text: string): Inbound => {
  let value: unknown
  try {
    value = parse(text)
  } catch (cause) {
    return {
      _tag: "Invalid",
      id: null,
      error: new McpError.ParseError({
        message: `Parse error: ${cause instanceof Error ? cause.message : "invalid JSON"}`
      })
    }
  }
  return classify(value)
}

/**
 * Message (or batch) → text: compact JSON with no newlines, ready for a stdio line or an HTTP body.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (frame: JsonRpc.Frame): string => JSON.stringify(frame)

const topLevelMethod = /^\s*\{(?:[^{}[\]"]|"(?:[^"\\]|\\.)*")*?"method"\s*:/

/**
 * The id of an answer read from its first characters only (a message too large to be read
 * whole): a top-level `"id"` before any nested object or array, as every serializer we know of
 * writes it. `undefined` when the head does not show one, or shows a top-level `"method"` (a
 * request's id is the peer's, not one of ours).
 *
 * @since 0.1.0
 * @category decoding
 */
export const idOf = (head: string): JsonRpc.RequestId | undefined => {
  // A request's or a notification's (a top-level "method"): not an answer's id.
  if (topLevelMethod.test(head)) return undefined
  const found = /^\s*\{(?:[^{}[\]"]|"(?:[^"\\]|\\.)*")*?"id"\s*:\s*(-?\d+(?![.\deE])|"(?:[^"\\]|\\.)*")/.exec(head)
  if (found === null) return undefined
  const raw = found[1]!
  if (raw.startsWith("\"")) {
    try {
      return JSON.parse(raw) as string
    } catch {
      return undefined
    }
  }
  const n = Number(raw)
  return Number.isSafeInteger(n) ? n : undefined
}
