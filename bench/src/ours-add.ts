/**
 * The `add` tool of `apps/everything` (a, b → structured `{ sum }`) and an effect-mcp server
 * with only that tool: what the benchmarks' own servers of ours serve, like the SDK's servers
 * here serve only `add`.
 */
import { McpServer, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

export const Server = McpServer.layer({ serverInfo: { name: "bench-add", version: "1.0.0" }, tools: [Add] })
