/**
 * Sampling: the server asks the client's LLM for a completion. Handshake era: the
 * `sampling/createMessage` request. 2026-07-28: an input request of an `input_required`
 * result only, and the feature is deprecated.
 *
 * Shapes that changed between revisions:
 * - message content: `text | image` in 2024-11-05 ({@link SamplingMessage20241105}),
 *   `+ audio` in 2025-03-26 and 2025-06-18 ({@link SamplingMessage20250326}), one block or an
 *   array of blocks with `tool_use` / `tool_result` from 2025-11-25 on;
 * - `ToolResultContent.structuredContent` is an object in 2025-11-25 ({@link ToolResultContent20251125},
 *   hence {@link SamplingMessage20251125}, {@link CreateMessageRequestParams20251125},
 *   {@link CreateMessageResult20251125}) and any JSON value in 2026-07-28 (the plain names);
 * - `tools` holds 2025-11-25 tools (`Tool20250618`, object output schemas) or 2026-07-28 tools.
 *
 * @since 0.1.0
 */

import { sampling } from "../internal/schema/sampling.js"

const built = sampling()

/**
 * A hint for model selection: a (sub)string of a model name, matched by the client.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelHint = built.ModelHint

/**
 * @since 0.1.0
 * @category models
 */
export type ModelHint = typeof ModelHint.Type

/**
 * The server's model preferences: hints in order of preference, and priorities
 * between 0 and 1.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelPreferences = built.ModelPreferences

/**
 * @since 0.1.0
 * @category models
 */
export type ModelPreferences = typeof ModelPreferences.Type

/**
 * A tool call requested by the model (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolUseContent = built.ToolUseContent

/**
 * @since 0.1.0
 * @category models
 */
export type ToolUseContent = typeof ToolUseContent.Type

/**
 * The result of a tool call, sent back to the model (2026-07-28 shape:
 * `structuredContent` is any JSON value).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultContent = built.ToolResultContent

/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultContent = typeof ToolResultContent.Type

/**
 * The result of a tool call in 2025-11-25: `structuredContent` is an object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultContent20251125 = built.ToolResultContent20251125

/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultContent20251125 = typeof ToolResultContent20251125.Type

/**
 * A block of a sampling message (2026-07-28).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingMessageContentBlock = built.SamplingMessageContentBlock

/**
 * @since 0.1.0
 * @category models
 */
export type SamplingMessageContentBlock = typeof SamplingMessageContentBlock.Type

/**
 * A block of a sampling message in 2025-11-25.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingMessageContentBlock20251125 = built.SamplingMessageContentBlock20251125

/**
 * @since 0.1.0
 * @category models
 */
export type SamplingMessageContentBlock20251125 = typeof SamplingMessageContentBlock20251125.Type

/**
 * A message of a sampling conversation (2026-07-28): one block or an array of blocks.
 * A user message carrying tool results must hold tool results only.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingMessage = built.SamplingMessage

/**
 * @since 0.1.0
 * @category models
 */
export type SamplingMessage = typeof SamplingMessage.Type

/**
 * A message of a sampling conversation in 2025-11-25.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingMessage20251125 = built.SamplingMessage20251125

/**
 * @since 0.1.0
 * @category models
 */
export type SamplingMessage20251125 = typeof SamplingMessage20251125.Type

/**
 * A message of a sampling conversation in 2025-03-26 and 2025-06-18: text, image or audio.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingMessage20250326 = built.SamplingMessage20250326

/**
 * @since 0.1.0
 * @category models
 */
export type SamplingMessage20250326 = typeof SamplingMessage20250326.Type

/**
 * A message of a sampling conversation in 2024-11-05: text or image.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SamplingMessage20241105 = built.SamplingMessage20241105

/**
 * @since 0.1.0
 * @category models
 */
export type SamplingMessage20241105 = typeof SamplingMessage20241105.Type

/**
 * How the model may use the offered tools (2025-11-25+). Absent `mode` means `auto`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolChoice = built.ToolChoice

/**
 * @since 0.1.0
 * @category models
 */
export type ToolChoice = typeof ToolChoice.Type

/**
 * Which servers' context to include. `thisServer` and `allServers` need the client's
 * `sampling.context` capability (2025-11-25+) and are deprecated in 2026-07-28.
 *
 * @since 0.1.0
 * @category schemas
 */
export const IncludeContext = built.IncludeContext

/**
 * @since 0.1.0
 * @category models
 */
export type IncludeContext = typeof IncludeContext.Type

/**
 * Params of `sampling/createMessage` (2026-07-28, an input request: no `_meta`, no
 * `task`). `tools` and `toolChoice` need the client's `sampling.tools` capability.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageRequestParams = built.CreateMessageRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageRequestParams = typeof CreateMessageRequestParams.Type

/**
 * Params of `sampling/createMessage` in 2025-11-25: tools, tool choice and task
 * augmentation, with the 2025-11-25 tool and tool-result shapes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageRequestParams20251125 = built.CreateMessageRequestParams20251125

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageRequestParams20251125 = typeof CreateMessageRequestParams20251125.Type

/**
 * Params of `sampling/createMessage` in 2025-03-26 and 2025-06-18.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageRequestParams20250326 = built.CreateMessageRequestParams20250326

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageRequestParams20250326 = typeof CreateMessageRequestParams20250326.Type

/**
 * Params of `sampling/createMessage` in 2024-11-05.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageRequestParams20241105 = built.CreateMessageRequestParams20241105

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageRequestParams20241105 = typeof CreateMessageRequestParams20241105.Type

/**
 * Result of `sampling/createMessage` (2026-07-28, an input response: no `resultType`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageResult = built.CreateMessageResult

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageResult = typeof CreateMessageResult.Type

/**
 * Result of `sampling/createMessage` in 2025-11-25.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageResult20251125 = built.CreateMessageResult20251125

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageResult20251125 = typeof CreateMessageResult20251125.Type

/**
 * Result of `sampling/createMessage` in 2025-03-26 and 2025-06-18.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageResult20250326 = built.CreateMessageResult20250326

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageResult20250326 = typeof CreateMessageResult20250326.Type

/**
 * Result of `sampling/createMessage` in 2024-11-05.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageResult20241105 = built.CreateMessageResult20241105

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageResult20241105 = typeof CreateMessageResult20241105.Type
