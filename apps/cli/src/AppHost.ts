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
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type * as Http from "node:http"
import * as Bridge from "./internal/appHost/bridge.js"
import { describe, handle, listen, originOf } from "./internal/appHost/http.js"
import * as Pages from "./internal/appHost/pages.js"
import * as Routes from "./internal/appHost/routes.js"
import * as Script from "./internal/appHost/script.js"

/**
 * What the view says to the "conversation" or the host: a `ui/message`, a `ui/update-model-context`, a
 * `ui/open-link`, a `ui/download-file` (what it offered, without the bytes: the browser saved the files), a
 * `notifications/message` (its log).
 *
 * @since 0.2.0
 * @category models
 */
export interface Said {
  readonly method: Bridge.Said
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

/**
 * The host page's script (an ES module for the browser, importing the official AppBridge): what
 * `bundleHostScript` bundles. The same for every view: what it needs of one is in `/session`.
 *
 * @since 0.2.0
 * @category constants
 */
export const pageScript: string = Pages.pageScript

/**
 * Bundles `pageScript` with AppBridge and its dependencies into one minified ES module for the browser
 * (esbuild, resolving `@modelcontextprotocol/ext-apps` from `from`, a directory; zod's messages in English
 * only), gzipped, in base64: what `scripts/bundle.mjs --app-host` embeds in a packed `mcp`, and the host
 * serves as it is (`content-encoding: gzip`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const bundleHostScript: (from: string) => Promise<string> = Script.bundleGzipped

/**
 * The tool `options.tool` as listed, with its view read and verified (`AppView.read`): a tool that is not
 * listed, has no view or is for its view only is `NoView`; a view that cannot be rendered, one line.
 */
const findView = (client: McpClient.Service, options: Options) =>
  Effect.gen(function*() {
    const tools = yield* client.listTools
    const tool = tools.find((t) => t.name === options.tool)
    if (tool === undefined) return yield* new NoView({ tool: options.tool, reason: "is not listed by the server" })
    const uri = Option.flatMap(AppView.toolMeta(tool), (m) => Option.fromNullable(m.resourceUri))
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
    return { tools, tool, view }
  })

/** A server on 127.0.0.1:`port` for the scope, answering nothing yet. */
const listenOn = (port: number) => Effect.mapError(listen(port), (cause) => new ListenError({ port, cause }))

/**
 * Calls `options.tool` and serves its view until the scope closes: the host page on 127.0.0.1
 * (`options.port`), the sandbox proxy on a second port. The view is read and verified first; the tool is
 * called once, its result handed to the view when the page asks for it. When the scope closes, a page
 * open is told to tear the view down (`ui/resource-teardown`), waited for 2 seconds, before the servers
 * close.
 *
 * @since 0.2.0
 * @category constructors
 */
export const serve = (
  client: McpClient.Service,
  options: Options
): Effect.Effect<Running, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const { tool, tools, view } = yield* findView(client, options)
    // The tool's result, called once now, handed to the page when it asks.
    const result = yield* Deferred.make<unknown, string>()
    yield* client.callTool(options.tool, options.arguments).pipe(
      Effect.mapError(describe),
      Effect.exit,
      Effect.flatMap((exit) => Deferred.done(result, exit)),
      // Closed before the tool answered: the page asking for the result is told so, not left waiting.
      Effect.onInterrupt(() => Deferred.fail(result, "cancelled: the host closed before the tool answered")),
      Effect.forkScoped
    )
    const maxPending = options.maxPending ?? 16
    const bridge = yield* Bridge.make({
      client,
      tools,
      onSaid: options.onSaid,
      maxPending,
      maxMessageBytes: options.maxMessageBytes ?? 1024 * 1024
    })
    const script = yield* Script.hostScript
    // Both listen first: each one's pages name the other's origin.
    const sandbox = yield* listenOn(0)
    const host = yield* listenOn(options.port ?? 0)
    const streams = yield* Ref.make<ReadonlySet<Http.ServerResponse>>(new Set())
    const tornDown = yield* Deferred.make<void>()
    const served: Routes.Host = {
      hostOrigin: originOf(host),
      sandboxOrigin: originOf(sandbox),
      hostInfo,
      tool,
      arguments: options.arguments ?? {},
      view,
      allow: AppView.permissionsPolicy(view.ui),
      csp: AppView.contentSecurityPolicy(view.ui),
      script,
      maxPending,
      result,
      streams,
      tornDown,
      bridge
    }
    yield* handle(sandbox, Routes.sandbox(served))
    yield* handle(host, Routes.hostPageServer(served))
    // Run before the servers close (finalizers run last first): a page open is told to tear the view down.
    yield* Effect.addFinalizer(() => teardown(served, options))
    return { url: `${served.hostOrigin}/`, sandboxOrigin: served.sandboxOrigin }
  })

/** The pages open told to tear the view down, and waited for a little; `onTeardown` told whether they did. */
const teardown = (served: Routes.Host, options: Options) =>
  Effect.gen(function*() {
    const streams = yield* Ref.get(served.streams)
    if (streams.size === 0) return
    for (const stream of streams) stream.write("event: teardown\ndata: {}\n\n")
    // Interruptible inside the finalizer, for the timeout to end the wait.
    const answered = yield* Effect.interruptible(Deferred.await(served.tornDown)).pipe(
      Effect.timeout(teardownWait),
      Effect.option
    )
    yield* options.onTeardown?.(Option.isSome(answered)) ?? Effect.void
  })
