import { HttpTransport, McpServer, Revision, Tool } from "@effect-mcp/server"
import { Config, Effect, Schema } from "effect"

const Add = Tool.make("add", {
  description: "Add two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number })
}, ({ a, b }) => Effect.succeed(String(a + b)))

// A Worker keeps no process between requests: the stateless revision only. The server is built
// once per isolate, its Config read from the Worker's bindings (vars and secrets).
export default HttpTransport.toWorkerHandler(
  McpServer.layer({
    serverInfo: { name: "adder", version: "1.0.0" },
    revisions: Revision.stateless,
    requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
    tools: [Add]
  }),
  (env) => ({ allowedHosts: ["localhost", "127.0.0.1", String(env.MCP_HOST ?? "adder.example.workers.dev")] })
)
