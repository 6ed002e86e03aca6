/**
 * The request headers of 2026-07-28 Streamable HTTP (SEP-2243), for both sides: which headers
 * mirror which parts of the body, how a value is encoded (`=?base64?…?=` when it is not safe
 * visible ASCII), and the `x-mcp-header` annotations of a tool's `inputSchema` that name the
 * arguments mirrored as `Mcp-Param-{Name}`.
 *
 * A client encodes with {@link encodeValue} and mirrors what {@link paramHeaders} finds; a server
 * decodes with {@link decodeValue} and compares with {@link matches}. Header names are
 * case-insensitive (lowercase here, as `node:http` delivers them); values are case-sensitive.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"

/**
 * `MCP-Protocol-Version`: equals the request's `_meta` protocol version.
 *
 * @since 0.1.0
 * @category names
 */
export const protocolVersion = "mcp-protocol-version"

/**
 * `Mcp-Method`: equals the request's `method`.
 *
 * @since 0.1.0
 * @category names
 */
export const method = "mcp-method"

/**
 * `Mcp-Name`: equals `params.name` (tools/call, prompts/get), `params.uri` (resources/read), or
 * `params.taskId` (the tasks extension's tasks/get, tasks/update, tasks/cancel).
 *
 * @since 0.1.0
 * @category names
 */
export const name = "mcp-name"

/**
 * The prefix of the headers mirroring tool arguments: `Mcp-Param-{Name}`.
 *
 * @since 0.1.0
 * @category names
 */
export const paramPrefix = "mcp-param-"

/**
 * The JSON Schema keyword that names the header mirroring a tool argument.
 *
 * @since 0.1.0
 * @category names
 */
export const annotation = "x-mcp-header"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The body value `Mcp-Name` mirrors, when the method has one and the body carries it as a string.
 *
 * @since 0.1.0
 * @category headers
 */
export const nameOf = (method: string, params: unknown): string | undefined => {
  const field = method === "tools/call" || method === "prompts/get"
    ? "name"
    : method === "resources/read"
    ? "uri"
    : method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel"
    ? "taskId"
    : undefined
  if (field === undefined || !isObject(params)) return undefined
  const value = params[field]
  return typeof value === "string" ? value : undefined
}

/** Safe visible ASCII: printable, with no whitespace at either end. */
const isPlain = (value: string): boolean => {
  if (value.length === 0) return true
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) return false
  }
  return value.charCodeAt(0) !== 0x20 && value.charCodeAt(value.length - 1) !== 0x20
}

const prefix = "=?base64?"
const suffix = "?="
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const utf8 = new TextDecoder("utf-8", { fatal: true })
const encoder = new TextEncoder()

const looksEncoded = (value: string) =>
  value.length >= prefix.length + suffix.length && value.startsWith(prefix) && value.endsWith(suffix)

/**
 * A header value for a body value: strings as they are, integers in decimal, booleans as
 * `true`/`false`; a string that is not safe visible ASCII (or looks encoded itself) as
 * `=?base64?<base64 of its UTF-8>?=`.
 *
 * @since 0.1.0
 * @category headers
 */
export const encodeValue = (value: string | number | boolean): string => {
  if (typeof value !== "string") return String(value)
  if (isPlain(value) && !looksEncoded(value)) return value
  let binary = ""
  for (const byte of encoder.encode(value)) binary += String.fromCharCode(byte)
  return prefix + btoa(binary) + suffix
}

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09

/**
 * The value a received header carries: optional whitespace around it removed, `=?base64?…?=`
 * decoded (strictly: the standard alphabet with its padding, then UTF-8). `Left` with the reason
 * when the value has characters a header must not carry, or its encoding is broken. A value
 * without both markers is literal.
 *
 * @since 0.1.0
 * @category headers
 */
export const decodeValue = (raw: string): Either.Either<string, string> => {
  // Most values come trimmed (HTTP parsers strip the whitespace around a value): no regex for them.
  const value = isBlank(raw.charCodeAt(0)) || isBlank(raw.charCodeAt(raw.length - 1))
    ? raw.replace(/^[ \t]+|[ \t]+$/g, "")
    : raw
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if ((c < 0x20 && c !== 0x09) || c > 0x7e) return Either.left("it has characters outside visible ASCII")
  }
  if (!looksEncoded(value)) return Either.right(value)
  const inner = value.slice(prefix.length, value.length - suffix.length)
  if (!base64.test(inner)) return Either.left("its Base64 is malformed")
  try {
    const binary = atob(inner)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return Either.right(utf8.decode(bytes))
  } catch {
    return Either.left("its Base64 is not UTF-8")
  }
}

/**
 * One tool argument mirrored in a header: the header's name as annotated (`Mcp-Param-{header}`),
 * the argument's path from the root through `properties`, and its JSON type.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParamHeader {
  readonly header: string
  readonly path: ReadonlyArray<string>
  readonly type: "string" | "integer" | "boolean"
}

const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * The arguments of a tool that are mirrored in headers, from its `inputSchema`: annotations on
 * properties reachable from the root through `properties` only. `Left` with the reason when an
 * annotation breaks the rules (not an HTTP token, on a type other than string, integer or
 * boolean, repeated case-insensitively, or somewhere `properties` chains do not reach): HTTP
 * clients must not offer such a tool.
 *
 * @since 0.1.0
 * @category headers
 */
export const paramHeaders = (inputSchema: unknown): Either.Either<ReadonlyArray<ParamHeader>, string> => {
  const found: Array<ParamHeader> = []
  const seen = new Set<string>()
  let invalid: string | undefined

  const walk = (schema: unknown, path: ReadonlyArray<string>, reachable: boolean): void => {
    if (invalid !== undefined || !isObject(schema)) return
    const header = schema[annotation]
    if (header !== undefined && path.length > 0) {
      const at = path.join(".")
      const type = schema.type
      if (!reachable) invalid = `${annotation} on ${at} is not reachable through properties alone`
      else if (typeof header !== "string" || !tokenPattern.test(header)) {
        invalid = `${annotation} on ${at} is not an HTTP token`
      } else if (type !== "string" && type !== "integer" && type !== "boolean") {
        invalid = `${annotation} on ${at} annotates a ${JSON.stringify(type)}, not a string, integer or boolean`
      } else if (seen.has(header.toLowerCase())) invalid = `${annotation} ${header} is repeated`
      else {
        seen.add(header.toLowerCase())
        found.push({ header, path, type })
      }
    }
    for (const [key, sub] of Object.entries(schema)) {
      if (key === "properties" && isObject(sub)) {
        for (const [property, child] of Object.entries(sub)) walk(child, [...path, property], reachable)
      } else if (key === "items" || key === "anyOf" || key === "oneOf" || key === "allOf" || key === "not") {
        for (const child of Array.isArray(sub) ? sub : [sub]) walk(child, [...path, key], false)
      } else if (key === "if" || key === "then" || key === "else" || key === "$defs" || key === "definitions") {
        if (key === "$defs" || key === "definitions") {
          if (isObject(sub)) { for (const child of Object.values(sub)) walk(child, [...path, key], false) }
        } else walk(sub, [...path, key], false)
      }
    }
  }
  walk(inputSchema, [], true)
  return invalid === undefined ? Either.right(found) : Either.left(invalid)
}

/**
 * The argument a parameter header mirrors, from a tool call's `arguments` (undefined when absent
 * or null: then the header is omitted).
 *
 * @since 0.1.0
 * @category headers
 */
export const argumentOf = (spec: ParamHeader, args: unknown): unknown => {
  let value: unknown = args
  for (const key of spec.path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined
    value = value[key]
  }
  return value === null ? undefined : value
}

/**
 * Does a decoded header value agree with the body value? Strings exactly, integers numerically
 * (`42` and `42.0` agree), booleans as `true`/`false`.
 *
 * @since 0.1.0
 * @category headers
 */
export const matches = (type: ParamHeader["type"], header: string, body: unknown): boolean => {
  switch (type) {
    case "string":
      return typeof body === "string" && header === body
    case "integer":
      return typeof body === "number" && /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(header) &&
        Number(header) === body
    case "boolean":
      return typeof body === "boolean" && header === String(body)
  }
}
