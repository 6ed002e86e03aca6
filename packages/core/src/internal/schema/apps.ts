/**
 * The schemas of `Schema/Apps.ts` (MCP Apps, the extension `io.modelcontextprotocol/ui`), built when
 * first asked for (`apps()`), not when the module is evaluated: a server without views never builds
 * them (`Schema/Apps.ts` re-exports them, built on its import, and the constants and predicates below).
 */
import * as Schema from "effect/Schema"

/** The extension identifier (`Schema/Apps.ts` re-exports it). */
export const extensionId = "io.modelcontextprotocol/ui" as const

/** The MIME type of an HTML view (`Schema/Apps.ts` re-exports it). */
export const mimeType = "text/html;profile=mcp-app" as const

/** The deprecated flat `_meta` key of a tool's link to its view (`Schema/Apps.ts` re-exports it). */
export const resourceUriKey = "ui/resourceUri" as const

/** The URI scheme of every view (`Schema/Apps.ts` re-exports it). */
export const scheme = "ui://" as const

/** Is `type` the MIME type of a view, compared as MIME types are (`Schema/Apps.ts` re-exports it)? */
export const isViewMimeType = (type: string): boolean => type.toLowerCase().replace(/\s*;\s*/g, ";").trim() === mimeType

/** Does a client with these capabilities render HTML views (`Schema/Apps.ts` re-exports it)? */
export const rendersViews = (
  capabilities: { readonly extensions?: Readonly<Record<string, unknown>> | undefined } | undefined
): boolean => {
  const settings = capabilities?.extensions?.[extensionId]
  if (typeof settings !== "object" || settings === null) return false
  const mimeTypes = (settings as { readonly mimeTypes?: unknown }).mimeTypes
  return Array.isArray(mimeTypes) && mimeTypes.some((type) => typeof type === "string" && isViewMimeType(type))
}

/** A class schema of the extension: instances `Self`, fields `Fields` (what `Schema.Class` makes). */
type AppsClass<Self, Fields extends Schema.Struct.Fields> = Schema.Class<
  Self,
  Fields,
  Schema.Struct.Encoded<Fields>,
  never,
  Schema.Struct.Constructor<Fields>,
  {},
  {}
>

type Domains = Schema.optional<Schema.Array$<typeof Schema.String>>

type ResourceCspFields = {
  readonly connectDomains: Domains
  readonly resourceDomains: Domains
  readonly frameDomains: Domains
  readonly baseUriDomains: Domains
}

/** An instance of `ResourceCsp`. */
export interface ResourceCsp extends Schema.Struct.Type<ResourceCspFields> {}

type Permission = Schema.optional<Schema.Struct<{}>>

type ResourcePermissionsFields = {
  readonly camera: Permission
  readonly microphone: Permission
  readonly geolocation: Permission
  readonly clipboardWrite: Permission
}

/** An instance of `ResourcePermissions`. */
export interface ResourcePermissions extends Schema.Struct.Type<ResourcePermissionsFields> {}

type ResourceMetaFields = {
  readonly csp: Schema.optional<AppsClass<ResourceCsp, ResourceCspFields>>
  readonly permissions: Schema.optional<AppsClass<ResourcePermissions, ResourcePermissionsFields>>
  readonly domain: Schema.optional<typeof Schema.String>
  readonly prefersBorder: Schema.optional<typeof Schema.Boolean>
}

/** An instance of `ResourceMeta`. */
export interface ResourceMeta extends Schema.Struct.Type<ResourceMetaFields> {}

type VisibilitySchema = Schema.Literal<["model", "app"]>

type ToolMetaFields = {
  readonly resourceUri: Schema.optional<typeof Schema.String>
  readonly visibility: Schema.optional<Schema.Array$<VisibilitySchema>>
}

/** An instance of `ToolMeta`. */
export interface ToolMeta extends Schema.Struct.Type<ToolMetaFields> {}

type ClientCapabilityFields = {
  readonly mimeTypes: Schema.optional<Schema.Array$<typeof Schema.String>>
}

/** An instance of `ClientCapability`. */
export interface ClientCapability extends Schema.Struct.Type<ClientCapabilityFields> {}

/** The schemas `apps()` builds (typed here: the classes it declares have no names outside it). */
export interface Schemas {
  readonly ResourceCsp: AppsClass<ResourceCsp, ResourceCspFields>
  readonly ResourcePermissions: AppsClass<ResourcePermissions, ResourcePermissionsFields>
  readonly ResourceMeta: AppsClass<ResourceMeta, ResourceMetaFields>
  readonly Visibility: VisibilitySchema
  readonly ToolMeta: AppsClass<ToolMeta, ToolMetaFields>
  readonly ClientCapability: AppsClass<ClientCapability, ClientCapabilityFields>
}

const make = (): Schemas => {
  const Domains = Schema.optional(Schema.Array(Schema.String))

  class ResourceCsp extends Schema.Class<ResourceCsp>("McpUiResourceCsp")({
    connectDomains: Domains,
    resourceDomains: Domains,
    frameDomains: Domains,
    baseUriDomains: Domains
  }) {}

  const Permission = Schema.optional(Schema.Struct({}))

  class ResourcePermissions extends Schema.Class<ResourcePermissions>("McpUiResourcePermissions")({
    camera: Permission,
    microphone: Permission,
    geolocation: Permission,
    clipboardWrite: Permission
  }) {}

  class ResourceMeta extends Schema.Class<ResourceMeta>("McpUiResourceMeta")({
    csp: Schema.optional(ResourceCsp),
    permissions: Schema.optional(ResourcePermissions),
    domain: Schema.optional(Schema.String),
    prefersBorder: Schema.optional(Schema.Boolean)
  }) {}

  const Visibility = Schema.Literal("model", "app")

  class ToolMeta extends Schema.Class<ToolMeta>("McpUiToolMeta")({
    resourceUri: Schema.optional(Schema.String),
    visibility: Schema.optional(Schema.Array(Visibility))
  }) {}

  class ClientCapability extends Schema.Class<ClientCapability>("McpUiClientCapabilities")({
    mimeTypes: Schema.optional(Schema.Array(Schema.String))
  }) {}

  return { ResourceCsp, ResourcePermissions, ResourceMeta, Visibility, ToolMeta, ClientCapability }
}

let built: Schemas | undefined

/** The schemas of `Schema/Apps.ts`, built on the first call. */
export const apps = (): Schemas => built ??= make()
