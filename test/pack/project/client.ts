import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { Effect, Layer } from "effect"

const Client = McpClient.layer({ clientInfo: { name: "me", version: "1.0.0" } }).pipe(
  Layer.provide(NodeMcpClient.layerStdio({ command: "node", args: ["dist/server.js"] }))
)

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools
  const result = yield* client.callTool(tools[0]!.name, { a: 20, b: 22 })
  return { era: client.era, tools: tools.map((t) => t.name), structuredContent: result.structuredContent }
})

Effect.runPromise(program.pipe(Effect.provide(Client), Effect.scoped)).then((out) => console.log(JSON.stringify(out)))
