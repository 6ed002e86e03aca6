/**
 * The schemas of `Schema/Completion.ts`, built when first asked for (`completion()`), not when the
 * module is evaluated: a server that completes no arguments never builds them (`Schema/Completion.ts`
 * re-exports them, built on its import).
 */
import * as Schema from "effect/Schema"
import { baseMetadataFields, metaField, RequestParams, UriTemplate } from "../../Schema/Base.js"

const make = () => {
  const PromptReference = Schema.Struct({
    type: Schema.Literal("ref/prompt"),
    ...baseMetadataFields
  }).annotations({ identifier: "PromptReference" })

  const ResourceTemplateReference = Schema.Struct({
    type: Schema.Literal("ref/resource"),
    uri: UriTemplate
  }).annotations({ identifier: "ResourceTemplateReference" })

  const CompleteRequestParams = Schema.Struct({
    ...RequestParams.fields,
    ref: Schema.Union(PromptReference, ResourceTemplateReference),
    argument: Schema.Struct({ name: Schema.String, value: Schema.String }),
    /** 2025-06-18+: arguments already resolved. */
    context: Schema.optional(Schema.Struct({
      arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
    }))
  }).annotations({ identifier: "CompleteRequestParams" })

  const CompleteResult = Schema.Struct({
    ...metaField,
    completion: Schema.Struct({
      values: Schema.Array(Schema.String).pipe(Schema.maxItems(100)),
      total: Schema.optional(Schema.Int),
      hasMore: Schema.optional(Schema.Boolean)
    })
  }).annotations({ identifier: "CompleteResult" })

  return { PromptReference, ResourceTemplateReference, CompleteRequestParams, CompleteResult }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Completion.ts`, built on the first call. */
export const completion = (): ReturnType<typeof make> => built ??= make()
