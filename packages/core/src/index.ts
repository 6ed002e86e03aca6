/**
 * @since 0.1.0
 */

/**
 * The JSON-RPC peer: routing, in-flight requests, cancellation, outbound calls, timeouts.
 *
 * @since 0.1.0
 */
export * as Peer from "./Peer.js"

/**
 * Traces and metrics per the OpenTelemetry semantic conventions for MCP.
 *
 * @since 0.1.0
 */
export * as Telemetry from "./Telemetry.js"

/**
 * Who holds the access token a request came with (HTTP with authorization on).
 *
 * @since 0.1.0
 */
export * as AuthInfo from "./AuthInfo.js"

/**
 * The seam between transports and the engine: clients, a receiver, a protocol.
 *
 * @since 0.1.0
 */
export * as Transport from "./Transport.js"

/**
 * Newline-delimited JSON framing (stdio, child processes, sockets).
 *
 * @since 0.1.0
 */
export * as Ndjson from "./Ndjson.js"

/**
 * In-memory transports for tests.
 *
 * @since 0.1.0
 */
export * as MemoryTransport from "./MemoryTransport.js"

/**
 * The wire boundary: text → message, message → text.
 *
 * @since 0.1.0
 */
export * as Wire from "./Wire.js"

/**
 * JSON-RPC 2.0 messages and error codes.
 *
 * @since 0.1.0
 */
export * as JsonRpc from "./JsonRpc.js"

/**
 * Wire errors that render themselves for a revision.
 *
 * @since 0.1.0
 */
export * as McpError from "./McpError.js"

/**
 * The MCP revisions as data.
 *
 * @since 0.1.0
 */
export * as Revision from "./Revision.js"

/**
 * `_meta`: reserved keys, readers, merging.
 *
 * @since 0.1.0
 */
export * as Meta from "./Meta.js"

/**
 * The 2026-07-28 HTTP request headers: what they mirror, their value encoding, `x-mcp-header`.
 *
 * @since 0.1.0
 */
export * as HttpHeaders from "./HttpHeaders.js"

/**
 * The method catalog.
 *
 * @since 0.1.0
 */
export * as Method from "./Method.js"

/**
 * Dispatch functions derived from the method catalog.
 *
 * @since 0.1.0
 */
export * as Dispatch from "./Dispatch.js"

/**
 * What a subscription asks for, read the same way by server and client.
 *
 * @since 0.1.0
 */
export * as SubscriptionFilter from "./SubscriptionFilter.js"

/**
 * What a client's declared capabilities allow a server to ask of it (sampling, elicitation, roots).
 *
 * @since 0.1.0
 */
export * as Capabilities from "./Capabilities.js"

/**
 * The Agent Skills format as the skills extension reads it: frontmatter, names, digests.
 *
 * @since 0.1.0
 */
export * as SkillFormat from "./SkillFormat.js"

/**
 * MCP wire types, one module per area.
 *
 * @since 0.1.0
 */
export * as Schema from "./Schema/index.js"
