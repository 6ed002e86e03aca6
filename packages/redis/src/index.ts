/**
 * Shared state on Redis for effect-mcp servers past one process.
 *
 * @since 0.1.0
 */

/**
 * The connection every Redis-backed part shares.
 *
 * @since 0.1.0
 */
export * as RedisConnection from "./RedisConnection.js"

/**
 * Handshake sessions on Redis: served by any instance, with the path between instances.
 *
 * @since 0.1.0
 */
export * as RedisSessionStore from "./RedisSessionStore.js"

/**
 * The server's task store on Redis: every instance sees every task; a lapsed runner's lease fails its task.
 *
 * @since 0.1.0
 */
export * as RedisTaskStore from "./RedisTaskStore.js"

/**
 * The event store of Streamable HTTP on Redis Streams: resumption from any instance, served whole or refused.
 *
 * @since 0.1.0
 */
export * as RedisEventStore from "./RedisEventStore.js"

/**
 * The notification bus on Redis pub/sub: a change made on one instance reaches the clients of every other.
 *
 * @since 0.1.0
 */
export * as RedisNotificationBus from "./RedisNotificationBus.js"

/**
 * Every shared part of a server (bus, event store, sessions, tasks) on one Redis, as one layer.
 *
 * @since 0.1.0
 */
export * as RedisState from "./RedisState.js"
