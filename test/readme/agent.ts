import { McpClient } from "@effect-mcp/client"
import * as AiSampling from "@effect-mcp/client/AiSampling"
import * as McpToolkit from "@effect-mcp/client/McpToolkit"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { LanguageModel, Prompt } from "@effect/ai"
import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { Config, Effect, Layer } from "effect"

// The model: an OpenAI-compatible endpoint (OPENAI_API_KEY, OPENAI_BASE_URL). Not strict: servers' schemas are theirs.
const Model = OpenAiLanguageModel.layer({ model: "gpt-4.1-mini", config: { strict: false } }).pipe(
  Layer.provide(OpenAiClient.layerConfig({
    apiKey: Config.redacted("OPENAI_API_KEY"),
    apiUrl: Config.withDefault(Config.string("OPENAI_BASE_URL"), "https://api.openai.com/v1")
  })),
  Layer.provide(FetchHttpClient.layer)
)

// A server over stdio, whose sampling requests the same model answers.
const Client = (server: string) =>
  McpClient.layer({ clientInfo: { name: "agent", version: "1.0.0" }, handlers: { sampling: AiSampling.handler() } })
    .pipe(Layer.provide(NodeMcpClient.layerStdio({ command: "node", args: [server, "stdio"] })))

// Turns of the model with the server's tools until it answers without calling one.
export const agent = (server: string, question: string) =>
  Effect.gen(function*() {
    const tools = yield* McpToolkit.make(yield* McpClient.McpClient)
    let prompt = Prompt.make(question)
    while (true) {
      const response = yield* LanguageModel.generateText({ prompt, toolkit: tools.toolkit })
      prompt = Prompt.merge(prompt, Prompt.fromResponseParts(response.content))
      if (response.toolCalls.length === 0) return response.text
    }
  }).pipe(Effect.scoped, Effect.provide(Layer.provideMerge(Client(server), Model)))
