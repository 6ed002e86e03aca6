/**
 * Completions for prompt arguments and resource template variables.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"

/**
 * Suggests values for one argument or variable: the value typed so far, and the
 * arguments already resolved (`context.arguments`, 2025-06-18+).
 *
 * @since 0.1.0
 * @category models
 */
export type Completer<R = never> = (
  value: string,
  context: Readonly<Record<string, string>>
) => Effect.Effect<ReadonlyArray<string>, never, R>

/**
 * The most values a completion result carries.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxValues = 100

/**
 * Caps suggestions at {@link maxValues}, with `total` and `hasMore`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const result = (values: ReadonlyArray<string>) => ({
  completion: {
    values: values.slice(0, maxValues),
    total: values.length,
    hasMore: values.length > maxValues
  }
})
