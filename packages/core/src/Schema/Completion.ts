/**
 * Argument completion (`completion/complete`) for prompts and resource templates.
 * One shape serves every revision: `title` on `PromptReference` and `context` on the
 * params (both 2025-06-18) are optional additions; `ResourceReference` (until 2025-03-26)
 * was renamed `ResourceTemplateReference` with the same wire shape.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { baseMetadataFields, metaField, RequestParams, UriTemplate } from "./Base.js"

/**
 * A reference to a prompt.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptReference = Schema.Struct({
  type: Schema.Literal("ref/prompt"),
  ...baseMetadataFields
}).annotations({ identifier: "PromptReference" })

/**
 * @since 0.1.0
 * @category models
 */
export type PromptReference = typeof PromptReference.Type

/**
 * A reference to a resource template (its URI template).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTemplateReference = Schema.Struct({
  type: Schema.Literal("ref/resource"),
  uri: UriTemplate
}).annotations({ identifier: "ResourceTemplateReference" })

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceTemplateReference = typeof ResourceTemplateReference.Type

/**
 * The 2024-11-05 and 2025-03-26 name of {@link ResourceTemplateReference} (same wire shape).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceReference = ResourceTemplateReference

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceReference = ResourceTemplateReference

/**
 * Params of `completion/complete`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CompleteRequestParams = Schema.Struct({
  ...RequestParams.fields,
  ref: Schema.Union(PromptReference, ResourceTemplateReference),
  argument: Schema.Struct({ name: Schema.String, value: Schema.String }),
  /** 2025-06-18+: arguments already resolved. */
  context: Schema.optional(Schema.Struct({
    arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
  }))
}).annotations({ identifier: "CompleteRequestParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type CompleteRequestParams = typeof CompleteRequestParams.Type

/**
 * Result of `completion/complete`: at most 100 values.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CompleteResult = Schema.Struct({
  ...metaField,
  completion: Schema.Struct({
    values: Schema.Array(Schema.String).pipe(Schema.maxItems(100)),
    total: Schema.optional(Schema.Int),
    hasMore: Schema.optional(Schema.Boolean)
  })
}).annotations({ identifier: "CompleteResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type CompleteResult = typeof CompleteResult.Type
