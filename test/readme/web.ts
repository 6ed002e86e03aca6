import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"
import { Config, Effect, Schema } from "effect"

const Add = Tool.make("add", {
  description: "Add two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number })
}, ({ a, b }) => Effect.succeed(String(a + b)))

// Built by the first request, then shared by every later one: one server per process, both eras.
const { handler } = HttpTransport.toWebHandler(
  McpServer.layer({
    serverInfo: { name: "adder", version: "1.0.0" },
    // Seals 2026-07-28 requestState: give every instance the same key.
    requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
    tools: [Add]
  })
)

// `bun run web.ts` and `deno serve --allow-env web.ts` serve a module's default `fetch`.
export default { fetch: handler }
