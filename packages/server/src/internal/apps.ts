/**
 * MCP Apps in the serving core: what a client that renders no views is shown (no view, no link, no
 * app-only tool), and the check, when a server is built, that every tool's link names a view it serves.
 */
import { Revision } from "@effect-mcp/core"
import * as FeatureSchemas from "@effect-mcp/core/FeatureSchemas"
import type * as Resource from "../Resource.js"
import type * as Tool from "../Tool.js"
import * as McpSchema from "./mcpSchema.js"

// MCP Apps' constants, read without building its schemas (a server without views never builds them).
const Apps = {
  mimeType: FeatureSchemas.appsMimeType,
  resourceUriKey: FeatureSchemas.appsResourceUriKey,
  scheme: FeatureSchemas.appsScheme,
  rendersViews: FeatureSchemas.appsRendersViews
}

type ToolDefinition = McpSchema.Tool.Tool
type ResourceDefinition = McpSchema.Resource.Resource

/** Is this resource a view (by its MIME type, whoever made it)? */
export const isView = (definition: ResourceDefinition): boolean => definition.mimeType === Apps.mimeType

/** The URI a tool's definition links to (`_meta.ui.resourceUri`, else the deprecated flat key). */
export const linkOf = (definition: ToolDefinition): string | undefined => {
  const meta = definition._meta
  if (meta === undefined) return undefined
  const ui = meta.ui as { readonly resourceUri?: unknown } | undefined
  const uri = typeof ui === "object" && ui !== null ? ui.resourceUri : undefined
  const flat = meta[Apps.resourceUriKey]
  return typeof uri === "string" ? uri : typeof flat === "string" ? flat : undefined
}

const hasUi = (meta: McpSchema.Base.MetaObject): boolean => "ui" in meta || Apps.resourceUriKey in meta

/**
 * A tool's definition as a client that renders no views sees it: undefined when it is for the app
 * only (`visibility` without `"model"`), else without its `_meta.ui` and flat link.
 */
export const forPlainClient = (definition: ToolDefinition): ToolDefinition | undefined => {
  const meta = definition._meta
  if (meta === undefined || !hasUi(meta)) return definition
  const visibility = (meta.ui as { readonly visibility?: unknown } | undefined)?.visibility
  if (Array.isArray(visibility) && !visibility.includes("model")) return undefined
  const { [Apps.resourceUriKey]: _flat, ui: _ui, ...rest } = meta
  const { _meta: _, ...fields } = definition
  return Object.keys(rest).length > 0 ? { ...fields, _meta: rest } : fields
}

/** The revisions whose tool definitions carry `_meta` (from 2025-06-18), worked out when first asked. */
const carriesMeta = ((): () => ReadonlySet<string> => {
  let built: ReadonlySet<string> | undefined
  return () =>
    built ??= new Set(
      Revision.all.filter((revision) =>
        !McpSchema.Base.absentFields(FeatureSchemas.tool().Tool, revision).includes("_meta")
      )
    )
})()

/**
 * Is this request shown views: its client declared the extension with the MIME type, and its revision's
 * tools carry `_meta` (the link)? Before 2025-06-18 a tool has no `_meta`: a link cannot reach the host,
 * and an app-only tool would be listed as any other, so the request is served as a plain client's.
 */
export const showsViews = (request: {
  readonly clientCapabilities: McpSchema.Capabilities.ClientCapabilities
  readonly features: { readonly revision: string }
}): boolean => Apps.rendersViews(request.clientCapabilities) && carriesMeta().has(request.features.revision)

/**
 * The first link of `tools` that names no view of `resources`, said in one line; undefined when every
 * link holds.
 */
export const brokenLink = (
  tools: ReadonlyArray<Tool.Tool<any>>,
  resources: ReadonlyArray<Resource.Resource<any>>
): string | undefined => {
  const byUri = new Map(resources.map((r) => [r.uri, r]))
  for (const tool of tools) {
    const uri = linkOf(tool.definition)
    if (uri === undefined) continue
    if (!uri.startsWith(Apps.scheme)) {
      return `Tool ${tool.name} is linked to ${uri}: a view's URI starts with ${Apps.scheme}`
    }
    const resource = byUri.get(uri)
    if (resource === undefined) {
      return `Tool ${tool.name} is linked to the view ${uri}, which this server does not serve ` +
        `(give its AppView to the server's resources)`
    }
    if (!isView(resource.definition)) {
      return `Tool ${tool.name} is linked to ${uri}, which is served as ${
        resource.definition.mimeType ?? "no MIME type"
      }, not as a view (${Apps.mimeType})`
    }
  }
  return undefined
}

/**
 * The caching hints of a server with views (`hasViews`): its `tools/list` and `resources/list` differ
 * by client (a client that renders no views is shown no view, no link, no app-only tool), so a
 * shared cache must not keep them: their `cacheScope` is `private`.
 */
export const cachePolicy = <
  P extends Partial<Record<string, { readonly ttlMs: number; readonly cacheScope: "public" | "private" }>>
>(
  policy: P,
  hasViews: boolean
): P => {
  if (!hasViews) return policy
  const out: Partial<Record<string, { readonly ttlMs: number; readonly cacheScope: "public" | "private" }>> = {
    ...policy
  }
  for (const method of ["tools/list", "resources/list"]) {
    out[method] = { ttlMs: policy[method]?.ttlMs ?? 0, cacheScope: "private" }
  }
  return out as P
}
