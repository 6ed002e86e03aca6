/**
 * Tools: definitions (`tools/list`), calls (`tools/call`) and their results.
 *
 * Shapes that changed between revisions:
 * - `CallToolResult.content` grew with the content block union ({@link CallToolResult20241105},
 *   {@link CallToolResult20250326}); `structuredContent` is an object in 2025-06-18 and 2025-11-25
 *   ({@link CallToolResult20250618}) and any JSON value in 2026-07-28 ({@link CallToolResult});
 * - `Tool.outputSchema` must be an object schema (`type: "object"`) in 2025-06-18 and 2025-11-25
 *   ({@link Tool20250618}, {@link ListToolsResult20250618}) and may be any schema in 2026-07-28
 *   ({@link Tool}); 2024-11-05 and 2025-03-26 have no `outputSchema`, so both shapes fit there.
 *
 * @since 0.1.0
 */
import * as Internal from "../internal/schema/tool.js"

const built = Internal.tool()

const legacy = Internal.toolLegacy()

/**
 * Hints about a tool's behaviour (2025-03-26+). Untrusted unless the server is trusted.
 * Defaults: `readOnlyHint` false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolAnnotations = built.ToolAnnotations
/**
 * @since 0.1.0
 * @category models
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * Execution properties of a tool (2025-11-25): whether it may run as a task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolExecution = built.ToolExecution
/**
 * @since 0.1.0
 * @category models
 */
export type ToolExecution = typeof ToolExecution.Type

/**
 * A tool's `inputSchema`: a JSON Schema (2020-12 by default from 2025-11-25) whose root is
 * `type: "object"`; every other keyword is kept.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolInputSchema = built.ToolInputSchema
/**
 * @since 0.1.0
 * @category models
 */
export type ToolInputSchema = typeof ToolInputSchema.Type

/**
 * A tool's `outputSchema` in 2026-07-28: any JSON Schema object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolOutputSchema = built.ToolOutputSchema
/**
 * @since 0.1.0
 * @category models
 */
export type ToolOutputSchema = typeof ToolOutputSchema.Type

/**
 * A tool's `outputSchema` in 2025-06-18 and 2025-11-25: an object schema (`type: "object"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolOutputSchema20250618 = legacy.ToolOutputSchema20250618
/**
 * @since 0.1.0
 * @category models
 */
export type ToolOutputSchema20250618 = typeof ToolOutputSchema20250618.Type

/**
 * A tool definition (2026-07-28 shape: `outputSchema` may be any schema). Also fits
 * 2024-11-05 and 2025-03-26, which have no `outputSchema`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Tool = built.Tool
/**
 * @since 0.1.0
 * @category models
 */
export type Tool = typeof Tool.Type

/**
 * A tool definition of 2025-06-18 and 2025-11-25: `outputSchema` must have `type: "object"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Tool20250618 = legacy.Tool20250618
/**
 * @since 0.1.0
 * @category models
 */
export type Tool20250618 = typeof Tool20250618.Type

/**
 * Params of `tools/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListToolsRequestParams = built.ListToolsRequestParams
/**
 * @since 0.1.0
 * @category models
 */
export type ListToolsRequestParams = typeof ListToolsRequestParams.Type

/**
 * Result of `tools/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListToolsResult = built.ListToolsResult
/**
 * @since 0.1.0
 * @category models
 */
export type ListToolsResult = typeof ListToolsResult.Type

/**
 * Result of `tools/list` in 2025-06-18 and 2025-11-25 (tools with object output schemas).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListToolsResult20250618 = legacy.ListToolsResult20250618
/**
 * @since 0.1.0
 * @category models
 */
export type ListToolsResult20250618 = typeof ListToolsResult20250618.Type

/**
 * Params of `tools/call`. `task` (2025-11-25) asks for the call to run as a task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolRequestParams = built.CallToolRequestParams
/**
 * @since 0.1.0
 * @category models
 */
export type CallToolRequestParams = typeof CallToolRequestParams.Type

/**
 * Result of `tools/call` (2026-07-28 shape: `structuredContent` is any JSON value).
 * Tool errors are reported in-band with `isError: true`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult = built.CallToolResult
/**
 * @since 0.1.0
 * @category models
 */
export type CallToolResult = typeof CallToolResult.Type

/**
 * Result of `tools/call` in 2025-06-18 and 2025-11-25: `structuredContent` is an object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult20250618 = legacy.CallToolResult20250618
/**
 * @since 0.1.0
 * @category models
 */
export type CallToolResult20250618 = typeof CallToolResult20250618.Type

/**
 * Result of `tools/call` in 2025-03-26: text, image, audio and embedded resources, no structured content.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult20250326 = legacy.CallToolResult20250326
/**
 * @since 0.1.0
 * @category models
 */
export type CallToolResult20250326 = typeof CallToolResult20250326.Type

/**
 * Result of `tools/call` in 2024-11-05: text, image and embedded resources.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult20241105 = legacy.CallToolResult20241105
/**
 * @since 0.1.0
 * @category models
 */
export type CallToolResult20241105 = typeof CallToolResult20241105.Type

/**
 * Params of `notifications/tools/list_changed`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolListChangedNotificationParams = built.ToolListChangedNotificationParams
/**
 * @since 0.1.0
 * @category models
 */
export type ToolListChangedNotificationParams = typeof ToolListChangedNotificationParams.Type

/**
 * Whether a tool name follows the 2025-11-25 rule: 1 to 128 characters, each an ASCII
 * letter, digit, `_`, `-` or `.`. Earlier revisions accept any string, so this is advice
 * for servers, not a decode check.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isValidToolName = Internal.isValidToolName
