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
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Engine from "./internal/engine.js"
import * as Handshake from "./internal/handshake.js"
import * as InputRequired from "./internal/inputRequired.js"
import * as Registry from "./internal/registry.js"
import type * as Serving from "./internal/serving.js"
import * as Stateless from "./internal/stateless.js"
import * as Subscriptions from "./internal/subscriptions.js"
import type * as McpRequest from "./McpRequest.js"
import * as NotificationBus from "./NotificationBus.js"
import type * as Prompt from "./Prompt.js"
import type * as Resource from "./Resource.js"
import type * as Subscription from "./Subscription.js"
import type * as Tool from "./Tool.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly serverInfo: McpSchema.Base.Implementation
  /** The revisions this server serves, oldest first. */
  readonly revisions: ReadonlyArray<Revision.Revision>
  /**
   * Adds or replaces a tool; initialized sessions, and subscriptions that asked, get
   * `notifications/tools/list_changed` (every edit is published to the `NotificationBus`).
   */
  readonly addTool: <R>(tool: Tool.Tool<R>) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  readonly removeTool: (name: string) => Effect.Effect<boolean>
  readonly addPrompt: <R>(prompt: Prompt.Prompt<R>) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  readonly removePrompt: (name: string) => Effect.Effect<boolean>
  readonly addResource: <R>(
    resource: Resource.Resource<R> | Resource.Template<R>
  ) => Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>>
  /** Removes a resource by URI, or a template by URI template. */
  readonly removeResource: (uri: string) => Effect.Effect<boolean>
  /**
   * Tells subscribed sessions, and subscriptions whose `resourceSubscriptions` cover the URI, that
   * a resource changed (`notifications/resources/updated`).
   */
  readonly resourceUpdated: (uri: string) => Effect.Effect<void>
  /** The tool registered under `name` right now. */
  readonly tool: (name: string) => Effect.Effect<Option.Option<Tool.Tool>>
  /**
   * The tool registered under `name` right now, read synchronously: for a transport that checks a
   * request against its tool before anything runs (2026-07-28 `Mcp-Param-*` headers).
   */
  readonly unsafeTool: (name: string) => Tool.Tool | undefined
  /**
   * Serves every client of a transport (stdio's one, each HTTP session) until the transport ends.
   * Each client is a session; sessions are plain data, served by one engine per transport.
   */
  readonly serve: (protocol: Transport.Protocol, options?: ServeOptions) => Effect.Effect<void, never, Scope.Scope>
  /**
   * 2026-07-28: the open `subscriptions/listen` requests, over every transport and client, oldest
   * first (a snapshot). Each has a server-wide `handle`, and its wire `subscriptionId` (the listen
   * request's JSON-RPC id, unique per client only).
   */
  readonly activeSubscriptions: Effect.Effect<ReadonlyArray<Subscription.Subscription>>
  /**
   * 2026-07-28: ends a subscription gracefully, by its handle (or as listed): what it had yet to
   * send is sent, then its listen request is answered `{ resultType: "complete", _meta: {
   * subscriptionId, serverInfo } }`. Completes once the answer is handed to the transport: true,
   * or false when it was not (no longer) open. The server's end closes every subscription so.
   */
  readonly closeSubscription: (
    subscription: Subscription.Handle | Subscription.Subscription
  ) => Effect.Effect<boolean>
  /** 2026-07-28: ends every subscription gracefully (as `closeSubscription`); how many were answered. */
  readonly closeAllSubscriptions: Effect.Effect<number>
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
  /**
   * Serve one era only on this transport (default: every era the server speaks), as a transport
   * with a back end per era does (HTTP: 2026-07-28 POSTs apart from handshake sessions). Ignored
   * when the server does not speak that era.
   */
  readonly era?: Revision.Era
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
  /**
   * The revisions served, oldest first (default: the four of the handshake era). With
   * `"2026-07-28"` the server speaks the stateless revision; with it and handshake ones, both
   * eras on one endpoint (dual): a request with a protocol version in its `_meta` is served
   * statelessly, `initialize` opens a handshake session.
   */
  readonly revisions?: ReadonlyArray<Revision.Revision>
  /**
   * 2026-07-28 caching hints of the cacheable results, per method (default `ttlMs: 0`,
   * `cacheScope: "public"`); a handler's own `ttlMs` / `cacheScope` take precedence.
   */
  readonly cachePolicy?: Partial<Record<Stateless.Cacheable, Stateless.CacheHint>>
  /**
   * The key that seals 2026-07-28 `requestState` (HMAC-SHA256), so that a retry may reach any
   * process that has it. Default: a random key per server, and a warning when the first state is
   * sealed (retries then cannot move between processes). At least 32 bytes (UTF-8; e.g.
   * `openssl rand -base64 32`): a shorter key, an empty one included, fails a server that serves
   * 2026-07-28 when it is built, in one line (`requestStateKey must be at least 32 bytes (got 0)`).
   */
  readonly requestStateKey?: Redacted.Redacted<string> | Config.Config<Redacted.Redacted<string>>
  /** How long a sealed `requestState` stays valid (default 10 minutes). */
  readonly requestStateTtl?: Duration.DurationInput
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

/** The shortest `requestStateKey` taken, in UTF-8 bytes: as many as HMAC-SHA256 puts out. */
const minimumKeyBytes = 32

/** The first key given twice, as a sentence naming it and its kind. */
const firstDuplicate = (kind: string, keys: ReadonlyArray<string>): string | undefined => {
  const seen = new Set<string>()
  for (const key of keys) {
    if (seen.has(key)) return `Duplicate ${kind} ${JSON.stringify(key)}: each may be given only once`
    seen.add(key)
  }
  return undefined
}

/**
 * What the tools, prompts and resources of `options` require, together: the union across the
 * arrays (a tool needing `Counter` and another needing `Clock` require both), without
 * `McpRequest`, which each request provides.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<O> = Exclude<
  | (O extends { readonly tools?: ReadonlyArray<infer T> | undefined } ? T extends Tool.Tool<infer R> ? R : never
    : never)
  | (O extends { readonly prompts?: ReadonlyArray<infer P> | undefined } ? P extends Prompt.Prompt<infer R> ? R
    : never
    : never)
  | (O extends { readonly resources?: ReadonlyArray<infer X> | undefined }
    ? X extends Resource.Resource<infer R> | Resource.Template<infer R> ? R : never
    : never),
  McpRequest.McpRequest
>

/**
 * Makes a server. Handlers' requirements are taken from the context here (their union across
 * tools, prompts and resources, inferred), except `McpRequest`, which each request provides.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const O extends Options<any>>(
  options: O
): Effect.Effect<Service, never, Requirements<O> | Scope.Scope> =>
  Effect.gen(function*() {
    type R = any
    const context = (yield* Effect.context<Requirements<O>>()) as Context.Context<R>
    // The handlers given here run with the server's context, provided once per session (below),
    // not once per call; only things added later carry their own context.
    const resources = (options.resources ?? []) as ReadonlyArray<Resource.Resource | Resource.Template>
    const revisions = options.revisions ?? Revision.handshake
    const handshakeRevisions = revisions.filter((r) => !Revision.isStateless(r))
    const statelessRevisions = revisions.filter(Revision.isStateless)
    const config: Serving.Config = {
      serverInfo: options.serverInfo,
      instructions: options.instructions,
      revisions: handshakeRevisions,
      pageSize: options.pageSize ?? 100,
      capabilities: options.capabilities ?? {},
      listChangedWindow: options.listChangedWindow ?? "10 millis"
    }
    // The bus of the server's context, if given (shared with other servers), else its own.
    const bus = yield* Effect.catchTag(
      Effect.serviceOptional(NotificationBus.NotificationBus),
      "NoSuchElementException",
      () => NotificationBus.make
    )
    // Two definitions under one name would leave one silently unreachable: a mistake, said now.
    const duplicate = firstDuplicate("tool name", (options.tools ?? []).map((t) => t.name)) ??
      firstDuplicate("prompt name", (options.prompts ?? []).map((p) => p.name)) ??
      firstDuplicate("resource URI", resources.flatMap((r) => r._tag === "Resource" ? [r.uri] : [])) ??
      firstDuplicate("resource template", resources.flatMap((r) => r._tag === "Template" ? [r.uriTemplate] : []))
    if (duplicate !== undefined) return yield* Effect.dieMessage(duplicate)
    const registry = yield* Registry.make({
      tools: (options.tools ?? []) as ReadonlyArray<Tool.Tool>,
      prompts: (options.prompts ?? []) as ReadonlyArray<Prompt.Prompt>,
      resources: resources.filter((r): r is Resource.Resource => r._tag === "Resource"),
      templates: resources.filter((r): r is Resource.Template => r._tag === "Template"),
      window: config.listChangedWindow,
      bus
    })
    // Every subscription, over every engine; closed gracefully when the server's scope ends.
    const subscriptions = yield* Subscriptions.make(registry, config)
    const clock = yield* Effect.clock
    const given = options.requestStateKey
    const key = given === undefined
      ? undefined
      : Redacted.isRedacted(given)
      ? given
      : yield* Effect.orDie(given as Config.Config<Redacted.Redacted<string>>)
    const keyBytes = key === undefined ? undefined : new TextEncoder().encode(Redacted.value(key))
    // A short key (an empty variable, a placeholder) would seal states anyone can forge: said now, by
    // a server that seals any (one that serves 2026-07-28).
    if (keyBytes !== undefined && keyBytes.length < minimumKeyBytes && statelessRevisions.length > 0) {
      return yield* Effect.dieMessage(
        `requestStateKey must be at least ${minimumKeyBytes} bytes (got ${keyBytes.length}): ` +
          "make one with openssl rand -base64 32"
      )
    }
    const sealer = yield* Effect.cached(
      Effect.tap(
        InputRequired.sealer({
          key: keyBytes ?? InputRequired.randomKey(),
          ttlMillis: Duration.toMillis(options.requestStateTtl ?? Duration.minutes(10)),
          now: () => clock.unsafeCurrentTimeMillis()
        }),
        () =>
          key === undefined
            ? Effect.logWarning(
              "effect-mcp: requestState is sealed with a random key of this process (set requestStateKey): " +
                "a retry of a multi-round-trip request cannot move to another process"
            )
            : Effect.void
      )
    )
    const eras: Engine.Eras = {
      registry,
      handshake: handshakeRevisions.length > 0 ? Handshake.makeServer(registry, config) : undefined,
      stateless: statelessRevisions.length > 0
        ? Stateless.makeServer(registry, config, {
          revisions: statelessRevisions,
          supportedVersions: revisions,
          cachePolicy: options.cachePolicy ?? {},
          sealer
        }, subscriptions)
        : undefined
    }
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
      revisions,
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
      tool: (name) => Effect.map(Ref.get(registry.entries), (entries) => Option.fromNullable(entries.tools.get(name))),
      unsafeTool: (name) => registry.unsafeEntries().tools.get(name),
      serve: (protocol, serveOptions) =>
        Effect.mapInputContext(
          Engine.serve(only(eras, serveOptions?.era), protocol, serveOptions?.tracing ?? false),
          (outer: Context.Context<Scope.Scope>) => Context.merge(context, outer)
        ),
      activeSubscriptions: subscriptions.active,
      closeSubscription: subscriptions.close,
      closeAllSubscriptions: subscriptions.closeAll
    } satisfies Service
  })

/** The eras of `eras` an engine serves: `era` alone when the server speaks it, else all. */
const only = (eras: Engine.Eras, era: Revision.Era | undefined): Engine.Eras =>
  era === "stateless" && eras.stateless !== undefined
    ? { ...eras, handshake: undefined }
    : era === "handshake" && eras.handshake !== undefined
    ? { ...eras, stateless: undefined }
    : eras

const kindField = (kind: Registry.ListKind, entries: Registry.Entries, key: string): keyof Registry.Entries =>
  kind === "tools" ? "tools" : kind === "prompts" ? "prompts" : entries.resources.has(key) ? "resources" : "templates"

/**
 * The server as a Layer. What the handlers require (but `McpRequest`) is what the layer requires:
 * `McpServer.layer({ tools: [a, b] })` with `a` needing `Counter` and `b` needing `Clock` requires
 * `Counter | Clock`, with no type arguments.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <const O extends Options<any>>(
  options: O
): Layer.Layer<McpServer, never, Exclude<Requirements<O>, Scope.Scope>> => Layer.scoped(McpServer, make(options)) as any

/**
 * Serves every client of a transport until the transport ends (stdio: its input).
 *
 * @since 0.1.0
 * @category combinators
 */
export const serve = (protocol: Transport.Protocol, options?: ServeOptions): Effect.Effect<void, never, McpServer> =>
  Effect.scoped(Effect.flatMap(McpServer, (server) => server.serve(protocol, options)))

/**
 * 2026-07-28, the low-level side of a multi-round-trip request: stops the handler with an
 * `input_required` result asking the client for `inputRequests` (by keys of the handler's choosing),
 * and carrying the handler's own `requestState`, which the library seals with its own. On the retry,
 * `McpRequest.inputResponse(key)` and `McpRequest.requestState` read them back. Only tools/call,
 * prompts/get and resources/read may answer so; an input kind the request's capabilities do not
 * declare is refused with -32021, and nothing is asked. (In a handshake session there is no
 * `input_required`: use `McpRequest.elicit`, `.sample` and `.roots`, which work in both eras.)
 *
 * ```ts
 * const Confirm = Tool.make("confirm", {}, () =>
 *   Effect.gen(function*() {
 *     const answer = yield* McpRequest.inputResponse("ok")
 *     if (Option.isNone(answer)) {
 *       return yield* McpServer.inputRequired({
 *         inputRequests: { ok: McpServer.elicitForm({ message: "Sure?", requestedSchema: { type: "object", properties: {} } }) }
 *       })
 *     }
 *     return "confirmed"
 *   }))
 * ```
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const inputRequired = (options: {
  readonly inputRequests?: Readonly<Record<string, McpSchema.InputRequired.InputRequest>>
  readonly requestState?: string
}): Effect.Effect<never> => InputRequired.signal(options.inputRequests ?? {}, options.requestState)

/**
 * `inputRequired` with the handler's own state as a value of `schema` (serialized as JSON inside
 * the sealed `requestState`); the retry reads it back with `McpRequest.requestStateAs(schema)`.
 * A value the schema cannot encode is a defect of the handler (-32603).
 *
 * @example
 * ```ts
 * import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
 * import { Effect, Option, Schema } from "effect"
 *
 * const Step = Schema.Struct({ step: Schema.Number, draft: Schema.String })
 *
 * export const Publish = Tool.make("publish", {}, () =>
 *   Effect.gen(function*() {
 *     // The retry carries the state of the round before (none in the first round).
 *     const state = yield* McpRequest.requestStateAs(Step)
 *     if (Option.isNone(state)) {
 *       return yield* McpServer.inputRequiredWith(Step)({
 *         inputRequests: {
 *           ok: McpServer.elicitForm({ message: "Sure?", requestedSchema: { type: "object", properties: {} } })
 *         },
 *         state: { step: 1, draft: "hello" }
 *       })
 *     }
 *     return `published ${state.value.draft}`
 *   }))
 * ```
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const inputRequiredWith = <A, I>(schema: Schema.Schema<A, I>) =>
(options: {
  readonly inputRequests?: Readonly<Record<string, McpSchema.InputRequired.InputRequest>>
  readonly state: A
}): Effect.Effect<never> =>
  Effect.flatMap(
    Effect.orDie(Schema.encode(Schema.parseJson(schema))(options.state)),
    (requestState) =>
      inputRequired(
        options.inputRequests === undefined ? { requestState } : { inputRequests: options.inputRequests, requestState }
      )
  )

/**
 * An input request: a form for the user to fill in.
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const elicitForm = (
  params: McpSchema.Elicitation.ElicitRequestFormParams
): McpSchema.InputRequired.InputRequest => ({ method: "elicitation/create", params })

/**
 * An input request: a URL for the user to open (the out-of-band step).
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const elicitUrl = (
  params: McpSchema.Elicitation.ElicitRequestURLParams20251125
): McpSchema.InputRequired.InputRequest =>
  ({ method: "elicitation/create", params }) as McpSchema.InputRequired.InputRequest

/**
 * An input request: a completion of the client's LLM.
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const sample = (
  params: McpSchema.Sampling.CreateMessageRequestParams
): McpSchema.InputRequired.InputRequest => ({ method: "sampling/createMessage", params })

/**
 * An input request: the client's roots.
 *
 * @since 0.1.0
 * @category multi-round trips
 */
export const roots = (): McpSchema.InputRequired.InputRequest => ({ method: "roots/list" })
