/**
 * Argument completion (`completion/complete`) for prompts and resource templates.
 * One shape serves every revision: `title` on `PromptReference` and `context` on the
 * params (both 2025-06-18) are optional additions; `ResourceReference` (until 2025-03-26)
 * was renamed `ResourceTemplateReference` with the same wire shape.
 *
 * @since 0.1.0
 */
import { completion } from "../internal/schema/completion.js"

const built = completion()

/**
 * A reference to a prompt.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptReference = built.PromptReference

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
export const ResourceTemplateReference = built.ResourceTemplateReference

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
export const CompleteRequestParams = built.CompleteRequestParams

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
export const CompleteResult = built.CompleteResult

/**
 * @since 0.1.0
 * @category models
 */
export type CompleteResult = typeof CompleteResult.Type
