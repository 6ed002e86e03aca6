/**
 * What the agent tests share: the demo (apps/everything, built) over stdio or HTTP with our
 * client, the real provider packages pointed at a scripted endpoint, and an agent loop.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import type * as McpToolkit from "@effect-mcp/client/McpToolkit"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { Services } from "@effect-mcp/test-support"
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const everything = Programs.demoMain

/** `@effect/ai-openai`'s LanguageModel on the scripted endpoint (tools not in strict mode). */
export const openAi = (url: string) =>
  OpenAiLanguageModel.layer({ model: "gpt-scripted", config: { strict: false } }).pipe(
    Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-test"), apiUrl: url })),
    Layer.provide(FetchHttpClient.layer)
  )

/** `@effect/ai-anthropic`'s LanguageModel on the scripted endpoint. */
export const anthropic = (url: string) =>
  AnthropicLanguageModel.layer({ model: "claude-scripted" }).pipe(
    Layer.provide(AnthropicClient.layer({ apiKey: Redacted.make("sk-ant-test"), apiUrl: url })),
    Layer.provide(FetchHttpClient.layer)
  )

export type Era = "handshake" | "stateless"

/** Our client on the demo over stdio, in an era (the demo serves both: dual). */
export const stdioClient = <R = never>(era: Era, handlers: McpClient.Handlers<R> = {}) =>
  McpClient.layer<R>({ clientInfo: { name: "agent-test", version: "1.0.0" }, era, handlers }).pipe(
    Layer.provide(
      NodeMcpClient.layerStdio({ command: process.execPath, args: [everything, "stdio"], cwd: root, stderr: "ignore" })
    )
  )

/** The demo over HTTP on a free port, for the lifetime of the scope: its URL once it listens. */
export const everythingOverHttp = Effect.gen(function*() {
  const port = yield* Services.freePort
  const url = `http://127.0.0.1:${port}/mcp`
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, [everything, "http", "--port", String(port)], {
        cwd: root,
        stdio: ["ignore", "ignore", "pipe"]
      })
    ),
    (child) => Effect.sync(() => child.kill())
  )
  yield* Effect.async<void>((resume) => {
    child.stderr!.on("data", (chunk) => String(chunk).includes(url) && resume(Effect.void))
  })
  return url
})

/** Our client on the demo over Streamable HTTP, in an era. */
export const httpClient = <R = never>(url: string, era: Era, handlers: McpClient.Handlers<R> = {}) =>
  McpClient.layer<R>({ clientInfo: { name: "agent-test", version: "1.0.0" }, era, handlers }).pipe(
    Layer.provide(McpClientTransport.layerHttp({ url })),
    Layer.provide(FetchHttpClient.layer)
  )

/**
 * An agent: turns of the model with the toolkit, each turn's calls and results added to the
 * conversation, until a turn calls no tool.
 */
export const agent = (prompt: string, tools: McpToolkit.Service, turns = 6) =>
  Effect.gen(function*() {
    let history = Prompt.make(prompt)
    const results: Array<{ readonly name: string; readonly isFailure: boolean; readonly result: unknown }> = []
    for (let turn = 0; turn < turns; turn++) {
      const response = yield* LanguageModel.generateText({ prompt: history, toolkit: tools.toolkit })
      history = Prompt.merge(history, Prompt.fromResponseParts(response.content))
      for (const part of response.toolResults) {
        results.push({ name: part.name, isFailure: part.isFailure, result: part.result })
      }
      if (response.toolCalls.length === 0) return { text: response.text, results }
    }
    return yield* Effect.dieMessage("the agent did not finish")
  })
