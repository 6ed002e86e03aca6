/**
 * MCP Apps, the extension `io.modelcontextprotocol/ui` (Apps specification 2026-01-26): a server gives a
 * tool an interactive HTML view, a `ui://` resource of MIME type `text/html;profile=mcp-app` that a host
 * renders in a sandboxed iframe.
 *
 * - A client (a host) declares the extension with the MIME types it renders, under
 *   `capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes` (in `initialize`, or per request in
 *   2026-07-28's `_meta`).
 * - A view's `_meta.ui` (`ResourceMeta`) says what the host's sandbox must allow: `csp`, `permissions`,
 *   `domain`, `prefersBorder`.
 * - A tool's `_meta.ui` (`ToolMeta`) links it to its view (`resourceUri`) and says who may call it
 *   (`visibility`); the flat key `ui/resourceUri` is the deprecated form of the link.
 *
 * The field names are the specification's (`McpUiResourceMeta`, `McpUiToolMeta`,
 * `McpUiClientCapabilities` of the extension's JSON Schema).
 *
 * @since 0.2.0
 */
import * as Built from "../internal/schema/apps.js"

const built = Built.apps()

/**
 * The extension identifier, the key in `capabilities.extensions`.
 *
 * @since 0.2.0
 * @category constants
 */
export const extensionId = Built.extensionId

/**
 * The MIME type of an HTML view: a view resource has it, and a client that renders views lists it.
 *
 * @since 0.2.0
 * @category constants
 */
export const mimeType = Built.mimeType

/**
 * The deprecated flat `_meta` key of a tool's link to its view (`_meta["ui/resourceUri"]`), still read by
 * older hosts; `_meta.ui.resourceUri` is the link.
 *
 * @since 0.2.0
 * @category constants
 */
export const resourceUriKey = Built.resourceUriKey

/**
 * The URI scheme of every view.
 *
 * @since 0.2.0
 * @category constants
 */
export const scheme = Built.scheme

/**
 * The origins a view may reach, each list mapped by the host onto CSP directives: `connectDomains`
 * (`connect-src`: fetch, XHR, WebSocket), `resourceDomains` (`img-src`, `script-src`, `style-src`,
 * `font-src`, `media-src`), `frameDomains` (`frame-src`), `baseUriDomains` (`base-uri`). Omitted or
 * empty: none (the host's restrictive default).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ResourceCsp = built.ResourceCsp

/**
 * @since 0.2.0
 * @category models
 */
export type ResourceCsp = Built.ResourceCsp

/**
 * The browser permissions a view asks for (each an empty object when asked): `camera`, `microphone`,
 * `geolocation`, `clipboardWrite`, mapped by the host onto the iframe's Permission Policy. A host may
 * refuse them; a view detects what it got.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ResourcePermissions = built.ResourcePermissions

/**
 * @since 0.2.0
 * @category models
 */
export type ResourcePermissions = Built.ResourcePermissions

/**
 * A view's `_meta.ui`: its `csp`, its `permissions`, a dedicated sandbox origin (`domain`, in the format
 * the host documents) and whether it wants a visible border (`prefersBorder`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ResourceMeta = built.ResourceMeta

/**
 * @since 0.2.0
 * @category models
 */
export type ResourceMeta = Built.ResourceMeta

/**
 * Who may call a tool: `"model"` (listed to the agent, callable by it), `"app"` (callable by a view of
 * the same server).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Visibility = built.Visibility

/**
 * @since 0.2.0
 * @category models
 */
export type Visibility = typeof Visibility.Type

/**
 * A tool's `_meta.ui`: the URI of its view (`resourceUri`) and who may call it (`visibility`, by default
 * both the model and the app).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ToolMeta = built.ToolMeta

/**
 * @since 0.2.0
 * @category models
 */
export type ToolMeta = Built.ToolMeta

/**
 * A client's settings of the extension: the MIME types of the views it renders.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ClientCapability = built.ClientCapability

/**
 * @since 0.2.0
 * @category models
 */
export type ClientCapability = Built.ClientCapability

/**
 * The visibility of a tool whose `_meta.ui` says none.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultVisibility: ReadonlyArray<Visibility> = ["model", "app"]

/**
 * Is `type` the MIME type of a view, compared as MIME types are (case, and the spaces around `;`,
 * aside)?
 *
 * @since 0.2.0
 * @category predicates
 */
export const isViewMimeType: (type: string) => boolean = Built.isViewMimeType

/**
 * Does a client with these capabilities render HTML views: did it declare the extension with
 * `text/html;profile=mcp-app` among its `mimeTypes`?
 *
 * @since 0.2.0
 * @category predicates
 */
export const rendersViews: (
  capabilities: { readonly extensions?: Readonly<Record<string, unknown>> | undefined } | undefined
) => boolean = Built.rendersViews
