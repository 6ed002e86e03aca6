/**
 * Prompts: listing (`prompts/list`) and getting (`prompts/get`).
 *
 * A prompt message holds one content block, and the union grew: `text | image | resource`
 * in 2024-11-05 ({@link PromptMessage20241105}), `+ audio` in 2025-03-26
 * ({@link PromptMessage20250326}), `+ resource_link` from 2025-06-18 on ({@link PromptMessage}).
 *
 * @since 0.1.0
 */
import { prompt } from "../internal/schema/prompt.js"
import { NotificationParams, PaginatedRequestParams } from "./Base.js"
import { type ContentBlock, text } from "./Content.js"

const built = prompt()

/**
 * An argument a prompt accepts.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptArgument = built.PromptArgument

/**
 * @since 0.1.0
 * @category models
 */
export type PromptArgument = typeof PromptArgument.Type

/**
 * A prompt or prompt template the server offers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Prompt = built.Prompt

/**
 * @since 0.1.0
 * @category models
 */
export type Prompt = typeof Prompt.Type

/**
 * A message of a prompt (2025-06-18+: any content block).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptMessage = built.PromptMessage

/**
 * @since 0.1.0
 * @category models
 */
export type PromptMessage = typeof PromptMessage.Type

/**
 * A message of a prompt in 2025-03-26: text, image, audio or embedded resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptMessage20250326 = built.PromptMessage20250326

/**
 * @since 0.1.0
 * @category models
 */
export type PromptMessage20250326 = typeof PromptMessage20250326.Type

/**
 * A message of a prompt in 2024-11-05: text, image or embedded resource.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptMessage20241105 = built.PromptMessage20241105

/**
 * @since 0.1.0
 * @category models
 */
export type PromptMessage20241105 = typeof PromptMessage20241105.Type

/**
 * Params of `prompts/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListPromptsRequestParams = PaginatedRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ListPromptsRequestParams = typeof ListPromptsRequestParams.Type

/**
 * Result of `prompts/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListPromptsResult = built.ListPromptsResult

/**
 * @since 0.1.0
 * @category models
 */
export type ListPromptsResult = typeof ListPromptsResult.Type

/**
 * Params of `prompts/get`: the prompt's name and its string arguments.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptRequestParams = built.GetPromptRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type GetPromptRequestParams = typeof GetPromptRequestParams.Type

/**
 * Result of `prompts/get` (2025-06-18+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptResult = built.GetPromptResult

/**
 * @since 0.1.0
 * @category models
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * Result of `prompts/get` in 2025-03-26.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptResult20250326 = built.GetPromptResult20250326

/**
 * @since 0.1.0
 * @category models
 */
export type GetPromptResult20250326 = typeof GetPromptResult20250326.Type

/**
 * Result of `prompts/get` in 2024-11-05.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptResult20241105 = built.GetPromptResult20241105

/**
 * @since 0.1.0
 * @category models
 */
export type GetPromptResult20241105 = typeof GetPromptResult20241105.Type

/**
 * Params of `notifications/prompts/list_changed`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PromptListChangedNotificationParams = NotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type PromptListChangedNotificationParams = typeof PromptListChangedNotificationParams.Type

const toContent = (content: ContentBlock | string): ContentBlock =>
  typeof content === "string" ? text(content) : content

/**
 * A user message; a string is shorthand for a text block.
 *
 * @since 0.1.0
 * @category constructors
 */
export const userMessage = (content: ContentBlock | string): PromptMessage => ({
  role: "user",
  content: toContent(content)
})

/**
 * An assistant message; a string is shorthand for a text block.
 *
 * @since 0.1.0
 * @category constructors
 */
export const assistantMessage = (content: ContentBlock | string): PromptMessage => ({
  role: "assistant",
  content: toContent(content)
})
