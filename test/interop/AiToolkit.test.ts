/**
 * An `@effect/ai` 0.37 toolkit (`Tool.make` + `Toolkit.make` + `toolkit.toLayer(handlers)`)
 * served as MCP tools through `AiToolkit.layer`, called by the official SDK client
 * (`@modelcontextprotocol/client` 2.4.0) over Streamable HTTP: parameters, success and failure
 * schemas carry over (inputSchema, outputSchema + structuredContent, an isError result with the
 * encoded failure), with the description and annotations; invalid arguments are refused as any
 * tool's are.
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer } from "@effect-mcp/server"
import * as AiToolkit from "@effect-mcp/server/AiToolkit"
import { Services } from "@effect-mcp/test-support"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

class CityUnknown extends Schema.TaggedError<CityUnknown>()("CityUnknown", { city: Schema.String }) {}

const GetWeather = AiTool.make("GetWeather", {
  description: "The weather in a city",
  parameters: { city: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "The city" }) },
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Number }),
  failure: CityUnknown
}).annotate(AiTool.Readonly, true).annotate(AiTool.Title, "Weather")

const Forecast = AiTool.make("Forecast", {
  description: "Tomorrow's forecast (failures returned, not raised)",
  parameters: { city: Schema.String },
  success: Schema.String,
  failure: CityUnknown,
  failureMode: "return"
})

const Weather = Toolkit.make(GetWeather, Forecast)

/** A service the handlers need: the layer's requirements stay the user's. */
class Stations extends Context.Tag("Stations")<Stations, ReadonlyMap<string, number>>() {}

const WeatherHandlers = Weather.toLayer(Effect.gen(function*() {
  const stations = yield* Stations
  return {
    GetWeather: ({ city }) => {
      const celsius = stations.get(city)
      return celsius === undefined ? Effect.fail(new CityUnknown({ city })) : Effect.succeed({ city, celsius })
    },
    Forecast: ({ city }) =>
      stations.has(city) ? Effect.succeed(`sunny in ${city}`) : Effect.fail(new CityUnknown({ city }))
  }
}))

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

let runtime: ManagedRuntime.ManagedRuntime<never, unknown>
let url: URL

beforeAll(async () => {
  const port = await freePort()
  url = new URL(`http://127.0.0.1:${port}/mcp`)
  runtime = ManagedRuntime.make(
    Layer.mergeAll(NodeMcpServer.layerHttp({ port }), AiToolkit.layer(Weather)).pipe(
      Layer.provide(McpServer.layer({ serverInfo: { name: "weather", version: "1.0.0" } })),
      Layer.provide(WeatherHandlers),
      Layer.provide(Layer.succeed(Stations, new Map([["Paris", 21]])))
    )
  )
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
})

describe("an @effect/ai toolkit served over MCP, called by the official SDK client", () => {
  it("lists the toolkit's tools with their schemas, description and annotations", async () => {
    const client = new Client({ name: "sdk", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(url))
    try {
      const { tools } = await client.listTools()
      const weather = tools.find((t) => t.name === "GetWeather")!
      assert.strictEqual(weather.description, "The weather in a city")
      assert.deepStrictEqual(weather.annotations, { title: "Weather", readOnlyHint: true })
      assert.deepStrictEqual(weather.inputSchema, {
        type: "object",
        required: ["city"],
        properties: { city: { type: "string", minLength: 1, description: "The city" } },
        additionalProperties: false
      })
      assert.deepStrictEqual((weather.outputSchema as any).properties, {
        city: { type: "string" },
        celsius: { type: "number" }
      })
      assert.deepStrictEqual(tools.map((t) => t.name), ["Forecast", "GetWeather"])
    } finally {
      await client.close()
    }
  })

  it("calls them: success as structuredContent, failures (raised or returned) as isError results", async () => {
    const client = new Client({ name: "sdk", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(url))
    try {
      const paris = await client.callTool({ name: "GetWeather", arguments: { city: "Paris" } })
      assert.deepStrictEqual(paris.structuredContent, { city: "Paris", celsius: 21 })
      assert.isUndefined(paris.isError)

      // GetWeather publishes an outputSchema: the failure rides in _meta (structuredContent must fit the schema).
      const unknown = await client.callTool({ name: "GetWeather", arguments: { city: "Atlantis" } })
      assert.isTrue(unknown.isError)
      assert.isUndefined(unknown.structuredContent)
      assert.deepStrictEqual(unknown._meta?.["dev.effect-mcp/failure"], { city: "Atlantis", _tag: "CityUnknown" })
      assert.deepStrictEqual(unknown.content, [{
        type: "text",
        text: "{\"city\":\"Atlantis\",\"_tag\":\"CityUnknown\"}"
      }])

      const forecast = await client.callTool({ name: "Forecast", arguments: { city: "Paris" } })
      assert.deepStrictEqual(forecast.content, [{ type: "text", text: "sunny in Paris" }])
      const returned = await client.callTool({ name: "Forecast", arguments: { city: "Atlantis" } })
      assert.isTrue(returned.isError)
      assert.deepStrictEqual(returned._meta?.["dev.effect-mcp/failure"], { city: "Atlantis", _tag: "CityUnknown" })

      const invalid = await client.callTool({ name: "GetWeather", arguments: { city: "" } })
      assert.isTrue(invalid.isError)
      assert.deepStrictEqual(invalid.content, [{
        type: "text",
        text: "Invalid arguments for tool GetWeather: city: expected a string at least 1 character long, got \"\""
      }])
    } finally {
      await client.close()
    }
  })
})
