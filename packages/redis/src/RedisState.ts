/**
 * Every part of a server that crosses processes, on one Redis: the notification bus, the event
 * store, handshake sessions (with the path between instances) and tasks. Provide it under
 * `McpServer.layer` and the HTTP layer, and N instances behind a round-robin load balancer serve
 * one set of clients, with no sticky sessions.
 *
 * ```ts
 * import { RedisState } from "@effect-mcp/redis"
 * import { NodeMcpServer } from "@effect-mcp/platform-node"
 * import { McpServer } from "@effect-mcp/server"
 * import * as Layer from "effect/Layer"
 *
 * const Server = McpServer.layer({ serverInfo: { name: "demo", version: "1.0.0" }, tools: [] })
 *
 * export const Main = NodeMcpServer.layerHttp({ port: 3000 }).pipe(
 *   Layer.provide(Server),
 *   Layer.provide(RedisState.layer({ url: "redis://127.0.0.1:6379" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { EventStore, NotificationBus, SessionStore, TaskStore } from "@effect-mcp/server"
import * as Layer from "effect/Layer"
import * as RedisConnection from "./RedisConnection.js"
import * as RedisEventStore from "./RedisEventStore.js"
import * as RedisNotificationBus from "./RedisNotificationBus.js"
import * as RedisSessionStore from "./RedisSessionStore.js"
import * as RedisTaskStore from "./RedisTaskStore.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends RedisConnection.Options {
  readonly eventStore?: RedisEventStore.Options
  readonly sessionStore?: RedisSessionStore.Options
  readonly taskStore?: RedisTaskStore.Options
  readonly bus?: RedisNotificationBus.Options
}

/**
 * The four shared parts on one connection (opened with the layer, waiting for Redis up to its
 * `connectTimeout`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<
  | NotificationBus.NotificationBus
  | EventStore.EventStore
  | SessionStore.SessionStore
  | TaskStore.TaskStore
  | RedisConnection.RedisConnection,
  RedisConnection.RedisUnavailable
> =>
  Layer.mergeAll(
    RedisNotificationBus.layer(options.bus),
    RedisEventStore.layer(options.eventStore),
    RedisSessionStore.layer(options.sessionStore),
    RedisTaskStore.layer(options.taskStore)
  ).pipe(Layer.provideMerge(RedisConnection.layer(options)))
