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
