/**
 * `mcp agent`: an OpenAI-compatible model (`@effect/ai-openai`; `OPENAI_BASE_URL`, `OPENAI_API_KEY`)
 * given the tools of one or more servers (`McpToolkit`), their sampling answered by the same model
 * (`AiSampling`): turns of the model until it answers without calling a tool. Each call and its
 * outcome go to stderr, the answer to stdout. Loaded only when the command runs (the provider is
 * large).
 *
 * @since 0.1.0
 */
import { McpClient } from "@effect-mcp/client"
import * as AiSampling from "@effect-mcp/client/AiSampling"
import * as McpToolkit from "@effect-mcp/client/McpToolkit"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Target from "./Target.js"

/**
 * What `mcp agent` is given.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly prompt: string
  readonly targets: ReadonlyArray<string>
  /** `--model`, else `OPENAI_MODEL`. */
  readonly model: string | undefined
  readonly era: McpClient.EraChoice
  /** Seconds one request to a server may take. */
  readonly timeout: number
  /** The most turns of the model. */
  readonly maxTurns: number
  /** The most tokens a server's sampling request may ask for (more is refused); its own ask is the model's bound. */
  readonly maxSamplingTokens: number
  readonly auth: Target.Auth
}

const line = (text: string) => Effect.sync(() => process.stderr.write(`${text}\n`))

const short = (value: unknown, max = 200) => {
  const text = (typeof value === "string" ? value : JSON.stringify(value) ?? "").replace(/\s+/g, " ")
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/**
 * A model's failure in one line: the provider's own may run over several, and an answer that does not
 * decode (a call of a tool that is not offered) names every part it expected.
 */
const modelFailed = (error: AiError.AiError) =>
  new Error(
    error._tag === "MalformedOutput"
      ? `the model's answer could not be read (${error.description ?? "a call of a tool not offered?"})`
      : `the model failed: ${short(error.message.split("\n")[0], 300)}`
  )

/**
 * Runs the agent: the answer on stdout.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Options): Effect.Effect<void, Error> =>
  Effect.gen(function*() {
    const model = options.model ?? process.env.OPENAI_MODEL
    if (model === undefined || model === "") {
      return yield* Effect.fail(new Error("no model: give --model or set OPENAI_MODEL"))
    }
    if (options.timeout < 1) return yield* Effect.fail(new Error(`--timeout is in whole seconds, at least 1`))
    if (options.maxSamplingTokens < 1) return yield* Effect.fail(new Error(`--max-sampling-tokens is at least 1`))
    const key = process.env.OPENAI_API_KEY
    const Model = OpenAiLanguageModel.layer({ model, config: { strict: false } }).pipe(
      Layer.provide(OpenAiClient.layer({
        apiUrl: process.env.OPENAI_BASE_URL || "https://api.openai.com/v1",
        ...(key !== undefined && key !== "" ? { apiKey: Redacted.make(key) } : {})
      })),
      Layer.provide(FetchHttpClient.layer)
    )
    const language = yield* Layer.build(Model)
    const clients = yield* Effect.forEach(options.targets, (target) =>
      Effect.gen(function*() {
        const transport = yield* Either.match(Target.transport(target, options.auth), {
          onLeft: Effect.fail,
          onRight: Effect.succeed
        })
        const context = yield* Layer.build(
          McpClient.layer({
            clientInfo: { name: "mcp agent", version: "0.1.0" },
            era: options.era,
            timeout: Duration.seconds(options.timeout),
            handlers: {
              sampling: AiSampling.handler({
                model,
                maxTokens: options.maxSamplingTokens,
                configure: (settings) =>
                  OpenAiLanguageModel.withConfigOverride({ max_output_tokens: settings.maxTokens })
              })
            }
          }).pipe(Layer.provide(transport), Layer.provide(Layer.succeedContext(language)))
        )
        return Context.get(context, McpClient.McpClient)
      }))
    const tools = yield* McpToolkit.make(clients)
    let prompt = Prompt.make(options.prompt)
    for (let turn = 0; turn < options.maxTurns; turn++) {
      const response = yield* LanguageModel.generateText({ prompt, toolkit: tools.toolkit }).pipe(
        Effect.provide(language),
        Effect.mapError(modelFailed)
      )
      prompt = Prompt.merge(prompt, Prompt.fromResponseParts(response.content))
      for (const call of response.toolCalls) yield* line(`→ ${call.name} ${short(call.params)}`)
      for (const result of response.toolResults) {
        yield* line(`${result.isFailure ? "✗" : "←"} ${result.name} ${short(result.result)}`)
      }
      if (response.toolCalls.length === 0) {
        return yield* Effect.sync(() => process.stdout.write(`${response.text}\n`))
      }
    }
    return yield* Effect.fail(new Error(`no answer after ${options.maxTurns} turns (--max-turns)`))
  }).pipe(Effect.scoped)
