/**
 * A real authorization server and a resource server in front of an effect-mcp server, for the
 * client's OAuth (`McpAuth`), all on 127.0.0.1, on ports chosen by `listen(0)`, for a scope:
 *
 * - oidc-provider as the authorization server: dynamic registration, resource indicators giving
 *   JWT access tokens (RFC 9068) whose audience is the MCP resource, PKCE (S256) required, refresh
 *   tokens with `offline_access`, the RFC 9207 `iss` in its redirects, and its development login
 *   and consent pages;
 * - the resource server: effect-mcp's own, `HttpTransport.make` with `auth` (the protected resource
 *   metadata, RFC 9728; a 401 with its challenge without a valid token; JWT access tokens verified
 *   by `TokenVerifier.jwt` against the issuer's keys: issuer, audience, `typ` `at+jwt`, expiry with
 *   no clock skew) for an `McpServer` with a `whoami` tool: its MCP endpoint `/mcp`, and the legacy
 *   HTTP+SSE endpoints (2024-11-05) under it, `/mcp/sse` and `/mcp/messages`, behind the same check
 *   and covered by the same resource, `<origin>/mcp`. What it did is read at its edges: the
 *   verifier is wrapped to keep the holders it accepted, and the `node:http` handler to see the
 *   status of every response;
 * - a headless browser for `NodeOAuth.layerLoopback`'s `onUrl`: it signs in and consents on the
 *   authorization server's pages, with a cookie jar of its own, and follows the redirect back to
 *   the loopback listener.
 */
import { type AuthInfo, Revision } from "@effect-mcp/core"
import { AppView, HttpTransport, McpServer, TokenVerifier, Tool } from "@effect-mcp/server"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as jose from "jose"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type * as net from "node:net"
import { errors as OidcErrors, Provider } from "oidc-provider"

// ---------------------------------------------------------------------------- listeners

/** A `node:http` server on `host` (127.0.0.1), on a port of the system's choosing, closed with the scope. */
export const listen = (
  handler: (request: http.IncomingMessage, response: http.ServerResponse) => void,
  host = "127.0.0.1"
): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly origin: string }>((resume) => {
      const server = http.createServer(handler)
      server.listen(0, host, () => {
        const port = (server.address() as net.AddressInfo).port
        resume(Effect.succeed({ server, origin: `http://${host}:${port}` }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  ).pipe(Effect.map(({ origin }) => origin))

// ---------------------------------------------------------------------------- the fixture

/** What the fixture is asked for. */
export interface Options {
  /** Lifetime of the access tokens, in seconds (default 300). */
  readonly accessTokenTtl?: number
  /**
   * Lifetime of the access tokens a refresh gives, in seconds (default `accessTokenTtl`): longer,
   * a test that moves its `TestClock` past the first token's expiry stays within the refreshed
   * token's (oidc-provider stamps both on the wall clock, in whole seconds).
   */
  readonly refreshedTokenTtl?: number
  /**
   * The resource server's `resource` (its `auth.resource`), from its origin (default: its MCP
   * endpoint, `<origin>/mcp`): what its protected resource metadata names, and the audience it
   * takes. The authorization server issues tokens for it.
   */
  readonly advertise?: (origin: string) => string
  /**
   * Sees every request to the authorization server first: true when it answered it (or holds it
   * unanswered: a stalled endpoint), false to leave it to oidc-provider.
   */
  readonly intercept?: (request: http.IncomingMessage, response: http.ServerResponse) => boolean
  /**
   * The addresses the servers listen on (default 127.0.0.1 for both): 127.0.0.2 is a host that is
   * not a loopback host to the client's OAuth rule (which names 127.0.0.1, `localhost` and `[::1]`),
   * as a LAN host would be, still on this machine.
   */
  readonly hosts?: { readonly resource?: string; readonly authorization?: string }
  /** The server has a view too (MCP Apps): `show_whoami`, linked to {@link whoamiView}. */
  readonly apps?: boolean
}

/** What the servers saw, as they saw it. */
export interface Seen {
  /** Dynamic registrations at the authorization server. */
  registrations: number
  /** Authorization responses with a code (one per completed authorization). */
  authorizations: number
  /** Refresh tokens issued (by the code grant, and by a refresh that rotates it). */
  refreshTokens: number
  /** Token requests that succeeded, by grant type. */
  readonly grants: Record<string, number>
  /** Failures the authorization server reported (its `*.error` events): none are expected. */
  readonly errors: Array<string>
  /**
   * Requests the resource server refused with 401, by whether they had an `Authorization` header:
   * without a token, and with a bad one.
   */
  readonly refused: { withoutToken: number; withBadToken: number }
  /** The payload of the access token of every request served, in order (as {@link served}). */
  readonly tokens: Array<jose.JWTPayload>
  /** The requests the resource server served, in order: method, path, and its token's audience. */
  readonly served: Array<{ readonly method: string; readonly path: string; readonly audience: unknown }>
}

export interface Fixture {
  readonly issuer: string
  /** The MCP endpoint. */
  readonly url: string
  /** The legacy HTTP+SSE endpoint (2024-11-05), whose `endpoint` event names {@link messagesUrl}. */
  readonly sseUrl: string
  /** Where a legacy client POSTs its messages (with its `sessionId` in the query). */
  readonly messagesUrl: string
  /** The resource the metadata names. */
  readonly resource: string
  /**
   * The protected resource metadata's URL, as the challenges name it: path-inserted from the
   * resource (`<origin>/.well-known/oauth-protected-resource/mcp` by default).
   */
  readonly metadataUrl: string
  readonly seen: Seen
  /** Waits until the resource server has refused `count` requests that had no token (401), in all. */
  readonly refusedWithoutToken: (count: number) => Effect.Effect<void>
}

/** The scope the resource asks for. */
export const scope = "mcp:tools"

/** What `whoami` answers. */
export const whoamiAnswer = "an authorized caller"

const Whoami = Tool.make(
  "whoami",
  { description: "answers once the caller is authorized" },
  () => Effect.succeed(whoamiAnswer)
)

/**
 * A view (MCP Apps) of `whoami`'s answer, dependency-free: `#answer` shows the result of the tool that
 * opened it (`show_whoami`); `#ask` calls `whoami` through the host's bridge, its answer in `#asked`.
 */
export const whoamiView = AppView.make(
  "ui://oauth-test/whoami",
  { name: "whoami view" },
  `<!doctype html>
<html><head><meta charset="utf-8"></head><body>
<p id="answer"></p><button id="ask">ask</button><p id="asked"></p>
<script>
(() => {
  const $ = (id) => document.getElementById(id)
  const text = (result) => ((result && result.content) || []).map((c) => c.text || "").join("")
  const waiting = new Map()
  let next = 1
  const send = (message) => window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*")
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = next++
    waiting.set(id, { resolve, reject })
    send({ id, method, params })
  })
  window.addEventListener("message", (event) => {
    const message = event.source === window.parent ? event.data : undefined
    if (!message || message.jsonrpc !== "2.0") return
    if (message.method === undefined) {
      const waiter = waiting.get(message.id)
      waiting.delete(message.id)
      if (waiter) message.error ? waiter.reject(new Error(message.error.message)) : waiter.resolve(message.result)
    } else if (message.method === "ui/notifications/tool-result") {
      $("answer").textContent = text(message.params)
    } else if (message.id !== undefined) {
      send({ id: message.id, result: {} })
    }
  })
  $("ask").addEventListener("click", () =>
    request("tools/call", { name: "whoami", arguments: {} }).then(
      (result) => { $("asked").textContent = text(result) },
      (error) => { $("asked").textContent = "refused: " + error.message }
    ))
  request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "whoami-view", version: "1.0.0" }, appCapabilities: {} })
    .then(() => send({ method: "ui/notifications/initialized", params: {} }))
})()
</script></body></html>`
)

const ShowWhoami = AppView.link(
  Tool.make("show_whoami", { description: "whoami's answer, in a view" }, () => Effect.succeed(whoamiAnswer)),
  whoamiView
)

/** A signing key of the authorization server's (RS256: its default for JWT access tokens). */
const signingKey = (): Record<string, unknown> => {
  const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
  return { ...privateKey.export({ format: "jwk" }), kid: crypto.randomUUID(), use: "sig", alg: "RS256" }
}

/** oidc-provider for `resource` at `origin` (its issuer, no trailing slash). */
const makeProvider = (
  origin: string,
  resource: string,
  ttl: { readonly access: number; readonly refreshed: number },
  seen: Seen
): Provider => {
  /** The lifetime of an access token the request of `ctx` is given (a refresh's, or the first). */
  const accessTokenTtl = (ctx: { readonly oidc: { readonly params?: { readonly grant_type?: unknown } } }) =>
    ctx.oidc.params?.grant_type === "refresh_token" ? ttl.refreshed : ttl.access
  const provider = new Provider(origin, {
    jwks: { keys: [signingKey()] },
    cookies: { keys: [crypto.randomBytes(32).toString("base64url")] },
    // The resource's scope among those it publishes: a client that registers with the scope it will
    // ask for (the SDK's does) names it in its registration.
    scopes: ["openid", "offline_access", scope],
    // Any login is an account of that name.
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A refresh without `resource` gets a token for the resource granted.
        useGrantedResource: () => true,
        getResourceServerInfo: (
          ctx: { readonly oidc: { readonly params?: { readonly grant_type?: unknown } } },
          indicator: string
        ) => {
          if (indicator !== resource) throw new OidcErrors.InvalidTarget(`no resource server is ${indicator}`)
          return {
            scope,
            audience: resource,
            accessTokenTTL: accessTokenTtl(ctx),
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } }
          }
        }
      }
    },
    pkce: { required: () => true },
    issueRefreshToken: (
      _ctx: unknown,
      client: { readonly grantTypeAllowed: (type: string) => boolean },
      code: { readonly scopes: Set<string> }
    ) => client.grantTypeAllowed("refresh_token") && code.scopes.has("offline_access"),
    clientBasedCORS: () => false,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      ClientCredentials: 60,
      DeviceCode: 60,
      BackchannelAuthenticationRequest: 60,
      IdToken: 3600,
      Interaction: 600,
      Grant: 3600,
      RefreshToken: 3600,
      Session: 3600
    }
  })
  provider.on("registration_create.success", () => {
    seen.registrations++
  })
  provider.on("authorization.success", () => {
    seen.authorizations++
  })
  provider.on("refresh_token.saved", () => {
    seen.refreshTokens++
  })
  provider.on("grant.success", (ctx: { readonly oidc: { readonly params: { readonly grant_type?: string } } }) => {
    const type = ctx.oidc.params.grant_type ?? "unknown"
    seen.grants[type] = (seen.grants[type] ?? 0) + 1
  })
  for (const event of ["authorization.error", "grant.error", "registration_create.error", "server_error"]) {
    provider.on(event, (_ctx: unknown, error: unknown) => {
      seen.errors.push(`${event}: ${error instanceof Error ? error.message : String(error)}`)
    })
  }
  return provider
}

/** The server behind the resource server: `whoami` (and a view of it, with `apps`), in both eras. */
const mcpServer = (apps: boolean) =>
  McpServer.layer({
    serverInfo: { name: "oauth-test-server", version: "1.0.0" },
    tools: apps ? [Whoami, ShowWhoami] : [Whoami],
    ...(apps ? { resources: [whoamiView] } : {}),
    revisions: [...Revision.handshake, "2026-07-28"],
    requestStateKey: Redacted.make("the requestState key of the oauth test server")
  })

/**
 * The authorization server, and the resource server in front of an effect-mcp server, for the
 * scope (see the module's description).
 */
export const start = (options: Options = {}): Effect.Effect<Fixture, never, Scope.Scope> =>
  Effect.gen(function*() {
    const seen: Seen = {
      registrations: 0,
      authorizations: 0,
      refreshTokens: 0,
      grants: {},
      errors: [],
      refused: { withoutToken: 0, withBadToken: 0 },
      tokens: [],
      served: []
    }
    // Listening first: the metadata and the issuer name the ports.
    const servers: {
      authorization: ((request: http.IncomingMessage, response: http.ServerResponse) => void) | undefined
      resource: ((request: http.IncomingMessage, response: http.ServerResponse) => void) | undefined
    } = { authorization: undefined, resource: undefined }
    const issuer = yield* listen(
      (request, response) => servers.authorization!(request, response),
      options.hosts?.authorization
    )
    const resourceHost = options.hosts?.resource
    const origin = yield* listen((request, response) => servers.resource!(request, response), resourceHost)
    const url = `${origin}/mcp`
    const resource = options.advertise?.(origin) ?? url
    const metadataUrl = `${origin}/.well-known/oauth-protected-resource${new URL(resource).pathname.replace(/\/$/, "")}`

    const access = options.accessTokenTtl ?? 300
    const ttl = { access, refreshed: options.refreshedTokenTtl ?? access }
    const provider = makeProvider(issuer, resource, ttl, seen).callback()
    const intercept = options.intercept
    servers.authorization = intercept === undefined
      ? provider
      : (request, response) => intercept(request, response) || provider(request, response)

    /** Who waits for how many refusals without a token. */
    const waiting: Array<{ readonly count: number; readonly resume: () => void }> = []
    const refusedWithoutToken = (count: number) =>
      Effect.async<void>((resume) => {
        if (seen.refused.withoutToken >= count) return resume(Effect.void)
        waiting.push({ count, resume: () => resume(Effect.void) })
      })

    // The holder of every token the verifier accepted, by the token's text: the verifier is asked
    // once per token, its cache (kept, as the server's fast path) answers the next requests with it.
    const accepted = new Map<string, AuthInfo.AuthInfo>()
    // An issuer on 127.0.0.2 is not on a loopback host to the verifier either.
    const jwt = yield* TokenVerifier.jwt({
      type: "at+jwt",
      ...(options.hosts?.authorization !== undefined ? { allowInsecure: true } : {})
    })
    const verifier = TokenVerifier.make(
      (token, expected) => Effect.tap(jwt.verify(token, expected), (holder) => accepted.set(token, holder)),
      jwt.cached
    )

    // The MCP endpoints, served by effect-mcp's own handler through @effect/platform-node's adapter;
    // the legacy ones under `/mcp`, so that the resource `<origin>/mcp` covers them (RFC 9728 §3.3).
    // Loopback hosts and origins only: the front's defaults.
    const ssePath = "/mcp/sse"
    const messagesPath = "/mcp/messages"
    const context = yield* Layer.build(mcpServer(options.apps === true))
    const handler = yield* Effect.provide(
      HttpTransport.make({
        legacySse: { ssePath, messagesPath },
        // Another address than 127.0.0.1: its name taken too.
        ...(resourceHost !== undefined ? { allowedHosts: ["localhost", "127.0.0.1", "[::1]", resourceHost] } : {}),
        auth: {
          resource,
          authorizationServers: [issuer],
          scopes: [scope],
          verifier,
          // As the hand-written resource server had it: a token is refused once it expired, not 30 seconds later.
          clockSkew: 0
        }
      }),
      context
    )
    const app = yield* HttpTransport.toHttpApp(handler)
    const serveMcp = yield* NodeHttpServer.makeHandler(Effect.flatMap(HttpServerRequest.HttpServerRequest, app))

    // Every response, as its status is written: a 401 is a refusal (with or without an
    // `Authorization` header); anything else to a request whose token the verifier accepted was
    // served with that token.
    servers.resource = (request, response) => {
      const path = new URL(request.url ?? "/", origin).pathname
      const authorization = request.headers.authorization
      const token = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1]
      const writeHead = response.writeHead
      const observed = (status: number) => {
        if (status === 401) {
          if (authorization === undefined) seen.refused.withoutToken++
          else seen.refused.withBadToken++
          for (const waiter of waiting.filter((w) => w.count <= seen.refused.withoutToken)) {
            waiting.splice(waiting.indexOf(waiter), 1)
            waiter.resume()
          }
          return
        }
        const holder = token === undefined || status === 403 ? undefined : accepted.get(token)
        if (holder === undefined) return
        seen.tokens.push(holder.claims as jose.JWTPayload)
        seen.served.push({ method: request.method ?? "", path, audience: holder.claims.aud })
      }
      // `writeHead`'s overloads, kept as they are: only the status is read.
      response.writeHead = function(this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
        observed(args[0])
        return writeHead.apply(this, args)
      } as typeof writeHead
      serveMcp(request, response)
    }
    return {
      issuer,
      url,
      sseUrl: `${origin}${ssePath}`,
      messagesUrl: `${origin}${messagesPath}`,
      resource,
      metadataUrl,
      seen,
      refusedWithoutToken
    }
  })

// ---------------------------------------------------------------------------- the browser

/** One cookie of the jar. */
interface Cookie {
  readonly name: string
  readonly value: string
  readonly path: string
}

/** A browser's cookie jar, for one host: `Path` honoured, cookies removed when the server expires them. */
const makeJar = () => {
  let cookies: Array<Cookie> = []
  return {
    keep: (response: Response, requestPath: string) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair, ...attributes] = line.split(";").map((part) => part.trim())
        const equals = pair.indexOf("=")
        if (equals <= 0) continue
        const name = pair.slice(0, equals)
        const value = pair.slice(equals + 1)
        let path = requestPath.slice(0, requestPath.lastIndexOf("/")) || "/"
        let expired = false
        for (const attribute of attributes) {
          const [key, ...rest] = attribute.split("=")
          const said = rest.join("=")
          switch (key.toLowerCase()) {
            case "path":
              path = said
              break
            case "max-age":
              if (Number(said) <= 0) expired = true
              break
            case "expires":
              if (Date.parse(said) <= Date.now()) expired = true
              break
          }
        }
        cookies = cookies.filter((c) => !(c.name === name && c.path === path))
        if (!expired) cookies.push({ name, value, path })
      }
    },
    header: (requestPath: string): string =>
      cookies
        .filter((c) => requestPath === c.path || requestPath.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`))
        .map((c) => `${c.name}=${c.value}`)
        .join("; ")
  }
}

const decodeEntities = (text: string) =>
  text.replace(/&(#x?[0-9a-f]+|amp|lt|gt|quot|apos);/gi, (whole, entity: string) => {
    const lower = entity.toLowerCase()
    if (lower === "amp") return "&"
    if (lower === "lt") return "<"
    if (lower === "gt") return ">"
    if (lower === "quot") return "\""
    if (lower === "apos") return "'"
    const code = lower.startsWith("#x") ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10)
    return Number.isNaN(code) ? whole : String.fromCodePoint(code)
  })

const attributesOf = (tag: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const match of tag.matchAll(/([a-z-]+)(?:="([^"]*)")?/gi)) {
    out[match[1].toLowerCase()] = decodeEntities(match[2] ?? "")
  }
  return out
}

/** The page's POST form: where it goes, and what a user fills in (any login, any password). */
const formOf = (html: string, login: string): { readonly action: string; readonly body: URLSearchParams } => {
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html)
  if (form === null) throw new Error(`no form on the page: ${html.slice(0, 300)}`)
  const attributes = attributesOf(/<form\b[^>]*>/i.exec(form[0])![0])
  if ((attributes.method ?? "get").toLowerCase() !== "post") throw new Error("the form is not a POST")
  const body = new URLSearchParams()
  for (const input of form[1].matchAll(/<input\b[^>]*>/gi)) {
    const { name, type = "text", value = "" } = attributesOf(input[0])
    if (name === undefined) continue
    body.set(name, type === "password" ? "any password" : type === "text" && name === "login" ? login : value)
  }
  return { action: attributes.action ?? "", body }
}

/** What the browser did. */
export interface Browser {
  /** For `NodeOAuth.layerLoopback`: signs in, consents, and follows the redirect back. */
  readonly onUrl: (url: string) => Effect.Effect<void>
  /** The authorization URLs it was sent to, in order. */
  readonly opened: Array<string>
  /** The redirects back it delivered to the loopback listener. */
  readonly delivered: Array<string>
}

/**
 * A user at a browser of their own (cookies kept from one authorization to the next), signing in
 * as `login` and consenting to what is asked. A page it cannot get through is a defect of the test.
 */
export const makeBrowser = (login = "ada"): Browser => {
  const jar = makeJar()
  const opened: Array<string> = []
  const delivered: Array<string> = []
  const visit = async (authorizationUrl: string) => {
    const start = new URL(authorizationUrl)
    let next: { url: URL; method: "GET" | "POST"; body?: URLSearchParams } = { url: start, method: "GET" }
    for (let step = 0; step < 20; step++) {
      if (next.url.origin !== start.origin) {
        // The redirect back: to the loopback listener, which now has its code.
        const back = await fetch(next.url, { redirect: "manual" })
        await back.text()
        if (back.status !== 200) throw new Error(`the loopback listener answered HTTP ${back.status}`)
        delivered.push(next.url.href)
        return
      }
      const cookie = jar.header(next.url.pathname)
      const response = await fetch(next.url, {
        method: next.method,
        redirect: "manual",
        headers: {
          accept: "text/html",
          ...(cookie === "" ? {} : { cookie }),
          ...(next.body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" })
        },
        ...(next.body === undefined ? {} : { body: next.body.toString() })
      })
      jar.keep(response, next.url.pathname)
      const location = response.headers.get("location")
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel()
        next = { url: new URL(location, next.url), method: "GET" }
        continue
      }
      const html = await response.text()
      if (response.status !== 200) throw new Error(`${next.url.href} answered HTTP ${response.status}: ${html}`)
      const form = formOf(html, login)
      next = { url: new URL(form.action, next.url), method: "POST", body: form.body }
    }
    throw new Error("the authorization did not come back in 20 steps")
  }
  return {
    onUrl: (url) =>
      Effect.suspend(() => {
        opened.push(url)
        return Effect.promise(() => visit(url))
      }),
    opened,
    delivered
  }
}
