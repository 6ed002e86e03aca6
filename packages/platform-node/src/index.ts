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

/**
 * OAuth on Node: the authorization code through a loopback redirect on 127.0.0.1.
 *
 * @since 0.1.0
 */
export * as NodeOAuth from "./NodeOAuth.js"

/**
 * A `TokenStore` in a JSON file (mode 0600), written atomically.
 *
 * @since 0.1.0
 */
export * as NodeTokenStore from "./NodeTokenStore.js"

/**
 * Skills from a folder, for the skills extension.
 *
 * @since 0.1.0
 */
export * as NodeSkills from "./NodeSkills.js"

/**
 * OpenTelemetry export from the standard `OTEL_*` environment variables (OTLP over HTTP).
 *
 * @since 0.1.0
 */
export * as NodeTelemetry from "./NodeTelemetry.js"
