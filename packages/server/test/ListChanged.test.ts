import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as McpServer from "../src/McpServer.js"
import * as Prompt from "../src/Prompt.js"
import * as Resource from "../src/Resource.js"
import * as Tool from "../src/Tool.js"
import { attach, connect, flush } from "./utils/TestClient.js"

const serverInfo = { name: "live-server", version: "1.0.0" }

const named = (name: string) => Tool.make(name, {}, () => Effect.succeed(name))
const prompt = (name: string) => Prompt.make(name, {}, () => Effect.succeed(name))
const resource = (uri: string) => Resource.make(uri, {}, Effect.succeed(uri))

const options = {
  serverInfo,
  tools: [named("echo")],
  prompts: [prompt("hello")],
  resources: [resource("test://a")]
}

const toolsChanged = { jsonrpc: "2.0", method: "notifications/tools/list_changed" }

describe("Live edits: list_changed", () => {
  it.scoped("a burst of tool edits: exactly one notifications/tools/list_changed", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* client.initialize("2025-06-18")
      yield* client.server.addTool(named("added-1"))
      yield* client.server.addTool(named("added-2"))
      assert.isTrue(yield* client.server.removeTool("echo"))
      yield* flush
      const notification = yield* client.next
      assert.deepStrictEqual(notification, toolsChanged)
      assert.isUndefined(validate("2025-06-18", "ToolListChangedNotification", notification))
      yield* client.quiet
      yield* flush
      yield* client.quiet
      const { tools } = yield* client.result("tools/list")
      assert.deepStrictEqual(tools.map((t: any) => t.name), ["added-1", "added-2"])
      const call = yield* client.result("tools/call", { name: "added-2" })
      assert.deepStrictEqual(call.content, [{ type: "text", text: "added-2" }])
      assert.strictEqual((yield* client.error("tools/call", { name: "echo" })).code, -32602)
    }))

  it.scoped("edits in two windows: two notifications", () =>
    Effect.gen(function*() {
      const client = yield* connect({ ...options, listChangedWindow: "1 second" })
      yield* client.initialize("2025-11-25")
      yield* client.server.addTool(named("one"))
      yield* TestClock.adjust("500 millis")
      yield* client.server.addTool(named("two"))
      yield* TestClock.adjust("600 millis")
      assert.deepStrictEqual(yield* client.next, toolsChanged)
      yield* client.quiet
      yield* client.server.addTool(named("three"))
      yield* TestClock.adjust("1100 millis")
      assert.deepStrictEqual(yield* client.next, toolsChanged)
      yield* TestClock.adjust("5 seconds")
      yield* client.quiet
    }))

  it.scoped("prompts and resources: one notification of each kind for a mixed burst", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* client.initialize("2025-03-26")
      yield* client.server.addPrompt(prompt("bye"))
      yield* client.server.addResource(resource("test://b"))
      yield* client.server.addResource(
        Resource.template("test://t/{x}", { name: "t" }, (v) => Effect.succeed(String(v.x)))
      )
      assert.isTrue(yield* client.server.removeResource("test://a"))
      assert.isTrue(yield* client.server.removePrompt("hello"))
      yield* flush
      const methods = [(yield* client.next).method, (yield* client.next).method].sort()
      assert.deepStrictEqual(methods, ["notifications/prompts/list_changed", "notifications/resources/list_changed"])
      yield* client.quiet
      assert.deepStrictEqual((yield* client.result("prompts/list")).prompts.map((p: any) => p.name), ["bye"])
      assert.deepStrictEqual((yield* client.result("resources/list")).resources.map((r: any) => r.uri), ["test://b"])
      const templates = yield* client.result("resources/templates/list")
      assert.deepStrictEqual(templates.resourceTemplates.map((t: any) => t.uriTemplate), ["test://t/{x}"])
      assert.deepStrictEqual((yield* client.result("resources/read", { uri: "test://t/7" })).contents[0].text, "7")
      // Removing a template by its URI template.
      assert.isTrue(yield* client.server.removeResource("test://t/{x}"))
      yield* flush
      assert.strictEqual((yield* client.next).method, "notifications/resources/list_changed")
      assert.strictEqual((yield* client.error("resources/read", { uri: "test://t/7" })).code, -32002)
    }))

  it.scoped("removing what is not there changes nothing and notifies nobody", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* client.initialize("2025-11-25")
      assert.isFalse(yield* client.server.removeTool("nope"))
      assert.isFalse(yield* client.server.removePrompt("nope"))
      assert.isFalse(yield* client.server.removeResource("test://nope"))
      yield* flush
      yield* client.quiet
    }))

  it.scoped("none before the client is initialized", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* client.quiet
      yield* client.server.addTool(named("early"))
      yield* flush
      yield* client.quiet
      yield* client.initializeOnly("2025-06-18")
      yield* client.server.addTool(named("still-early"))
      yield* client.server.addPrompt(prompt("early"))
      yield* flush
      yield* client.quiet
      yield* client.notify("notifications/initialized")
      yield* flush
      yield* client.quiet
      // The client lists after initialization anyway, and sees every edit.
      const { tools } = yield* client.result("tools/list")
      assert.deepStrictEqual(tools.map((t: any) => t.name), ["early", "echo", "still-early"])
      yield* client.server.removeTool("early")
      yield* flush
      assert.deepStrictEqual(yield* client.next, toolsChanged)
    }))

  it.scoped("every initialized session is told", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const a = yield* attach(server)
      const b = yield* attach(server)
      const c = yield* attach(server)
      yield* a.initialize("2024-11-05")
      yield* b.initialize("2025-11-25")
      yield* c.initializeOnly("2025-11-25")
      yield* server.addTool(named("shared"))
      yield* flush
      assert.deepStrictEqual(yield* a.next, toolsChanged)
      assert.deepStrictEqual(yield* b.next, toolsChanged)
      yield* c.quiet
    }))

  it.scoped("a kind whose capability was not declared gets no notification; declared up front it does", () =>
    Effect.gen(function*() {
      const undeclared = yield* connect({ serverInfo, tools: [named("echo")] })
      const init = yield* undeclared.initialize("2025-11-25")
      assert.isUndefined(init.capabilities.prompts)
      yield* undeclared.server.addPrompt(prompt("late"))
      yield* flush
      yield* undeclared.quiet

      const declared = yield* connect({ serverInfo, capabilities: { prompts: true } })
      const declaredInit = yield* declared.initialize("2025-11-25")
      assert.deepStrictEqual(declaredInit.capabilities.prompts, { listChanged: true })
      assert.deepStrictEqual((yield* declared.result("prompts/list")).prompts, [])
      yield* declared.server.addPrompt(prompt("late"))
      yield* flush
      assert.deepStrictEqual(yield* declared.next, { jsonrpc: "2.0", method: "notifications/prompts/list_changed" })
      assert.deepStrictEqual((yield* declared.result("prompts/list")).prompts.map((p: any) => p.name), ["late"])
    }))

  it.scoped("a tool added later gets its requirements from where it is added", () =>
    Effect.gen(function*() {
      class Greeting extends Context.Tag("test/Greeting")<Greeting, string>() {}
      const Greet = Tool.make("greet", {}, () => Effect.map(Greeting, (greeting) => `${greeting}, world`))
      const client = yield* connect(options)
      yield* client.initialize("2025-11-25")
      yield* client.server.addTool(Greet).pipe(Effect.provideService(Greeting, "hej"))
      yield* flush
      assert.deepStrictEqual(yield* client.next, toolsChanged)
      const result = yield* client.result("tools/call", { name: "greet" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "hej, world" }])
    }))
})
