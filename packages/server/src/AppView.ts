/**
 * MCP Apps views (the extension `io.modelcontextprotocol/ui`, Apps specification 2026-01-26): a view is an
 * interactive HTML page a host renders beside the conversation, in a sandboxed iframe, for the tools linked
 * to it.
 *
 * - **A view is a resource.** `AppView.make` declares a `ui://` resource of MIME type
 *   `text/html;profile=mcp-app`, its HTML from a string, a file (`AppView.file`) or a bundle of HTML,
 *   scripts and styles inlined into one document (`AppView.bundle`), and its `_meta.ui` (`csp`,
 *   `permissions`, `domain`, `prefersBorder`, as the specification names them). Give it to
 *   `McpServer.layer` among the `resources`.
 * - **Tools link to it.** `AppView.link` marks an ordinary `Tool.make` tool with `_meta.ui.resourceUri`
 *   (and the deprecated flat key `ui/resourceUri`, for older hosts) and its `visibility`: `["app"]` makes
 *   a tool the view calls that a model is never shown.
 * - **Only to clients that render views.** A client that declared the extension with the MIME type (in
 *   `initialize`, or on the request in 2026-07-28) is served the views, the links and the app-only tools;
 *   to any other client the server lists no view, the linked tools without their `_meta.ui`, and no
 *   app-only tool (it stays callable by name). A linked tool must therefore answer with meaningful text
 *   content, which is all such a client shows. Tools carry `_meta` from 2025-06-18: a session of an
 *   older revision is served as a client without views, whatever it declared.
 * - **Checked when built.** A tool linked to a URI the server does not serve as a view fails the server
 *   when it is built, in one line.
 *
 * @example
 * ```ts
 * import { AppView, McpServer, Tool } from "@effect-mcp/server"
 * import { Effect, pipe, Schema } from "effect"
 *
 * const Counter = AppView.make("ui://demo/counter", {
 *   name: "Counter",
 *   csp: { connectDomains: ["https://api.example.com"] },
 *   prefersBorder: true
 * }, "<!doctype html><html><body><button id=b>+1</button></body></html>")
 *
 * // Shown to the model; the host renders its result in the view.
 * const Show = AppView.link(
 *   Tool.make("show_counter", { description: "Show the counter" }, () => Effect.succeed("The counter is 0")),
 *   Counter
 * )
 *
 * // Called by the view only: no model ever lists it.
 * const Increment = pipe(
 *   Tool.make("increment", { parameters: Schema.Struct({ by: Schema.Number }) }, ({ by }) => Effect.succeed(`+${by}`)),
 *   AppView.link(Counter, { visibility: ["app"] })
 * )
 *
 * export const Server = McpServer.layer({
 *   serverInfo: { name: "counter", version: "1.0.0" },
 *   tools: [Show, Increment],
 *   resources: [Counter]
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as FeatureSchemas from "@effect-mcp/core/FeatureSchemas"
import type { PlatformError } from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import * as Lazy from "./internal/lazy.js"
import * as McpSchema from "./internal/mcpSchema.js"
import * as Resource from "./Resource.js"
import * as Tool from "./Tool.js"

// MCP Apps' constants; its schemas built when a view is first made (`FeatureSchemas.apps()`).
const Apps = {
  mimeType: FeatureSchemas.appsMimeType,
  resourceUriKey: FeatureSchemas.appsResourceUriKey,
  scheme: FeatureSchemas.appsScheme
}

/**
 * The MIME type of a view, `text/html;profile=mcp-app`.
 *
 * @since 0.2.0
 * @category constants
 */
export const mimeType: typeof McpSchema.Apps.mimeType = FeatureSchemas.appsMimeType

/**
 * The extension identifier, `io.modelcontextprotocol/ui`.
 *
 * @since 0.2.0
 * @category constants
 */
export const extensionId: typeof McpSchema.Apps.extensionId = FeatureSchemas.appsExtensionId

/**
 * @since 0.2.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@effect-mcp/server/AppView")

/**
 * A view's `_meta.ui`, as written in `make`'s options (the specification's field names).
 *
 * @since 0.2.0
 * @category models
 */
export type Ui = typeof McpSchema.Apps.ResourceMeta.Encoded

/**
 * A view: a resource (give it to `McpServer`'s `resources`) with its `_meta.ui`.
 *
 * @since 0.2.0
 * @category models
 */
export interface View<R = never> extends Resource.Resource<R> {
  readonly [TypeId]: typeof TypeId
  /** Its `_meta.ui`, as sent (only the fields given). */
  readonly ui: Ui
}

/**
 * Options of a view: its listing fields, its `_meta.ui` and the OAuth scopes reading it needs.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Ui {
  /** Its name in `resources/list` (default: the URI). */
  readonly name?: string
  readonly title?: string
  readonly description?: string
  /**
   * The OAuth scopes a caller's access token needs to read it (HTTP with authorization on): a read
   * without them is answered 403 with a step-up challenge.
   */
  readonly scopes?: ReadonlyArray<string>
}

/**
 * Where a view's HTML comes from: a string, or an Effect that gives it (read at each `resources/read`:
 * `file`, `bundle`, or your own).
 *
 * @since 0.2.0
 * @category models
 */
export type Html<E = never, R = never> = string | Effect.Effect<string, E, R>

const toEffect = <E, R>(html: Html<E, R>): Effect.Effect<string, E, R> =>
  typeof html === "string" ? Effect.succeed(html) : html

/** Made on first use: importing this module compiles no parser. */
const once = <A>(make: () => A): () => A => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}

const decodeUi = once(() => Schema.decodeUnknownSync(FeatureSchemas.apps().ResourceMeta, { onExcessProperty: "error" }))
const encodeUi = once(() => Schema.encodeSync(FeatureSchemas.apps().ResourceMeta))

/**
 * Declares a view at a `ui://` URI, its HTML from `html`, its `_meta.ui` from `options`.
 *
 * The view is listed (`resources/list`, to clients that render views) with its MIME type and
 * `_meta.ui`, and read (`resources/read`) as one text content of MIME type `text/html;profile=mcp-app`
 * carrying the same `_meta.ui`. A URI that is not `ui://`, or a `_meta.ui` with a field the specification
 * does not define, throws here, when the view is defined. A failure of `html` that is an `McpError`
 * reaches the client as itself; any other is -32603 ("Internal error"), logged on the server.
 *
 * @example
 * ```ts
 * import { AppView } from "@effect-mcp/server"
 *
 * export const Map = AppView.make("ui://maps/view", {
 *   name: "Map",
 *   csp: { resourceDomains: ["https://tile.openstreetmap.org"] },
 *   permissions: { geolocation: {} },
 *   prefersBorder: false
 * }, AppView.file("dist/map.html"))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <E = never, R = never>(uri: string, options: Options, html: Html<E, R>): View<R> => {
  if (!uri.startsWith(Apps.scheme) || uri.length === Apps.scheme.length) {
    throw new Error(`View ${JSON.stringify(uri)}: a view's URI must start with ${Apps.scheme}`)
  }
  const { description, name, scopes, title, ...given } = options
  let ui: Ui
  try {
    ui = encodeUi()(decodeUi()(given))
  } catch (error) {
    throw new Error(`View ${uri}: its _meta.ui is not the specification's: ${(error as Error).message}`)
  }
  const meta = Object.keys(ui).length > 0 ? { _meta: { ui } } : {}
  const resource = Resource.make(
    uri,
    {
      name: name ?? uri,
      mimeType: Apps.mimeType,
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(scopes !== undefined ? { scopes } : {}),
      ...meta
    },
    Effect.map(toEffect(html), (text): Resource.ResourceContents => ({ uri, mimeType: Apps.mimeType, text, ...meta }))
  )
  return { ...resource, [TypeId]: TypeId, ui }
}

/**
 * Is this a view (made by `make`)?
 *
 * @since 0.2.0
 * @category guards
 */
export const isView = (u: unknown): u is View<unknown> => typeof u === "object" && u !== null && TypeId in u

/**
 * A view's HTML from a file (UTF-8), read with the platform's `FileSystem` at each `resources/read`:
 * a rebuilt file is served at once. Provide the platform's layer (`NodeContext.layer`,
 * `BunContext.layer`) to the server.
 *
 * @since 0.2.0
 * @category constructors
 */
export const file = (path: string): Effect.Effect<string, PlatformError, FileSystem.FileSystem> =>
  // The platform's `FileSystem` (it imports `effect/Stream`) is loaded at the first read, not with the server.
  Effect.flatMap(
    Effect.promise(Lazy.fileSystem),
    (FileSystem) => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path))
  )

/**
 * The parts of a bundle: the HTML document, and the scripts and styles to inline into it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Bundle<E, R> {
  readonly html: Html<E, R>
  /** Module scripts, inlined in order before `</body>` (or at the end). */
  readonly scripts?: ReadonlyArray<Html<E, R>>
  /** Style sheets, inlined in order before `</head>` (or at the start). */
  readonly styles?: ReadonlyArray<Html<E, R>>
}

/** `text` with every `</tag` escaped, so that it cannot close the element it is inlined in. */
const inline = (tag: string, text: string): string => text.replace(new RegExp(`</(${tag})`, "gi"), "<\\/$1")

/** `html` with `insert` placed before `marker` (first match, any case), else by `fallback`. */
const insertBefore = (html: string, marker: RegExp, insert: string, fallback: "start" | "end"): string => {
  const at = html.search(marker)
  if (at < 0) return fallback === "start" ? insert + html : html + insert
  return html.slice(0, at) + insert + html.slice(at)
}

/**
 * A view's HTML as one document from a bundle: the HTML with its scripts (as `<script type="module">`)
 * and styles (as `<style>`) inlined, as a host loads a view: one document, no file beside it. Each part
 * is a string or an Effect (`file`), read at each `resources/read`.
 *
 * @example
 * ```ts
 * import { AppView } from "@effect-mcp/server"
 *
 * export const Chart = AppView.make("ui://charts/view", { name: "Chart" }, AppView.bundle({
 *   html: AppView.file("dist/index.html"),
 *   scripts: [AppView.file("dist/chart.js")],
 *   styles: [AppView.file("dist/chart.css")]
 * }))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const bundle = <E = never, R = never>(parts: Bundle<E, R>): Effect.Effect<string, E, R> =>
  Effect.map(
    Effect.all([
      toEffect(parts.html),
      Effect.all((parts.scripts ?? []).map(toEffect)),
      Effect.all((parts.styles ?? []).map(toEffect))
    ]),
    ([html, scripts, styles]) => {
      const withStyles = styles.length === 0 ? html : insertBefore(
        html,
        /<\/head\s*>/i,
        styles.map((css) => `<style>${inline("style", css)}</style>`).join(""),
        "start"
      )
      return scripts.length === 0 ? withStyles : insertBefore(
        withStyles,
        /<\/body\s*>/i,
        scripts.map((js) => `<script type="module">${inline("script", js)}</script>`).join(""),
        "end"
      )
    }
  )

/**
 * How a tool links to its view: who may call it (default both the model and the app).
 *
 * @since 0.2.0
 * @category models
 */
export interface LinkOptions {
  /**
   * `["model", "app"]` (the default): the model may call it, and the view; `["model"]`: the model only;
   * `["app"]`: the view only, never listed to a model (nor to a client that renders no views).
   */
  readonly visibility?: ReadonlyArray<McpSchema.Apps.Visibility>
}

const linkTool = <T extends Tool.Tool<any>>(tool: T, view: View<any> | string, options?: LinkOptions): T => {
  const resourceUri = typeof view === "string" ? view : view.uri
  const visibility = options?.visibility
  if (visibility !== undefined && (visibility.length === 0 || visibility.some((v) => v !== "model" && v !== "app"))) {
    throw new Error(
      `Tool ${tool.name}: visibility must name "model", "app" or both (got ${JSON.stringify(visibility)})`
    )
  }
  const ui = { resourceUri, ...(visibility !== undefined ? { visibility: Array.from(new Set(visibility)) } : {}) }
  return {
    ...tool,
    definition: {
      ...tool.definition,
      _meta: { ...tool.definition._meta, ui, [Apps.resourceUriKey]: resourceUri }
    }
  }
}

/**
 * Links a tool to a view (the view, or its URI): its definition gets `_meta.ui` (`resourceUri`, and
 * `visibility` when given) and the deprecated flat `_meta["ui/resourceUri"]` that older hosts read. The
 * tool is otherwise unchanged. A host that renders views shows the tool's result in the view; any other
 * client sees the tool without the link, and shows its text content.
 *
 * The server checks the link when it is built: a URI it does not serve as a view fails it, in one line.
 *
 * @since 0.2.0
 * @category combinators
 */
export const link: {
  (view: View<any> | string, options?: LinkOptions): <T extends Tool.Tool<any>>(tool: T) => T
  <T extends Tool.Tool<any>>(tool: T, view: View<any> | string, options?: LinkOptions): T
} = dual((args) => Tool.isTool(args[0]), linkTool)
