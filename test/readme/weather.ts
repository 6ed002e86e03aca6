import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer } from "@effect-mcp/server"
import * as AiToolkit from "@effect-mcp/server/AiToolkit"
import { Tool as AiTool, Toolkit } from "@effect/ai"
import { Effect, Layer, Schema } from "effect"

// An @effect/ai tool: an LLM calls it through LanguageModel, MCP clients through the server.
const GetWeather = AiTool.make("GetWeather", {
  description: "The weather in a city",
  parameters: { city: Schema.String },
  success: Schema.Struct({ celsius: Schema.Number })
}).annotate(AiTool.Readonly, true)

export const Weather = Toolkit.make(GetWeather)

const WeatherHandlers = Weather.toLayer({ GetWeather: () => Effect.succeed({ celsius: 21 }) })

// The toolkit's tools registered on a server, answered by the toolkit's own handlers.
export const WeatherServer = AiToolkit.layer(Weather).pipe(
  Layer.provideMerge(McpServer.layer({ serverInfo: { name: "weather", version: "1.0.0" } })),
  Layer.provide(WeatherHandlers)
)

export const Live = NodeMcpServer.layerHttp({ port: 3000 }).pipe(Layer.provide(WeatherServer))
