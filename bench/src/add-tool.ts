/**
 * The `add` tool of `apps/everything` (a, b → structured `{ sum }`), alone in its module: a Worker
 * that imports it (`web-stateless.ts`) keeps nothing else (`ours-add.ts` builds a server at its top
 * level, which a bundle keeps with every module it reaches).
 */
import * as Tool from "@effect-mcp/server/Tool"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}, ({ a, b }) => Effect.succeed({ sum: a + b }))
