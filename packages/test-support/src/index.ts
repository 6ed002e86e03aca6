/**
 * Helpers shared by the tests of the effect-mcp packages (a private package, never published).
 *
 * @since 0.1.0
 */

/**
 * Validation against the official MCP JSON Schemas of each revision.
 *
 * @since 0.1.0
 */
export * as OfficialSchema from "./OfficialSchema.js"

/**
 * Real servers for the tests that need them (`redis-server`, `nginx`), on free ports.
 *
 * @since 0.1.0
 */
export * as Services from "./Services.js"

/**
 * Streamable HTTP's raw wire for `fetch`-driven tests: headers, and a response's messages as they come.
 *
 * @since 0.1.0
 */
export * as HttpWire from "./HttpWire.js"
