import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { McpServer } from "@effect-mcp/server"
import { Effect, Layer } from "effect"
import { Server } from "./greet.js"

// The test kit: the server and a client of it in one process (over stdio or HTTP, provide
// NodeMcpClient.layerStdio or McpClientTransport.layerHttp instead).
export const Client = McpClient.layer({ clientInfo: { name: "me", version: "1.0.0" } }).pipe(
  Layer.provide(McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(Server))))
)

export const greeting = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const result = yield* client.callTool("greet", { name: "Ada" })
  return result.structuredContent
})
