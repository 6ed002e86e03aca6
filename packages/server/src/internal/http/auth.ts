/**
 * The HTTP front as an OAuth 2.1 resource server (RFC 6750, RFC 9728), before any era sees a
 * request:
 *
 * - the bearer token from the `Authorization` header only (a token in the query is never read:
 *   alone, the request has no token; beside the header, it is 400 `invalid_request`);
 * - the token verified (`TokenVerifier`), and what the verifier found checked again: audience,
 *   expiry with the clock skew (on the transport's `Clock`), issuer; then the server-wide scopes;
 * - the answers: 401 with a `Bearer` challenge naming the resource metadata and the scopes
 *   (`error="invalid_token"` when a token was sent), 403 `insufficient_scope` naming every scope
 *   the request needs, 400 for a malformed header, 503 when the verifier cannot reach the
 *   authorization server; each with a JSON-RPC error body, its id read from the body when it is
 *   one request. Why a token failed is logged (Debug), never sent;
 * - the protected resource metadata at its path-inserted and root well-known URLs;
 * - CORS: preflights answered, the headers a browser client needs exposed.
 */
import type { JsonRpc } from "@effect-mcp/core"
import { AuthInfo, Wire } from "@effect-mcp/core"
import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type { AuthOptions } from "../../HttpTransport.js"
import type * as McpServer from "../../McpServer.js"
import * as TokenVerifier from "../../TokenVerifier.js"
import type { Entries } from "../registry.js"
import * as Server from "../server.js"
import type { Exchange } from "./exchange.js"
import * as Front from "./front.js"

// ---------------------------------------------------------------------------- CORS

/** Response headers a browser client may read. */
const exposed = "mcp-session-id, mcp-protocol-version, www-authenticate"

const headerToken = /^[!#$%&'*+.^_`|~0-9a-z-]+$/

/** The request headers a preflight asks for, as a list of header names (anything else dropped). */
const requestedHeaders = (asked: string | undefined): string =>
  (asked ?? "").split(",").map((h) => h.trim().toLowerCase()).filter((h) => headerToken.test(h)).join(", ")

/** A CORS preflight (`OPTIONS` with `Access-Control-Request-Method`): answered 204 for `origin`. */
export const isPreflight = (exchange: Exchange): boolean =>
  exchange.method === "OPTIONS" && exchange.header("access-control-request-method") !== undefined

export const preflight = (exchange: Exchange, origin: string, methods: string): Front.Reply =>
  Front.empty(204, {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": methods,
    "access-control-allow-headers": requestedHeaders(exchange.header("access-control-request-headers")),
    "access-control-max-age": "600",
    vary: "origin"
  })

/** The exchange, its responses carrying the CORS headers for `origin` (an allowed one). */
export const withCors = (exchange: Exchange, origin: string): Exchange => {
  const cors = { "access-control-allow-origin": origin, "access-control-expose-headers": exposed, vary: "origin" }
  return {
    method: exchange.method,
    path: exchange.path,
    query: exchange.query,
    // Called on the exchange, not taken from it: an exchange's calls may be methods (`node:http`'s are).
    header: (name) => exchange.header(name),
    remoteAddress: exchange.remoteAddress,
    body: (maxBytes, done) => exchange.body(maxBytes, done),
    onClose: (listener) => exchange.onClose(listener),
    reply: (reply) => exchange.reply({ ...reply, headers: { ...reply.headers, ...cors } }),
    stream: (headers) => exchange.stream({ ...headers, ...cors })
  }
}

// ---------------------------------------------------------------------------- configuration

/** The resource server, as the front uses it. */
export interface Auth {
  readonly resource: string
  /** The protected resource metadata's paths: path-inserted, then root. */
  readonly metadataPaths: ReadonlyArray<string>
  /** Its URL, as the challenges name it. */
  readonly metadataUrl: string
  readonly expected: TokenVerifier.Expected
  readonly scopes: ReadonlyArray<string>
  readonly verifier: TokenVerifier.Service
  readonly maxTokenLength: number
  /** The metadata document (its `scopes_supported` from what the registry declares when not given). */
  readonly metadata: () => string
  /** Verifies a token; the callback gets the holder, or the reply that refuses the request. */
  readonly authenticate: (exchange: Exchange, done: (auth: AuthInfo.AuthInfo) => void) => void
  /** The 403 a request needing scopes its holder lacks gets, or undefined. */
  readonly stepUp: (
    messages: ReadonlyArray<JsonRpc.Message>,
    auth: AuthInfo.AuthInfo | undefined
  ) => Front.Reply | undefined
}

/** Longest body read to find the id of a request refused before it ran. */
const maxRefusedBody = 64 * 1024

const defaultMaxTokenLength = 16 * 1024

const quoted = (value: string) => `"${value.replace(/["\\]/g, "")}"`

/** The scopes of `items` (tools, prompts, resources) that declare any, each once. */
const declaredScopes = (entries: Entries | undefined): ReadonlyArray<string> => {
  const out = new Set<string>()
  if (entries === undefined) return []
  for (const kind of [entries.tools, entries.prompts, entries.resources, entries.templates] as const) {
    for (const item of kind.values()) for (const scope of item.scopes ?? []) out.add(scope)
  }
  return Array.from(out)
}

/** The scopes one request needs beyond the server-wide ones: those of the tool, prompt or resource it is for. */
const scopesOf = (entries: Entries, request: JsonRpc.Request): ReadonlyArray<string> | undefined => {
  const params = request.params as
    | {
      readonly name?: unknown
      readonly uri?: unknown
      readonly ref?: { readonly type?: unknown; readonly name?: unknown; readonly uri?: unknown }
    }
    | undefined
  switch (request.method) {
    // A completer runs for its prompt or template: it needs what they need.
    case "completion/complete": {
      const ref = params?.ref
      if (ref?.type === "ref/prompt" && typeof ref.name === "string") return entries.prompts.get(ref.name)?.scopes
      if (typeof ref?.uri === "string") {
        return entries.templates.get(ref.uri)?.scopes ?? entries.resources.get(ref.uri)?.scopes
      }
      return undefined
    }
    case "tools/call":
      return typeof params?.name === "string" ? entries.tools.get(params.name)?.scopes : undefined
    case "prompts/get":
      return typeof params?.name === "string" ? entries.prompts.get(params.name)?.scopes : undefined
    case "resources/read":
    case "resources/subscribe": {
      if (typeof params?.uri !== "string") return undefined
      const resource = entries.resources.get(params.uri)
      if (resource !== undefined) return resource.scopes
      for (const template of entries.templates.values()) {
        if (template.scopes !== undefined && template.match(params.uri) !== undefined) return template.scopes
      }
      return undefined
    }
    default:
      return undefined
  }
}

/** The answers refusing a request: 401 with its challenge, 400, 403 `insufficient_scope`, 503; each with the request's id. */
const refusalsOf = (metadataUrl: string, scopes: ReadonlyArray<string>, maxBodyBytes: number) => {
  const challenge = (fields: ReadonlyArray<readonly [string, string]>) =>
    `Bearer ${fields.map(([name, value]) => `${name}=${quoted(value)}`).join(", ")}`
  const scopeField = (needed: ReadonlyArray<string>): ReadonlyArray<readonly [string, string]> =>
    needed.length > 0 ? [["scope", needed.join(" ")]] : []

  /** Answers after reading the body (bounded) for the id of the request refused, when there is one. */
  const refuse = (exchange: Exchange, make: (id: JsonRpc.RequestId | null) => Front.Reply): void => {
    if (exchange.method !== "POST") return exchange.reply(make(null))
    exchange.body(Math.min(maxBodyBytes, maxRefusedBody), (body) => {
      if (body._tag !== "Text") return exchange.reply(make(null))
      const inbound = Wire.decode(body.text)
      const id = inbound._tag === "Single" && "id" in inbound.message ? inbound.message.id ?? null : null
      exchange.reply(make(id))
    })
  }
  const unauthorized = (exchange: Exchange, error: "invalid_token" | undefined) =>
    refuse(exchange, (id) =>
      Front.error(401, Front.transportError, "Unauthorized", {
        id,
        headers: {
          "www-authenticate": challenge([
            ...(error !== undefined ? [["error", error] as const] : []),
            ["resource_metadata", metadataUrl],
            ...scopeField(scopes)
          ])
        }
      }))
  const badRequest = (exchange: Exchange) =>
    refuse(exchange, (id) =>
      Front.error(400, Front.transportError, "Bad Request: malformed Authorization", {
        id,
        headers: { "www-authenticate": challenge([["error", "invalid_request"], ["resource_metadata", metadataUrl]]) }
      }))
  const forbidden = (needed: ReadonlyArray<string>, id: JsonRpc.RequestId | null): Front.Reply =>
    Front.error(403, Front.transportError, "Forbidden: insufficient scope", {
      id,
      headers: {
        "www-authenticate": challenge([
          ["error", "insufficient_scope"],
          ["scope", needed.join(" ")],
          ["resource_metadata", metadataUrl]
        ])
      }
    })
  const unavailable = (exchange: Exchange) =>
    refuse(
      exchange,
      (id) =>
        Front.error(
          503,
          Front.transportError,
          "Service Unavailable: the token could not be verified, try again later",
          {
            id,
            headers: { "retry-after": "5" }
          }
        )
    )
  return { badRequest, forbidden, refuse, unauthorized, unavailable }
}

/**
 * What the verifier found, checked again whatever the verifier: audience, expiry (with the clock
 * skew, on the transport's `Clock`), issuer. Why it is refused, or undefined.
 */
const recheckOf = (expected: TokenVerifier.Expected, clock: Clock.Clock) => {
  const skew = expected.clockSkewSeconds
  return (auth: AuthInfo.AuthInfo): string | undefined => {
    if (!auth.audience.some((a) => expected.audiences.includes(a))) return "the token's audience is not this resource"
    const now = clock.unsafeCurrentTimeMillis()
    const expires = AuthInfo.expiresAtMillis(auth)
    if (expires !== undefined && expires + skew * 1000 <= now) return "the token expired"
    const nbf = auth.claims.nbf
    if (typeof nbf === "number" && nbf * 1000 - skew * 1000 > now) return "the token is not valid yet (nbf)"
    if (auth.issuer._tag === "Some" && !expected.issuers.includes(auth.issuer.value)) {
      return "the token's issuer is not one of those configured"
    }
    return undefined
  }
}

export const make = (
  options: AuthOptions,
  server: McpServer.Service,
  verifier: TokenVerifier.Service,
  runtime: Runtime.Runtime<never>,
  clock: Clock.Clock,
  maxBodyBytes: number
): Auth => {
  if (options.authorizationServers.length === 0) {
    throw new Error("auth.authorizationServers must name at least one authorization server")
  }
  // The resource as configured: its canonical URI (RFC 8707 §2), the audience tokens name.
  const resource = options.resource
  const url = new URL(resource)
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "")
  const root = "/.well-known/oauth-protected-resource"
  const metadataPaths = path === "" ? [root] : [`${root}${path}`, root]
  const metadataUrl = options.metadataUrl ?? `${url.origin}${metadataPaths[0]}`
  const skew = Math.min(Duration.toSeconds(options.clockSkew ?? "30 seconds"), 300)
  const expected: TokenVerifier.Expected = {
    resource,
    audiences: [...TokenVerifier.audiencesFor(resource), ...(options.audiences ?? [])],
    issuers: options.authorizationServers,
    clockSkewSeconds: skew
  }
  const scopes = options.scopes ?? []
  const maxTokenLength = options.maxTokenLength ?? defaultMaxTokenLength
  const runCallback = Runtime.runCallback(runtime)
  const fork = Runtime.runFork(runtime)

  const { badRequest, forbidden, refuse, unauthorized, unavailable } = refusalsOf(metadataUrl, scopes, maxBodyBytes)
  const recheck = recheckOf(expected, clock)

  const rejected = (exchange: Exchange, reason: string, cause?: unknown) => {
    fork(Effect.logDebug(`effect-mcp: a bearer token was refused: ${reason}`, ...(cause === undefined ? [] : [cause])))
    unauthorized(exchange, "invalid_token")
  }

  const bearer = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

  const authenticate: Auth["authenticate"] = (exchange, done) => {
    const header = exchange.header("authorization")
    // A token in the query is never read (RFC 6750 §2.3 is not supported); beside the header, the request is malformed.
    const inQuery = exchange.query !== "" && new URLSearchParams(exchange.query).has("access_token")
    if (header === undefined) return unauthorized(exchange, undefined)
    if (inQuery) return badRequest(exchange)
    const scheme = /^[^ ]+/.exec(header.trim())?.[0].toLowerCase()
    // Another scheme (Basic, DPoP) is no bearer token: a challenge, as without a token.
    if (scheme !== "bearer") return unauthorized(exchange, undefined)
    if (header.length > maxTokenLength + 16) return rejected(exchange, "the token is too long")
    const match = bearer.exec(header.trim())
    if (match === null) return badRequest(exchange)
    const token = match[1]
    /** A verified holder, checked again (audience, expiry, issuer), then the server-wide scopes. */
    const accept = (auth: AuthInfo.AuthInfo) => {
      const why = recheck(auth)
      if (why !== undefined) return rejected(exchange, why)
      if (AuthInfo.missingScopes(auth, scopes).length > 0) return refuse(exchange, (id) => forbidden(scopes, id))
      done(auth)
    }
    // A token verified a short while ago: at once, with no fiber.
    const cached = verifier.cached?.(token, expected)
    if (cached !== undefined) return accept(cached)
    runCallback(verifier.verify(token, expected), {
      onExit: (exit) => {
        if (Exit.isSuccess(exit)) return accept(exit.value)
        const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
        if (failure?._tag === "VerifierUnavailable") {
          fork(Effect.logWarning(`effect-mcp: ${failure.reason}`, failure.cause))
          return unavailable(exchange)
        }
        if (failure?._tag === "TokenRejected") return rejected(exchange, failure.reason, failure.cause)
        // Interrupted (the server is shutting down): nothing is wrong with the token.
        if (Cause.isInterruptedOnly(exit.cause)) return unavailable(exchange)
        // A defect of the verifier: refused, and logged as the bug it is.
        fork(Effect.logError("effect-mcp: the token verifier failed", exit.cause))
        unauthorized(exchange, "invalid_token")
      }
    })
  }

  const stepUp: Auth["stepUp"] = (messages, auth) => {
    if (auth === undefined) return undefined
    const entries = Server.unsafeEntries(server)
    if (entries === undefined) return undefined
    let needed: Set<string> | undefined
    let id: JsonRpc.RequestId | null = null
    for (const message of messages) {
      if (!("method" in message && "id" in message)) continue
      const own = scopesOf(entries, message as JsonRpc.Request)
      if (own === undefined || AuthInfo.hasScopes(auth, own)) continue
      needed ??= new Set(scopes)
      for (const scope of own) needed.add(scope)
      id ??= (message as JsonRpc.Request).id
    }
    return needed === undefined ? undefined : forbidden(Array.from(needed), messages.length === 1 ? id : null)
  }

  const metadata = () =>
    JSON.stringify({
      resource,
      authorization_servers: options.authorizationServers,
      scopes_supported: options.scopesSupported ??
        Array.from(new Set([...scopes, ...declaredScopes(Server.unsafeEntries(server))])),
      bearer_methods_supported: ["header"],
      ...(options.resourceName !== undefined ? { resource_name: options.resourceName } : {}),
      ...(options.resourceDocumentation !== undefined
        ? { resource_documentation: options.resourceDocumentation }
        : {})
    })

  return {
    resource,
    metadataPaths,
    metadataUrl,
    expected,
    scopes,
    verifier,
    maxTokenLength,
    metadata,
    authenticate,
    stepUp
  }
}

/** Serves the protected resource metadata: GET (public: any origin may read it), a preflight, else 405. */
export const serveMetadata = (auth: Auth, exchange: Exchange): void => {
  if (isPreflight(exchange)) return exchange.reply(preflight(exchange, "*", "GET, OPTIONS"))
  if (exchange.method !== "GET") return exchange.reply(Front.methodNotAllowed(["GET"]))
  exchange.reply(
    Front.body(200, auth.metadata(), { "access-control-allow-origin": "*", "cache-control": "max-age=300" })
  )
}
