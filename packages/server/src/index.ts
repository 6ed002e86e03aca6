/**
 * @since 0.1.0
 */

/**
 * The server: registry, sessions, layers.
 *
 * @since 0.1.0
 */
export * as McpServer from "./McpServer.js"

/**
 * The per-request context of handlers.
 *
 * @since 0.1.0
 */
export * as McpRequest from "./McpRequest.js"

/**
 * What a tool's handler can do about the task it may run as: a tool that declares `task` runs
 * as one when the client can take it. Outside such a call every accessor here does nothing.
 *
 * @since 0.1.0
 */
export * as McpTask from "./McpTask.js"

/**
 * Tools.
 *
 * @since 0.1.0
 */
export * as Tool from "./Tool.js"

/**
 * Prompts.
 *
 * @since 0.1.0
 */
export * as Prompt from "./Prompt.js"

/**
 * Resources and resource templates.
 *
 * @since 0.1.0
 */
export * as Resource from "./Resource.js"

/**
 * Completions.
 *
 * @since 0.1.0
 */
export * as Completion from "./Completion.js"

/**
 * MCP Apps views (the extension `io.modelcontextprotocol/ui`): `ui://` HTML resources, and tools linked
 * to them.
 *
 * @since 0.2.0
 */
export * as AppView from "./AppView.js"

/**
 * Agent Skills served over MCP (the skills extension): `skills/list`, `skills/get`, directory reads.
 *
 * @since 0.1.0
 */
export * as Skills from "./Skills.js"

/**
 * Streamable HTTP and legacy HTTP+SSE for the handshake era.
 *
 * @since 0.1.0
 */
export * as HttpTransport from "./HttpTransport.js"

/**
 * A server of the 2026-07-28 revision alone, as a fetch handler or a Cloudflare Worker, whose
 * bundle carries only what its code names (no handshake era; authorization as a value). Import it
 * by its path in a Worker: `@effect-mcp/server/StatelessServer`.
 *
 * @since 0.2.0
 */
export * as StatelessServer from "./StatelessServer.js"

/**
 * How an HTTP transport with authorization on verifies bearer tokens: JWT (the issuer's key set),
 * RFC 7662 introspection, or your own.
 *
 * @since 0.1.0
 */
export * as TokenVerifier from "./TokenVerifier.js"

/**
 * Where tasks live: each a record from its creation to its sweep, every change a compare-and-set,
 * with its input requests, answers, outcome and lease. In memory by default, bounded and swept by TTL.
 *
 * @since 0.1.0
 */
export * as TaskStore from "./TaskStore.js"

/**
 * Where handshake sessions live when several instances serve them (no sticky sessions): their
 * records, and the path between instances (answers, cancellations, standalone-stream frames).
 *
 * @since 0.1.0
 */
export * as SessionStore from "./SessionStore.js"

/**
 * Event stores for resumable HTTP streams.
 *
 * @since 0.1.0
 */
export * as EventStore from "./EventStore.js"

/**
 * The server-wide bus of changes (lists, resources) that notifications are fanned out from.
 *
 * @since 0.1.0
 */
export * as NotificationBus from "./NotificationBus.js"

/**
 * 2026-07-28 subscriptions (`subscriptions/listen`) as the server reports them.
 *
 * @since 0.1.0
 */
export * as Subscription from "./Subscription.js"

export {
  /**
   * The wire errors a handler may fail with (`McpError.InvalidParams`, `McpError.ResourceNotFound`,
   * ...), re-exported so that one import serves a server author.
   *
   * @since 0.1.0
   */
  McpError
} from "@effect-mcp/core"

export {
  /**
   * Who holds the access token a request came with (`McpRequest.auth`).
   *
   * @since 0.1.0
   */
  AuthInfo
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

/**
 * Mounting: one server built from parts, each under a prefix (`prefix_name`, `prefix+uri`).
 *
 * @since 0.1.0
 */
export * as Mount from "./Mount.js"
