import { NodeMcpServer } from "@effect-mcp/platform-node"
import { RedisState } from "@effect-mcp/redis"
import { McpServer, Tool } from "@effect-mcp/server"
import { Config, Effect, Layer, Schema } from "effect"

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number })
}, ({ a, b }) => Effect.succeed(`${a + b}`))

const Server = McpServer.layer({
  serverInfo: { name: "calculator", version: "1.0.0" },
  tools: [Add],
  // One key on every instance: a 2026-07-28 multi-round trip's retry may land on any of them (with none,
  // each process seals with a random key of its own, and a retry that lands elsewhere is refused).
  requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY")
})

// Every instance runs this, on its own port, with the same Redis. The shared parts go under both
// the server (the bus, tasks) and its HTTP layer (sessions, the event store).
export const Instance = (port: number, redis: string) =>
  NodeMcpServer.layerHttp({ port }).pipe(
    Layer.provide(Server),
    Layer.provide(RedisState.layer({ url: redis }))
  )
