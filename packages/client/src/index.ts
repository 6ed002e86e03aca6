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
 * OAuth 2.1 authorization for MCP clients: an `HttpClient` layer under the HTTP transports.
 *
 * @since 0.1.0
 */
export * as McpAuth from "./McpAuth.js"

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
 * The client side of MCP Apps (`io.modelcontextprotocol/ui`): declare the extension, find the tools
 * with views, fetch a view verified.
 *
 * @since 0.2.0
 */
export * as AppView from "./AppView.js"

/**
 * The host side of the skills extension: list, get and load skills, every file verified.
 *
 * @since 0.1.0
 */
export * as Skills from "./Skills.js"

/**
 * The client's response cache (2026-07-28 `ttlMs` / `cacheScope`).
 *
 * @since 0.1.0
 */
export * as ResponseCache from "./ResponseCache.js"

/**
 * Where OAuth authorization keeps registrations and tokens, per protected resource (in memory by
 * default; `NodeTokenStore` keeps a file).
 *
 * @since 0.1.0
 */
export * as TokenStore from "./TokenStore.js"

/**
 * How the authorization code of an OAuth authorization is had: the redirect back to the client
 * (`followRedirect` for servers that grant without a user; `NodeOAuth.layerLoopback` on Node).
 *
 * @since 0.1.0
 */
export * as AuthorizationCode from "./AuthorizationCode.js"

export {
  /**
   * The errors a server answers with (`McpError.MethodNotFound`, `McpError.ResourceNotFound`, ...),
   * re-exported so that one import serves a client author.
   *
   * @since 0.1.0
   */
  McpError
} from "@effect-mcp/core"

export {
  /**
   * The revisions, as data (`Revision.handshake`, `Revision.stateless`, `Revision.all`).
   *
   * @since 0.1.0
   */
  Revision
} from "@effect-mcp/core"

export {
  /**
   * Every MCP type of every revision as Effect Schema, named `McpSchema` so that it does not clash
   * with effect's `Schema`: `McpSchema.Content.ContentBlock`, `McpSchema.Tool.CallToolResult`, ...
   *
   * @since 0.1.0
   */
  Schema as McpSchema
} from "@effect-mcp/core"
