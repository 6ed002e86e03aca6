// In a Worker, import each module by its path: a bundler then keeps only what the Worker uses, and
// every byte it keeps is parsed when an isolate starts (the `effect` and `@effect-mcp/server` indexes
// keep every function of each module named: here 200 KB more, a quarter more of the cold start).
import * as StatelessServer from "@effect-mcp/server/StatelessServer"
import * as Tool from "@effect-mcp/server/Tool"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const Add = Tool.make("add", {
  description: "Add two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number })
}, ({ a, b }) => Effect.succeed(String(a + b)))

// A Worker keeps no process between requests: the stateless revision only, and `StatelessServer`
// serves nothing else (what it does not name, the handshake era, authorization, tasks, is not in
// the bundle). The server is built once per isolate, its Config read from the Worker's bindings.
export default StatelessServer.toWorkerHandler(
  StatelessServer.layer({
    serverInfo: { name: "adder", version: "1.0.0" },
    requestStateKey: Config.redacted("MCP_REQUEST_STATE_KEY"),
    tools: [Add]
  }),
  (env) => ({ allowedHosts: ["localhost", "127.0.0.1", String(env.MCP_HOST ?? "adder.example.workers.dev")] })
)
