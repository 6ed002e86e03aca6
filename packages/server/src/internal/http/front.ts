/**
 * The HTTP front every MCP HTTP transport shares, as plain functions of the request's method,
 * path and headers, and of an exchange's body (nothing here touches a platform):
 *
 * - the Origin/Host guard (Host parsed strictly: a name or an IPv4 address or a bracketed
 *   IPv6 address, then at most one `:port`);
 * - media types: `Accept` and `Content-Type` parsed as media types with q-values;
 * - JSON-RPC error bodies, built by `Wire.encode`;
 * - a POST's body read and decoded (`readInbound`), with its 413 and 400;
 * - SSE framing.
 */
import type { JsonRpc, McpError, Revision } from "@effect-mcp/core"
import { Wire } from "@effect-mcp/core"
import type { Exchange } from "./exchange.js"

// ---------------------------------------------------------------------------- responses

/** Header names and values of a response (lowercase names). */
export type Headers = Readonly<Record<string, string>>

/** A response decided by the front or a back end: status, headers, a body (or none). */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: string | undefined
}

const json = "application/json"

/** A JSON-RPC error response (`id` null unless the request's id is known). */
export const error = (
  status: number,
  code: number,
  message: string,
  options: { readonly id?: JsonRpc.RequestId | null; readonly headers?: Headers } = {}
): Reply => ({
  status,
  headers: { "content-type": json, ...options.headers },
  body: Wire.encode({ jsonrpc: "2.0", id: options.id ?? null, error: { code, message } })
})

/** A JSON body. */
export const body = (status: number, text: string, headers: Headers = {}): Reply => ({
  status,
  headers: { "content-type": json, ...headers },
  body: text
})

/** No body. */
export const empty = (status: number, headers: Headers = {}): Reply => ({ status, headers, body: undefined })

/** `-32000`: the code of transport-level errors (no JSON-RPC meaning of their own). */
export const transportError = -32000

/** `-32001`, 404: the session a request names is not known here (never was, or ended). */
export const sessionNotFound = (message: "Session not found" | "Session ended" = "Session not found"): Reply =>
  error(404, -32001, message)

/** 405 with the methods the endpoint serves. */
export const methodNotAllowed = (allow: ReadonlyArray<string>): Reply =>
  error(405, transportError, `Method Not Allowed: use ${allow.join(", ")}`, { headers: { allow: allow.join(", ") } })

// ---------------------------------------------------------------------------- bodies

const payloadTooLarge = error(413, transportError, "Payload Too Large")
const unreadable = error(400, transportError, "Bad Request: could not read the body")

/** What a POST's body may be: its bytes, and how deep its JSON may nest. */
export interface InboundLimits {
  readonly maxBodyBytes: number
  readonly maxDepth: number
}

/**
 * Reads a POST's body (at most `maxBodyBytes`, counted as they arrive) and decodes it (nested
 * at most `maxDepth` deep). A body over the limit is answered 413 and one that could not be read
 * 400, here; `done` gets what a body decodes to, invalid frames too (each back end renders them
 * for its revision: `wireError`).
 */
export const readInbound = (exchange: Exchange, limits: InboundLimits, done: (inbound: Wire.Inbound) => void): void =>
  exchange.body(limits.maxBodyBytes, (body) => {
    if (body._tag === "TooLarge") return exchange.reply(payloadTooLarge)
    if (body._tag === "Failed") return exchange.reply(unreadable)
    done(Wire.decode(body.text, { maxDepth: limits.maxDepth }))
  })

/** A JSON-RPC error response carrying a wire error rendered for `revision` (say, a body that is no message). */
export const wireError = (
  status: number,
  id: JsonRpc.RequestId | null,
  failure: McpError.McpError,
  revision: Revision.Revision
): Reply => body(status, Wire.encode({ jsonrpc: "2.0", id, error: failure.toWire(revision) }))

// ---------------------------------------------------------------------------- Host and Origin

/** The loopback host names accepted by default. */
export const loopbackHosts: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]

/** The loopback origins accepted by default (any port). */
export const loopbackOrigins: ReadonlyArray<string> = loopbackHosts.flatMap((h) => [`http://${h}`, `https://${h}`])

const regName = /^[a-z0-9.-]+$/
const ipv6 = /^\[[0-9a-f:.]+\]$/
const port = /^[0-9]{1,5}$/

/**
 * The host name of a `Host` header value (lowercase, IPv6 with its brackets), or undefined when
 * the value is not `host[:port]` with a host of the allowed characters.
 */
export const hostname = (host: string): string | undefined => {
  const value = host.trim().toLowerCase()
  let name: string
  let rest: string
  if (value.startsWith("[")) {
    const close = value.indexOf("]")
    if (close < 0) return undefined
    name = value.slice(0, close + 1)
    rest = value.slice(close + 1)
    if (!ipv6.test(name)) return undefined
  } else {
    const colon = value.indexOf(":")
    name = colon < 0 ? value : value.slice(0, colon)
    rest = colon < 0 ? "" : value.slice(colon)
    if (!regName.test(name)) return undefined
  }
  if (rest === "") return name
  return rest.startsWith(":") && port.test(rest.slice(1)) && Number(rest.slice(1)) <= 65535 ? name : undefined
}

const originMatches = (origin: string, allowed: string): boolean => {
  if (origin === allowed) return true
  // An allowed origin without a port accepts every port of that scheme and host.
  if (!origin.startsWith(allowed)) return false
  return /^:\d{1,5}$/.test(origin.slice(allowed.length))
}

/** The guard's configuration. */
export interface Guard {
  readonly allowedHosts: ReadonlyArray<string> | "*"
  readonly allowedOrigins: ReadonlyArray<string> | "*"
  /** The verdicts on the `Host` and `Origin` values seen lately (see {@link Verdicts}). */
  readonly hosts: Verdicts
  readonly origins: Verdicts
}

/**
 * The verdicts of one check on the header values a handler saw lately: a client sends the same
 * `Host`, `Origin` or `Accept` on every request, so each value is judged once (at most `size`
 * remembered; then they are forgotten at once).
 */
export class Verdicts {
  private readonly verdicts = new Map<string, boolean>()
  constructor(private readonly size = 64) {}

  judge(value: string, compute: (value: string) => boolean): boolean {
    let verdict = this.verdicts.get(value)
    if (verdict === undefined) {
      verdict = compute(value)
      if (this.verdicts.size >= this.size) this.verdicts.clear()
      this.verdicts.set(value, verdict)
    }
    return verdict
  }
}

/** The Host/Origin guard of a handler, with its own verdicts. */
export const makeGuard = (
  allowedHosts: ReadonlyArray<string> | "*",
  allowedOrigins: ReadonlyArray<string> | "*"
): Guard => ({ allowedHosts, allowedOrigins, hosts: new Verdicts(), origins: new Verdicts() })

const hostAllowed = (allowedHosts: ReadonlyArray<string>, host: string | undefined): boolean => {
  const name = host === undefined ? undefined : hostname(host)
  return name !== undefined && allowedHosts.some((allowed) => allowed.toLowerCase() === name)
}

const originAllowed = (allowedOrigins: ReadonlyArray<string>, origin: string): boolean => {
  const lower = origin.toLowerCase()
  return allowedOrigins.some((allowed) => originMatches(lower, allowed.toLowerCase()))
}

/** 403 when `Host` or `Origin` is not allowed (DNS rebinding, cross-site requests). */
export const guard = (config: Guard, host: string | undefined, origin: string | undefined): Reply | undefined => {
  const { allowedHosts, allowedOrigins } = config
  if (
    allowedHosts !== "*" &&
    !(host === undefined ? false : config.hosts.judge(host, (value) => hostAllowed(allowedHosts, value)))
  ) {
    return error(403, transportError, "Forbidden: Host not allowed")
  }
  if (
    origin !== undefined && allowedOrigins !== "*" &&
    !config.origins.judge(origin, (value) => originAllowed(allowedOrigins, value))
  ) {
    return error(403, transportError, "Forbidden: Origin not allowed")
  }
  return undefined
}

// ---------------------------------------------------------------------------- media types

interface MediaRange {
  readonly type: string
  readonly subtype: string
  readonly q: number
}

const token = /^[!#$%&'*+.^_`|~0-9a-z-]+$/

/** The media ranges of an `Accept` header (invalid entries are skipped). */
export const parseAccept = (accept: string): ReadonlyArray<MediaRange> => {
  const out: Array<MediaRange> = []
  for (const part of accept.split(",")) {
    const [range, ...parameters] = part.split(";")
    const slash = range.indexOf("/")
    if (slash < 0) continue
    const type = range.slice(0, slash).trim().toLowerCase()
    const subtype = range.slice(slash + 1).trim().toLowerCase()
    if (!token.test(type) || !token.test(subtype) || (type === "*" && subtype !== "*")) continue
    let q = 1
    for (const parameter of parameters) {
      const [name, value] = parameter.split("=")
      if (name.trim().toLowerCase() === "q" && value !== undefined) {
        const parsed = Number(value.trim())
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0
      }
    }
    out.push({ type, subtype, q })
  }
  return out
}

/** Does `accept` accept `mediaType` (`type/subtype`) with q > 0? The most specific range decides. */
export const accepts = (accept: string | undefined, mediaType: string): boolean => {
  if (accept === undefined) return false
  const [type, subtype] = mediaType.split("/")
  let best: MediaRange | undefined
  let specificity = -1
  for (const range of parseAccept(accept)) {
    const s = range.type === type && range.subtype === subtype
      ? 2
      : range.type === type && range.subtype === "*"
      ? 1
      : range.type === "*"
      ? 0
      : -1
    if (s > specificity) {
      specificity = s
      best = range
    }
  }
  return best !== undefined && best.q > 0
}

/** The media type of a `Content-Type` header (lowercase, without parameters). */
export const mediaType = (contentType: string | undefined): string | undefined =>
  contentType === undefined || contentType === json
    ? contentType
    : contentType.split(";")[0].trim().toLowerCase()

/** Is the body JSON? */
export const isJson = (contentType: string | undefined): boolean => mediaType(contentType) === json

/**
 * The verdicts on the `Accept` headers a handler saw lately: a client sends the same one on every
 * request, so it is parsed once (at most `size` remembered; then they are forgotten at once).
 */
export class AcceptVerdicts {
  private readonly verdicts = new Verdicts()

  /** Does `accept` list both `application/json` and `text/event-stream` (q > 0)? */
  jsonAndSse(accept: string | undefined): boolean {
    return accept !== undefined && this.verdicts.judge(accept, jsonAndSse)
  }
}

const jsonAndSse = (accept: string): boolean => accepts(accept, json) && accepts(accept, "text/event-stream")

/** The reply to a POST whose `Accept` or `Content-Type` will not do (checked before its body is read). */
export const refusePost = (
  verdicts: AcceptVerdicts,
  accept: string | undefined,
  contentType: string | undefined
): Reply | undefined => {
  if (!verdicts.jsonAndSse(accept)) {
    return error(406, transportError, "Not Acceptable: Accept must list application/json and text/event-stream")
  }
  if (!isJson(contentType)) {
    return error(415, transportError, "Unsupported Media Type: Content-Type must be application/json")
  }
  return undefined
}

// ---------------------------------------------------------------------------- SSE

/** One SSE event. */
export interface Event {
  readonly id?: string | undefined
  readonly event?: string | undefined
  readonly data: string
}

/** One event as SSE text. `data` is one line: JSON from `Wire.encode` has no newline. */
export const sse = (event: Event): string => {
  let out = ""
  if (event.id !== undefined) out += `id: ${event.id}\n`
  if (event.event !== undefined) out += `event: ${event.event}\n`
  return out + `data: ${event.data}\n\n`
}

/** A `retry` hint (milliseconds) as SSE text. */
export const sseRetry = (millis: number): string => `retry: ${millis}\n\n`

/** A comment line, to keep an idle stream open through proxies. */
export const sseComment = (text: string): string => `: ${text}\n\n`

/** The headers of an SSE response. */
export const sseHeaders: Headers = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no"
}
