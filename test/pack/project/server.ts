import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Tool } from "@effect-mcp/server"
import { Effect, Schema } from "effect"

const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const Server = McpServer.layer({ serverInfo: { name: "adder", version: "1.0.0" }, tools: [Add] })

NodeMcpServer.runMain(NodeMcpServer.serveStdio.pipe(Effect.provide(Server)))
