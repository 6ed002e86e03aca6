// A Worker of the packed server, bundled by the test as wrangler does (esbuild, the `workerd` and `worker`
// conditions) and its `fetch` called.
import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"
import { Effect, Schema } from "effect"

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

export default HttpTransport.toWorkerHandler(
  McpServer.layer({ serverInfo: { name: "worker", version: "1.0.0" }, tools: [Add], revisions: ["2026-07-28"] })
)
