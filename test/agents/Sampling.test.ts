/**
 * `AiSampling.handler`: the demo's sampling tools (a handshake server's `sampling/createMessage`,
 * a 2026-07-28 input request) answered through `@effect/ai-openai`'s LanguageModel on a scripted
 * endpoint, with the request's settings applied by `configure`; a request over the budget
 * refused as an MCP error; tool use in sampling (2025-11-25) with an image, the model's calls
 * returned as `tool_use` blocks and the server's results fed back.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as AiSampling from "@effect-mcp/client/AiSampling"
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import * as ScriptedModel from "@effect-mcp/test-support/ScriptedModel"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { type Era, openAi, stdioClient } from "./support.js"

const textOf = (result: McpClient.RequestResult<"tools/call">) =>
  result.content.map((block) => block.type === "text" ? block.text : "").join("")

/** The request's settings on the OpenAI provider: the model chosen, the token limit, the temperature. */
const sampling = (options: AiSampling.Options = {}) =>
  AiSampling.handler({
    model: (preferences) => preferences?.hints?.[0]?.name ?? "gpt-scripted",
    configure: (settings) =>
      OpenAiLanguageModel.withConfigOverride({
        model: settings.model,
        max_output_tokens: settings.maxTokens,
        ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {})
      }),
    ...options
  })

const demoTool = { handshake: "test_sampling", stateless: "test_input_required_result_sampling" } as const

describe("AiSampling: the demo's sampling answered by a LanguageModel", () => {
  for (const era of ["handshake", "stateless"] as const satisfies ReadonlyArray<Era>) {
    it.scopedLive(`${era}: ${demoTool[era]} gets the model's answer`, () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel.make([ScriptedModel.openAi.text("Paris")])
        const client = yield* Layer.build(
          stdioClient(era, { sampling: sampling() }).pipe(
            Layer.provide(openAi(model.url))
          )
        ).pipe(Effect.map(Context.get(McpClient.McpClient)))
        const result = yield* client.callTool(demoTool[era], { prompt: "What is the capital of France?" })
        assert.strictEqual(textOf(result), "LLM response: Paris")
        assert.strictEqual(model.received.length, 1)
        const sent = model.received[0]!.body
        assert.strictEqual(sent.max_output_tokens, 100)
        assert.strictEqual(sent.model, "gpt-scripted")
        assert.match(JSON.stringify(sent.input), /capital of France/)
      }), 60_000)

    it.scopedLive(`${era}: a request over the budget is refused, the model never asked`, () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel.make([ScriptedModel.openAi.text("Paris")])
        const client = yield* Layer.build(
          stdioClient(era, { sampling: sampling({ maxTokens: 50 }) }).pipe(
            Layer.provide(openAi(model.url))
          )
        ).pipe(Effect.map(Context.get(McpClient.McpClient)))
        const outcome = yield* Effect.either(client.callTool(demoTool[era], { prompt: "Capital?" }))
        // The demo answers a refused ask with an isError result (handshake) or the ask's error (2026-07-28).
        const said = outcome._tag === "Right" ? textOf(outcome.right) : outcome.left.message
        assert.include(said, "maxTokens 100 is over this client's budget of 50")
        assert.strictEqual(model.received.length, 0)
      }), 60_000)
  }
})

describe("AiSampling: tool use in sampling (2025-11-25)", () => {
  const Weather = {
    name: "weather",
    description: "The weather in a city",
    inputSchema: {
      type: "object" as const,
      properties: { city: { type: "string" } },
      required: ["city"]
    }
  }
  const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" }
  // A server whose tool samples with a tool, runs the model's call itself, and samples again with the result.
  const Ask = Tool.make(
    "ask",
    { description: "Samples with the tool weather", failure: Schema.String },
    () =>
      Effect.gen(function*() {
        const first = yield* McpRequest.sample("first", {
          messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris? Here is a map." }, image] }],
          maxTokens: 200,
          tools: [Weather],
          toolChoice: { mode: "auto" }
        })
        const calls = (Array.isArray(first.content) ? first.content : [first.content]).filter((b) =>
          b.type === "tool_use"
        )
        const second = yield* McpRequest.sample("second", {
          messages: [
            { role: "user", content: { type: "text", text: "Weather in Paris?" } },
            { role: "assistant", content: calls },
            {
              role: "user",
              content: calls.map((call) => ({
                type: "tool_result" as const,
                toolUseId: call.type === "tool_use" ? call.id : "",
                content: [{ type: "text" as const, text: "sunny" }]
              }))
            }
          ],
          maxTokens: 200,
          tools: [Weather]
        })
        return `${first.stopReason} ${JSON.stringify(calls)} then ${second.stopReason}: ${
          JSON.stringify(second.content)
        }`
      }).pipe(Effect.mapError((error) => error.message))
  )

  it.scopedLive(
    "the model's calls come back as tool_use blocks; the results are fed back to it",
    () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel.make([
          ScriptedModel.openAi.calls({ name: "weather", arguments: { city: "Paris" } }),
          ScriptedModel.openAi.text("It is sunny in Paris.")
        ])
        const client = yield* Layer.build(
          McpClient.layer({
            clientInfo: { name: "agent-test", version: "1.0.0" },
            era: "handshake",
            capabilities: { sampling: { tools: {} } },
            handlers: { sampling: sampling() }
          }).pipe(
            Layer.provide(McpClientTransport.layerMemory((protocol) =>
              McpServer.serve(protocol).pipe(
                Effect.provide(McpServer.layer({ serverInfo: { name: "asker", version: "1.0.0" }, tools: [Ask] }))
              )
            )),
            Layer.provide(openAi(model.url))
          )
        ).pipe(Effect.map(Context.get(McpClient.McpClient)))
        const result = yield* client.callTool("ask", {})
        assert.strictEqual(
          textOf(result),
          "toolUse [{\"type\":\"tool_use\",\"id\":\"call_0_weather\",\"name\":\"weather\",\"input\":{\"city\":\"Paris\"}}]" +
            " then endTurn: {\"type\":\"text\",\"text\":\"It is sunny in Paris.\"}"
        )
        // The provider was given the tool's inputSchema, the image, and then the call's result.
        const [first, second] = model.received.map((r) => r.body)
        assert.deepStrictEqual(first.tools.map((t: any) => [t.name, t.parameters]), [["weather", Weather.inputSchema]])
        assert.match(
          JSON.stringify(first.input),
          /"type":"input_image","image_url":"data:image\/png;base64,iVBORw0KGgo="/
        )
        const output = second.input.find((item: any) => item.type === "function_call_output")
        assert.deepStrictEqual([output.call_id, JSON.parse(output.output)], ["call_0_weather", "sunny"])
      }),
    60_000
  )
})
