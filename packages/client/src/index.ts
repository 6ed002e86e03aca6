/**
 * @since 0.1.0
 */

/**
 * The client's own errors.
 *
 * @since 0.1.0
 */
export * as ClientError from "./ClientError.js"

/**
 * An MCP client as a service, in either era.
 *
 * @since 0.1.0
 */
export * as McpClient from "./McpClient.js"

/**
 * The transport a client runs on, as a Layer (and the in-memory test kit).
 *
 * @since 0.1.0
 */
export * as McpClientTransport from "./McpClientTransport.js"

/**
 * The client's response cache (2026-07-28 `ttlMs` / `cacheScope`).
 *
 * @since 0.1.0
 */
export * as ResponseCache from "./ResponseCache.js"
