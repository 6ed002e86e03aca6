/**
 * A Cloudflare Worker's module around a Web adapter (`web.ts`), shared by
 * `HttpTransport.toWorkerHandler` and `StatelessServer.toWorkerHandler`: the adapter made by the
 * isolate's first request, with the Worker's text bindings as the server's `ConfigProvider`, and
 * every request kept alive (`ctx.waitUntil`) while a task runs in the isolate.
 */
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { WebHandler, WorkerHandler } from "../../HttpTransport.js"
import type { McpServer } from "../../McpServer.js"
import type { Adapter } from "./web.js"

/** The Worker's bindings. */
export type Env = Readonly<Record<string, unknown>>

/**
 * The Worker of `server` served by the adapter `adapt` makes (once per isolate, by its first
 * request), given the server with the Worker's configuration and `env`.
 */
export const toWorkerHandler = <E>(
  server: Layer.Layer<McpServer, E>,
  adapt: (server: Layer.Layer<McpServer, E>, env: Env) => Promise<Adapter>
): WorkerHandler => {
  let built: Promise<Adapter> | undefined
  return {
    fetch: (request, env, ctx) => {
      built ??= adapt(configured(server, configOf(env)), env)
      return built.then((adapter) => {
        const response = adapter.handler(request)
        // A task started by this request (or running when it ends) keeps it alive until it ends.
        ctx?.waitUntil(response.then(adapter.idle, adapter.idle).catch(() => undefined))
        return response
      })
    }
  }
}

/**
 * `server` built with `provider` as the `ConfigProvider` of its constructors and of the runtime it
 * is built in (`Layer.setConfigProvider`'s effect), as one layer: `Layer.provide` would add four
 * more, each memoized as it is built (Effect steps of the isolate's first request).
 */
const configured = <E>(
  server: Layer.Layer<McpServer, E>,
  provider: ConfigProvider.ConfigProvider
): Layer.Layer<McpServer, E> =>
  Layer.scopedContext(
    Effect.zipRight(
      Effect.withConfigProviderScoped(provider),
      Effect.flatMap(
        Effect.zip(Layer.CurrentMemoMap, Effect.scope),
        ([memoMap, scope]) => Layer.buildWithMemoMap(server, memoMap, scope)
      )
    )
  )

/** The configuration of a Worker's text bindings. */
const configOf = (env: Env): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(env).flatMap(([name, value]) => typeof value === "string" ? [[name, value]] : []))
  )

/**
 * A fetch handler whose adapter `load` brings (a module loaded when first needed): requests before
 * it came wait for it, those after go straight to it. Shared by `HttpTransport.toWebHandler` and
 * `StatelessServer.toWebHandler`.
 */
export const lazyWebHandler = (load: Promise<WebHandler>): WebHandler => {
  let built: WebHandler | undefined
  const loaded = load.then((adapter) => built = adapter)
  return {
    handler: (request) =>
      built !== undefined ? built.handler(request) : loaded.then((adapter) => adapter.handler(request)),
    dispose: () => loaded.then((adapter) => adapter.dispose())
  }
}
