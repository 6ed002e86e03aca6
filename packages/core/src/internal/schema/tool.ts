/**
 * The schemas of `Schema/Tool.ts`, built when first asked for, not when the module is evaluated: those of
 * the current revisions (`tool()`) when a server or client first lists or calls a tool, the dated ones
 * of the older revisions (`toolLegacy()`: 2024-11-05 to 2025-06-18's results, 2025-06-18's object-only
 * output schema) only when a message of those revisions needs them. `Schema/Tool.ts` re-exports both,
 * built on its import.
 */
import * as Schema from "effect/Schema"
import {
  baseMetadataFields,
  definitionMetaField,
  iconsField,
  JsonObject,
  JsonValue,
  metaField,
  NotificationParams,
  PaginatedRequestParams,
  paginatedResultFields,
  RequestParams,
  since
} from "../../Schema/Base.js"
import { ContentBlock, ContentBlock20241105, ContentBlock20250326 } from "../../Schema/Content.js"
import { taskField } from "./tasks.js"

const toolName = /^[A-Za-z0-9_.-]{1,128}$/

/** `Schema/Tool.ts`' `isValidToolName`. */
export const isValidToolName = (name: string): boolean => toolName.test(name)

const make = () => {
  const anyKeyword = Schema.Record({ key: Schema.String, value: JsonValue })

  const ToolAnnotations = Schema.Struct({
    title: Schema.optional(Schema.String),
    readOnlyHint: Schema.optional(Schema.Boolean),
    destructiveHint: Schema.optional(Schema.Boolean),
    idempotentHint: Schema.optional(Schema.Boolean),
    openWorldHint: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "ToolAnnotations" })

  const ToolExecution = Schema.Struct({
    taskSupport: Schema.optional(Schema.Literal("forbidden", "optional", "required"))
  }).annotations({ identifier: "ToolExecution" })

  const objectSchemaFields = {
    $schema: Schema.optional(Schema.String),
    type: Schema.Literal("object"),
    properties: Schema.optional(Schema.Record({ key: Schema.String, value: JsonObject })),
    required: Schema.optional(Schema.Array(Schema.String))
  }

  const ToolInputSchema = Schema.Struct(objectSchemaFields, anyKeyword).annotations({
    identifier: "ToolInputSchema"
  })

  const ToolOutputSchema = Schema.Struct({ $schema: Schema.optional(Schema.String) }, anyKeyword).annotations({
    identifier: "ToolOutputSchema"
  })

  const toolFields = {
    ...baseMetadataFields,
    description: Schema.optional(Schema.String),
    inputSchema: ToolInputSchema,
    annotations: since(Schema.optional(ToolAnnotations), "2025-03-26"),
    ...iconsField,
    execution: since(Schema.optional(ToolExecution), "2025-11-25", "2025-11-25"),
    ...definitionMetaField
  }

  const Tool = Schema.Struct({
    ...toolFields,
    outputSchema: since(Schema.optional(ToolOutputSchema), "2025-06-18")
  }).annotations({ identifier: "Tool" })

  const ListToolsRequestParams = PaginatedRequestParams

  const ListToolsResult = Schema.Struct({
    ...paginatedResultFields,
    tools: Schema.Array(Tool)
  }).annotations({ identifier: "ListToolsResult" })

  const CallToolRequestParams = Schema.Struct({
    ...RequestParams.fields,
    name: Schema.String,
    arguments: Schema.optional(JsonObject),
    ...taskField
  }).annotations({ identifier: "CallToolRequestParams" })

  const CallToolResult = Schema.Struct({
    ...metaField,
    content: Schema.Array(ContentBlock),
    structuredContent: Schema.optional(JsonValue),
    isError: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "CallToolResult" })

  const ToolListChangedNotificationParams = NotificationParams

  return {
    anyKeyword,
    ToolAnnotations,
    ToolExecution,
    objectSchemaFields,
    ToolInputSchema,
    ToolOutputSchema,
    toolFields,
    Tool,
    ListToolsRequestParams,
    ListToolsResult,
    CallToolRequestParams,
    CallToolResult,
    ToolListChangedNotificationParams
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Tool.ts` of the current revisions, built on the first call. */
export const tool = (): ReturnType<typeof make> => built ??= make()

const makeLegacy = () => {
  const { anyKeyword, objectSchemaFields, toolFields } = tool()

  const ToolOutputSchema20250618 = Schema.Struct(objectSchemaFields, anyKeyword).annotations({
    identifier: "ToolOutputSchema20250618"
  })

  const Tool20250618 = Schema.Struct({
    ...toolFields,
    outputSchema: since(Schema.optional(ToolOutputSchema20250618), "2025-06-18")
  }).annotations({ identifier: "Tool20250618" })

  const ListToolsResult20250618 = Schema.Struct({
    ...paginatedResultFields,
    tools: Schema.Array(Tool20250618)
  }).annotations({ identifier: "ListToolsResult20250618" })

  const CallToolResult20250618 = Schema.Struct({
    ...metaField,
    content: Schema.Array(ContentBlock),
    structuredContent: Schema.optional(JsonObject),
    isError: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "CallToolResult20250618" })

  const CallToolResult20250326 = Schema.Struct({
    ...metaField,
    content: Schema.Array(ContentBlock20250326),
    isError: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "CallToolResult20250326" })

  const CallToolResult20241105 = Schema.Struct({
    ...metaField,
    content: Schema.Array(ContentBlock20241105),
    isError: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "CallToolResult20241105" })

  return {
    ToolOutputSchema20250618,
    Tool20250618,
    ListToolsResult20250618,
    CallToolResult20250618,
    CallToolResult20250326,
    CallToolResult20241105
  }
}

let builtLegacy: ReturnType<typeof makeLegacy> | undefined

/** The dated schemas of `Schema/Tool.ts` (2024-11-05 to 2025-06-18), built on the first call. */
export const toolLegacy = (): ReturnType<typeof makeLegacy> => builtLegacy ??= makeLegacy()
