/**
 * The schemas of `Schema/Sampling.ts`, built when first asked for (`sampling()`), not when the module is
 * evaluated: a server that never uses the feature never builds them (`Schema/Sampling.ts` re-exports
 * them, built on its import).
 */
import * as Schema from "effect/Schema"
import { JsonObject, JsonValue, metaField, RequestParams, Role } from "../../Schema/Base.js"
import { AudioContent, ContentBlock, ImageContent, TextContent } from "../../Schema/Content.js"
import { taskField } from "./tasks.js"
import { tool, toolLegacy } from "./tool.js"

const part1 = () => {
  const ModelHint = Schema.Struct({
    name: Schema.optional(Schema.String)
  }).annotations({ identifier: "ModelHint" })

  const Priority = Schema.Number.pipe(Schema.between(0, 1))

  const ModelPreferences = Schema.Struct({
    hints: Schema.optional(Schema.Array(ModelHint)),
    costPriority: Schema.optional(Priority),
    speedPriority: Schema.optional(Priority),
    intelligencePriority: Schema.optional(Priority)
  }).annotations({ identifier: "ModelPreferences" })

  const ToolUseContent = Schema.Struct({
    type: Schema.Literal("tool_use"),
    id: Schema.String,
    name: Schema.String,
    input: JsonObject,
    ...metaField
  }).annotations({ identifier: "ToolUseContent" })

  const toolResultFields = {
    type: Schema.Literal("tool_result"),
    toolUseId: Schema.String,
    content: Schema.Array(ContentBlock),
    isError: Schema.optional(Schema.Boolean),
    ...metaField
  }

  const ToolResultContent = Schema.Struct({
    ...toolResultFields,
    structuredContent: Schema.optional(JsonValue)
  }).annotations({ identifier: "ToolResultContent" })

  const ToolResultContent20251125 = Schema.Struct({
    ...toolResultFields,
    structuredContent: Schema.optional(JsonObject)
  }).annotations({ identifier: "ToolResultContent" })

  const SamplingMessageContentBlock = Schema.Union(
    TextContent,
    ImageContent,
    AudioContent,
    ToolUseContent,
    ToolResultContent
  ).annotations({ identifier: "SamplingMessageContentBlock" })

  const SamplingMessageContentBlock20251125 = Schema.Union(
    TextContent,
    ImageContent,
    AudioContent,
    ToolUseContent,
    ToolResultContent20251125
  ).annotations({ identifier: "SamplingMessageContentBlock" })

  const SamplingMessage = Schema.Struct({
    role: Role,
    content: Schema.Union(SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock)),
    ...metaField
  }).annotations({ identifier: "SamplingMessage" })

  const SamplingMessage20251125 = Schema.Struct({
    role: Role,
    content: Schema.Union(SamplingMessageContentBlock20251125, Schema.Array(SamplingMessageContentBlock20251125)),
    ...metaField
  }).annotations({ identifier: "SamplingMessage" })

  const SamplingMessage20250326 = Schema.Struct({
    role: Role,
    content: Schema.Union(TextContent, ImageContent, AudioContent),
    ...metaField
  }).annotations({ identifier: "SamplingMessage" })

  const SamplingMessage20241105 = Schema.Struct({
    role: Role,
    content: Schema.Union(TextContent, ImageContent),
    ...metaField
  }).annotations({ identifier: "SamplingMessage" })

  const ToolChoice = Schema.Struct({
    mode: Schema.optional(Schema.Literal("auto", "required", "none"))
  }).annotations({ identifier: "ToolChoice" })

  const IncludeContext = Schema.Literal("none", "thisServer", "allServers").annotations({
    identifier: "IncludeContext"
  })

  const requestFields = {
    modelPreferences: Schema.optional(ModelPreferences),
    systemPrompt: Schema.optional(Schema.String),
    includeContext: Schema.optional(IncludeContext),
    temperature: Schema.optional(Schema.Finite),
    maxTokens: Schema.Int,
    stopSequences: Schema.optional(Schema.Array(Schema.String)),
    metadata: Schema.optional(JsonObject)
  }

  const CreateMessageRequestParams = Schema.Struct({
    messages: Schema.Array(SamplingMessage),
    ...requestFields,
    tools: Schema.optional(Schema.Array(tool().Tool)),
    toolChoice: Schema.optional(ToolChoice)
  }).annotations({ identifier: "CreateMessageRequestParams" })

  const CreateMessageRequestParams20251125 = Schema.Struct({
    ...RequestParams.fields,
    ...taskField,
    messages: Schema.Array(SamplingMessage20251125),
    ...requestFields,
    tools: Schema.optional(Schema.Array(toolLegacy().Tool20250618)),
    toolChoice: Schema.optional(ToolChoice)
  }).annotations({ identifier: "CreateMessageRequestParams" })

  const CreateMessageRequestParams20250326 = Schema.Struct({
    ...RequestParams.fields,
    messages: Schema.Array(SamplingMessage20250326),
    ...requestFields
  }).annotations({ identifier: "CreateMessageRequestParams" })
  return {
    ModelHint,
    Priority,
    ModelPreferences,
    ToolUseContent,
    toolResultFields,
    ToolResultContent,
    ToolResultContent20251125,
    SamplingMessageContentBlock,
    SamplingMessageContentBlock20251125,
    SamplingMessage,
    SamplingMessage20251125,
    SamplingMessage20250326,
    SamplingMessage20241105,
    ToolChoice,
    IncludeContext,
    requestFields,
    CreateMessageRequestParams,
    CreateMessageRequestParams20251125,
    CreateMessageRequestParams20250326
  }
}

type Part1 = ReturnType<typeof part1>

const pick = (previous: Part1) => ({
  ModelHint: previous.ModelHint,
  ModelPreferences: previous.ModelPreferences,
  ToolUseContent: previous.ToolUseContent,
  ToolResultContent: previous.ToolResultContent,
  ToolResultContent20251125: previous.ToolResultContent20251125,
  SamplingMessageContentBlock: previous.SamplingMessageContentBlock,
  SamplingMessageContentBlock20251125: previous.SamplingMessageContentBlock20251125,
  SamplingMessage: previous.SamplingMessage,
  SamplingMessage20251125: previous.SamplingMessage20251125,
  SamplingMessage20250326: previous.SamplingMessage20250326,
  SamplingMessage20241105: previous.SamplingMessage20241105,
  ToolChoice: previous.ToolChoice,
  IncludeContext: previous.IncludeContext,
  CreateMessageRequestParams: previous.CreateMessageRequestParams,
  CreateMessageRequestParams20251125: previous.CreateMessageRequestParams20251125,
  CreateMessageRequestParams20250326: previous.CreateMessageRequestParams20250326
})

const last = (previous: Part1) => {
  const { SamplingMessageContentBlock, SamplingMessageContentBlock20251125, SamplingMessage20241105, requestFields } =
    previous
  const CreateMessageRequestParams20241105 = Schema.Struct({
    ...RequestParams.fields,
    messages: Schema.Array(SamplingMessage20241105),
    ...requestFields
  }).annotations({ identifier: "CreateMessageRequestParams" })

  const resultFields = {
    ...metaField,
    role: Role,
    model: Schema.String,
    /** `endTurn`, `stopSequence`, `maxTokens`, `toolUse` (2025-11-25+) or any other string. */
    stopReason: Schema.optional(Schema.String)
  }

  const CreateMessageResult = Schema.Struct({
    ...resultFields,
    content: Schema.Union(SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock))
  }).annotations({ identifier: "CreateMessageResult" })

  const CreateMessageResult20251125 = Schema.Struct({
    ...resultFields,
    content: Schema.Union(SamplingMessageContentBlock20251125, Schema.Array(SamplingMessageContentBlock20251125))
  }).annotations({ identifier: "CreateMessageResult" })

  const CreateMessageResult20250326 = Schema.Struct({
    ...resultFields,
    content: Schema.Union(TextContent, ImageContent, AudioContent)
  }).annotations({ identifier: "CreateMessageResult" })

  const CreateMessageResult20241105 = Schema.Struct({
    ...resultFields,
    content: Schema.Union(TextContent, ImageContent)
  }).annotations({ identifier: "CreateMessageResult" })
  return {
    CreateMessageRequestParams20241105,
    CreateMessageResult,
    CreateMessageResult20251125,
    CreateMessageResult20250326,
    CreateMessageResult20241105,
    ...pick(previous)
  }
}

const make = () => last(part1())

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Sampling.ts`, built on the first call. */
export const sampling = (): ReturnType<typeof make> => built ??= make()
