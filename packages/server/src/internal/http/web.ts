/**
 * The MCP HTTP handler as a Web-standard fetch handler, `(request: Request) => Promise<Response>`:
 * Bun, Deno, Cloudflare Workers, Next.js route handlers, Node with a fetch adapter. Its exchanges
 * are made straight from each `Request` (`fetch.ts`, as the `node:http` adapter makes them from
 * Node's requests), so the front is the one every HTTP transport shares.
 *
 * The server is built once per handler: the first request builds it (in the handler's scope), every
 * later one reuses it.
 */
import type * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import type { Options } from "../../HttpTransport.js"
import { McpServer } from "../../McpServer.js"
import * as Server from "../server.js"
import * as FetchExchange from "./fetch.js"
import * as internal from "./handler.js"

/** A fetch handler. */
export type Fetch = (request: Request) => Promise<Response>

/** The fetch handler of the MCP endpoints for the `McpServer` in context, for the lifetime of the scope. */
export const make = (options: Options): Effect.Effect<Fetch, never, McpServer | Scope.Scope> =>
  Effect.map(internal.make(options), FetchExchange.toFetch)

/** The handler, and when the server runs no task (see `Server.idle`). */
interface Built {
  readonly fetch: Fetch
  readonly idle: Effect.Effect<void>
  /** Runs an effect on the runtime the server was built on (its config provider, its services). */
  readonly run: <A>(effect: Effect.Effect<A>) => Promise<A>
}

/**
 * What a request is answered while the server cannot be built (its layer failed: a missing
 * `Config`, say): a JSON-RPC internal error, HTTP 500; the next request tries again.
 */
const unbuilt = (): Response =>
  new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32603, message: "Internal error: the server could not be built" }
    }),
    { status: 500, headers: { "content-type": "application/json" } }
  )

/**
 * A fetch handler for a server layer, what disposes of it, and what completes once the server runs
 * no task (at once before it is built): the server is built by the first request. A build that
 * fails is logged (`Effect.logError`, with its cause) and answered as {@link unbuilt}; it is not
 * kept: the next request builds again.
 */
export const toWebHandler = <E>(
  server: Layer.Layer<McpServer, E>,
  options: Options & Building
): Adapter => {
  const { configProvider, memoMap, ...rest } = options
  return of(server, make(rest), { configProvider, memoMap })
}

/**
 * How the server is built: `memoMap` shares the layers it memoizes with other runtimes;
 * `configProvider` is its `ConfigProvider` (its constructors' and the handler's: a Worker's text
 * bindings), else the runtime's.
 */
export interface Building {
  readonly memoMap?: Layer.MemoMap | undefined
  readonly configProvider?: ConfigProvider.ConfigProvider | undefined
}

/** A fetch handler, what disposes of it, and what completes once the server runs no task. */
export interface Adapter {
  readonly handler: Fetch
  readonly dispose: () => Promise<void>
  readonly idle: () => Promise<void>
}

/** {@link toWebHandler} of the handler `fetch` makes (`statelessWeb.ts` too). */
export const of = <E>(
  server: Layer.Layer<McpServer, E>,
  fetch: Effect.Effect<Fetch, never, McpServer | Scope.Scope>,
  { configProvider, memoMap }: Building
): Adapter => {
  // One effect that builds the server in the handler's scope (and provides it to the handler's),
  // run once: not `Layer.provide`, whose every layer is memoized as it is built (some eighty
  // Effect steps each on the cold isolate's first request), nor a `ManagedRuntime` (a layer of its
  // own, memoized, built on a forked fiber and awaited by another). The server's layer is memoized
  // only when a `memoMap` shares it with other handlers.
  const shared = memoMap === undefined ? server : Layer.suspend(() => server)
  const build = (scope: Scope.CloseableScope): Effect.Effect<Built, E> =>
    Effect.gen(function*() {
      // Set for the handler's scope (as `Layer.setConfigProvider`): the server's constructors and
      // the runtime the handler serves on both read it.
      if (configProvider !== undefined) yield* Effect.withConfigProviderScoped(configProvider)
      const built = yield* Layer.buildWithMemoMap(shared, memoMap ?? (yield* Layer.makeMemoMap), scope)
      return yield* Effect.provide(
        Effect.all({
          fetch,
          idle: Effect.map(McpServer, Server.idle),
          run: Effect.map(Effect.runtime<never>(), (runtime) => Runtime.runPromise(runtime))
        }),
        built
      )
    }).pipe(
      Scope.extend(scope),
      Effect.tapErrorCause((cause) => Effect.logError("effect-mcp: the server could not be built", cause))
    )
  const state: {
    scope: Scope.CloseableScope | undefined
    built: Built | undefined
    building: Promise<Fetch | undefined> | undefined
  } = { scope: undefined, built: undefined, building: undefined }
  // Closed on the server's runtime once it is built; before (a build that failed, or is still
  // under way), there is no runtime of ours yet to run it on.
  const close = (scope: Scope.CloseableScope | undefined): Promise<void> =>
    scope === undefined
      ? Promise.resolve()
      : state.built !== undefined
      ? state.built.run(Scope.close(scope, Exit.void))
      : Effect.runPromise(Scope.close(scope, Exit.void))
  // The entry from a runtime's `fetch`: the build is the one effect run before the server exists,
  // as a `ManagedRuntime` would run it; everything after runs on the runtime it built.
  const start = (): Promise<Fetch | undefined> =>
    Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => build(state.scope = scope))).then(
      (built) => (state.built = built).fetch,
      () => {
        state.building = undefined
        return close(state.scope).then(() => undefined)
      }
    )
  const handler: Fetch = (request) => {
    if (state.built !== undefined) return state.built.fetch(request)
    state.building ??= start()
    return state.building.then((fetch) => fetch === undefined ? unbuilt() : fetch(request))
  }
  // A server that runs no task is idle already (`Effect.void`): told so without running a fiber.
  const idle = () =>
    state.built === undefined || state.built.idle === Effect.void
      ? Promise.resolve()
      : state.built.run(state.built.idle)
  return { handler, dispose: () => close(state.scope), idle }
}
