/**
 * A Worker that is a client of another MCP server (the workerd test's fixture): each request runs
 * our client over Streamable HTTP against the binding `TARGET`, 2026-07-28: list, call, a
 * multi-round trip (its elicitation answered here), and answers what it saw as JSON.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const client = (url: string) =>
  McpClient.layer({
    clientInfo: { name: "worker-client", version: "1.0.0" },
    era: "stateless",
    handlers: {
      elicitation: () =>
        Effect.succeed({ action: "accept" as const, content: { username: "ada", email: "ada@example.com" } })
    }
  }).pipe(Layer.provide(McpClientTransport.layerHttp({ url })), Layer.provide(FetchHttpClient.layer))

export default {
  fetch: (_request: Request, env: { readonly TARGET: string }): Promise<Response> =>
    Effect.runPromise(
      Effect.gen(function*() {
        const mcp = yield* McpClient.McpClient
        const tools = (yield* mcp.listTools).map((tool) => tool.name)
        const simple = yield* mcp.callTool("test_simple_text")
        const asked = yield* mcp.callTool("test_elicitation", { message: "Who are you?" })
        return Response.json({ era: mcp.era, tools, simple: simple.content, asked: asked.content })
      }).pipe(Effect.provide(client(env.TARGET)), Effect.scoped)
    ).catch((error) => new Response(String(error), { status: 500 }))
}
