/**
 * A server's sampling requests answered by an `@effect/ai` `LanguageModel`: the client's
 * `handlers.sampling` in one line, `AiSampling.handler()`, with the model provided to the client.
 *
 * - `messages` (text, images and audio as files, `tool_use` and `tool_result` blocks) and the
 *   `systemPrompt` become the prompt; the request's `tools` (2025-11-25 and later) the toolkit the
 *   model may call, never run here: a call comes back as `tool_use` blocks with
 *   `stopReason: "toolUse"`, for the server to run; `toolChoice` carries over.
 * - `maxTokens`, `temperature`, `stopSequences` and the model chosen from `modelPreferences` are
 *   handed to `configure`, which applies them to your provider (`OpenAiLanguageModel.withConfigOverride`
 *   and the like): which model answers is yours to decide.
 * - A request asking for more than `maxTokens` tokens is refused with an MCP error (code -1, as
 *   the spec's user refusals), and so is a model's failure.
 *
 * Requires the optional peer dependency `@effect/ai` (0.37); import it from
 * `@effect-mcp/client/AiSampling`.
 *
 * @since 0.1.0
 */
import type { McpError, Schema as McpSchema } from "@effect-mcp/core"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Effect from "effect/Effect"
import * as internal from "./internal/sampling.js"

/**
 * What one request asks of the model, for `configure` to apply.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  /** The model chosen (`options.model`). */
  readonly model: string
  readonly maxTokens: number
  readonly temperature?: number | undefined
  readonly stopSequences?: ReadonlyArray<string> | undefined
  readonly modelPreferences?: McpSchema.Sampling.ModelPreferences | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> {
  /**
   * The model answering, named in the result: a name, or a choice from the request's
   * preferences (default `"language-model"`).
   */
  readonly model?: string | ((preferences: McpSchema.Sampling.ModelPreferences | undefined) => string)
  /** Applies a request's settings to the model's run (default: the model's own configuration). */
  readonly configure?: (
    settings: Settings
  ) => <A, E, R2>(self: Effect.Effect<A, E, R2>) => Effect.Effect<A, E, R2 | R>
  /** The most tokens one request may ask for (`maxTokens`); a request over it is refused. */
  readonly maxTokens?: number
}

/**
 * A sampling handler answering with the `LanguageModel` in context.
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import * as AiSampling from "@effect-mcp/client/AiSampling"
 *
 * const options: McpClient.Options<any> = {
 *   clientInfo: { name: "agent", version: "1.0.0" },
 *   handlers: { sampling: AiSampling.handler({ maxTokens: 4096 }) }
 * }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const handler: <R = never>(
  options?: Options<R>
) => (
  params: McpSchema.Sampling.CreateMessageRequestParams
) => Effect.Effect<McpSchema.Sampling.CreateMessageResult, McpError.McpError, LanguageModel.LanguageModel | R> =
  internal.handler
