/**
 * A server of the stateless revision (2026-07-28) alone, served as a Web-standard fetch handler or
 * a Cloudflare Worker, whose bundle carries only what its code names.
 *
 * `McpServer.layer` and `HttpTransport.toWorkerHandler` take their options as data: `revisions`,
 * `auth` with or without a `verifier`. A bundler cannot tell from data what a server will never do,
 * so every bundle of them carries the handshake era (sessions, the GET stream, resumption, legacy
 * HTTP+SSE) and the resource server with its default JWT verifier (jose, oauth4webapi), all parsed
 * when an isolate starts. Here what a server does is named by the values its code imports: the
 * server is stateless by its constructor ({@link layer}), its handler serves one revision (a
 * handshake-era request gets -32022, naming 2026-07-28; GET and DELETE 405), and authorization is a
 * value ({@link auth}) made with the verifier the code names (`TokenVerifier.jwt()`, say). What is
 * not named is not in the bundle. The front is the one every HTTP transport shares: Host and Origin
 * allow-lists (loopback by default), media types, the body limit counted as bytes arrive, JSON-RPC
 * error bodies, CORS.
 *
 * ```ts
 * import * as StatelessServer from "@effect-mcp/server/StatelessServer"
 *
 * export default StatelessServer.toWorkerHandler(
 *   StatelessServer.layer({ serverInfo: { name: "adder", version: "1.0.0" }, tools: [Add] })
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type {
  AuthOptions as HttpAuthOptions,
  Options as HttpOptions,
  WebHandler as HttpWebHandler,
  WorkerHandler
} from "./HttpTransport.js"
import type * as AuthModule from "./internal/http/auth.js"
import * as Worker from "./internal/http/worker.js"
import * as Modules from "./internal/lazy.js"
import * as internal from "./internal/server.js"
import { McpServer } from "./McpServer.js"
import type * as Server from "./McpServer.js"
import type * as TokenVerifier from "./TokenVerifier.js"

/**
 * What `make` / `layer` take: `McpServer`'s options, its revisions 2026-07-28 alone (the default
 * here; a handshake revision is refused in the types, and from JavaScript is a defect when the
 * server is built), and the tasks' code when the server runs tasks ({@link tasks}).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options<R> extends Omit<Server.Options<R>, "revisions"> {
  /** The revisions served: 2026-07-28, the one this server's code serves (the default). */
  readonly revisions?: ReadonlyArray<"2026-07-28">
  /**
   * Tasks (the 2026-07-28 tasks extension), run in this process or isolate: `tasks:
   * StatelessServer.tasks`. Without it the server runs none (a tool given `task`, or
   * `capabilities.tasks`, is a defect when the server is built, and such a tool is one when added
   * later with `addTool`, which adds nothing; `tasks/get` of any id is -32602),
   * and its bundle carries neither the tasks' runtime nor the in-memory task store (nor
   * `effect/Stream`, which that store's changes are).
   */
  readonly tasks?: Tasks
}

/**
 * The tasks' code, as a value: see {@link Options}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Tasks {
  readonly _tag: "StatelessServer.Tasks"
  readonly code: TasksCode
}

/**
 * The tasks' code as {@link Tasks} carries it (the runtime and the in-memory store's makers): named
 * here so that the type is public; its members are internal.
 *
 * @since 0.2.0
 * @category models
 */
export type TasksCode = internal.TasksCode

/**
 * The resource server's code as {@link Auth} loads it (`HttpTransport`'s authorization): named here
 * so that the type is public; its members are internal.
 *
 * @since 0.2.0
 * @category models
 */
export type AuthCode = typeof AuthModule

/**
 * The tasks' code: give it as `tasks` for a server whose tools run as tasks. The store is the
 * `TaskStore` of the server's context, else one in memory (`TaskStore.makeMemory`'s defaults).
 *
 * @since 0.2.0
 * @category constructors
 */
export const tasks: Tasks = { _tag: "StatelessServer.Tasks", code: internal.tasksCode }

/**
 * Makes a server of the 2026-07-28 revision, without the handshake era's code. The same server as
 * `McpServer.make` in every other way (a transport serves it in the stateless era: `HttpTransport`,
 * stdio, a test's in-memory pair).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <const O extends Options<unknown>>(
  options: O
): Effect.Effect<Server.Service, never, Server.Requirements<O> | Scope.Scope> =>
  internal.makeStateless(options, options.tasks?.code)

/**
 * {@link make} as a Layer: what the handlers require (but `McpRequest`) is what it requires.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <const O extends Options<unknown>>(
  options: O
): Layer.Layer<McpServer, never, Exclude<Server.Requirements<O>, Scope.Scope>> => Layer.scoped(McpServer, make(options))

/**
 * Authorization as a value: `HttpTransport`'s `auth` ({@link HttpAuthOptions}), with its verifier
 * named (no default: the code that verifies tokens is in a bundle only when named). Made by
 * {@link auth}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Auth {
  readonly _tag: "StatelessServer.Auth"
  readonly options: AuthOptions
  /** The resource server's code, loaded (Node) or linked (a Worker's bundle) when this value is made. */
  readonly code: () => Promise<AuthCode>
}

/**
 * What {@link auth} takes: `HttpTransport.AuthOptions` whose `verifier` is required, given as the
 * verifier or as what makes it in the handler's scope (`TokenVerifier.jwt()`,
 * `TokenVerifier.introspection(…)`).
 *
 * @since 0.2.0
 * @category models
 */
export interface AuthOptions extends Omit<HttpAuthOptions, "verifier"> {
  readonly verifier: TokenVerifier.Service | Effect.Effect<TokenVerifier.Service, never, Scope.Scope>
}

/**
 * The endpoint as an OAuth 2.1 resource server (what `HttpTransport`'s `auth` does: 401/403
 * challenges, the token's audience, expiry and issuer checked whatever the verifier, the protected
 * resource metadata at the well-known paths, `McpRequest.auth` for handlers).
 *
 * @example
 * import * as StatelessServer from "@effect-mcp/server/StatelessServer"
 * import * as TokenVerifier from "@effect-mcp/server/TokenVerifier"
 *
 * export const auth = StatelessServer.auth({
 *   resource: "https://mcp.example.com/mcp",
 *   authorizationServers: ["https://auth.example.com"],
 *   verifier: TokenVerifier.jwt()
 * })
 *
 * @since 0.2.0
 * @category constructors
 */
export const auth = (options: AuthOptions): Auth => ({ _tag: "StatelessServer.Auth", options, code: Modules.auth })

/**
 * The handler's options: `HttpTransport`'s, less those of sessions and legacy HTTP+SSE, with
 * authorization as a value ({@link auth}).
 *
 * @since 0.2.0
 * @category models
 */
export interface HandlerOptions extends
  Pick<
    HttpOptions,
    | "path"
    | "allowedHosts"
    | "allowedOrigins"
    | "trustedProxies"
    | "holderOf"
    | "maxRequestDuration"
    | "maxRequestsInFlightPerHolder"
    | "maxRequestsInFlightTotal"
    | "maxBodyBytes"
    | "maxBufferedBytes"
    | "maxBufferedBytesTotal"
    | "maxDepth"
    | "healthPath"
    | "readyPath"
    | "readyChecks"
  >
{
  readonly auth?: Auth
}

/**
 * A fetch handler, and what disposes of it (closing every open response and the server).
 *
 * @since 0.2.0
 * @category models
 */
export type WebHandler = HttpWebHandler

/**
 * The MCP endpoint of the server a layer builds, as a fetch handler (Bun, Deno, Next.js route
 * handlers): built once, by the first request, then shared by every later one.
 *
 * @since 0.2.0
 * @category constructors
 */
export const toWebHandler = <E>(
  server: Layer.Layer<McpServer, E>,
  options: HandlerOptions & { readonly memoMap?: Layer.MemoMap | undefined } = {}
): WebHandler => Worker.lazyWebHandler(Modules.statelessWeb().then((adapter) => adapter.toWebHandler(server, options)))

/**
 * The MCP endpoint of the server a layer builds, as a Cloudflare Worker's module (`export
 * default`), as `HttpTransport.toWorkerHandler` makes it (built once per isolate with the Worker's
 * text bindings as its `ConfigProvider`, requests kept alive while a task runs), `options` a value
 * or a function of the Worker's bindings.
 *
 * @example
 * import * as StatelessServer from "@effect-mcp/server/StatelessServer"
 * import * as Tool from "@effect-mcp/server/Tool"
 * import * as Config from "effect/Config"
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 *
 * const Echo = Tool.make("echo", { parameters: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
 *   Effect.succeed(text))
 *
 * export default StatelessServer.toWorkerHandler(
 *   StatelessServer.layer({
 *     serverInfo: { name: "echo", version: "1.0.0" },
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
  options: HandlerOptions | ((env: Readonly<Record<string, unknown>>) => HandlerOptions) = {}
): WorkerHandler =>
  Worker.toWorkerHandler(
    server,
    (built, env, configProvider) =>
      Modules.statelessWeb().then((adapter) =>
        adapter.toWebHandler(built, { ...(typeof options === "function" ? options(env) : options), configProvider })
      )
  )

/**
 * The fetch handler of the MCP endpoint for the `McpServer` in context, for the lifetime of the
 * scope (the Effect form of {@link toWebHandler}).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeWebHandler = (
  options: HandlerOptions = {}
): Effect.Effect<(request: Request) => Promise<Response>, never, McpServer | Scope.Scope> =>
  Effect.flatMap(Effect.promise(() => Modules.statelessWeb()), (adapter) => adapter.make(options))
