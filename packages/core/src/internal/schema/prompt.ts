/**
 * The schemas of `Schema/Prompt.ts`, built when first asked for (`prompt()`), not when the module is
 * evaluated: a server that serves no prompts never builds them (`Schema/Prompt.ts` re-exports them,
 * built on its import).
 */
import * as Schema from "effect/Schema"
import {
  baseMetadataFields,
  definitionMetaField,
  iconsField,
  metaField,
  PaginatedRequestParams,
  paginatedResultFields,
  RequestParams,
  Role
} from "../../Schema/Base.js"
import { ContentBlock, ContentBlock20241105, ContentBlock20250326 } from "../../Schema/Content.js"

const make = () => {
  const PromptArgument = Schema.Struct({
    ...baseMetadataFields,
    description: Schema.optional(Schema.String),
    required: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "PromptArgument" })

  const Prompt = Schema.Struct({
    ...baseMetadataFields,
    description: Schema.optional(Schema.String),
    arguments: Schema.optional(Schema.Array(PromptArgument)),
    ...iconsField,
    ...definitionMetaField
  }).annotations({ identifier: "Prompt" })

  const PromptMessage = Schema.Struct({
    role: Role,
    content: ContentBlock
  }).annotations({ identifier: "PromptMessage" })

  const PromptMessage20250326 = Schema.Struct({
    role: Role,
    content: ContentBlock20250326
  }).annotations({ identifier: "PromptMessage20250326" })

  const PromptMessage20241105 = Schema.Struct({
    role: Role,
    content: ContentBlock20241105
  }).annotations({ identifier: "PromptMessage20241105" })

  const ListPromptsResult = Schema.Struct({
    ...paginatedResultFields,
    prompts: Schema.Array(Prompt)
  }).annotations({ identifier: "ListPromptsResult" })

  const GetPromptRequestParams = Schema.Struct({
    ...RequestParams.fields,
    name: Schema.String,
    arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
  }).annotations({ identifier: "GetPromptRequestParams" })

  const GetPromptResult = Schema.Struct({
    ...metaField,
    description: Schema.optional(Schema.String),
    messages: Schema.Array(PromptMessage)
  }).annotations({ identifier: "GetPromptResult" })

  const GetPromptResult20250326 = Schema.Struct({
    ...metaField,
    description: Schema.optional(Schema.String),
    messages: Schema.Array(PromptMessage20250326)
  }).annotations({ identifier: "GetPromptResult20250326" })

  const GetPromptResult20241105 = Schema.Struct({
    ...metaField,
    description: Schema.optional(Schema.String),
    messages: Schema.Array(PromptMessage20241105)
  }).annotations({ identifier: "GetPromptResult20241105" })

  return {
    PromptArgument,
    Prompt,
    PromptMessage,
    PromptMessage20250326,
    PromptMessage20241105,
    ListPromptsRequestParams: PaginatedRequestParams,
    ListPromptsResult,
    GetPromptRequestParams,
    GetPromptResult,
    GetPromptResult20250326,
    GetPromptResult20241105
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Prompt.ts`, built on the first call. */
export const prompt = (): ReturnType<typeof make> => built ??= make()
