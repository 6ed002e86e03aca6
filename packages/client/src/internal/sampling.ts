/**
 * A server's sampling request answered by an `@effect/ai` LanguageModel: the request as a prompt (and
 * a toolkit of its tools, never run here), the model's answer as a `CreateMessageResult`.
 */
import { McpError, type Schema as McpSchema } from "@effect-mcp/core"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as AiToolkit from "@effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import type { Options, Settings } from "../AiSampling.js"
import * as toolkit from "./toolkit.js"

type Block = McpSchema.Sampling.SamplingMessageContentBlock

const blocksOf = (content: Block | ReadonlyArray<Block>): ReadonlyArray<Block> =>
  Array.isArray(content) ? content : [content as Block]

const toolResultText = (block: McpSchema.Sampling.ToolResultContent): unknown =>
  block.structuredContent ??
    block.content.map((c) => c.type === "text" ? c.text : JSON.stringify(c)).join("\n")

/** The request's messages as a prompt (a tool result named after the call it answers). */
const promptOf = (params: McpSchema.Sampling.CreateMessageRequestParams): Prompt.Prompt => {
  const messages: Array<Prompt.MessageEncoded> = []
  const names = new Map<string, string>()
  if (params.systemPrompt !== undefined) messages.push({ role: "system", content: params.systemPrompt })
  for (const message of params.messages) {
    const blocks = blocksOf(message.content)
    const results: Array<Prompt.ToolResultPartEncoded> = []
    const parts: Array<Prompt.AssistantMessagePartEncoded> = []
    for (const block of blocks) {
      switch (block.type) {
        case "text":
          parts.push({ type: "text", text: block.text })
          break
        case "image":
        case "audio":
          // Bytes: a provider takes a string as a file id, and bytes as the data (base64 again on the wire).
          parts.push({
            type: "file",
            mediaType: block.mimeType,
            data: Either.getOrThrow(Encoding.decodeBase64(block.data))
          })
          break
        case "tool_use":
          names.set(block.id, block.name)
          parts.push({
            type: "tool-call",
            id: block.id,
            name: block.name,
            params: block.input,
            providerExecuted: false
          })
          break
        case "tool_result":
          results.push({
            type: "tool-result",
            id: block.toolUseId,
            name: names.get(block.toolUseId) ?? "",
            isFailure: block.isError === true,
            result: toolResultText(block),
            providerExecuted: false
          })
          break
      }
    }
    if (results.length > 0) messages.push({ role: "tool", content: results })
    if (parts.length > 0) {
      messages.push(
        message.role === "assistant"
          ? { role: "assistant", content: parts }
          : { role: "user", content: parts as Array<Prompt.UserMessagePartEncoded> }
      )
    }
  }
  return Prompt.make(messages)
}

/** The request's tools, for the model to call and the server to run (no handler runs them here). */
const toolkitOf = (
  tools: ReadonlyArray<McpSchema.Tool.Tool>
): AiToolkit.WithHandler<Record<string, any>> => {
  const record: Record<string, any> = {}
  for (const tool of tools) record[tool.name] = toolkit.aiTool(tool.name, tool, "sampling")
  return { tools: record, handle: () => Effect.dieMessage("sampling tools are run by the server") }
}

const stopReasons: Record<string, string> = {
  "stop": "endTurn",
  "length": "maxTokens",
  "tool-calls": "toolUse",
  "content-filter": "contentFilter"
}

/** A refusal as the server reads it: code -1, as the spec's user refusals. */
const refusal = (message: string) => new McpError.RpcError({ code: -1, message })

export const handler = <R = never>(options: Options<R> = {}) =>
(
  params: McpSchema.Sampling.CreateMessageRequestParams
): Effect.Effect<McpSchema.Sampling.CreateMessageResult, McpError.McpError, LanguageModel.LanguageModel | R> =>
  Effect.gen(function*() {
    if (options.maxTokens !== undefined && params.maxTokens > options.maxTokens) {
      return yield* refusal(`maxTokens ${params.maxTokens} is over this client's budget of ${options.maxTokens}`)
    }
    const model = typeof options.model === "function"
      ? options.model(params.modelPreferences)
      : options.model ?? "language-model"
    const settings: Settings = {
      model,
      maxTokens: params.maxTokens,
      temperature: params.temperature,
      stopSequences: params.stopSequences,
      modelPreferences: params.modelPreferences
    }
    const tools = params.tools ?? []
    const mode = params.toolChoice?.mode
    const prompt = yield* Effect.try({
      try: () => promptOf(params),
      catch: () => new McpError.InvalidParams({ message: "An image or audio block's data is not base64" })
    })
    const generate = LanguageModel.generateText({
      prompt,
      ...(tools.length > 0 && mode !== "none"
        ? { toolkit: toolkitOf(tools), toolChoice: mode ?? "auto", disableToolCallResolution: true as const }
        : {})
    })
    const response = yield* (options.configure === undefined ? generate : generate.pipe(options.configure(settings)))
      .pipe(Effect.mapError((error) => refusal(`The model failed: ${error.message}`)))
    const content: Array<Block> = []
    for (const part of response.content) {
      if (part.type === "text" && part.text !== "") content.push({ type: "text", text: part.text })
      if (part.type === "tool-call") {
        content.push({ type: "tool_use", id: part.id, name: part.name, input: part.params as Record<string, unknown> })
      }
    }
    return {
      role: "assistant" as const,
      model,
      content: content.length === 1 ? content[0]! : content,
      stopReason: stopReasons[response.finishReason] ?? response.finishReason
    }
  })
