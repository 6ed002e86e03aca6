import { McpServer, Tool } from "@effect-mcp/server"
import { Effect, Schema } from "effect"

class GreetFailed extends Schema.TaggedError<GreetFailed>()("GreetFailed", { reason: Schema.String }) {}

export const Greet = Tool.make("greet", {
  description: "Say hello",
  parameters: Schema.Struct({ name: Schema.String }), // -> inputSchema (JSON Schema 2020-12)
  success: Schema.Struct({ greeting: Schema.String }), // -> outputSchema + structuredContent
  failure: GreetFailed, // a typed failure -> an isError result
  annotations: { readOnlyHint: true }
}, ({ name }) =>
  name.length === 0
    ? Effect.fail(new GreetFailed({ reason: "who should I greet?" }))
    : Effect.succeed({ greeting: `hello ${name}` }))

export const Server = McpServer.layer({ serverInfo: { name: "demo", version: "1.0.0" }, tools: [Greet] })
