/**
 * @since 0.1.0
 */

/**
 * Node wiring for MCP servers: stdio, stderr logging.
 *
 * @since 0.1.0
 */
export * as NodeMcpServer from "./NodeMcpServer.js"

/**
 * Node wiring for MCP clients: a server run as a child process.
 *
 * @since 0.1.0
 */
export * as NodeMcpClient from "./NodeMcpClient.js"
