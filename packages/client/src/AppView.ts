/**
 * The client side of MCP Apps (the extension `io.modelcontextprotocol/ui`, Apps specification 2026-01-26),
 * what a host builds on: declare that the client renders views, tell which tools have one, and fetch a
 * view's HTML, verified, with its typed `_meta.ui`.
 *
 * - **Declared.** `AppView.declare(options)` declares the extension with `text/html;profile=mcp-app` in the
 *   client's capabilities (kept with those its handlers give): in `initialize`, and on every 2026-07-28
 *   request. A server shows views, links and app-only tools only to such a client.
 * - **Which tools.** `toolMeta` reads a tool's `_meta.ui` (typed; the deprecated flat `ui/resourceUri`
 *   read too), `visibility` who may call it; `forModel` keeps the tools a model may be shown (a host
 *   MUST NOT list app-only tools to its model), `callableByApp` those a view may call (a host MUST refuse
 *   the others); `linked` lists the server's tools that have a view.
 * - **Verified, or not at all.** `read` fetches a view with `resources/read` and hands out its HTML only
 *   if the URI is `ui://`, the content's MIME type is `text/html;profile=mcp-app`, the HTML is within
 *   `maxBytes` (default 4 MiB) and UTF-8, and its `_meta.ui` is the specification's; anything else is an
 *   `InvalidView`, in one line.
 * - **What the sandbox applies.** `contentSecurityPolicy` and `permissionsPolicy` turn a view's `_meta.ui`
 *   into the CSP and the iframe `allow` attribute the specification asks of a host.
 *
 * @example
 * ```ts
 * import { AppView, McpClient } from "@effect-mcp/client"
 * import { Effect } from "effect"
 *
 * // The client's options, with the extension declared.
 * export const options = AppView.declare({ clientInfo: { name: "host", version: "1.0.0" } })
 *
 * // The first tool with a view, and its view: HTML and what its sandbox must allow.
 * export const firstView = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const [linked] = yield* AppView.linked(client)
 *   const view = yield* AppView.read(client, linked.resourceUri)
 *   return { tool: linked.tool.name, html: view.html, connect: view.ui.csp?.connectDomains ?? [] }
 * })
 * ```
 *
 * @since 0.2.0
 */
import { Schema as McpSchema } from "@effect-mcp/core"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as ClientError from "./ClientError.js"
import * as internal from "./internal/apps.js"
import type * as McpClient from "./McpClient.js"

/**
 * The extension identifier, `io.modelcontextprotocol/ui`.
 *
 * @since 0.2.0
 * @category constants
 */
export const extensionId: typeof McpSchema.Apps.extensionId = McpSchema.Apps.extensionId

/**
 * The MIME type of an HTML view, `text/html;profile=mcp-app`.
 *
 * @since 0.2.0
 * @category constants
 */
export const mimeType: typeof McpSchema.Apps.mimeType = McpSchema.Apps.mimeType

/**
 * A tool's `_meta.ui`: `resourceUri`, `visibility` (the Apps schema's `McpUiToolMeta`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ToolMeta: typeof McpSchema.Apps.ToolMeta = McpSchema.Apps.ToolMeta

/**
 * @since 0.2.0
 * @category models
 */
export type ToolMeta = McpSchema.Apps.ToolMeta

/**
 * A view's `_meta.ui`: `csp`, `permissions`, `domain`, `prefersBorder` (the Apps schema's
 * `McpUiResourceMeta`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ResourceMeta: typeof McpSchema.Apps.ResourceMeta = McpSchema.Apps.ResourceMeta

/**
 * @since 0.2.0
 * @category models
 */
export type ResourceMeta = McpSchema.Apps.ResourceMeta

/**
 * The most bytes of a view's HTML `read` accepts by default (4 MiB).
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxBytes: number = 4 * 1024 * 1024

/**
 * The extension's settings this client declares: it renders `text/html;profile=mcp-app`.
 *
 * @since 0.2.0
 * @category constants
 */
export const settings: { readonly mimeTypes: ReadonlyArray<string> } = { mimeTypes: [McpSchema.Apps.mimeType] }

/**
 * A client's options with the extension declared: `capabilities.extensions["io.modelcontextprotocol/ui"]`
 * with `mimeTypes: ["text/html;profile=mcp-app"]`, beside the capabilities given (or, when none are
 * given, those the handlers imply: sampling, elicitation, roots).
 *
 * @since 0.2.0
 * @category constructors
 */
export const declare: <O extends McpClient.Options<any>>(options: O) => O = internal.declare

/**
 * The server declared the extension in its capabilities. A hint only: the specification asks nothing of
 * a server's capabilities, and servers made with the official SDK (`registerAppTool`) declare nothing;
 * `linked` tells which tools have views.
 *
 * @since 0.2.0
 * @category predicates
 */
export const served = (client: McpClient.Service): boolean =>
  client.serverCapabilities.extensions?.[McpSchema.Apps.extensionId] !== undefined

/**
 * A tool's `_meta.ui`, typed: its view's URI (from `_meta.ui.resourceUri`, else the deprecated flat
 * `_meta["ui/resourceUri"]`) and its visibility; none when the tool has neither, or a `_meta.ui` that is
 * not the specification's.
 *
 * @since 0.2.0
 * @category accessors
 */
export const toolMeta: (tool: McpSchema.Tool.Tool) => Option.Option<ToolMeta> = internal.toolMeta

/**
 * Who may call a tool: its `_meta.ui.visibility`, by default `["model", "app"]`.
 *
 * @since 0.2.0
 * @category accessors
 */
export const visibility: (tool: McpSchema.Tool.Tool) => ReadonlyArray<McpSchema.Apps.Visibility> = internal.visibility

/**
 * The tools a model may be shown: those whose visibility includes `"model"`.
 *
 * @since 0.2.0
 * @category filters
 */
export const forModel = <T extends McpSchema.Tool.Tool>(tools: ReadonlyArray<T>): Array<T> =>
  tools.filter((tool) => visibility(tool).includes("model"))

/**
 * May a view call this tool (its visibility includes `"app"`)? A host refuses a view's call to any other.
 *
 * @since 0.2.0
 * @category predicates
 */
export const callableByApp = (tool: McpSchema.Tool.Tool): boolean => visibility(tool).includes("app")

/**
 * A tool with a view: the tool as listed, its view's `ui://` URI and who may call it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Linked {
  readonly tool: McpSchema.Tool.Tool
  readonly resourceUri: string
  readonly visibility: ReadonlyArray<McpSchema.Apps.Visibility>
}

/**
 * The server's tools that have a view (a `ui://` link), as listed to this client (the server shows the
 * links only to a client that declared the extension: see `declare`).
 *
 * @since 0.2.0
 * @category accessors
 */
export const linked: (client: McpClient.Service) => Effect.Effect<ReadonlyArray<Linked>, ClientError.ClientError> =
  internal.linked

/**
 * A verified view: its URI, its HTML (UTF-8, within the bound), its size in bytes, and its `_meta.ui`
 * (empty when the server sent none: the host's restrictive defaults apply).
 *
 * @since 0.2.0
 * @category models
 */
export interface View {
  readonly uri: string
  readonly mimeType: string
  readonly html: string
  readonly bytes: number
  readonly ui: ResourceMeta
}

/**
 * Options of `read`.
 *
 * @since 0.2.0
 * @category models
 */
export interface ReadOptions {
  /** The most bytes of HTML accepted (default `defaultMaxBytes`, 4 MiB). */
  readonly maxBytes?: number
}

/**
 * A view that cannot be rendered: its URI and why, in one line. Nothing of it is handed out.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidView extends Data.TaggedError("InvalidView")<{
  readonly uri: string
  readonly reason: string
}> {
  override get message(): string {
    return `View ${this.uri}: ${this.reason}`
  }
}

/**
 * Fetches a view (`resources/read`) and verifies it: a `ui://` URI (else nothing is sent), one content of
 * that URI, of MIME type `text/html;profile=mcp-app`, its HTML (`text`, or a base64 `blob`) UTF-8 and
 * within `maxBytes`, and its `_meta.ui` the specification's, each of its csp domains one CSP source. What
 * fails is an `InvalidView`; what the server refuses (a URI it does not serve) is its error.
 *
 * @since 0.2.0
 * @category accessors
 */
export const read: (
  client: McpClient.Service,
  uri: string,
  options?: ReadOptions
) => Effect.Effect<View, ClientError.ClientError | InvalidView> = internal.read

/**
 * The Content-Security-Policy a host applies to a view, from its `_meta.ui.csp` as the specification maps
 * it: `resourceDomains` to `script-src`, `style-src`, `img-src`, `font-src` and `media-src`;
 * `connectDomains` to `connect-src`; `frameDomains` to `frame-src`; `baseUriDomains` to `base-uri`. What is
 * not declared is the specification's restrictive default (`default-src 'none'`, inline scripts and styles
 * of the document itself, `data:` images and media, `connect-src 'none'`, `frame-src 'none'`,
 * `base-uri 'self'`), and `object-src 'none'` always. A domain that is not one source (a space, a quote, a
 * `;` or `,` in it) is left out: it could widen the policy (`read` refuses a view that declares one).
 *
 * @since 0.2.0
 * @category host
 */
export const contentSecurityPolicy: (ui: ResourceMeta) => string = internal.contentSecurityPolicy

/**
 * The iframe `allow` attribute (Permissions Policy) a host gives a view, from its `_meta.ui.permissions`:
 * `camera`, `microphone`, `geolocation`, `clipboard-write`, the ones it asked for only (empty: none).
 *
 * @since 0.2.0
 * @category host
 */
export const permissionsPolicy: (ui: ResourceMeta) => string = internal.permissionsPolicy
