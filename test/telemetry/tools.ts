/**
 * Tools the telemetry tests share: `broken` (a tool error) and `ask` (an elicitation, answered by
 * the client's handler: `hello <name>`).
 */
import { McpRequest, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const Broken = Tool.make("broken", { failure: Schema.String }, () => Effect.fail("the disk is full"))

export const Ask = Tool.make("ask", { failure: Schema.String }, () =>
  Effect.map(
    McpRequest.elicit("name", {
      mode: "form",
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } }
    }).pipe(Effect.mapError((e) => e.message)),
    (answer) => `hello ${answer.content?.name}`
  ))
