/**
 * A host of MCP Apps views (the extension `io.modelcontextprotocol/ui`), as the Apps specification
 * (2026-01-26) asks of a web host: `serve(client, options)` calls a tool that has a view and serves, on
 * 127.0.0.1, a page that renders the view beside its input and result.
 *
 * - **Two origins.** The host page (its own port) frames a sandbox proxy served on a second port (a
 *   different origin) with `sandbox="allow-scripts allow-same-origin allow-forms"`, the view's permissions
 *   (`AppView.permissionsPolicy`) and, as an HTTP header, the view's CSP (`AppView.contentSecurityPolicy`);
 *   the proxy writes the view into an inner iframe of its origin, which inherits that CSP, and relays the
 *   bridge's messages between the host page and the view, from and to those two windows only.
 * - **The official bridge.** The host page's side of the postMessage bridge is `AppBridge` of
 *   `@modelcontextprotocol/ext-apps/app-bridge` (bundled for the browser with esbuild when the host
 *   starts): `ui/initialize`, the tool's input and result (or its cancellation), size changes, links,
 *   messages. What the view asks of the server (`tools/call`, `resources/read`, `ping`) and tells the host
 *   (`notifications/message`, `ui/message`, `ui/update-model-context`, `ui/open-link`) is posted to this
 *   process, which answers through the `McpClient` given: a `tools/call` only of a listed tool the view may
 *   call (`AppView.callableByApp`), anything else refused.
 * - **Bounded.** At most `maxPending` bridge requests are in flight, in the page and here (more are
 *   refused at once, the view told so), each of at most `maxMessageBytes`; the view's HTML is read with
 *   `AppView.read` (verified, within `maxViewBytes`) before anything is served: a view that cannot be
 *   rendered is an error, in one line, and nothing is served.
 *
 * Why here and not in a package: the host serves a browser bundle of another SDK (ext-apps, with the
 * official client and zod) over `node:http`; `core`, `server` and `client` import no `node:*`, and what a
 * host needs that is not Node's (declaring the extension, finding and verifying a view, its CSP and
 * permissions) is already `AppView` of `@effect-mcp/client`.
 *
 * @since 0.2.0
 */
import { AppView, type McpClient } from "@effect-mcp/client"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Path from "node:path"
import * as Url from "node:url"

/**
 * What the view says to the "conversation" or the host: a `ui/message`, a `ui/update-model-context`, a
 * `ui/open-link`, a `notifications/message` (its log).
 *
 * @since 0.2.0
 * @category models
 */
export interface Said {
  readonly method: "ui/message" | "ui/update-model-context" | "ui/open-link" | "notifications/message"
  readonly params: unknown
}

/**
 * Options of `serve`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The tool to call: one with a view, that a model may call. */
  readonly tool: string
  /** Its arguments. */
  readonly arguments?: Record<string, unknown> | undefined
  /** The host page's port on 127.0.0.1 (default 0: any free one). The sandbox proxy takes a free one. */
  readonly port?: number | undefined
  /** What the view says (`ui/message`, model-context updates, links, logs). */
  readonly onSaid: (said: Said) => Effect.Effect<void>
  /**
   * When the host stops: whether the view answered its `ui/resource-teardown` (within 2 seconds). Not
   * called when no page was open.
   */
  readonly onTeardown?: ((answered: boolean) => Effect.Effect<void>) | undefined
  /** The most bytes of the view's HTML (default `AppView.defaultMaxBytes`). */
  readonly maxViewBytes?: number | undefined
  /** The most bridge requests in flight (default 16); more are refused at once. */
  readonly maxPending?: number | undefined
  /** The most bytes of one bridge message from the page (default 1 MiB). */
  readonly maxMessageBytes?: number | undefined
}

/**
 * A running host: the page's URL (open it in a browser) and the sandbox proxy's origin.
 *
 * @since 0.2.0
 * @category models
 */
export interface Running {
  readonly url: string
  readonly sandboxOrigin: string
}

/**
 * A tool `mcp app` cannot show: not listed, without a view, or for its view only.
 *
 * @since 0.2.0
 * @category errors
 */
export class NoView extends Data.TaggedError("NoView")<{
  readonly tool: string
  readonly reason: string
}> {
  override get message(): string {
    return `tool ${this.tool} ${this.reason}`
  }
}

/**
 * A port the host cannot listen on.
 *
 * @since 0.2.0
 * @category errors
 */
export class ListenError extends Data.TaggedError("ListenError")<{
  readonly port: number
  readonly cause: unknown
}> {
  override get message(): string {
    return `cannot listen on 127.0.0.1:${this.port}: ${
      this.cause instanceof Error ? this.cause.message : String(this.cause)
    }`
  }
}

const hostInfo = { name: "mcp app (effect-mcp)", version: "0.2.0" }

/** How long a stopping host waits for the view's teardown. */
const teardownWait = "2 seconds"

/** The sandbox attribute of both frames: what the specification asks of the proxy, and forms. */
const sandboxAttribute = "allow-scripts allow-same-origin allow-forms"

/**
 * The host page's script (an ES module for the browser, importing the official AppBridge): what
 * `hostScript` bundles. The same for every view: what it needs of one is in `/session`.
 *
 * @since 0.2.0
 * @category constants
 */
export const pageScript = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge"
const $ = (id) => document.getElementById(id)
const status = (text) => { $("status").textContent = text }
const fail = (error) => { $("error").textContent = error instanceof Error ? error.message : String(error) }
const session = await (await fetch("/session")).json()
const config = session.config
let pending = 0
// Bounded: at most config.maxPending requests to the host process at once; more are refused here.
const ask = async (method, params) => {
  if (pending >= config.maxPending) throw new Error("too many bridge requests in flight (at most " + config.maxPending + ")")
  pending++
  try {
    const response = await fetch("/bridge", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method, params: params ?? {} })
    })
    const answer = await response.json()
    if (answer.error !== undefined) throw new Error(answer.error.message)
    return answer.result
  } finally {
    pending--
  }
}
const tell = (method, params) => { ask(method, params).catch(() => {}) }
try {
  // The sandbox proxy's frame is in the page, loading since the page was parsed; early.js caught its ready.
  const iframe = $("sandbox")
  status("loading the sandbox")
  await window.mcpProxyReady
  const bridge = new AppBridge(null, config.hostInfo, {
    openLinks: {},
    serverTools: {},
    serverResources: {},
    logging: {},
    updateModelContext: { text: {}, structuredContent: {} },
    message: { text: {}, structuredContent: {} },
    sandbox: { csp: session.ui.csp ?? {}, permissions: session.ui.permissions ?? {} }
  }, {
    hostContext: {
      toolInfo: { tool: session.tool },
      theme: "light",
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      platform: "web",
      containerDimensions: { maxHeight: 2000 }
    }
  })
  bridge.oncalltool = (params) => ask("tools/call", params)
  bridge.onreadresource = (params) => ask("resources/read", params)
  bridge.onmessage = (params) => ask("ui/message", params)
  bridge.onupdatemodelcontext = (params) => ask("ui/update-model-context", params)
  bridge.onopenlink = (params) => ask("ui/open-link", params)
  bridge.onloggingmessage = (params) => tell("notifications/message", params)
  bridge.onping = () => tell("ping", {})
  bridge.onrequestdisplaymode = async () => ({ mode: "inline" })
  bridge.addEventListener("sizechange", ({ height }) => {
    if (typeof height === "number" && height > 0) iframe.style.height = Math.min(height, 2000) + "px"
  })
  const initialized = new Promise((resolve) => bridge.addEventListener("initialized", () => resolve()))
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow))
  await bridge.sendSandboxResourceReady({
    html: session.html,
    sandbox: config.sandbox,
    csp: session.ui.csp,
    permissions: session.ui.permissions
  })
  status("initializing the view")
  await initialized
  status("initialized")
  // When the host stops, the view is torn down first (ui/resource-teardown), then the host told.
  new EventSource("/events").addEventListener("teardown", async () => {
    try {
      await bridge.teardownResource({})
    } finally {
      status("torn down")
      fetch("/torn-down", { method: "POST" })
    }
  })
  await bridge.sendToolInput({ arguments: session.arguments })
  const outcome = await (await fetch("/result")).json()
  if (outcome.result !== undefined) {
    await bridge.sendToolResult(outcome.result)
    status("result delivered")
  } else {
    await bridge.sendToolCancelled({ reason: outcome.error })
    status("cancelled: " + outcome.error)
  }
} catch (error) {
  fail(error)
}
`

/**
 * The host page: a status line, an error line and the sandbox proxy's frame, loaded at once (`early.js`, run
 * before the frame is parsed, catches its ready) while the bridge's script loads, the session prefetched.
 */
const hostPage = (
  tool: string,
  sandbox: { readonly url: string; readonly origin: string },
  allow: string,
  border: boolean
) =>
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(tool)} (mcp app)</title>
<style>body{font:14px system-ui,sans-serif;margin:16px}#error{color:#b00}</style>
<link rel="preload" href="/session" as="fetch" crossorigin="anonymous">
<script src="/early.js"></script>
<script type="module" src="/host.js"></script></head>
<body>
<p><b>${escapeHtml(tool)}</b> <span id="status">starting</span></p>
<p id="error"></p>
<div id="view"><iframe id="sandbox" sandbox="${sandboxAttribute}"${
    allow !== "" ? ` allow="${escapeHtml(allow)}"` : ""
  } data-origin="${escapeHtml(sandbox.origin)}" src="${
    escapeHtml(sandbox.url)
  }" style="width:100%;height:240px;border:${border ? "1px solid #ccc" : "none"}"></iframe></div>
</body>
</html>
`

/** Run before the sandbox proxy's frame is parsed: its ready notification, as `window.mcpProxyReady`. */
const earlyScript = `window.mcpProxyReady = new Promise(function (resolve) {
  function listener(event) {
    var frame = document.getElementById("sandbox")
    if (frame && event.source === frame.contentWindow && event.origin === frame.dataset.origin &&
        event.data && event.data.method === "ui/notifications/sandbox-proxy-ready") {
      window.removeEventListener("message", listener)
      resolve()
    }
  }
  window.addEventListener("message", listener)
})
`

/**
 * The sandbox proxy: relays between the host page (its parent, of `hostOrigin`) and the view (an inner
 * frame of this origin, written from `ui/notifications/sandbox-resource-ready`), and nothing else.
 */
const sandboxPage = (hostOrigin: string) =>
  `<!doctype html>
<html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%}</style></head>
<body><script>
(() => {
  const host = ${JSON.stringify(hostOrigin)}
  const own = window.location.origin
  if (window.parent === window) throw new Error("the sandbox proxy runs in a frame")
  const inner = document.createElement("iframe")
  inner.setAttribute("sandbox", ${JSON.stringify(sandboxAttribute)})
  document.body.appendChild(inner)
  let loaded = false
  window.addEventListener("message", (event) => {
    if (event.source === window.parent) {
      if (event.origin !== host) return
      const message = event.data
      if (message && message.method === "ui/notifications/sandbox-resource-ready") {
        if (loaded) return
        loaded = true
        const params = message.params || {}
        if (typeof params.sandbox === "string") inner.setAttribute("sandbox", params.sandbox)
        const allow = ${JSON.stringify("__ALLOW__")}
        if (allow !== "") inner.setAttribute("allow", allow)
        const doc = inner.contentDocument
        doc.open()
        doc.write(typeof params.html === "string" ? params.html : "")
        doc.close()
        return
      }
      if (message && typeof message.method === "string" && message.method.startsWith("ui/notifications/sandbox-")) return
      inner.contentWindow.postMessage(message, "*")
    } else if (event.source === inner.contentWindow) {
      if (event.origin !== own) return
      const message = event.data
      if (message && typeof message.method === "string" && message.method.startsWith("ui/notifications/sandbox-")) return
      window.parent.postMessage(message, host)
    }
  })
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, host)
})()
</script></body></html>
`

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The page's script, bundled into a packed `mcp` by `scripts/bundle.mjs --app-host`. */
declare const __MCP_APP_HOST_SCRIPT__: string | undefined

/**
 * Bundles `pageScript` with AppBridge and its dependencies into one ES module for the browser (esbuild,
 * resolving `@modelcontextprotocol/ext-apps` from `from`, a directory).
 *
 * @since 0.2.0
 * @category constructors
 */
export const bundleHostScript = async (from: string): Promise<string> => {
  const esbuild = await import("esbuild")
  const built = await esbuild.build({
    stdin: { contents: pageScript, resolveDir: from, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    logLevel: "silent"
  })
  return built.outputFiles[0]!.text
}

/**
 * The host page's script: the one bundled into a packed `mcp`, else bundled now (about 0.2 s), from
 * the ext-apps installed beside this module.
 */
const hostScript = Effect.tryPromise({
  try: async () =>
    typeof __MCP_APP_HOST_SCRIPT__ === "string"
      ? __MCP_APP_HOST_SCRIPT__
      : await bundleHostScript(Path.dirname(Url.fileURLToPath(import.meta.url))),
  catch: (cause) => new Error(`cannot bundle the host page's AppBridge: ${describe(cause)}`)
})

/** A node:http server on 127.0.0.1:`port`, closed with the scope. */
const listen = (port: number, handler: Http.RequestListener) =>
  Effect.acquireRelease(
    Effect.async<Http.Server, ListenError>((resume) => {
      const server = Http.createServer(handler)
      server.once("error", (cause) => resume(Effect.fail(new ListenError({ port, cause }))))
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const portOf = (server: Http.Server) => (server.address() as Net.AddressInfo).port

const send = (
  response: Http.ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {}
) => {
  response.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    ...headers
  })
  response.end(body)
}

const json = (response: Http.ServerResponse, status: number, value: unknown) =>
  send(response, status, "application/json", JSON.stringify(value))

/**
 * A request's body, at most `max` bytes (else `undefined`, answered once the sender is done: the rest is
 * read and dropped, up to 16 times the bound, past which the connection is cut).
 */
const readBody = (request: Http.IncomingMessage, max: number) =>
  new Promise<string | undefined>((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > 16 * max) request.destroy()
      else if (size <= max) chunks.push(chunk)
    })
    request.on("end", () => resolve(size > max ? undefined : Buffer.concat(chunks).toString("utf8")))
    request.on("error", () => resolve(undefined))
  })

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error
    ? String((error as { readonly message: unknown }).message)
    : String(error)

/**
 * Calls `options.tool` and serves its view until the scope closes: the host page on 127.0.0.1
 * (`options.port`), the sandbox proxy on a second port. The view is read and verified first; the tool is
 * called once, its result handed to the view when the page asks for it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const serve = (
  client: McpClient.Service,
  options: Options
): Effect.Effect<Running, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const maxPending = options.maxPending ?? 16
    const maxMessageBytes = options.maxMessageBytes ?? 1024 * 1024
    const maxStreams = 8
    const tools = yield* client.listTools
    const tool = tools.find((t) => t.name === options.tool)
    if (tool === undefined) return yield* new NoView({ tool: options.tool, reason: "is not listed by the server" })
    const meta = AppView.toolMeta(tool)
    const uri = Option.flatMap(meta, (m) => Option.fromNullable(m.resourceUri))
    if (Option.isNone(uri)) {
      return yield* new NoView({ tool: options.tool, reason: "has no view (no _meta.ui.resourceUri)" })
    }
    if (!AppView.visibility(tool).includes("model")) {
      return yield* new NoView({ tool: options.tool, reason: "is for its view only (visibility [\"app\"])" })
    }
    const view = yield* AppView.read(client, uri.value, {
      ...(options.maxViewBytes !== undefined ? { maxBytes: options.maxViewBytes } : {})
    }).pipe(
      // What the server answers (a view it does not serve) named as the view's, in one line.
      Effect.catchIf(
        (error) => error._tag !== "InvalidView",
        (error) => Effect.fail(new Error(`View ${uri.value}: the server cannot give it (${describe(error)})`))
      )
    )
    const csp = AppView.contentSecurityPolicy(view.ui)
    const allow = AppView.permissionsPolicy(view.ui)

    // The tool's result, called once now, handed to the page when it asks.
    const result = yield* Deferred.make<unknown, string>()
    yield* client.callTool(options.tool, options.arguments).pipe(
      Effect.mapError(describe),
      Effect.exit,
      Effect.flatMap((exit) => Deferred.done(result, exit)),
      Effect.forkScoped
    )

    const runtime = yield* Effect.runtime<never>()
    const run = <A>(effect: Effect.Effect<A, unknown>) => Runtime.runPromiseExit(runtime)(effect)
    const permits = yield* Effect.makeSemaphore(maxPending)

    /** One bridge request of the view, answered here or through the client. */
    const answer = (method: string, params: Record<string, unknown>): Effect.Effect<unknown, unknown> => {
      switch (method) {
        case "tools/call": {
          const name = params.name
          const called = tools.find((t) => t.name === name)
          if (typeof name !== "string" || called === undefined) {
            return Effect.fail(new Error(`tool ${String(name)} is not listed by the server`))
          }
          if (!AppView.callableByApp(called)) {
            return Effect.fail(new Error(`tool ${name} may not be called by a view (its visibility has no "app")`))
          }
          const args = params.arguments
          return client.callTool(
            name,
            typeof args === "object" && args !== null && !Array.isArray(args)
              ? args as Record<string, unknown>
              : undefined
          )
        }
        case "resources/read":
          return typeof params.uri === "string"
            ? client.readResource(params.uri)
            : Effect.fail(new Error("resources/read needs a uri"))
        case "ping":
          return Effect.as(client.ping, {})
        case "ui/message":
        case "ui/update-model-context":
        case "ui/open-link":
        case "notifications/message":
          return Effect.as(options.onSaid({ method, params }), {})
        default:
          return Effect.fail(new Error(`${method} is not served by this host`))
      }
    }

    const script = yield* hostScript
    // Each server's origin is known once it listens: the other's pages name it.
    let hostOrigin = ""
    let sandboxPageFor = ""
    const sandbox = yield* listen(0, (request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      if (request.method === "GET" && path === "/sandbox") {
        return send(response, 200, "text/html; charset=utf-8", sandboxPageFor, {
          "content-security-policy": csp
        })
      }
      send(response, 404, "text/plain", "only /sandbox is served here")
    })
    const sandboxOrigin = `http://127.0.0.1:${portOf(sandbox)}`

    // The pages' event streams (at most maxStreams), told to tear the view down when the host stops.
    const streams = new Set<Http.ServerResponse>()
    const tornDown = yield* Deferred.make<void>()
    const host = yield* listen(options.port ?? 0, (request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      // A page of another origin (or a rebound DNS name) gets nothing.
      if (request.headers.host !== hostOrigin.slice("http://".length)) {
        return send(response, 421, "text/plain", "wrong host")
      }
      if (request.method === "GET" && path === "/") {
        return send(
          response,
          200,
          "text/html; charset=utf-8",
          hostPage(
            options.tool,
            { url: `${sandboxOrigin}/sandbox`, origin: sandboxOrigin },
            allow,
            view.ui.prefersBorder !== false
          ),
          {
            "content-security-policy":
              `default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-src ${sandboxOrigin}`
          }
        )
      }
      if (request.method === "GET" && path === "/host.js") {
        return send(response, 200, "text/javascript; charset=utf-8", script)
      }
      if (request.method === "GET" && path === "/early.js") {
        return send(response, 200, "text/javascript; charset=utf-8", earlyScript)
      }
      if (request.method === "GET" && path === "/session") {
        return json(response, 200, {
          config: { hostInfo, maxPending, sandbox: sandboxAttribute },
          tool,
          arguments: options.arguments ?? {},
          html: view.html,
          ui: view.ui,
          allow,
          sandboxOrigin,
          sandboxUrl: `${sandboxOrigin}/sandbox`
        })
      }
      if (request.method === "GET" && path === "/result") {
        return void run(Deferred.await(result)).then((exit) =>
          json(
            response,
            200,
            Exit.isSuccess(exit) ? { result: exit.value } : {
              error: Exit.match(exit, { onSuccess: () => "", onFailure: (c) => describe(c) })
            }
          )
        )
      }
      if (request.method === "GET" && path === "/events") {
        if (streams.size >= maxStreams) return send(response, 429, "text/plain", "too many pages")
        response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" })
        response.write(": the host's events\n\n")
        streams.add(response)
        response.on("close", () => streams.delete(response))
        return
      }
      if (request.method === "POST" && path === "/torn-down") {
        if (request.headers.origin !== hostOrigin) return json(response, 403, { error: { message: "wrong origin" } })
        void run(Deferred.succeed(tornDown, void 0))
        return json(response, 200, {})
      }
      if (request.method === "POST" && path === "/bridge") {
        if (request.headers.origin !== hostOrigin) return json(response, 403, { error: { message: "wrong origin" } })
        return void readBody(request, maxMessageBytes).then((body) => {
          if (body === undefined) {
            return json(response, 413, {
              error: { code: -32600, message: `a bridge message is at most ${maxMessageBytes} bytes` }
            })
          }
          let message: { readonly method?: unknown; readonly params?: unknown }
          try {
            message = JSON.parse(body)
          } catch {
            return json(response, 400, { error: { code: -32700, message: "not JSON" } })
          }
          const method = typeof message?.method === "string" ? message.method : ""
          const params = typeof message?.params === "object" && message.params !== null
            ? message.params as Record<string, unknown>
            : {}
          // Bounded: a request beyond maxPending in flight is refused at once, never queued.
          return run(
            permits.withPermitsIfAvailable(1)(Effect.either(answer(method, params)))
          ).then((exit) => {
            if (Exit.isFailure(exit)) return json(response, 500, { error: { code: -32603, message: "host failure" } })
            if (Option.isNone(exit.value)) {
              return json(response, 200, {
                error: { code: -32000, message: `too many bridge requests in flight (at most ${maxPending})` }
              })
            }
            const outcome = exit.value.value
            return outcome._tag === "Right"
              ? json(response, 200, { result: outcome.right })
              : json(response, 200, { error: { code: -32603, message: describe(outcome.left) } })
          })
        })
      }
      send(response, 404, "text/plain", "not found")
    })
    // Closed before the servers are (finalizers run last first): a page open is told to tear the view down,
    // and waited for a little.
    yield* Effect.addFinalizer(() =>
      streams.size === 0 ? Effect.void : Effect.gen(function*() {
        for (const stream of streams) stream.write("event: teardown\ndata: {}\n\n")
        // Interruptible inside the finalizer, for the timeout to end the wait.
        const answered = yield* Effect.interruptible(Deferred.await(tornDown)).pipe(
          Effect.timeout(teardownWait),
          Effect.option
        )
        yield* options.onTeardown?.(Option.isSome(answered)) ?? Effect.void
      })
    )
    hostOrigin = `http://127.0.0.1:${portOf(host)}`
    sandboxPageFor = sandboxPage(hostOrigin).replace(JSON.stringify("__ALLOW__"), JSON.stringify(allow))
    return { url: `${hostOrigin}/`, sandboxOrigin }
  })
