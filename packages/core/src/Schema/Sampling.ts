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
import * as Schema from "effect/Schema"
import { JsonObject, JsonValue, metaField, RequestParams, Role } from "./Base.js"
import { AudioContent, ContentBlock, ImageContent, TextContent } from "./Content.js"
import { taskField } from "./Tasks.js"
import { Tool, Tool20250618 } from "./Tool.js"

/**
 * A hint for model selection: a (sub)string of a model name, matched by the client.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelHint = Schema.Struct({
  name: Schema.optional(Schema.String)
}).annotations({ identifier: "ModelHint" })

/**
 * @since 0.1.0
 * @category models
 */
export type ModelHint = typeof ModelHint.Type

const Priority = Schema.Number.pipe(Schema.between(0, 1))

/**
 * The server's model preferences: hints in order of preference, and priorities
 * between 0 and 1.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelPreferences = Schema.Struct({
  hints: Schema.optional(Schema.Array(ModelHint)),
  costPriority: Schema.optional(Priority),
  speedPriority: Schema.optional(Priority),
  intelligencePriority: Schema.optional(Priority)
}).annotations({ identifier: "ModelPreferences" })

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
export const ToolUseContent = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject,
  ...metaField
}).annotations({ identifier: "ToolUseContent" })

/**
 * @since 0.1.0
 * @category models
 */
export type ToolUseContent = typeof ToolUseContent.Type

const toolResultFields = {
  type: Schema.Literal("tool_result"),
  toolUseId: Schema.String,
  content: Schema.Array(ContentBlock),
  isError: Schema.optional(Schema.Boolean),
  ...metaField
}

/**
 * The result of a tool call, sent back to the model (2026-07-28 shape:
 * `structuredContent` is any JSON value).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultContent = Schema.Struct({
  ...toolResultFields,
  structuredContent: Schema.optional(JsonValue)
}).annotations({ identifier: "ToolResultContent" })

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
export const ToolResultContent20251125 = Schema.Struct({
  ...toolResultFields,
  structuredContent: Schema.optional(JsonObject)
}).annotations({ identifier: "ToolResultContent" })

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
export const SamplingMessageContentBlock = Schema.Union(
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent
).annotations({ identifier: "SamplingMessageContentBlock" })

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
export const SamplingMessageContentBlock20251125 = Schema.Union(
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent20251125
).annotations({ identifier: "SamplingMessageContentBlock" })

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
export const SamplingMessage = Schema.Struct({
  role: Role,
  content: Schema.Union(SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock)),
  ...metaField
}).annotations({ identifier: "SamplingMessage" })

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
export const SamplingMessage20251125 = Schema.Struct({
  role: Role,
  content: Schema.Union(SamplingMessageContentBlock20251125, Schema.Array(SamplingMessageContentBlock20251125)),
  ...metaField
}).annotations({ identifier: "SamplingMessage" })

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
export const SamplingMessage20250326 = Schema.Struct({
  role: Role,
  content: Schema.Union(TextContent, ImageContent, AudioContent),
  ...metaField
}).annotations({ identifier: "SamplingMessage" })

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
export const SamplingMessage20241105 = Schema.Struct({
  role: Role,
  content: Schema.Union(TextContent, ImageContent),
  ...metaField
}).annotations({ identifier: "SamplingMessage" })

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
export const ToolChoice = Schema.Struct({
  mode: Schema.optional(Schema.Literal("auto", "required", "none"))
}).annotations({ identifier: "ToolChoice" })

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
export const IncludeContext = Schema.Literal("none", "thisServer", "allServers").annotations({
  identifier: "IncludeContext"
})

/**
 * @since 0.1.0
 * @category models
 */
export type IncludeContext = typeof IncludeContext.Type

const requestFields = {
  modelPreferences: Schema.optional(ModelPreferences),
  systemPrompt: Schema.optional(Schema.String),
  includeContext: Schema.optional(IncludeContext),
  temperature: Schema.optional(Schema.Finite),
  maxTokens: Schema.Int,
  stopSequences: Schema.optional(Schema.Array(Schema.String)),
  metadata: Schema.optional(JsonObject)
}

/**
 * Params of `sampling/createMessage` (2026-07-28, an input request: no `_meta`, no
 * `task`). `tools` and `toolChoice` need the client's `sampling.tools` capability.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageRequestParams = Schema.Struct({
  messages: Schema.Array(SamplingMessage),
  ...requestFields,
  tools: Schema.optional(Schema.Array(Tool)),
  toolChoice: Schema.optional(ToolChoice)
}).annotations({ identifier: "CreateMessageRequestParams" })

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
export const CreateMessageRequestParams20251125 = Schema.Struct({
  ...RequestParams.fields,
  ...taskField,
  messages: Schema.Array(SamplingMessage20251125),
  ...requestFields,
  tools: Schema.optional(Schema.Array(Tool20250618)),
  toolChoice: Schema.optional(ToolChoice)
}).annotations({ identifier: "CreateMessageRequestParams" })

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
export const CreateMessageRequestParams20250326 = Schema.Struct({
  ...RequestParams.fields,
  messages: Schema.Array(SamplingMessage20250326),
  ...requestFields
}).annotations({ identifier: "CreateMessageRequestParams" })

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
export const CreateMessageRequestParams20241105 = Schema.Struct({
  ...RequestParams.fields,
  messages: Schema.Array(SamplingMessage20241105),
  ...requestFields
}).annotations({ identifier: "CreateMessageRequestParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageRequestParams20241105 = typeof CreateMessageRequestParams20241105.Type

const resultFields = {
  ...metaField,
  role: Role,
  model: Schema.String,
  /** `endTurn`, `stopSequence`, `maxTokens`, `toolUse` (2025-11-25+) or any other string. */
  stopReason: Schema.optional(Schema.String)
}

/**
 * Result of `sampling/createMessage` (2026-07-28, an input response: no `resultType`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageResult = Schema.Struct({
  ...resultFields,
  content: Schema.Union(SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock))
}).annotations({ identifier: "CreateMessageResult" })

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
export const CreateMessageResult20251125 = Schema.Struct({
  ...resultFields,
  content: Schema.Union(SamplingMessageContentBlock20251125, Schema.Array(SamplingMessageContentBlock20251125))
}).annotations({ identifier: "CreateMessageResult" })

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
export const CreateMessageResult20250326 = Schema.Struct({
  ...resultFields,
  content: Schema.Union(TextContent, ImageContent, AudioContent)
}).annotations({ identifier: "CreateMessageResult" })

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
export const CreateMessageResult20241105 = Schema.Struct({
  ...resultFields,
  content: Schema.Union(TextContent, ImageContent)
}).annotations({ identifier: "CreateMessageResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageResult20241105 = typeof CreateMessageResult20241105.Type
