/**
 * A Cloudflare Worker's module around a Web adapter (`web.ts`), shared by
 * `HttpTransport.toWorkerHandler` and `StatelessServer.toWorkerHandler`: the adapter made by the
 * isolate's first request, with the Worker's text bindings as the server's `ConfigProvider`, and
 * every request kept alive (`ctx.waitUntil`) while a task runs in the isolate.
 */
import * as ConfigProvider from "effect/ConfigProvider"
import type * as Layer from "effect/Layer"
import type { WebHandler, WorkerHandler } from "../../HttpTransport.js"
import type { McpServer } from "../../McpServer.js"
import type { Adapter } from "./web.js"

/** The Worker's bindings. */
export type Env = Readonly<Record<string, unknown>>

/**
 * The Worker of `server` served by the adapter `adapt` makes (once per isolate, by its first
 * request), given the server, `env`, and the `ConfigProvider` of its text bindings (the adapter
 * builds the server with it: one layer fewer than `Layer.provide(server, Layer.setConfigProvider(…))`,
 * whose four layers were each memoized, Effect steps of the isolate's first request).
 */
export const toWorkerHandler = <E>(
  server: Layer.Layer<McpServer, E>,
  adapt: (
    server: Layer.Layer<McpServer, E>,
    env: Env,
    configProvider: ConfigProvider.ConfigProvider
  ) => Promise<Adapter>
): WorkerHandler => {
  let built: Promise<Adapter> | undefined
  return {
    fetch: (request, env, ctx) => {
      built ??= adapt(server, env, configOf(env))
      return built.then((adapter) => {
        const response = adapter.handler(request)
        // A task started by this request (or running when it ends) keeps it alive until it ends.
        ctx?.waitUntil(response.then(adapter.idle, adapter.idle).catch(() => undefined))
        return response
      })
    }
  }
}

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
