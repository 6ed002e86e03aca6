/**
 * Mounting: one server built from several parts, each a set of tools, prompts, resources and
 * templates under a prefix, as a team composes a server from modules.
 *
 * - **Names**: a part's tool or prompt `name` is `prefix_name` in the whole.
 * - **URIs**, reversibly ({@link mountUri} / {@link unmountUri}): `demo://items/1` of part
 *   `notes` is `notes+demo://items/1` (the prefix joins the scheme, so the URI stays a URI and a
 *   template a template); a view (`ui://`, whose scheme hosts require) is `ui://notes/…`. A read's
 *   contents, a tool's link to its view (`_meta.ui.resourceUri`) and the links and embedded
 *   resources of a part's results that name the part's own resources are rewritten too.
 * - **Collisions** are refused when the server is built, in one line naming both parts.
 * - **Changes**: {@link under} is a part's view of the whole server: what the part adds, removes
 *   or updates through it is prefixed, and the whole's clients hear of it (list changes, updates)
 *   as of any change of the whole.
 *
 * @example
 * ```ts
 * import { McpServer, Mount, Tool } from "@effect-mcp/server"
 * import { Effect, Schema } from "effect"
 *
 * const Forecast = Tool.make("forecast", { parameters: Schema.Struct({ city: Schema.String }) }, ({ city }) =>
 *   Effect.succeed(`sunny in ${city}`))
 * const Add = Tool.make("add", { parameters: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
 *   Effect.succeed(`noted: ${text}`))
 *
 * // Tools `weather_forecast` and `notes_add`.
 * export const Server = Mount.layer({
 *   serverInfo: { name: "assistant", version: "1.0.0" },
 *   parts: [{ prefix: "weather", tools: [Forecast] }, { prefix: "notes", tools: [Add] }]
 * })
 * ```
 *
 * @since 0.1.0
 */
import type { McpError, Schema as McpSchema } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as McpRequest from "./McpRequest.js"
import * as McpServer from "./McpServer.js"
import type * as Prompt from "./Prompt.js"
import type * as Resource from "./Resource.js"
import type * as Tool from "./Tool.js"

/**
 * One part of a mounted server: its prefix and what it serves.
 *
 * @since 0.1.0
 * @category models
 */
export interface Part<R> {
  /**
   * The part's prefix: a letter, then letters, digits, `-` or `.` (what may begin a URI scheme),
   * so that a mounted URI is a URI and reads back to the part's own.
   */
  readonly prefix: string
  readonly tools?: ReadonlyArray<Tool.Tool<R>>
  readonly prompts?: ReadonlyArray<Prompt.Prompt<R>>
  readonly resources?: ReadonlyArray<Resource.Resource<R> | Resource.Template<R>>
}

/**
 * What the handlers of the parts require, together (but `McpRequest`, which each request provides).
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<P extends ReadonlyArray<Part<any>>> = Exclude<
  P[number] extends Part<infer R> ? R : never,
  McpRequest.McpRequest
>

/**
 * Options of `make` / `layer`: the server's, with parts in place of its own tools, prompts and
 * resources.
 *
 * @since 0.1.0
 * @category models
 */
export type Options<P extends ReadonlyArray<Part<any>>> =
  & Omit<McpServer.Options<unknown>, "tools" | "prompts" | "resources">
  & { readonly parts: P }

const prefixPattern = /^[A-Za-z][A-Za-z0-9.-]*$/

/**
 * The name of a part's tool or prompt in the whole: `prefix_name`.
 *
 * @since 0.1.0
 * @category naming
 */
export const mountName = (prefix: string, name: string): string => `${prefix}_${name}`

/**
 * The URI of a part's resource (or its URI template) in the whole: `prefix+uri`, or
 * `ui://prefix/…` for a view.
 *
 * @since 0.1.0
 * @category naming
 */
export const mountUri = (prefix: string, uri: string): string =>
  uri.startsWith("ui://") ? `ui://${prefix}/${uri.slice(5)}` : `${prefix}+${uri}`

/**
 * The part's own URI of a URI of the whole ({@link mountUri} undone), or `undefined` when the URI
 * is not under `prefix`.
 *
 * @since 0.1.0
 * @category naming
 */
export const unmountUri = (prefix: string, uri: string): string | undefined =>
  uri.startsWith(`${prefix}+`)
    ? uri.slice(prefix.length + 1)
    : uri.startsWith(`ui://${prefix}/`)
    ? `ui://${uri.slice(prefix.length + 6)}`
    : undefined

/** Rewrites the URIs of the contents and links a part returns that `own` says are the part's. */
const contentOf = (prefix: string, own: (uri: string) => boolean) => (block: McpSchema.Content.ContentBlock) => {
  if (block.type === "resource_link" && own(block.uri)) return { ...block, uri: mountUri(prefix, block.uri) }
  if (block.type === "resource" && own(block.resource.uri)) {
    return { ...block, resource: { ...block.resource, uri: mountUri(prefix, block.resource.uri) } }
  }
  return block
}

/** A tool's `_meta` with its link to its view (both keys) under the prefix. */
const metaOf = (prefix: string, meta: McpSchema.Base.MetaObject | undefined) => {
  if (meta === undefined) return undefined
  const ui = meta.ui as { readonly resourceUri?: unknown } | undefined
  const flat = meta["ui/resourceUri"]
  return {
    ...meta,
    ...(ui !== undefined && typeof ui.resourceUri === "string"
      ? { ui: { ...ui, resourceUri: mountUri(prefix, ui.resourceUri) } }
      : {}),
    ...(typeof flat === "string" ? { "ui/resourceUri": mountUri(prefix, flat) } : {})
  }
}

/**
 * A part's tool as the whole serves it: named `prefix_name`, its view's link and the links of its
 * results that `own` says are the part's (default: none) under the prefix.
 *
 * @since 0.1.0
 * @category combinators
 */
export const tool = <R>(
  prefix: string,
  tool: Tool.Tool<R>,
  own: (uri: string) => boolean = () => false
): Tool.Tool<R> => {
  const name = mountName(prefix, tool.name)
  const meta = metaOf(prefix, tool.definition._meta)
  const rewrite = contentOf(prefix, own)
  return {
    ...tool,
    name,
    definition: { ...tool.definition, name, ...(meta !== undefined ? { _meta: meta } : {}) },
    run: (args) => Effect.map(tool.run(args), (result) => ({ ...result, content: result.content.map(rewrite) }))
  }
}

/**
 * A part's prompt as the whole serves it: named `prefix_name`, the links and embedded resources of
 * its messages that `own` says are the part's under the prefix.
 *
 * @since 0.1.0
 * @category combinators
 */
export const prompt = <R>(
  prefix: string,
  prompt: Prompt.Prompt<R>,
  own: (uri: string) => boolean = () => false
): Prompt.Prompt<R> => {
  const name = mountName(prefix, prompt.name)
  const rewrite = contentOf(prefix, own)
  return {
    ...prompt,
    name,
    definition: { ...prompt.definition, name },
    get: (args) =>
      Effect.map(prompt.get(args), (result) => ({
        ...result,
        messages: result.messages.map((m) => ({ ...m, content: rewrite(m.content) }))
      }))
  }
}

const readOf = <R>(
  prefix: string,
  read: Effect.Effect<Resource.ReadResourceResult, McpError.McpError, R>
): Effect.Effect<Resource.ReadResourceResult, McpError.McpError, R> =>
  Effect.map(read, (result) => ({
    ...result,
    contents: result.contents.map((c) => ({ ...c, uri: mountUri(prefix, c.uri) }))
  }))

/**
 * A part's resource or template as the whole serves it: its URI (template) under the prefix, read
 * with the part's own URI, its contents named with the whole's.
 *
 * @since 0.1.0
 * @category combinators
 */
export const resource = <R>(
  prefix: string,
  resource: Resource.Resource<R> | Resource.Template<R>
): Resource.Resource<R> | Resource.Template<R> => {
  if (resource._tag === "Resource") {
    const uri = mountUri(prefix, resource.uri)
    return {
      ...resource,
      uri,
      definition: { ...resource.definition, uri },
      read: (mounted: string) => readOf(prefix, resource.read(unmountUri(prefix, mounted) ?? mounted))
    }
  }
  const uriTemplate = mountUri(prefix, resource.uriTemplate)
  return {
    ...resource,
    uriTemplate,
    definition: { ...resource.definition, uriTemplate },
    match: (mounted) => {
      const own = unmountUri(prefix, mounted)
      return own === undefined ? undefined : resource.match(own)
    },
    read: (mounted, variables) => readOf(prefix, resource.read(unmountUri(prefix, mounted) ?? mounted, variables))
  }
}

/**
 * Does the part serve `uri` (one of its resources, or an instance of one of its templates)?
 */
const ownerOf = <R>(resources: ReadonlyArray<Resource.Resource<R> | Resource.Template<R>>) => (uri: string) =>
  resources.some((r) => r._tag === "Resource" ? r.uri === uri : r.match(uri) !== undefined)

/**
 * What the parts serve, mounted, or the one line that says why they cannot be: a bad or repeated
 * prefix, or two parts' entries under one name or URI.
 *
 * @since 0.1.0
 * @category constructors
 */
export const entries = <R>(parts: ReadonlyArray<Part<R>>): {
  readonly tools: ReadonlyArray<Tool.Tool<R>>
  readonly prompts: ReadonlyArray<Prompt.Prompt<R>>
  readonly resources: ReadonlyArray<Resource.Resource<R> | Resource.Template<R>>
} | string => {
  const tools: Array<Tool.Tool<R>> = []
  const prompts: Array<Prompt.Prompt<R>> = []
  const resources: Array<Resource.Resource<R> | Resource.Template<R>> = []
  const seen = new Map<string, string>()
  const claim = (kind: string, key: string, prefix: string): string | undefined => {
    const before = seen.get(`${kind} ${key}`)
    if (before !== undefined) {
      return `Mount: ${kind} ${JSON.stringify(key)} of part ${JSON.stringify(prefix)} collides with part ` +
        `${JSON.stringify(before)}'s`
    }
    seen.set(`${kind} ${key}`, prefix)
    return undefined
  }
  for (const part of parts) {
    if (!prefixPattern.test(part.prefix)) {
      return `Mount: prefix ${JSON.stringify(part.prefix)} is not a letter followed by letters, digits, '-' or '.'`
    }
    const again = claim("prefix", part.prefix, part.prefix)
    if (again !== undefined) return `Mount: prefix ${JSON.stringify(part.prefix)} is given twice`
    const own = ownerOf(part.resources ?? [])
    for (const t of part.tools ?? []) {
      const mounted = tool(part.prefix, t, own)
      const collision = claim("tool", mounted.name, part.prefix)
      if (collision !== undefined) return collision
      tools.push(mounted)
    }
    for (const p of part.prompts ?? []) {
      const mounted = prompt(part.prefix, p, own)
      const collision = claim("prompt", mounted.name, part.prefix)
      if (collision !== undefined) return collision
      prompts.push(mounted)
    }
    for (const r of part.resources ?? []) {
      const mounted = resource(part.prefix, r)
      const key = mounted._tag === "Resource" ? mounted.uri : mounted.uriTemplate
      const collision = claim(mounted._tag === "Resource" ? "resource" : "template", key, part.prefix)
      if (collision !== undefined) return collision
      resources.push(mounted)
    }
  }
  return { tools, prompts, resources }
}

/**
 * Makes the whole server of the parts (as `McpServer.make`); a collision, or a bad or repeated
 * prefix, fails it when it is built, in one line.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const P extends ReadonlyArray<Part<any>>>(
  options: Options<P>
): Effect.Effect<McpServer.Service, never, Requirements<P> | Scope.Scope> => {
  const { parts, ...server } = options
  const mounted = entries(parts as ReadonlyArray<Part<unknown>>)
  if (typeof mounted === "string") return Effect.dieMessage(mounted)
  return McpServer.make({ ...server, ...mounted }) as Effect.Effect<
    McpServer.Service,
    never,
    Requirements<P> | Scope.Scope
  >
}

/**
 * The whole server of the parts as a Layer (as `McpServer.layer`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <const P extends ReadonlyArray<Part<any>>>(
  options: Options<P>
): Layer.Layer<McpServer.McpServer, never, Requirements<P>> => Layer.scoped(McpServer.McpServer, make(options))

/**
 * A part's view of the whole server: what it adds or removes (by its own names and URIs) is
 * prefixed, a resource it says changed is the whole's mounted URI; the whole's clients hear of
 * each change as of any; its log messages (`log`) are under its prefix (logger `prefix`, or
 * `prefix/logger`). Adding under a name another part holds replaces it, as `addTool` does.
 * `own` says which URIs are the part's (its resources' and templates'): its tools' and prompts'
 * links to them are rewritten to the mounted URIs (default: none is).
 *
 * @since 0.1.0
 * @category combinators
 */
export const under = (
  server: McpServer.Service,
  prefix: string,
  own: (uri: string) => boolean = () => false
): McpServer.Service => ({
  serverInfo: server.serverInfo,
  revisions: server.revisions,
  addTool: (t) => server.addTool(tool(prefix, t, own)),
  removeTool: (name) => server.removeTool(mountName(prefix, name)),
  addPrompt: (p) => server.addPrompt(prompt(prefix, p, own)),
  removePrompt: (name) => server.removePrompt(mountName(prefix, name)),
  addResource: (r) => server.addResource(resource(prefix, r)),
  removeResource: (uri) => server.removeResource(mountUri(prefix, uri)),
  update: (changes) =>
    server.update({
      tools: changes.tools?.map((t) => tool(prefix, t, own)),
      prompts: changes.prompts?.map((p) => prompt(prefix, p, own)),
      resources: changes.resources?.map((r) => resource(prefix, r)),
      removeTools: changes.removeTools?.map((name) => mountName(prefix, name)),
      removePrompts: changes.removePrompts?.map((name) => mountName(prefix, name)),
      removeResources: changes.removeResources?.map((uri) => mountUri(prefix, uri))
    }),
  resourceUpdated: (uri) => server.resourceUpdated(mountUri(prefix, uri)),
  log: (level, data, logger) => server.log(level, data, logger === undefined ? prefix : `${prefix}/${logger}`),
  tool: (name) => server.tool(mountName(prefix, name)),
  serve: server.serve,
  activeSubscriptions: server.activeSubscriptions,
  closeSubscription: server.closeSubscription,
  closeAllSubscriptions: server.closeAllSubscriptions
})
