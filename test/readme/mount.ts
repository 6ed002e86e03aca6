import { McpServer, Mount, Resource, Tool } from "@effect-mcp/server"
import { Effect, Schema } from "effect"
import { Greet } from "./greet.js"

const Forecast = Tool.make("forecast", {
  parameters: Schema.Struct({ city: Schema.String })
}, ({ city }) => Effect.succeed(`sunny in ${city}`))

const Today = Resource.make("weather://today", { mimeType: "text/plain" }, Effect.succeed("sunny"))

// Tools greet_greet and weather_forecast; the resource weather+weather://today.
export const Assistant = Mount.layer({
  serverInfo: { name: "assistant", version: "1.0.0" },
  parts: [
    { prefix: "greet", tools: [Greet] },
    { prefix: "weather", tools: [Forecast], resources: [Today] }
  ]
})

// A part that changes while it runs does so through its view of the whole server: the whole's
// clients hear of it as of any change.
export const addRadar = Effect.flatMap(
  McpServer.McpServer,
  (server) => Mount.under(server, "weather").addTool(Tool.make("radar", {}, () => Effect.succeed("clear")))
)
