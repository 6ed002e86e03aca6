import { McpAuth, McpClient, McpClientTransport } from "@effect-mcp/client"
import { NodeMcpClient, NodeOAuth, NodeTokenStore } from "@effect-mcp/platform-node"
import { Layer } from "effect"

export const Client = McpClient.layer({ clientInfo: { name: "me", version: "1.0.0" } }).pipe(
  Layer.provide(McpClientTransport.layerHttp({ url: "https://mcp.example.com/mcp" })),
  Layer.provide(McpAuth.layer({ clientName: "my agent" })),
  Layer.provide(NodeMcpClient.layerHttpClient),
  Layer.provide(NodeTokenStore.layerFile()), // ~/.config/effect-mcp/tokens.json, 0600
  Layer.provide(NodeOAuth.layerLoopback({ openBrowser: true })) // the redirect back, to 127.0.0.1
)
