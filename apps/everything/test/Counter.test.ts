/**
 * The demo's MCP Apps view at the wire, both eras: to a client that renders views, `ui://everything/counter`
 * is listed and read (a dependency-free HTML document that initializes the Apps bridge and calls the
 * app-only `counter_increment`), `show_counter` links to it and `counter_increment` is listed for the app;
 * to a client without the extension, neither the view nor `counter_increment` is listed, and `show_counter`
 * answers with text. What the server sends validates against the official schema of its revision and its
 * `_meta.ui` against the Apps schema of ext-apps. The page's own script, run against a bare stand-in for the
 * DOM, speaks the bridge as the Apps schema says (the real browser and the official AppBridge are the host's
 * tests).
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as vm from "node:vm"
import * as Counter from "../src/Counter.js"
import { connect, meta, open } from "./utils/Session.js"

const UI = "io.modelcontextprotocol/ui"
const MIME = "text/html;profile=mcp-app"
const apps = { extensions: { [UI]: { mimeTypes: [MIME] } } }

const valid = (set: Parameters<typeof validate>[0], name: string, value: unknown) => {
  assert.isUndefined(validate(set, name, value), `${name}: ${JSON.stringify(value).slice(0, 500)}`)
  return value as any
}

/** What a client that renders views sees: the view listed and read, the two tools linked. */
const checkWithApps = (set: "2025-11-25" | "2026-07-28", tools: any, resources: any, read: any) => {
  valid(set, "ListToolsResult", tools)
  valid(set, "ListResourcesResult", resources)
  valid(set, "ReadResourceResult", read)
  const show = tools.tools.find((t: any) => t.name === "show_counter")
  const increment = tools.tools.find((t: any) => t.name === "counter_increment")
  assert.deepStrictEqual(show._meta.ui, { resourceUri: Counter.viewUri })
  assert.deepStrictEqual(increment._meta.ui, { resourceUri: Counter.viewUri, visibility: ["app"] })
  valid("ext-apps", "McpUiToolMeta", show._meta.ui)
  valid("ext-apps", "McpUiToolMeta", increment._meta.ui)
  const view = resources.resources.find((r: any) => r.uri === Counter.viewUri)
  assert.deepStrictEqual([view.name, view.title, view.mimeType, view._meta], [
    "counter",
    "Counter",
    MIME,
    { ui: { prefersBorder: true } }
  ])
  const [content] = read.contents
  assert.deepStrictEqual([content.uri, content.mimeType], [Counter.viewUri, MIME])
  valid("ext-apps", "McpUiResourceMeta", content._meta.ui)
  // The page speaks the bridge itself and calls the app-only tool; it loads nothing from anywhere.
  assert.match(content.text, /^<!doctype html>/)
  for (const part of ["\"ui/initialize\"", "\"ui/notifications/initialized\"", "\"counter_increment\""]) {
    assert.include(content.text, part)
  }
  assert.notMatch(content.text, /<script[^>]+src=|<link[^>]+href=|https?:\/\//)
}

describe("the demo's view", () => {
  it.scopedLive("2025-11-25: listed and read for a client that renders views; the app-only tool answers", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", apps)
      assert.deepStrictEqual(session.initialize.capabilities.extensions?.[UI], {})
      checkWithApps(
        "2025-11-25",
        yield* session.result("tools/list"),
        yield* session.result("resources/list"),
        yield* session.result("resources/read", { uri: Counter.viewUri })
      )
      const shown = valid(
        "2025-11-25",
        "CallToolResult",
        yield* session.result("tools/call", { name: "show_counter", arguments: { start: 4 } })
      )
      assert.deepStrictEqual(shown.structuredContent, { count: 4 })
      const incremented = yield* session.result("tools/call", {
        name: "counter_increment",
        arguments: { count: 4, by: 1 }
      })
      assert.deepStrictEqual(incremented, {
        content: [{ type: "text", text: "The counter is 5" }],
        structuredContent: { count: 5 }
      })
    }))

  it.scopedLive("2025-11-25: a client without the extension sees neither the view nor the app-only tool", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", {})
      const { tools } = yield* session.result("tools/list")
      const names = tools.map((t: any) => t.name)
      assert.include(names, "show_counter")
      assert.notInclude(names, "counter_increment")
      assert.isUndefined(tools.find((t: any) => t.name === "show_counter")._meta)
      const { resources } = yield* session.result("resources/list")
      assert.notInclude(resources.map((r: any) => r.uri), Counter.viewUri)
      const shown = yield* session.result("tools/call", { name: "show_counter", arguments: {} })
      assert.deepStrictEqual(shown.content, [{ type: "text", text: "The counter is 0" }])
    }))

  it.scopedLive("2026-07-28: per request, the same as in a session", () =>
    Effect.gen(function*() {
      const session = yield* connect()
      const p = (params: Record<string, unknown>, capabilities: Record<string, unknown>) => ({
        ...params,
        _meta: meta(capabilities)
      })
      checkWithApps(
        "2026-07-28",
        yield* session.result("tools/list", p({}, apps)),
        yield* session.result("resources/list", p({}, apps)),
        yield* session.result("resources/read", p({ uri: Counter.viewUri }, apps))
      )
      const plain = yield* session.result("tools/list", p({}, {}))
      assert.notInclude(plain.tools.map((t: any) => t.name), "counter_increment")
      const listed = yield* session.result("resources/list", p({}, {}))
      assert.notInclude(listed.resources.map((r: any) => r.uri), Counter.viewUri)
    }))
})

describe("the demo view's script, against a stand-in for its host", () => {
  /** Runs the page's script with a fake DOM; what it posts to its parent, and a way to post to it. */
  const run = () => {
    const script = Counter.html.split("<script>")[1].split("</script>")[0]
    const elements: Record<string, any> = {}
    const element = (id: string) =>
      elements[id] ??= {
        textContent: "",
        disabled: id === "increment",
        listeners: {} as Record<string, () => void>,
        addEventListener(type: string, f: () => void) {
          this.listeners[type] = f
        }
      }
    const sent: Array<any> = []
    const listeners: Array<(event: unknown) => void> = []
    const parent = { postMessage: (message: unknown) => sent.push(structuredClone(message)) }
    vm.runInNewContext(script, {
      window: { parent, addEventListener: (_: string, f: (event: unknown) => void) => listeners.push(f) },
      document: { getElementById: element, body: {}, documentElement: { scrollWidth: 320, scrollHeight: 120 } },
      ResizeObserver: class {
        constructor(readonly f: () => void) {}
        observe() {
          this.f()
        }
      }
    })
    const deliver = (data: unknown) => listeners.forEach((f) => f({ source: parent, data }))
    return { sent, deliver, element }
  }
  /** Waits for the page to have done something (its promise continuations: microtasks, no timer). */
  const until = (done: () => boolean) =>
    Effect.promise(async () => {
      for (let turn = 0; turn < 1_000 && !done(); turn++) await Promise.resolve()
    })
  const bridge = (name: string, message: any) => {
    const { id: _id, jsonrpc, ...rest } = message
    assert.strictEqual(jsonrpc, "2.0")
    return valid("ext-apps", name, rest)
  }

  it.effect("initializes, shows the tool's input and result, calls the app-only tool, answers teardown", () =>
    Effect.gen(function*() {
      const { deliver, element, sent } = run()
      const initialize = bridge("McpUiInitializeRequest", sent[0])
      assert.strictEqual(initialize.params.protocolVersion, "2026-01-26")
      deliver({
        jsonrpc: "2.0",
        id: sent[0].id,
        result: { protocolVersion: "2026-01-26", hostInfo: { name: "h", version: "1" }, hostCapabilities: {} }
      })
      yield* until(() => sent.length >= 3)
      bridge("McpUiInitializedNotification", sent[1])
      bridge("McpUiSizeChangedNotification", sent[2])
      assert.deepStrictEqual([element("status").textContent, element("increment").disabled], ["ready", false])

      deliver({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { start: 4 } } })
      deliver({
        jsonrpc: "2.0",
        method: "ui/notifications/tool-result",
        params: { content: [{ type: "text", text: "The counter is 4" }], structuredContent: { count: 4 } }
      })
      assert.deepStrictEqual([element("input").textContent, element("count").textContent], ["{\"start\":4}", "4"])

      element("increment").listeners.click()
      const call = sent.at(-1)
      assert.deepStrictEqual(call.params, { name: "counter_increment", arguments: { count: 4, by: 1 } })
      deliver({ jsonrpc: "2.0", id: call.id, result: { content: [], structuredContent: { count: 5 } } })
      yield* until(() => element("status").textContent === "ready" && element("count").textContent === "5")
      assert.deepStrictEqual([element("count").textContent, element("status").textContent], ["5", "ready"])

      deliver({ jsonrpc: "2.0", id: "t", method: "ui/resource-teardown", params: {} })
      assert.deepStrictEqual(sent.at(-1), { jsonrpc: "2.0", id: "t", result: {} })
    }))
})
