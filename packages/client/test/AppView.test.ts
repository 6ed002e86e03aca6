/**
 * `AppView` (the client side of MCP Apps): the declaration as it goes on the wire (`initialize`'s
 * capabilities; every 2026-07-28 request's `_meta`), valid against the Apps schema of ext-apps; the tools
 * with views and a view read from our server in both eras (and nothing of it without the declaration);
 * and a scripted server that serves bad views (wrong MIME type, too large, not UTF-8, a `_meta.ui` that
 * is not the specification's, no content of the URI): each an `InvalidView` in one line, no HTML handed out.
 */
import { AppView, McpClient, McpClientTransport } from "@effect-mcp/client"
import { MemoryTransport, type Revision } from "@effect-mcp/core"
import { AppView as ServerAppView, McpServer, Tool } from "@effect-mcp/server"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const UI = "io.modelcontextprotocol/ui"
const MIME = "text/html;profile=mcp-app"
const clientInfo = { name: "host", version: "1.0.0" }
const html = "<!doctype html><html><body><p>Zürich ✓</p></body></html>"

const valid = (set: Parameters<typeof validate>[0], definition: string, value: unknown) =>
  assert.isUndefined(validate(set, definition, value), JSON.stringify(value))

// ---------------------------------------------------------------------------- against our server

const Board = ServerAppView.make("ui://test/board", {
  name: "board",
  csp: { connectDomains: ["https://api.example.com"] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true
}, html)

const Show = ServerAppView.link(Tool.make("show", {}, () => Effect.succeed("the board")), Board)
const Move = ServerAppView.link(
  Tool.make("move", { parameters: Schema.Struct({ to: Schema.String }) }, ({ to }) => Effect.succeed(`moved ${to}`)),
  Board,
  { visibility: ["app"] }
)
const Plain = Tool.make("plain", {}, () => Effect.succeed("plain"))

const ours = (revisions: ReadonlyArray<Revision.Revision>, declared: boolean) =>
  Effect.gen(function*() {
    const options = { clientInfo, timeout: "10 seconds" as const }
    const context = yield* Layer.build(
      McpClient.layer(declared ? AppView.declare(options) : options).pipe(
        Layer.provide(McpClientTransport.layerMemory((protocol) =>
          McpServer.serve(protocol).pipe(
            Effect.provide(McpServer.layer({
              serverInfo: { name: "s", version: "1" },
              revisions,
              tools: [Show, Move, Plain],
              resources: [Board]
            }))
          )
        ))
      )
    )
    return Effect.runSync(Effect.provide(McpClient.McpClient, context))
  })

describe("AppView against our server", () => {
  for (const revisions of [["2025-11-25"], ["2026-07-28"]] as const) {
    it.scoped(`${revisions[0]}: the tools with views, a view read and verified, its _meta.ui typed`, () =>
      Effect.gen(function*() {
        const client = yield* ours(revisions, true)
        assert.isTrue(AppView.served(client))
        const linked = yield* AppView.linked(client)
        assert.deepStrictEqual(
          linked.map((l) => [l.tool.name, l.resourceUri, l.visibility]),
          [["move", "ui://test/board", ["app"]], ["show", "ui://test/board", ["model", "app"]]]
        )
        const tools = yield* client.listTools
        assert.deepStrictEqual(AppView.forModel(tools).map((t) => t.name), ["plain", "show"])
        assert.deepStrictEqual(tools.filter(AppView.callableByApp).map((t) => t.name), ["move", "plain", "show"])

        const view = yield* AppView.read(client, "ui://test/board")
        assert.strictEqual(view.html, html)
        assert.strictEqual(view.bytes, new TextEncoder().encode(html).length)
        assert.instanceOf(view.ui, AppView.ResourceMeta)
        assert.deepStrictEqual(view.ui.csp?.connectDomains, ["https://api.example.com"])
        assert.deepStrictEqual(view.ui.permissions?.clipboardWrite, {})
        assert.isUndefined(view.ui.permissions?.camera)
        assert.isTrue(view.ui.prefersBorder)
      }))

    it.scoped(`${revisions[0]}: without the declaration, the server shows no view and no link`, () =>
      Effect.gen(function*() {
        const client = yield* ours(revisions, false)
        assert.deepStrictEqual(yield* AppView.linked(client), [])
        assert.deepStrictEqual((yield* client.listTools).map((t) => t.name), ["plain", "show"])
      }))
  }
})

// ---------------------------------------------------------------------------- against a scripted server

/** A server scripted at the wire (JSON text in, out): every message it got, and a client of it. */
const scripted = (
  era: "handshake" | "stateless",
  read: (uri: string) => Record<string, unknown>,
  options: Partial<McpClient.Options> = {}
) =>
  Effect.gen(function*() {
    const { protocol, remote } = yield* MemoryTransport.connection
    const received: Array<any> = []
    const answer = (message: any) => {
      const result = (fields: Record<string, unknown>) => ({
        jsonrpc: "2.0",
        id: message.id,
        result: era === "stateless" ? { resultType: "complete", ttlMs: 0, cacheScope: "private", ...fields } : fields
      })
      const capabilities = { resources: {}, tools: {}, extensions: { [UI]: {} } }
      switch (message.method) {
        case "initialize":
          return result({ protocolVersion: "2025-11-25", capabilities, serverInfo: { name: "raw", version: "1" } })
        case "server/discover":
          return result({ supportedVersions: ["2026-07-28"], capabilities })
        case "tools/list":
          return result({ tools: [] })
        case "resources/read":
          return result({ contents: [{ uri: message.params.uri, ...read(message.params.uri) }] })
        default:
          return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }
      }
    }
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(remote.read, (text) => {
      const message = JSON.parse(text)
      received.push(message)
      return message.id === undefined || message.method === undefined
        ? Effect.void
        : remote.write(JSON.stringify(answer(message)))
    })))
    const context = yield* Layer.build(
      McpClient.layer(AppView.declare({ clientInfo, era, timeout: "10 seconds", ...options })).pipe(
        Layer.provide(McpClientTransport.layerProtocol(protocol))
      )
    )
    return { client: Effect.runSync(Effect.provide(McpClient.McpClient, context)), received }
  })

const serving = (fields: Record<string, unknown>) => () => fields

describe("AppView's declaration, on the wire", () => {
  it.scoped("handshake: initialize declares the extension with the MIME type, beside what the handlers give", () =>
    Effect.gen(function*() {
      const { received } = yield* scripted("handshake", serving({}), {
        handlers: { elicitation: () => Effect.succeed({ action: "decline" as const }) }
      })
      const initialize = received.find((m) => m.method === "initialize")
      valid("2025-11-25", "InitializeRequest", initialize)
      assert.deepStrictEqual(initialize.params.capabilities, {
        elicitation: { form: {}, url: {} },
        extensions: { [UI]: { mimeTypes: [MIME] } }
      })
      valid("ext-apps", "McpUiClientCapabilities", initialize.params.capabilities.extensions[UI])
    }))

  it.scoped("2026-07-28: every request carries the declaration in its _meta", () =>
    Effect.gen(function*() {
      const { client, received } = yield* scripted("stateless", serving({}))
      yield* client.listTools
      const list = received.find((m) => m.method === "tools/list")
      valid("2026-07-28", "ListToolsRequest", list)
      const declared = list.params._meta["io.modelcontextprotocol/clientCapabilities"].extensions[UI]
      assert.deepStrictEqual(declared, { mimeTypes: [MIME] })
      valid("ext-apps", "McpUiClientCapabilities", declared)
    }))

  it("declare keeps the capabilities given, and a MIME type declared already is not doubled", () => {
    const twice = AppView.declare(AppView.declare({ clientInfo, capabilities: { roots: {} } }))
    assert.deepStrictEqual<unknown>(twice.capabilities, { roots: {}, extensions: { [UI]: { mimeTypes: [MIME] } } })
  })
})

describe("AppView.read against a server that serves bad views", () => {
  const refused = (fields: Record<string, unknown>, options?: AppView.ReadOptions) =>
    Effect.gen(function*() {
      const { client } = yield* scripted("handshake", serving(fields))
      const error = yield* Effect.flip(AppView.read(client, "ui://bad/view", options))
      assert.strictEqual(error._tag, "InvalidView")
      assert.notInclude(error.message, "\n")
      return error.message
    })

  it.scoped("a wrong MIME type, or none", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* refused({ mimeType: "text/html", text: html }),
        "View ui://bad/view: it is served as text/html, not text/html;profile=mcp-app"
      )
      assert.strictEqual(
        yield* refused({ text: html }),
        "View ui://bad/view: it is served as no MIME type, not text/html;profile=mcp-app"
      )
    }))

  it.scoped("HTML over the bound, as text or as a blob; a blob that is not UTF-8", () =>
    Effect.gen(function*() {
      const big = `<p>${"x".repeat(200)}</p>`
      assert.strictEqual(
        yield* refused({ mimeType: MIME, text: big }, { maxBytes: 100 }),
        "View ui://bad/view: its HTML is at least 207 bytes, over the bound of 100"
      )
      // 60 two-byte characters: 60 code units, 120 bytes.
      assert.strictEqual(
        yield* refused({ mimeType: MIME, text: "é".repeat(60) }, { maxBytes: 100 }),
        "View ui://bad/view: its HTML is 120 bytes, over the bound of 100"
      )
      assert.strictEqual(
        yield* refused({ mimeType: MIME, blob: btoa(big) }, { maxBytes: 100 }),
        "View ui://bad/view: its HTML is at least 205 bytes, over the bound of 100"
      )
      assert.strictEqual(
        yield* refused({ mimeType: MIME, blob: btoa(String.fromCharCode(0xff, 0xfe, 0x3c)) }),
        "View ui://bad/view: its HTML is not UTF-8"
      )
    }))

  it.scoped("a _meta.ui that is not the specification's; no content of the URI", () =>
    Effect.gen(function*() {
      assert.match(
        yield* refused({ mimeType: MIME, text: html, _meta: { ui: { csp: { connectDomains: "https://a" } } } }),
        /^View ui:\/\/bad\/view: its _meta.ui is not the specification's \(/
      )
      const { client } = yield* scripted("handshake", () => ({ uri: "ui://other", mimeType: MIME, text: html }))
      assert.strictEqual(
        (yield* Effect.flip(AppView.read(client, "ui://bad/view"))).message,
        "View ui://bad/view: the server answered with no content of that URI"
      )
    }))

  it.scoped("a csp domain that is not one source (it would widen the policy)", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* refused({
          mimeType: MIME,
          text: html,
          _meta: { ui: { csp: { connectDomains: ["https://a.example", "https://b.example; script-src *"] } } }
        }),
        "View ui://bad/view: its csp declares \"https://b.example; script-src *\", which is not one source"
      )
    }))

  it.scoped("a URI that is not ui:// is refused before anything is sent", () =>
    Effect.gen(function*() {
      const { client, received } = yield* scripted("handshake", serving({ mimeType: MIME, text: html }))
      const error = yield* Effect.flip(AppView.read(client, "https://example.com/view"))
      assert.strictEqual(error.message, "View https://example.com/view: a view's URI starts with ui://")
      assert.isFalse(received.some((m) => m.method === "resources/read"))
    }))

  it.scoped("a good one: a UTF-8 blob, a MIME type written with spaces and capitals", () =>
    Effect.gen(function*() {
      const bytes = new TextEncoder().encode(html)
      const { client } = yield* scripted(
        "handshake",
        serving({ mimeType: "Text/HTML; profile=mcp-app", blob: btoa(String.fromCharCode(...bytes)) })
      )
      const view = yield* AppView.read(client, "ui://bad/view")
      assert.strictEqual(view.html, html)
      assert.strictEqual(view.bytes, bytes.length)
      assert.deepStrictEqual({ ...view.ui }, {})
    }))
})

describe("AppView's reading of a tool", () => {
  const tool = (meta?: Record<string, unknown>) => ({
    name: "t",
    inputSchema: { type: "object" as const },
    ...(meta !== undefined ? { _meta: meta } : {})
  })

  it("_meta.ui typed; the deprecated flat key read; a malformed _meta.ui is no link", () => {
    assert.isTrue(Option.isNone(AppView.toolMeta(tool())))
    const nested = Option.getOrThrow(AppView.toolMeta(tool({ ui: { resourceUri: "ui://v", visibility: ["app"] } })))
    assert.instanceOf(nested, AppView.ToolMeta)
    assert.strictEqual(nested.resourceUri, "ui://v")
    const flat = Option.getOrThrow(AppView.toolMeta(tool({ "ui/resourceUri": "ui://flat" })))
    assert.strictEqual(flat.resourceUri, "ui://flat")
    assert.deepStrictEqual(AppView.visibility(tool({ "ui/resourceUri": "ui://flat" })), ["model", "app"])
    assert.isTrue(Option.isNone(AppView.toolMeta(tool({ ui: { visibility: ["agent"] } }))))
    assert.deepStrictEqual(AppView.forModel([tool({ ui: { visibility: ["app"] } })]), [])
  })
})

describe("AppView: what a host applies to a view", () => {
  const ui = (value: unknown) => Schema.decodeUnknownSync(AppView.ResourceMeta)(value)

  it("no csp: the specification's restrictive default; no permissions: none", () => {
    assert.strictEqual(
      AppView.contentSecurityPolicy(ui({})),
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
        "img-src 'self' data:; font-src 'self' data:; media-src 'self' data:; connect-src 'none'; " +
        "frame-src 'none'; base-uri 'self'; object-src 'none'"
    )
    assert.strictEqual(AppView.permissionsPolicy(ui({})), "")
  })

  it("declared domains in their directives only; permissions as the allow attribute", () => {
    const declared = ui({
      csp: {
        connectDomains: ["https://api.example.com", "wss://live.example.com"],
        resourceDomains: ["https://*.cdn.example.com"],
        frameDomains: ["https://www.youtube.com"],
        baseUriDomains: ["https://base.example.com"]
      },
      permissions: { clipboardWrite: {}, geolocation: {} }
    })
    assert.strictEqual(
      AppView.contentSecurityPolicy(declared),
      "default-src 'none'; script-src 'self' 'unsafe-inline' https://*.cdn.example.com; " +
        "style-src 'self' 'unsafe-inline' https://*.cdn.example.com; img-src 'self' data: https://*.cdn.example.com; " +
        "font-src 'self' data: https://*.cdn.example.com; media-src 'self' data: https://*.cdn.example.com; " +
        "connect-src https://api.example.com wss://live.example.com; frame-src https://www.youtube.com; " +
        "base-uri https://base.example.com; object-src 'none'"
    )
    assert.strictEqual(AppView.permissionsPolicy(declared), "geolocation; clipboard-write")
  })

  it("a domain that would add sources or directives is left out", () => {
    const policy = AppView.contentSecurityPolicy(ui({
      csp: { connectDomains: ["https://ok.example", "https://x; script-src *", "'unsafe-eval'", "a b", ""] }
    }))
    assert.include(policy, "connect-src https://ok.example; ")
    assert.notInclude(policy, "unsafe-eval")
    assert.notInclude(policy, "script-src *")
  })
})
