/**
 * Mounting (`Mount`), at the wire: one server of two parts, each under its prefix: names
 * `prefix_name`, URIs and templates `prefix+uri` (read back to the part's own), a view's link, the
 * links of results and completions; collisions refused when it is built, in one line; a part's
 * changes through its view (`Mount.under`) heard by the whole's clients.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Mount from "../src/Mount.js"
import * as Prompt from "../src/Prompt.js"
import * as Resource from "../src/Resource.js"
import * as Tool from "../src/Tool.js"
import { attach, flush } from "./utils/TestClient.js"

const serverInfo = { name: "whole", version: "1.0.0" }

const Forecast = Tool.make(
  "forecast",
  { parameters: Schema.Struct({ city: Schema.String }) },
  ({ city }) => Effect.succeed(`sunny in ${city}`)
)
const Link = Tool.make(
  "link",
  {},
  () =>
    Effect.succeed([
      { type: "resource_link" as const, uri: "weather://today", name: "today" },
      { type: "resource_link" as const, uri: "https://example.com/", name: "elsewhere" }
    ])
)
const Brief = Prompt.make(
  "brief",
  { arguments: Schema.Struct({ city: Schema.String }) },
  ({ city }) => Effect.succeed(`brief for ${city}`)
)
const Today = Resource.make("weather://today", { mimeType: "text/plain" }, Effect.succeed("rain"))
const City = Resource.template("weather://city/{name}", {
  name: "city",
  complete: { name: (value) => Effect.succeed(["paris", "perth"].filter((c) => c.startsWith(value))) }
}, (variables) => Effect.succeed(`weather of ${variables.name}`))
const Add = Tool.make(
  "add",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(`noted: ${text}`)
)
const Note = Resource.make("notes://1", {}, Effect.succeed("first"))

const parts = [
  { prefix: "weather", tools: [Forecast, Link], prompts: [Brief], resources: [Today, City] },
  { prefix: "notes", tools: [Add], resources: [Note] }
] as const

describe("Mount", () => {
  it.scoped("two parts under their prefixes, at the wire", () =>
    Effect.gen(function*() {
      const client = yield* attach(yield* Mount.make({ serverInfo, parts }))
      yield* client.initialize("2025-11-25")
      const { tools } = yield* client.result("tools/list")
      assert.deepStrictEqual(tools.map((t: any) => t.name), ["notes_add", "weather_forecast", "weather_link"])
      const forecast = yield* client.result("tools/call", { name: "weather_forecast", arguments: { city: "Oslo" } })
      assert.deepStrictEqual(forecast.content, [{ type: "text", text: "sunny in Oslo" }])
      const noted = yield* client.result("tools/call", { name: "notes_add", arguments: { text: "hi" } })
      assert.deepStrictEqual(noted.content, [{ type: "text", text: "noted: hi" }])
      // A link to the part's own resource names the whole's URI; a link elsewhere is left as it is.
      const linked = yield* client.result("tools/call", { name: "weather_link" })
      assert.deepStrictEqual(linked.content.map((c: any) => c.uri), ["weather+weather://today", "https://example.com/"])
      assert.strictEqual((yield* client.error("tools/call", { name: "forecast" })).code, -32602)

      const { resources } = yield* client.result("resources/list")
      assert.sameMembers(resources.map((r: any) => r.uri), ["weather+weather://today", "notes+notes://1"])
      const { resourceTemplates } = yield* client.result("resources/templates/list")
      assert.deepStrictEqual(resourceTemplates.map((t: any) => t.uriTemplate), ["weather+weather://city/{name}"])
      const today = yield* client.result("resources/read", { uri: "weather+weather://today" })
      assert.deepStrictEqual(today.contents, [{ uri: "weather+weather://today", mimeType: "text/plain", text: "rain" }])
      const paris = yield* client.result("resources/read", { uri: "weather+weather://city/paris" })
      assert.deepStrictEqual(paris.contents.map((c: any) => [c.uri, c.text]), [[
        "weather+weather://city/paris",
        "weather of paris"
      ]])
      // The part's own URI is not the whole's.
      assert.strictEqual((yield* client.error("resources/read", { uri: "weather://today" })).code, -32002)
      const completed = yield* client.result("completion/complete", {
        ref: { type: "ref/resource", uri: "weather+weather://city/{name}" },
        argument: { name: "name", value: "pa" }
      })
      assert.deepStrictEqual(completed.completion.values, ["paris"])

      const { prompts } = yield* client.result("prompts/list")
      assert.deepStrictEqual(prompts.map((p: any) => p.name), ["weather_brief"])
      const brief = yield* client.result("prompts/get", { name: "weather_brief", arguments: { city: "Rome" } })
      assert.strictEqual(brief.messages[0].content.text, "brief for Rome")
    }))

  it("URIs are mounted reversibly, views keep their scheme", () => {
    for (const uri of ["demo://resource/dynamic/text/1", "file:///etc/hostname", "git+https://x/y", "ui://board"]) {
      const mounted = Mount.mountUri("fs", uri)
      assert.strictEqual(Mount.unmountUri("fs", mounted), uri)
      assert.isUndefined(Mount.unmountUri("f", mounted))
    }
    assert.strictEqual(Mount.mountUri("apps", "ui://board"), "ui://apps/board")
    assert.strictEqual(Mount.mountName("fs", "read_file"), "fs_read_file")
  })

  it.scoped("a part's view links its tool to its own view under the prefix", () =>
    Effect.gen(function*() {
      const Board = Resource.make("ui://board", { mimeType: "text/html;profile=mcp-app" }, Effect.succeed("<p>"))
      const Show = Tool.make("show", { _meta: { ui: { resourceUri: "ui://board" } } }, () => Effect.succeed("ok"))
      const client = yield* attach(
        yield* Mount.make({ serverInfo, parts: [{ prefix: "apps", tools: [Show], resources: [Board] }] })
      )
      yield* client.initialize("2025-11-25", {
        extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } }
      })
      const { tools } = yield* client.result("tools/list")
      assert.deepStrictEqual(tools[0]._meta.ui.resourceUri, "ui://apps/board")
      const { resources } = yield* client.result("resources/list")
      assert.deepStrictEqual(resources.map((r: any) => r.uri), ["ui://apps/board"])
    }))

  for (
    const [what, bad, line] of [
      [
        "a repeated prefix",
        [{ prefix: "weather", tools: [Forecast] }, { prefix: "weather", tools: [Add] }],
        "Mount: prefix \"weather\" is given twice"
      ],
      [
        "a prefix that is not one",
        [{ prefix: "my_tools", tools: [Forecast] }],
        "Mount: prefix \"my_tools\" is not a letter followed by letters, digits, '-' or '.'"
      ],
      [
        "two entries of a part under one name",
        [{ prefix: "weather", tools: [Forecast, Forecast] }],
        "Mount: tool \"weather_forecast\" of part \"weather\" collides with part \"weather\"'s"
      ]
    ] as const
  ) {
    it.scoped(`${what}: refused when it is built, in one line`, () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(Mount.make({ serverInfo, parts: bad }))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) {
          const defect = Cause.dieOption(exit.cause)
          assert.isTrue(Option.isSome(defect))
          assert.strictEqual((defect as Option.Some<Error>).value.message, line)
        }
      }))
  }

  it.scoped("a part's changes through its view reach the whole's clients", () =>
    Effect.gen(function*() {
      const whole = yield* Mount.make({ serverInfo, parts })
      const client = yield* attach(whole)
      yield* client.initialize("2025-11-25", {})
      yield* client.result("resources/subscribe", { uri: "weather+weather://today" })
      const weather = Mount.under(whole, "weather")
      yield* weather.addTool(Tool.make("radar", {}, () => Effect.succeed("clear")))
      yield* flush
      assert.deepStrictEqual(yield* client.next, { jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      const radar = yield* client.result("tools/call", { name: "weather_radar" })
      assert.deepStrictEqual(radar.content, [{ type: "text", text: "clear" }])
      assert.isTrue(yield* weather.removeTool("forecast"))
      yield* weather.resourceUpdated("weather://today")
      yield* flush
      const heard = [yield* client.next, yield* client.next]
      assert.sameDeepMembers(heard, [
        { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
        { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "weather+weather://today" } }
      ])
      const { tools } = yield* client.result("tools/list")
      assert.deepStrictEqual(tools.map((t: any) => t.name), ["notes_add", "weather_link", "weather_radar"])
    }))

  it.scoped("a part's update through its view: many entries added and removed in one change, under the prefix", () =>
    Effect.gen(function*() {
      const whole = yield* Mount.make({ serverInfo, parts })
      const client = yield* attach(whole)
      yield* client.initialize("2025-11-25", {})
      const weather = Mount.under(whole, "weather")
      yield* weather.update({
        tools: ["radar", "wind", "rain"].map((name) => Tool.make(name, {}, () => Effect.succeed(name))),
        removeTools: ["forecast"],
        resources: [Resource.make("weather://tomorrow", { mimeType: "text/plain" }, Effect.succeed("rain"))]
      })
      yield* flush
      const heard = [yield* client.next, yield* client.next]
      assert.sameDeepMembers(heard, [
        { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
        { jsonrpc: "2.0", method: "notifications/resources/list_changed" }
      ])
      const { tools } = yield* client.result("tools/list")
      assert.deepStrictEqual(
        tools.map((t: any) => t.name).sort(),
        ["notes_add", "weather_link", "weather_radar", "weather_rain", "weather_wind"]
      )
      const wind = yield* client.result("tools/call", { name: "weather_wind" })
      assert.deepStrictEqual(wind.content, [{ type: "text", text: "wind" }])
      const read = yield* client.result("resources/read", { uri: "weather+weather://tomorrow" })
      assert.strictEqual(read.contents[0].text, "rain")
    }))

  it.scoped("a part's view rewrites the links of what it adds to its own resources", () =>
    Effect.gen(function*() {
      const whole = yield* Mount.make({ serverInfo, parts })
      const client = yield* attach(whole)
      yield* client.initialize("2025-11-25", {})
      yield* Mount.under(whole, "weather", (uri) => uri.startsWith("weather://")).addTool(
        Tool.make("pointer", {}, () =>
          Effect.succeed([{ type: "resource_link" as const, uri: "weather://today", name: "today" }]))
      )
      const result = yield* client.result("tools/call", { name: "weather_pointer" })
      assert.deepStrictEqual(result.content, [
        { type: "resource_link", uri: "weather+weather://today", name: "today" }
      ])
    }))
})
