/**
 * MCP over HTTP for every era the server speaks, platform-agnostic (on the MCP endpoint a dual
 * server tells the eras apart by `MCP-Protocol-Version` and `Mcp-Session-Id`, else by the body):
 *
 * - Stateless Streamable HTTP (2026-07-28) on the same endpoint: POST only (GET and DELETE are
 *   405 for it), each request its own POST, no session;
 *   the `Mcp-*` headers checked against the body (-32020 when they disagree); plain JSON, or an
 *   SSE stream scoped to the request; a closed response cancels the request.
 * - Streamable HTTP (2025-03-26 … 2025-11-25) on one endpoint: POST, GET, DELETE; sessions
 *   (`Mcp-Session-Id`, unguessable, capped, idle expiry); plain JSON answers, or an SSE stream
 *   when something related to the request comes first; the standalone GET stream; resumption
 *   with `Last-Event-ID` from an `EventStore` (a gap is an error, never silent); 2025-11-25
 *   priming events and `retry` before a server-side close.
 * - Legacy HTTP+SSE (2024-11-05): GET opens the stream whose first event is `endpoint`;
 *   POSTs to it answer 202 and responses travel on the stream.
 * - The front every HTTP transport shares: `Origin` and `Host` checked against allow-lists
 *   (loopback by default, Host parsed strictly): 403 otherwise; `Accept` and `Content-Type`
 *   parsed as media types; the body limit counted as bytes arrive; every error a JSON-RPC body;
 *   HEAD, PUT, PATCH and OPTIONS answered 405, but a CORS preflight from an allowed origin (204);
 *   responses to an allowed origin expose `Mcp-Session-Id`, `MCP-Protocol-Version` and
 *   `WWW-Authenticate`.
 * - With `auth`: an OAuth 2.1 resource server ({@link AuthOptions}).
 *
 * A client disconnect is not a cancellation in the handshake era: the request goes on, its SSE
 * events are kept for resumption; only `notifications/cancelled` cancels.
 *
 * Three ways to serve it: {@link layer} mounts the endpoints on an @effect/platform
 * `HttpLayerRouter` (your router, your middleware); {@link toWebHandler} makes a Web-standard fetch
 * handler of them (Bun, Deno, Workers); `NodeMcpServer.layerHttp` serves them on `node:http`
 * directly, which is several times faster. All run the same {@link make}, whose
 * {@link Handler} serves platform-neutral {@link Exchange}s: another platform needs only an
 * adapter from its requests to exchanges.
 *
 * @since 0.1.0
 */
import type * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Budget from "./internal/http/budget.js"
import type * as Exchange_ from "./internal/http/exchange.js"
import type * as Front from "./internal/http/front.js"
import type * as Internal from "./internal/http/handler.js"
import * as Worker from "./internal/http/worker.js"
import * as Modules from "./internal/lazy.js"
import type { McpServer } from "./McpServer.js"
import type * as TokenVerifier from "./TokenVerifier.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The MCP endpoint (default `/mcp`). */
  readonly path?: `/${string}`
  /** Legacy HTTP+SSE endpoints (default `/sse` and `/messages`); `false` turns them off. */
  readonly legacySse?: false | {
    readonly ssePath?: `/${string}`
    readonly messagesPath?: `/${string}`
  }
  /** Host names (no port) accepted in `Host`; `"*"` accepts any. Default: localhost, 127.0.0.1, [::1]. */
  readonly allowedHosts?: ReadonlyArray<string> | "*"
  /** Origins accepted in `Origin` (`scheme://host[:port]`; no port = any port); `"*"` accepts any. Default: loopback. */
  readonly allowedOrigins?: ReadonlyArray<string> | "*"
  /**
   * Sessions with no activity and no connection open (no GET stream, no POST still answering)
   * for this long end, interrupting any request still in flight (default 5 minutes).
   */
  readonly sessionIdleTimeout?: Duration.DurationInput
  /** Most sessions at once; when full, `initialize` (and a legacy GET) get 503 (default 10,000). */
  readonly maxSessions?: number
  /**
   * Most sessions one holder opens on this instance (default a tenth of `maxSessions`), so that no
   * one fills them alone: past it, its `initialize` (and legacy GET) gets 503 until one of its
   * sessions ends. The holder is the token's holder (its subject at its issuer) with authorization
   * on, else what `holderOf` names, else the client's address (see `trustedProxies`), never the
   * name a client gives itself; with none of them (no address), a client is no holder.
   */
  readonly maxSessionsPerHolder?: number
  /**
   * Most requests one handshake session has in flight at once (default 100, as a stdio client's
   * `maxRequestsInFlight`). In that era a POST whose connection closes is no cancellation (its
   * stream may be resumed): its request runs on, up to `maxRequestDuration`, so without a bound a
   * client that POSTs long requests (`tasks/result` on a working task, a slow tool) and cuts each
   * connection holds a fiber and its channel (about 12-15 KiB) per request, as many as it sends.
   * Past it, a POST of requests gets 429 with a JSON-RPC error (-32000) carrying the request's id
   * (a batch's: its first request's), and nothing of it runs; the requests in flight are not
   * touched. A 2025-03-26 batch counts as its requests: one of more requests than this bound is
   * refused whole, whatever is in flight. Notifications and answers to the server's own requests are never refused. A proxy or
   * gateway that carries many clients' calls in one session to this server (`mcp gateway` keeps one
   * session per upstream) needs it raised to the most calls it relays at once (and
   * `maxRequestsInFlightPerHolder` with it).
   */
  readonly maxRequestsInFlight?: number
  /**
   * Most requests one holder (as `maxSessionsPerHolder` counts them) has in flight at once, over
   * all its handshake sessions and its 2026-07-28 POSTs together (default a tenth of
   * `maxRequestsInFlightTotal`, 400), so that one client does not fill the total alone. Past it,
   * as past `maxRequestsInFlight`: 429 with a JSON-RPC error (-32000) carrying the request's id,
   * nothing of the POST run.
   */
  readonly maxRequestsInFlightPerHolder?: number
  /**
   * Most requests in flight at once over this handler (default 4,000: at the 12-15 KiB a request
   * cut by its client holds, about 60 MiB): handshake sessions' requests (whatever `maxSessions`
   * times `maxRequestsInFlight` would allow) and 2026-07-28 requests still served on their POSTs
   * (a `subscriptions/listen` is bounded by `maxSubscriptions`; an answer given at once never
   * counts). Past it, as past `maxRequestsInFlight`: 429 with a JSON-RPC error (-32000) carrying
   * the request's id, nothing of the POST run; what is in flight goes on, and notifications and
   * answers to the server's requests always pass.
   */
  readonly maxRequestsInFlightTotal?: number
  /**
   * How many reverse proxies stand in front of this server, each appending the address it got the
   * request from to `X-Forwarded-For` (default 0: the header is not read). A client without a
   * token is known by its address, for its quotas (sessions, 2026-07-28 listens and tasks): the
   * connection's, or with proxies, the `X-Forwarded-For` entry that many from its right. Set it
   * only when every request comes through them: a client that reaches the server directly names
   * itself in that header. (An @effect/platform router whose middleware already took the address
   * from the header, `HttpMiddleware.xForwardedHeaders`, needs 0 here.)
   */
  readonly trustedProxies?: number
  /**
   * Who sent an exchange, for the quotas of a client without a token, when the platform does not
   * say or a header it sets says better: a platform serving fetch handlers ({@link toWebHandler}, or
   * `HttpLayerRouter.toWebHandler`, on Deno, Bun, Cloudflare Workers, Next.js route handlers) gives
   * no client address. A string
   * names the holder (read as an address is: IPv6 by its /64, at most 64 characters); undefined
   * falls back to the connection's address (and `trustedProxies`). Read only a header your platform
   * sets itself, never one a client may write: `(exchange) => exchange.header("cf-connecting-ip")`
   * behind Cloudflare's proxy.
   *
   * On Cloudflare Workers (`navigator.userAgent` is `"Cloudflare-Workers"`) the default, when this
   * is not given and a request has no address, is its `CF-Connecting-IP` header: Cloudflare's edge
   * sets it on every request it passes to a Worker, and a client cannot write it there. Nowhere
   * else is a header read by default.
   *
   * With no address and nothing named, clients without a token cannot be told apart: per-holder
   * quotas are off for them (sessions, listens and tasks count against the global caps only), a
   * 2026-07-28 task is reached by whoever holds its unguessable id (no one else can list it), and
   * the server says so once in its log.
   */
  readonly holderOf?: (exchange: Exchange) => string | undefined
  /**
   * Longest a request may run; after it the request is interrupted, its client told, and its
   * session may expire (default 1 hour: a backstop; `Duration.infinity` for none).
   */
  readonly maxRequestDuration?: Duration.DurationInput
  /** Largest accepted POST body (default 4 MiB). */
  readonly maxBodyBytes?: number
  /**
   * The most bytes of answers that may wait on one connection for its client to read them
   * (default 32 MiB: more than the largest answer the library makes under its own default limits,
   * a 16 MiB skill file as base64 JSON, 22.4 MB). A write that takes a connection past it closes
   * that connection, with a line in the log (a warning). A client that keeps reading never has
   * more waiting than the answer being written. JSON answers, SSE streams (a POST's, the GET
   * stream, a 2026-07-28 listen) and the legacy stream alike. Under `NodeMcpServer.layerHttp` a
   * connection is a TCP connection; on an @effect/platform router it is one response (its SSE
   * events, or a JSON answer over 64 KiB), which is cut rather than closed.
   */
  readonly maxBufferedBytes?: number
  /**
   * The most bytes of answers that may wait across all connections (default 64 MiB: what a
   * 256 MB heap holds waiting while it goes on serving and building answers). A write that takes
   * the total past it closes the connections whose bytes have waited longest without any being
   * read, until it fits: readers that do not read go first, never one that keeps up while such a
   * one is there. Raise it with the heap for a server that sends many large answers at once.
   */
  readonly maxBufferedBytesTotal?: number
  /**
   * Deepest nesting of a POST's JSON (default `Wire.defaultMaxDepth`, 128); deeper is -32602 in a
   * request's params, else -32600, with HTTP 400.
   */
  readonly maxDepth?: number
  /** Serve the standalone GET stream (default true); otherwise GET is 405. */
  readonly standaloneStream?: boolean
  /** The `retry` hint sent before the server closes a stream (default 1 second). */
  readonly retry?: Duration.DurationInput
  /**
   * Liveness (`/healthz`, say): 200 `{"status":"ok"}` while the process serves. Off by default.
   * Like `readyPath`: GET and HEAD only (else 405), no token, no Host or Origin check (load
   * balancers and orchestrators probe by IP), `Cache-Control: no-store`.
   */
  readonly healthPath?: `/${string}`
  /**
   * Readiness (`/readyz`, say): 200 `{"status":"ready"}` once the server is built and each shared
   * store in context (`SessionStore`, `EventStore`, `TaskStore`, `NotificationBus`) answers its
   * `ready` within a second; otherwise 503 `{"status":"unavailable","failing":["sessions",…]}`.
   * Off by default.
   */
  readonly readyPath?: `/${string}`
  /**
   * More checks of readiness, by name, asked with the stores' (each within a second): a failing one
   * is named in the 503's `failing` (a gateway names each upstream that is down).
   */
  readonly readyChecks?: ReadonlyArray<readonly [name: string, ready: Effect.Effect<boolean>]>
  /**
   * Authorization: the endpoints become an OAuth 2.1 resource server (see {@link AuthOptions}).
   * Off by default: an HTTP server that serves user data should turn it on.
   */
  readonly auth?: AuthOptions
}

/**
 * The endpoints as an OAuth 2.1 resource server. Every request (Streamable HTTP in both eras, and
 * legacy HTTP+SSE) needs a bearer token in its `Authorization` header, verified by `verifier` (or
 * the `TokenVerifier` in context, else a JWT verifier that finds the keys of each authorization
 * server from its metadata), and checked again whatever the verifier: its audience holds
 * `resource`, it has not expired, its issuer is one of `authorizationServers`.
 *
 * - No token, or another scheme: 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (and
 *   `scope="…"` when `scopes` are set); a token refused: the same with `error="invalid_token"`;
 *   a malformed header, or a token in the query beside the header: 400 `invalid_request`. A token
 *   only in the query is never read.
 * - A call of a tool, prompt or resource declaring `scopes` its token lacks: 403
 *   `error="insufficient_scope"`, naming every scope the request needs (the server-wide ones and
 *   its own), so the client can step up.
 * - The protected resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource<path>`
 *   and at `/.well-known/oauth-protected-resource`.
 * - A handshake session belongs to the subject of the token that opened it: a request with
 *   another subject's token is answered as if the session did not exist (404). A held-open stream
 *   (the GET stream, a legacy session's stream, a 2026-07-28 listen) ends when its token expires.
 *   A 2026-07-28 `requestState` is sealed for the subject that got it.
 * - Handlers read who holds the token from `McpRequest.auth`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthOptions {
  /**
   * This server's canonical resource URI (RFC 8707): the URL of the MCP endpoint as clients reach
   * it (`https://mcp.example.com/mcp`). Tokens must name it as their audience.
   */
  readonly resource: string
  /** The issuers of the authorization servers whose tokens are taken (their metadata's `issuer`). */
  readonly authorizationServers: ReadonlyArray<string>
  /**
   * Audiences a token may name in place of `resource` (default none): for an authorization server
   * that does not put the resource in `aud` (Entra ID's v2.0 tokens name the application's client
   * ID). Each must identify this server alone.
   */
  readonly audiences?: ReadonlyArray<string>
  /** Scopes every request needs (default none: a valid token is enough). */
  readonly scopes?: ReadonlyArray<string>
  /**
   * The metadata's `scopes_supported` (default: `scopes` and every scope the server's tools,
   * prompts and resources declare).
   */
  readonly scopesSupported?: ReadonlyArray<string>
  /** The verifier (default: the `TokenVerifier` in context, else `TokenVerifier.jwt()`). */
  readonly verifier?: TokenVerifier.Service
  /** The clock skew allowed on `exp` and `nbf` (default 30 seconds, at most 5 minutes). */
  readonly clockSkew?: Duration.DurationInput
  /** The longest token taken, in characters (default 16,384); a longer one is `invalid_token`, unread. */
  readonly maxTokenLength?: number
  /** Where the metadata is, as clients reach it (default: the path-inserted URL on the resource's origin). */
  readonly metadataUrl?: string
  /** The metadata's `resource_name`. */
  readonly resourceName?: string
  /** The metadata's `resource_documentation`. */
  readonly resourceDocumentation?: string
}

/**
 * One HTTP request and its response, platform-neutral: what a platform adapter hands the
 * {@link Handler}. The handler answers exactly once, with `reply` or `stream`.
 *
 * @since 0.1.0
 * @category models
 */
export type Exchange = Exchange_.Exchange

/**
 * What reading an exchange's body gave.
 *
 * @since 0.1.0
 * @category models
 */
export type Body = Exchange_.Body

/**
 * An open SSE response of an exchange.
 *
 * @since 0.1.0
 * @category models
 */
export type ResponseStream = Exchange_.Stream

/**
 * A whole response: status, headers (lowercase names), body.
 *
 * @since 0.1.0
 * @category models
 */
export type Reply = Front.Reply

/**
 * What one connection has waiting to be written, in the handler's bounds
 * (`maxBufferedBytes`, `maxBufferedBytesTotal`): a platform adapter adds the bytes of each write
 * before it writes them (`add` false: the connection was closed, write nothing), releases them
 * once they are written out, and closes the account with its connection.
 *
 * @since 0.1.0
 * @category models
 */
export type WriteAccount = Budget.Account

/**
 * The bytes waiting to be written over every connection of a handler: `open` makes the account
 * of a new connection, with what closes that connection at once.
 *
 * @since 0.1.0
 * @category models
 */
export interface Writes {
  readonly open: (drop: () => void) => WriteAccount
}

/**
 * Serves the MCP endpoints of one server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Handler {
  /** Serves one exchange (any path: what is not an MCP endpoint is 404). */
  readonly handle: (exchange: Exchange) => void
  /** The bytes waiting to be written: a platform adapter opens an account per connection. */
  readonly writes: Writes
  /** The paths served. */
  readonly paths: ReadonlyArray<string>
  /** Sessions open right now. */
  readonly sessions: () => number
}

/** The HTTP handler's modules, loaded when first used. */
const handlerModule: Effect.Effect<typeof Internal> = Effect.promise(() => Modules.handler())

/**
 * The handler of the MCP endpoints for the `McpServer` in context, for the lifetime of the
 * scope: one engine serves every handshake session, and each stateless POST is served on its own
 * response, without an engine; an
 * `EventStore` in context is used for resumption (in memory otherwise). Closing the scope ends
 * every session and every open response. The handler's modules are loaded when this is first run,
 * not when this module is imported (a server over stdio never loads them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Handler, never, McpServer | Scope.Scope> =>
  Effect.flatMap(handlerModule, (internal) => internal.make(options))

/**
 * The @effect/platform adapter, loaded when first used. A function, not an Effect made when this
 * module is evaluated: a bundler then leaves the adapter out of a Worker that serves fetch only.
 */
const platform = () => Effect.promise(() => Modules.platform())

/**
 * The handler as an @effect/platform route handler (for a router of your own).
 *
 * @since 0.1.0
 * @category combinators
 */
export const toHttpApp = (
  handler: Handler
): Effect.Effect<
  (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse>
> => Effect.flatMap(platform(), (adapter) => adapter.toHttpApp(handler))

/**
 * The MCP endpoints as routes of an `HttpLayerRouter` (every method, so that the unsupported
 * ones get their 405): mount them on your own router, or serve them alone with
 * `HttpLayerRouter.serve` and a platform's HTTP server layer. @effect/platform's HTTP modules
 * are loaded when this layer is built, not when this module is imported.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | McpServer> =>
  Layer.unwrapEffect(Effect.map(platform(), (adapter) => adapter.layer(options)))

/** The Web-standard adapter, loaded when first used. */
const web = Effect.promise(() => Modules.web())

/**
 * A Web-standard fetch handler and what disposes of it: the MCP endpoints of one server for
 * Bun (`Bun.serve`), Deno (`Deno.serve`), Cloudflare Workers, Next.js route handlers, or Node
 * behind a fetch adapter.
 *
 * @since 0.2.0
 * @category models
 */
export interface WebHandler {
  /** Answers one request (any path: what is not an MCP endpoint is 404). */
  readonly handler: (request: Request) => Promise<Response>
  /** Ends every session and every open response, and the server. */
  readonly dispose: () => Promise<void>
}

/**
 * The MCP endpoints of the server a layer builds, as a Web-standard fetch handler: the same front
 * as every HTTP transport (`Origin` and `Host` allow-lists, loopback by default; media types; the
 * body limit counted as bytes arrive; JSON-RPC error bodies; `auth`), both eras, the 2026-07-28
 * `subscriptions/listen` as a streamed `Response`. A request without a `Host` header is judged by
 * the authority of its URL. A response whose body is cancelled (or a request whose `signal`
 * aborts) interrupts its request.
 *
 * The server is built once, by the first request, and serves every later one (per process, or
 * per isolate): handshake sessions live as long as it does, so they work where the runtime keeps
 * a process alive between requests (Bun, Deno, Node). A build that fails (a missing `Config`, say)
 * is logged and answered with a JSON-RPC internal error (HTTP 500), and the next request builds
 * again. A 2026-07-28 `requestState` is sealed
 * with the server's `requestStateKey` (`Config.redacted("MCP_REQUEST_STATE_KEY")` reads it from
 * the environment): give every instance the same key. A platform that gives no client address
 * (every fetch platform) needs `holderOf` for per-client quotas.
 *
 * `memoMap` shares the layers it memoizes with other runtimes of yours.
 *
 * @example
 * import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"
 * import * as Config from "effect/Config"
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 *
 * const Echo = Tool.make("echo", { parameters: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
 *   Effect.succeed(text))
 *
 * const { dispose, handler } = HttpTransport.toWebHandler(
 *   McpServer.layer({
 *     serverInfo: { name: "echo", version: "1.0.0" },
 *     requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
 *     tools: [Echo]
 *   }),
 *   { allowedHosts: ["localhost", "mcp.example.com"] }
 * )
 *
 * // Bun: Bun.serve({ port: 3000, fetch: handler }); Deno: Deno.serve({ port: 3000 }, handler);
 * // a Cloudflare Worker: toWorkerHandler (its bindings as Config, tasks kept alive)
 * export { dispose, handler }
 *
 * @since 0.2.0
 * @category constructors
 */
export const toWebHandler = <E>(
  server: Layer.Layer<McpServer, E>,
  options: Options & { readonly memoMap?: Layer.MemoMap | undefined } = {}
): WebHandler => Worker.lazyWebHandler(Modules.web().then((adapter) => adapter.toWebHandler(server, options)))

/**
 * A Cloudflare Worker's module (`export default`): its `fetch` is given the request and the
 * Worker's bindings (`env`).
 *
 * @since 0.2.0
 * @category models
 */
export interface WorkerHandler {
  /**
   * Answers one request, with the Worker's bindings and its context: while a task runs, the
   * request is kept alive (`ctx.waitUntil`).
   */
  readonly fetch: (
    request: Request,
    env: Readonly<Record<string, unknown>>,
    ctx?: WorkerContext
  ) => Promise<Response>
}

/**
 * What a Worker's `fetch` is given third (its `ExecutionContext`): what keeps the request alive
 * after its response, for work that goes on.
 *
 * @since 0.2.0
 * @category models
 */
export interface WorkerContext {
  readonly waitUntil: (promise: Promise<unknown>) => void
}

/**
 * The MCP endpoints of the server a layer builds, as a Cloudflare Worker ({@link toWebHandler}
 * given the Worker's `env`): the server is built once per isolate, by its first request, with the
 * Worker's text bindings (`vars` and secrets) as its `ConfigProvider`, so a
 * `Config.redacted("MCP_REQUEST_STATE_KEY")` reads the binding of that name. `options` may be a
 * function of `env` (its allow-lists, say). A Worker keeps no process between requests: serve the
 * 2026-07-28 revision (`Revision.stateless`), and a handshake-era request is refused with
 * -32022, naming it. That holds for a layer that serves both eras too (the handshake revisions are
 * not served on a Worker, with one warning when the server is built); a layer with no 2026-07-28
 * revision cannot be built there (every request is a JSON-RPC internal error, the reason logged).
 * A session store shared by the isolates would not change it: a handshake session needs fibers
 * and connections that outlive a request, and a Worker's die with the request that made them (a
 * Durable Object per session is the Cloudflare way).
 *
 * A task runs in the isolate that created it, in memory (or in the `TaskStore` of the server's
 * context), and its timers end with the request they were set in: so every request is kept alive
 * (`ctx.waitUntil`) until no task runs in the isolate. Cloudflare keeps a request alive for at most
 * 30 seconds after its response: a longer task is cut short there (its status stays `working`
 * until its lease lapses), unless the isolate is kept alive otherwise (a Durable Object).
 *
 * A `subscriptions/listen` is a streamed `Response` there too. On a Worker a timer belongs to the
 * request that set it (cancelled when its response ends), and workerd cancels a request that has
 * nothing of its own pending as hung: so each listen has a keep-alive of its own, set while its own
 * request is served, and changes are not coalesced in a window (`listChangedWindow`, whose timer
 * would be another request's). A change made by another request of the same isolate (a tool call
 * that edits the list) reaches its listens; one made in another isolate does not (it would take a
 * `NotificationBus` the isolates share, and the Redis one needs a connection that outlives a
 * request, which a Worker does not keep).
 * The handler's sweep (`maxRequestDuration`, the keep-alive of other SSE responses) runs on a timer
 * of the request that built the server and ends with it: there the platform's limits apply.
 *
 * @example
 * import { HttpTransport, McpServer, Revision, Tool } from "@effect-mcp/server"
 * import * as Config from "effect/Config"
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 *
 * const Echo = Tool.make("echo", { parameters: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
 *   Effect.succeed(text))
 *
 * export default HttpTransport.toWorkerHandler(
 *   McpServer.layer({
 *     serverInfo: { name: "echo", version: "1.0.0" },
 *     revisions: Revision.stateless,
 *     requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
 *     tools: [Echo]
 *   }),
 *   (env) => ({ allowedHosts: [String(env.MCP_HOST ?? "localhost")] })
 * )
 *
 * @since 0.2.0
 * @category constructors
 */
export const toWorkerHandler = <E>(
  server: Layer.Layer<McpServer, E>,
  options: Options | ((env: Readonly<Record<string, unknown>>) => Options) = {}
): WorkerHandler =>
  Worker.toWorkerHandler(
    server,
    (built, env, configProvider) =>
      Modules.web().then((adapter) =>
        adapter.toWebHandler(built, { ...(typeof options === "function" ? options(env) : options), configProvider })
      )
  )

/**
 * The fetch handler of the MCP endpoints for the `McpServer` in context, for the lifetime of the
 * scope (the Effect form of {@link toWebHandler}, to compose it with layers of your own). Closing
 * the scope ends every session and every open response.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeWebHandler = (
  options: Options = {}
): Effect.Effect<(request: Request) => Promise<Response>, never, McpServer | Scope.Scope> =>
  Effect.flatMap(web, (adapter) => adapter.make(options))
