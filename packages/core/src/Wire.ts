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
  readonly error: McpError.ParseError | McpError.InvalidRequest | McpError.InvalidParams
}

/**
 * How deep an inbound message may nest (objects and arrays, the message itself at depth 1):
 * deeper is refused where it is decoded, before anything recursive (a schema, `JSON.stringify`)
 * can overflow the stack on it. MCP messages nest a dozen levels; JSON Schemas in tool
 * definitions a few dozen at most.
 *
 * @since 0.1.0
 * @category decoding
 */
export const defaultMaxDepth = 128

/**
 * Options of {@link decode}.
 *
 * @since 0.1.0
 * @category decoding
 */
export interface DecodeOptions {
  /** The deepest nesting accepted; default {@link defaultMaxDepth}. */
  readonly maxDepth?: number | undefined
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

/** What a parsed message cannot be served with: too deep, or a number JSON can spell but not carry. */
type Flaw = "depth" | "number"

/**
 * Walks a freshly parsed value once, iteratively (a value nested thousands deep is bad input,
 * not a stack overflow), in place: removes every own `__proto__` key, at any depth, and finds
 * the first flaw: nesting past `maxDepth` (`value` itself at `depth`), or (when `numbers`) a
 * non-finite number (`1e309` parses to `Infinity`, which no JSON can say back: it would be sent
 * as `null`). It stops at the first flaw: the message is refused whole.
 */
const walk = (value: unknown, depth: number, maxDepth: number, numbers = true): Flaw | undefined => {
  if (typeof value === "number") return numbers && !Number.isFinite(value) ? "number" : undefined
  if (typeof value !== "object" || value === null) return undefined
  const values: Array<object> = [value]
  const depths: Array<number> = [depth]
  while (values.length > 0) {
    const current = values.pop()!
    const at = depths.pop()!
    if (at > maxDepth) return "depth"
    if (Array.isArray(current)) {
      for (const item of current) {
        if (typeof item === "object" && item !== null) {
          values.push(item)
          depths.push(at + 1)
        } else if (numbers && typeof item === "number" && !Number.isFinite(item)) return "number"
      }
      continue
    }
    if (hasOwn.call(current, "__proto__")) delete (current as any)["__proto__"]
    for (const key in current) {
      const item = (current as any)[key]
      if (typeof item === "object" && item !== null) {
        values.push(item)
        depths.push(at + 1)
      } else if (numbers && typeof item === "number" && !Number.isFinite(item)) return "number"
    }
  }
  return undefined
}

/**
 * Can this text hold what {@link walk} looks for? Own `__proto__` keys, plainly or with `\u`
 * escapes; nesting past `maxDepth` (each level takes two characters); a number that overflows
 * (an exponent of three digits or more; longer mantissas take more characters than the depth
 * bound lets through unwalked). Most messages are short and plain: they are not walked.
 */
const mayNeedWalk = (text: string, maxDepth: number): boolean =>
  text.length > 2 * maxDepth || mayHoldProto(text) || exponent.test(text)

/**
 * Can this text spell a `__proto__` key, plainly or with `\u` escapes? (Looked for without its
 * quotes: a needle that starts with `"` is slow to find in JSON, where every other character is
 * one; a text that has the word elsewhere is walked for nothing, and that is all.)
 */
const mayHoldProto = (text: string): boolean => text.includes("__proto__") || text.includes("\\u")

/** A number's exponent of three digits or more (in JSON an exponent always follows a digit). */
const exponent = /\d[eE]\+?\d{3}/

/**
 * Text → JSON value, once. Own `__proto__` keys are removed: decoding them into objects
 * would set the object's prototype (prototype pollution), so no such key ever reaches a
 * schema. Every other key, `_meta` and namespaced keys included, is kept verbatim.
 * Throws `SyntaxError` on invalid JSON. (Depth and numbers are checked by {@link decode}.)
 *
 * @since 0.1.0
 * @category decoding
 */
export const parse = (text: string): unknown => {
  const value = JSON.parse(text)
  // The walk costs; only texts that may spell the key, plainly or with `\u` escapes, pay for it.
  if (mayHoldProto(text)) walk(value, 1, Infinity, false)
  return value
}

/**
 * Removes own `__proto__` keys from a value parsed elsewhere (see {@link parse}).
 *
 * @since 0.1.0
 * @category decoding
 */
export const sanitize = (value: unknown): unknown => {
  walk(value, 1, Infinity, false)
  return value
}

/**
 * Classifies an already parsed JSON value (an HTTP body parsed by the platform, say).
 * Own `__proto__` keys are removed first (see {@link parse}), and nesting and numbers are
 * checked as {@link decode} checks them.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeValue = (value: unknown, options?: DecodeOptions): Inbound =>
  classify(value, options?.maxDepth ?? defaultMaxDepth, true)

/** One message, walked when asked: a flaw under `params` is -32602, elsewhere -32600, with its id. */
const checked = (value: unknown, maxDepth: number, depth: number, walked: boolean): Single | Invalid => {
  if (walked && typeof value === "object" && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>
    if (hasOwn.call(o, "__proto__")) delete o["__proto__"]
    for (const key in o) {
      const flaw = walk(o[key], depth + 1, maxDepth)
      if (flaw !== undefined) return flawed(o, key, flaw, maxDepth)
    }
  }
  return message(value)
}

/**
 * A flawed message: a request's params are -32602, anything else -32600, with its id. A response
 * is never answered: it becomes an error response for its id (so the call it answers fails at
 * once, and one nobody made is ignored, as any answer to an unknown id).
 */
const flawed = (o: Record<string, unknown>, key: string, flaw: Flaw, maxDepth: number): Single | Invalid => {
  const what = flaw === "depth"
    ? `nested deeper than ${maxDepth} levels`
    : "a number out of range (JSON numbers must be finite)"
  const id = readableId(o)
  if (!("method" in o) && ("result" in o || "error" in o)) {
    const error = { code: JsonRpc.Code.InvalidRequest, message: `Invalid Request: the answer is ${what}` }
    return { _tag: "Single", message: { jsonrpc: "2.0", id, error } as JsonRpc.Failure }
  }
  return key === "params" && typeof o.method === "string"
    ? { _tag: "Invalid", id, error: new McpError.InvalidParams({ message: `Invalid params: ${what}` }) }
    : invalid(id, `Invalid Request: ${what}`)
}

const classify = (value: unknown, maxDepth: number, walked: boolean): Inbound => {
  if (Array.isArray(value)) {
    if (value.length === 0) return invalid(null, "Invalid Request: empty batch")
    return { _tag: "Batch", items: value.map((item) => checked(item, maxDepth, 1, walked)) }
  }
  return checked(value, maxDepth, 1, walked)
}

/**
 * Text → message: parses the JSON once and checks the envelope. A message nested deeper than
 * `maxDepth` (default {@link defaultMaxDepth}), or holding a number too large for a double
 * (`1e309`), is refused here: -32602 when the flaw is in a request's params, else -32600, with
 * the message's id when it has one.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (text: string, options?: DecodeOptions): Inbound => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    return {
      _tag: "Invalid",
      id: null,
      error: new McpError.ParseError({
        message: `Parse error: ${
          cause instanceof RangeError ? "nested too deep" : cause instanceof Error ? cause.message : "invalid JSON"
        }`
      })
    }
  }
  const maxDepth = options?.maxDepth ?? defaultMaxDepth
  return classify(value, maxDepth, mayNeedWalk(text, maxDepth))
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
