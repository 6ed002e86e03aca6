/**
 * The MCP server: a registry of tools, prompts, resources and templates (editable while
 * running), and sessions that serve it over any transport.
 *
 * ```ts
 * const Server = McpServer.layer({ serverInfo: { name: "demo", version: "1.0.0" }, tools: [Greet] })
 * NodeMcpServer.serveStdio.pipe(Effect.provide(Server), NodeRuntime.runMain)
 * ```
 *
 * @since 0.1.0
 */
import type { Transport } from "@effect-mcp/core"
import { Revision, Schema as McpSchema } from "@effect-mcp/core"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Handshake from "./internal/handshake.js"
import * as Registry from "./internal/registry.js"
import type * as Serving from "./internal/serving.js"
import type * as McpRequest from "./McpRequest.js"
import type * as Prompt from "./Prompt.js"
import type * as Resource from "./Resource.js"
import type * as Tool from "./Tool.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly serverInfo: McpSchema.Base.Implementation
  /** The revisions this server serves, oldest first. */
  readonly revisions: ReadonlyArray<Revision.Revision>
  /** Adds or replaces a tool; initialized sessions get `notifications/tools/list_changed`. */
  readonly addTool: <R>(tool: Tool.Tool<R>) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  readonly removeTool: (name: string) => Effect.Effect<boolean>
  readonly addPrompt: <R>(prompt: Prompt.Prompt<R>) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  readonly removePrompt: (name: string) => Effect.Effect<boolean>
  readonly addResource: <R>(
    resource: Resource.Resource<R> | Resource.Template<R>
  ) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  /** Removes a resource by URI, or a template by URI template. */
  readonly removeResource: (uri: string) => Effect.Effect<boolean>
  /** Tells subscribed sessions that a resource changed (`notifications/resources/updated`). */
  readonly resourceUpdated: (uri: string) => Effect.Effect<void>
  /**
   * Serves every client of a transport (stdio's one, each HTTP session) until the transport ends.
   * Each client is a session; sessions are plain data, served by one engine per transport.
   */
  readonly serve: (protocol: Transport.Protocol, options?: ServeOptions) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * Options of serving one transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServeOptions {
  /** Each request in a span of its own (`mcp <method>`), for the tracer in context (default false). */
  readonly tracing?: boolean
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpServer extends Context.Tag("@effect-mcp/server/McpServer")<McpServer, Service>() {}

/**
 * Options of `make` / `layer`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R> {
  readonly serverInfo: McpSchema.Base.Implementation
  readonly instructions?: string
  readonly tools?: ReadonlyArray<Tool.Tool<R>>
  readonly prompts?: ReadonlyArray<Prompt.Prompt<R>>
  readonly resources?: ReadonlyArray<Resource.Resource<R> | Resource.Template<R>>
  /** Handshake revisions offered (default: all four), oldest first. */
  readonly revisions?: ReadonlyArray<Revision.Revision>
  /** Page size of list results (default 100). */
  readonly pageSize?: number
  /** Declare capabilities even when the registry starts empty (for servers that add things later). */
  readonly capabilities?: Serving.Config["capabilities"]
  /** Coalescing window of list_changed notifications (default 10 millis). */
  readonly listChangedWindow?: Duration.DurationInput
}

const provideTool = <R>(tool: Tool.Tool<R>, context: Context.Context<R>): Tool.Tool =>
  ({ ...tool, run: (args: unknown) => Effect.provide(tool.run(args), context) }) as Tool.Tool

const providePrompt = <R>(prompt: Prompt.Prompt<R>, context: Context.Context<R>): Prompt.Prompt => ({
  ...prompt,
  get: (args) => Effect.provide(prompt.get(args), context),
  completions: Object.fromEntries(
    Object.entries(prompt.completions).map(([k, c]) => [k, (v: string, ctx: any) => Effect.provide(c(v, ctx), context)])
  )
})

const provideResource = <R>(
  resource: Resource.Resource<R> | Resource.Template<R>,
  context: Context.Context<R>
): Resource.Resource | Resource.Template =>
  resource._tag === "Resource"
    ? { ...resource, read: (uri: string) => Effect.provide(resource.read(uri), context) }
    : {
      ...resource,
      read: (uri, variables) => Effect.provide(resource.read(uri, variables), context),
      completions: Object.fromEntries(
        Object.entries(resource.completions).map((
          [k, c]
        ) => [k, (v: string, ctx: any) => Effect.provide(c(v, ctx), context)])
      )
    }

/**
 * Makes a server. Handlers' requirements are taken from the context here, except
 * `McpRequest`, which each request provides.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R>(
  options: Options<R>
): Effect.Effect<Service, never, Exclude<R, McpRequest.McpRequest> | Scope.Scope> =>
  Effect.gen(function*() {
    const context = (yield* Effect.context<Exclude<R, McpRequest.McpRequest>>()) as Context.Context<R>
    // The handlers given here run with the server's context, provided once per session (below),
    // not once per call; only things added later carry their own context.
    const resources = (options.resources ?? []) as ReadonlyArray<Resource.Resource | Resource.Template>
    const config: Serving.Config = {
      serverInfo: options.serverInfo,
      instructions: options.instructions,
      revisions: options.revisions ?? Revision.handshake,
      pageSize: options.pageSize ?? 100,
      capabilities: options.capabilities ?? {},
      listChangedWindow: options.listChangedWindow ?? "10 millis"
    }
    const registry = yield* Registry.make({
      tools: (options.tools ?? []) as ReadonlyArray<Tool.Tool>,
      prompts: (options.prompts ?? []) as ReadonlyArray<Prompt.Prompt>,
      resources: resources.filter((r): r is Resource.Resource => r._tag === "Resource"),
      templates: resources.filter((r): r is Resource.Template => r._tag === "Template"),
      window: config.listChangedWindow
    })
    const handshake = Handshake.makeServer(registry, config)
    const removeFrom = (
      kind: Registry.ListKind,
      pick: (e: Registry.Entries) => ReadonlyMap<string, unknown>,
      key: string
    ) =>
      Effect.flatMap(Ref.get(registry.entries), (entries) =>
        pick(entries).has(key)
          ? Effect.as(
            registry.edit(kind, (e) => ({
              ...e,
              [kindField(kind, e, key)]: Registry.remove(pick(e) as ReadonlyMap<string, any>, key)
            })),
            true
          )
          : Effect.succeed(false))
    return {
      serverInfo: options.serverInfo,
      revisions: config.revisions,
      addTool: (tool) =>
        Effect.flatMap(Effect.context<any>(), (ctx) =>
          registry.edit("tools", (e) => ({ ...e, tools: Registry.set(e.tools, tool.name, provideTool(tool, ctx)) }))),
      removeTool: (name) =>
        removeFrom("tools", (e) =>
          e.tools, name),
      addPrompt: (prompt) =>
        Effect.flatMap(Effect.context<any>(), (ctx) =>
          registry.edit(
            "prompts",
            (e) => ({ ...e, prompts: Registry.set(e.prompts, prompt.name, providePrompt(prompt, ctx)) })
          )),
      removePrompt: (name) => removeFrom("prompts", (e) => e.prompts, name),
      addResource: (resource) =>
        Effect.flatMap(Effect.context<any>(), (ctx) => {
          const provided = provideResource(resource, ctx)
          return registry.edit("resources", (e) =>
            provided._tag === "Resource"
              ? { ...e, resources: Registry.set(e.resources, provided.uri, provided) }
              : { ...e, templates: Registry.set(e.templates, provided.uriTemplate, provided) })
        }),
      removeResource: (uri) =>
        Effect.flatMap(Ref.get(registry.entries), (entries) =>
          entries.resources.has(uri)
            ? removeFrom("resources", (e) => e.resources, uri)
            : removeFrom("resources", (e) => e.templates, uri)),
      resourceUpdated: registry.updated,
      serve: (protocol, serveOptions) =>
        Effect.mapInputContext(
          Handshake.serve(handshake, protocol, serveOptions?.tracing ?? false),
          (outer: Context.Context<Scope.Scope>) => Context.merge(context, outer)
        )
    } satisfies Service
  })

const kindField = (kind: Registry.ListKind, entries: Registry.Entries, key: string): keyof Registry.Entries =>
  kind === "tools" ? "tools" : kind === "prompts" ? "prompts" : entries.resources.has(key) ? "resources" : "templates"

/**
 * The server as a Layer. Handlers' requirements `R` (but `McpRequest`) are requirements of the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R>(
  options: Options<R>
): Layer.Layer<McpServer, never, Exclude<R, Scope.Scope | McpRequest.McpRequest>> =>
  Layer.scoped(McpServer, make(options)) as any

/**
 * Serves every client of a transport until the transport ends (stdio: its input).
 *
 * @since 0.1.0
 * @category combinators
 */
export const serve = (protocol: Transport.Protocol, options?: ServeOptions): Effect.Effect<void, never, McpServer> =>
  Effect.scoped(Effect.flatMap(McpServer, (server) => server.serve(protocol, options)))
