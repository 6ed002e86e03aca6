/**
 * MCP Apps views at the wire, both eras (JSON text in, JSON text out): a view is listed and read with its
 * MIME type and `_meta.ui`, tools carry their link and visibility, and all of it only to a client that
 * declared `io.modelcontextprotocol/ui` with the MIME type (in `initialize`, or on the 2026-07-28 request);
 * a client without it sees no view, no link, no app-only tool (still callable). What the server sends
 * validates against its revision's official schema, and its `_meta.ui` against the Apps schema of ext-apps
 * (`McpUiToolMeta`, `McpUiResourceMeta`). A link to a view the server does not serve fails the build.
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { pipe } from "effect/Function"
import * as Schema from "effect/Schema"
import * as AppView from "../src/AppView.js"
import * as McpServer from "../src/McpServer.js"
import * as Resource from "../src/Resource.js"
import * as Tool from "../src/Tool.js"
import { connect, meta } from "./utils/TestClient.js"

const UI = "io.modelcontextprotocol/ui"
const MIME = "text/html;profile=mcp-app"
const withApps = { extensions: { [UI]: { mimeTypes: [MIME] } } }
const serverInfo = { name: "apps-test", version: "1.0.0" }

const html = "<!doctype html><html><head><title>counter</title></head><body><p id=n>0</p></body></html>"

const Counter = AppView.make("ui://apps-test/counter", {
  name: "counter",
  description: "A counter",
  csp: {
    connectDomains: ["https://api.example.com"],
    resourceDomains: ["https://cdn.example.com"],
    frameDomains: ["https://www.youtube.com"],
    baseUriDomains: ["https://cdn.example.com"]
  },
  permissions: { clipboardWrite: {}, camera: {} },
  domain: "a904794854a047f6.example-content.com",
  prefersBorder: true
}, html)

const Show = AppView.link(
  Tool.make("show_counter", { description: "Shows the counter" }, () => Effect.succeed("The counter is 0")),
  Counter
)

const Increment = pipe(
  Tool.make(
    "increment",
    { parameters: Schema.Struct({ by: Schema.Number }) },
    ({ by }) => Effect.succeed(`The counter is ${by}`)
  ),
  AppView.link(Counter, { visibility: ["app"] })
)

const ModelOnly = AppView.link(
  Tool.make("summary", { _meta: { "com.example/x": 1 } }, () => Effect.succeed("summary")),
  Counter,
  { visibility: ["model"] }
)

const Plain = Tool.make("plain", {}, () => Effect.succeed("plain"))
const Readme = Resource.make("file:///readme", { mimeType: "text/plain" }, Effect.succeed("hello"))

const options = {
  serverInfo,
  revisions: ["2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"] as const,
  tools: [Show, Increment, ModelOnly, Plain],
  resources: [Counter, Readme]
}

/** A server message valid against the set's definition. */
const valid = (set: Parameters<typeof validate>[0], definition: string, value: unknown) => {
  assert.isUndefined(validate(set, definition, value), JSON.stringify(value))
  return value as any
}

const byName = (tools: ReadonlyArray<any>) => Object.fromEntries(tools.map((t) => [t.name, t]))

/** What a client that renders views must see, checked against both schemas. */
const seenWithApps = (
  set: "2024-11-05" | "2025-06-18" | "2025-11-25" | "2026-07-28",
  tools: any,
  resources: any,
  read: any
) => {
  valid(set, "ListToolsResult", tools)
  valid(set, "ListResourcesResult", resources)
  valid(set, "ReadResourceResult", read)
  const listed = byName(tools.tools)
  assert.deepStrictEqual(Object.keys(listed).sort(), ["increment", "plain", "show_counter", "summary"])
  assert.deepStrictEqual(listed.show_counter._meta, {
    ui: { resourceUri: "ui://apps-test/counter" },
    "ui/resourceUri": "ui://apps-test/counter"
  })
  assert.deepStrictEqual(listed.increment._meta.ui, { resourceUri: "ui://apps-test/counter", visibility: ["app"] })
  assert.deepStrictEqual(listed.summary._meta, {
    "com.example/x": 1,
    ui: { resourceUri: "ui://apps-test/counter", visibility: ["model"] },
    "ui/resourceUri": "ui://apps-test/counter"
  })
  assert.isUndefined(listed.plain._meta)
  for (const tool of tools.tools) if (tool._meta?.ui) valid("ext-apps", "McpUiToolMeta", tool._meta.ui)

  const view = resources.resources.find((r: any) => r.uri === "ui://apps-test/counter")
  assert.strictEqual(view.mimeType, MIME)
  assert.strictEqual(view.name, "counter")
  valid("ext-apps", "McpUiResourceMeta", view._meta.ui)
  assert.deepStrictEqual(view._meta.ui, {
    csp: {
      connectDomains: ["https://api.example.com"],
      resourceDomains: ["https://cdn.example.com"],
      frameDomains: ["https://www.youtube.com"],
      baseUriDomains: ["https://cdn.example.com"]
    },
    permissions: { clipboardWrite: {}, camera: {} },
    domain: "a904794854a047f6.example-content.com",
    prefersBorder: true
  })

  assert.strictEqual(read.contents.length, 1)
  const [content] = read.contents
  assert.strictEqual(content.uri, "ui://apps-test/counter")
  assert.strictEqual(content.mimeType, MIME)
  assert.strictEqual(content.text, html)
  assert.deepStrictEqual(content._meta.ui, view._meta.ui)
  valid("ext-apps", "McpUiResourceMeta", content._meta.ui)
}

/** What a client that renders no views must see: no view, no link, no app-only tool. */
const seenWithout = (set: "2024-11-05" | "2025-06-18" | "2025-11-25" | "2026-07-28", tools: any, resources: any) => {
  valid(set, "ListToolsResult", tools)
  valid(set, "ListResourcesResult", resources)
  const listed = byName(tools.tools)
  assert.deepStrictEqual(Object.keys(listed).sort(), ["plain", "show_counter", "summary"])
  assert.isUndefined(listed.show_counter._meta)
  // Before 2025-06-18 a tool carries no _meta at all.
  assert.deepStrictEqual(listed.summary._meta, set === "2024-11-05" ? undefined : { "com.example/x": 1 })
  assert.deepStrictEqual(resources.resources.map((r: any) => r.uri), ["file:///readme"])
}

describe("AppView, handshake era", () => {
  for (const revision of ["2025-06-18", "2025-11-25"] as const) {
    it.scoped(`${revision}: a client that declared the extension with the MIME type sees the views and links`, () =>
      Effect.gen(function*() {
        valid("ext-apps", "McpUiClientCapabilities", withApps.extensions[UI])
        const client = yield* connect(options)
        const init = yield* client.initialize(revision, withApps)
        if (revision === "2025-11-25") assert.deepStrictEqual(init.capabilities.extensions?.[UI], {})
        const tools = yield* client.result("tools/list")
        const resources = yield* client.result("resources/list")
        const read = yield* client.result("resources/read", { uri: "ui://apps-test/counter" })
        seenWithApps(revision, tools, resources, read)
        // The view calls its app-only tool.
        const called = valid(
          revision,
          "CallToolResult",
          yield* client.result("tools/call", {
            name: "increment",
            arguments: { by: 2 }
          })
        )
        assert.deepStrictEqual(called.content, [{ type: "text", text: "The counter is 2" }])
      }))

    it.scoped(`${revision}: a client without the extension sees no view, no link, no app-only tool`, () =>
      Effect.gen(function*() {
        const client = yield* connect(options)
        yield* client.initialize(revision, {})
        seenWithout(revision, yield* client.result("tools/list"), yield* client.result("resources/list"))
        // A linked tool still answers with its text, and an app-only one stays callable by name.
        const shown = yield* client.result("tools/call", { name: "show_counter", arguments: {} })
        assert.deepStrictEqual(shown.content, [{ type: "text", text: "The counter is 0" }])
        const called = yield* client.result("tools/call", { name: "increment", arguments: { by: 1 } })
        assert.deepStrictEqual(called.content, [{ type: "text", text: "The counter is 1" }])
      }))
  }

  it.scoped("2024-11-05, whose tools carry no _meta: a client that declared the extension is served as a plain one", () =>
    Effect.gen(function*() {
      // A link could not reach it, and an app-only tool would be listed to its model as any other.
      const client = yield* connect(options)
      yield* client.initialize("2024-11-05", withApps)
      seenWithout("2024-11-05", yield* client.result("tools/list"), yield* client.result("resources/list"))
    }))

  it.scoped("the extension declared without the MIME type, or another one, is not enough", () =>
    Effect.gen(function*() {
      for (const settings of [{}, { mimeTypes: [] }, { mimeTypes: ["text/html"] }, { mimeTypes: MIME }]) {
        const client = yield* connect(options)
        yield* client.initialize("2025-11-25", { extensions: { [UI]: settings } })
        seenWithout("2025-11-25", yield* client.result("tools/list"), yield* client.result("resources/list"))
      }
    }))
})

describe("AppView, 2026-07-28 (per request)", () => {
  const p = (params: Record<string, unknown>, capabilities: Record<string, unknown>) => ({
    ...params,
    _meta: meta({}, capabilities)
  })

  it.scoped("one server, the same method: views and links for a request that declares the extension only", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const discover = valid("2026-07-28", "DiscoverResult", yield* client.result("server/discover", p({}, {})))
      assert.deepStrictEqual(discover.capabilities.extensions?.[UI], {})

      const tools = yield* client.result("tools/list", p({}, withApps))
      const resources = yield* client.result("resources/list", p({}, withApps))
      const read = yield* client.result("resources/read", p({ uri: "ui://apps-test/counter" }, withApps))
      seenWithApps("2026-07-28", tools, resources, read)

      seenWithout(
        "2026-07-28",
        yield* client.result("tools/list", p({}, {})),
        yield* client.result("resources/list", p({}, { extensions: { [UI]: {} } }))
      )
      const called = valid(
        "2026-07-28",
        "CallToolResult",
        yield* client.result("tools/call", p({ name: "increment", arguments: { by: 3 } }, withApps))
      )
      assert.deepStrictEqual(called.content, [{ type: "text", text: "The counter is 3" }])
    }))
})

describe("AppView, caching and MIME types", () => {
  const p = (params: Record<string, unknown>, capabilities: Record<string, unknown>) => ({
    ...params,
    _meta: meta({}, capabilities)
  })

  it.scoped("a server with views: tools/list and resources/list differ by client, so a shared cache may not keep them", () =>
    Effect.gen(function*() {
      const client = yield* connect({
        ...options,
        cachePolicy: {
          "tools/list": { ttlMs: 60_000, cacheScope: "public" },
          "resources/list": { ttlMs: 30_000, cacheScope: "public" }
        }
      })
      for (const capabilities of [withApps, {}]) {
        const tools = yield* client.result("tools/list", p({}, capabilities))
        const resources = yield* client.result("resources/list", p({}, capabilities))
        assert.deepInclude(tools, { ttlMs: 60_000, cacheScope: "private" })
        assert.deepInclude(resources, { ttlMs: 30_000, cacheScope: "private" })
      }
    }))

  it.scoped("the MIME type a client declares is compared as MIME types are: case and spaces aside", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const tools = yield* client.result(
        "tools/list",
        p({}, { extensions: { [UI]: { mimeTypes: ["Text/HTML; profile=mcp-app"] } } })
      )
      assert.isDefined(byName(tools.tools).increment)
    }))
})

describe("AppView, when the server is built", () => {
  const died = (exit: Exit.Exit<unknown, unknown>): string => {
    assert.isTrue(Exit.isFailure(exit))
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    return (defect as Error).message
  }

  it.scoped("a tool linked to a view the server does not serve is refused, in one line", () =>
    Effect.gen(function*() {
      const Lost = AppView.link(Tool.make("lost", {}, () => Effect.succeed("lost")), "ui://apps-test/missing")
      const exit = yield* Effect.exit(McpServer.make({ serverInfo, tools: [Lost], resources: [Counter] }))
      const message = died(exit)
      assert.strictEqual(
        message,
        "Tool lost is linked to the view ui://apps-test/missing, which this server does not serve " +
          "(give its AppView to the server's resources)"
      )
      assert.notInclude(message, "\n")
    }))

  it.scoped("a link to a resource that is not a view, or to a URI that is not ui://, is refused", () =>
    Effect.gen(function*() {
      const Text = Resource.make("ui://apps-test/text", { mimeType: "text/html" }, Effect.succeed("<p>"))
      const ToText = AppView.link(Tool.make("to_text", {}, () => Effect.succeed("x")), "ui://apps-test/text")
      assert.strictEqual(
        died(yield* Effect.exit(McpServer.make({ serverInfo, tools: [ToText], resources: [Text] }))),
        "Tool to_text is linked to ui://apps-test/text, which is served as text/html, not as a view " +
          "(text/html;profile=mcp-app)"
      )
      const ToFile = AppView.link(Tool.make("to_file", {}, () => Effect.succeed("x")), "file:///readme")
      assert.strictEqual(
        died(yield* Effect.exit(McpServer.make({ serverInfo, tools: [ToFile], resources: [Readme] }))),
        "Tool to_file is linked to file:///readme: a view's URI starts with ui://"
      )
      // A hand-written link (the deprecated flat key) is checked too.
      const Flat = Tool.make("flat", { _meta: { "ui/resourceUri": "ui://nowhere" } }, () => Effect.succeed("x"))
      assert.match(
        died(yield* Effect.exit(McpServer.make({ serverInfo, tools: [Flat] }))),
        /^Tool flat is linked to the view ui:\/\/nowhere/
      )
    }))

  it("a view's URI must be ui://, its _meta.ui the specification's, a visibility not empty", () => {
    assert.throws(() => AppView.make("https://x/view", {}, html), /a view's URI must start with ui:\/\//)
    assert.throws(
      () => AppView.make("ui://x", { csp: { connect: ["https://a"] } } as any, html),
      /View ui:\/\/x: its _meta.ui is not the specification's/
    )
    assert.throws(() => AppView.link(Plain, Counter, { visibility: [] }), /visibility must name "model", "app"/)
  })
})

describe("AppView, where the HTML comes from", () => {
  const readText = (view: AppView.View<any>) =>
    Effect.map(view.read(view.uri), (result) => (result.contents[0] as { readonly text: string }).text)

  it.effect("a file, read with the platform's FileSystem at each read", () =>
    Effect.gen(function*() {
      const read: Array<string> = []
      const fs = FileSystem.layerNoop({
        readFileString: (path) => Effect.sync(() => (read.push(path), `<!doctype html><p>${path}</p>`))
      })
      const view = AppView.make("ui://apps-test/file", {}, AppView.file("dist/view.html"))
      const text = yield* Effect.provide(readText(view), fs)
      assert.strictEqual(text, "<!doctype html><p>dist/view.html</p>")
      assert.deepStrictEqual(read, ["dist/view.html"])
    }))

  it.effect("a bundle: scripts and styles inlined into the one document, unable to close their element", () =>
    Effect.gen(function*() {
      const view = AppView.make(
        "ui://apps-test/bundle",
        {},
        AppView.bundle({
          html: "<!doctype html><html><head><title>t</title></head><body><p>x</p></BODY></html>",
          scripts: ["console.log('</script><b>$&')", Effect.succeed("let a = 1")],
          styles: ["p { color: red }"]
        })
      )
      assert.strictEqual(
        yield* readText(view),
        "<!doctype html><html><head><title>t</title><style>p { color: red }</style></head><body><p>x</p>" +
          "<script type=\"module\">console.log('<\\/script><b>$&')</script><script type=\"module\">let a = 1</script>" +
          "</BODY></html>"
      )
    }))
})
