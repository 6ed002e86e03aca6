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
