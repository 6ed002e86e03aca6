/**
 * The body of `McpServer.make`: the registry and its edits, the eras the server speaks, the
 * `requestState` sealer, and `serve`, which runs one engine on a transport with the server's
 * context. Building is named (`McpServer.make`, a span); nothing here is on a request's path.
 */
import type { Transport } from "@effect-mcp/core"
import { Revision, Telemetry } from "@effect-mcp/core"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { globalValue } from "effect/GlobalValue"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type * as Completion from "../Completion.js"
import type * as McpRequest from "../McpRequest.js"
import type * as McpServer from "../McpServer.js"
import * as NotificationBus from "../NotificationBus.js"
import type * as Prompt from "../Prompt.js"
import type * as Resource from "../Resource.js"
import * as Skills from "../Skills.js"
import * as TaskStore from "../TaskStore.js"
import type * as Tool from "../Tool.js"
import * as Apps from "./apps.js"
import * as Engine from "./engine.js"
import * as Handshake from "./handshake.js"
import * as Holders from "./holders.js"
import * as InputRequired from "./inputRequired.js"
import * as modules from "./lazy.js"
import * as Logs from "./logs.js"
import * as Metrics from "./metrics.js"
import * as Registry from "./registry.js"
import * as RelayLane from "./relayLane.js"
import type * as Serving from "./serving.js"
import type * as Stateless from "./stateless.js"
import * as Subscriptions from "./subscriptions.js"
import * as TaskMemory from "./taskMemory.js"
import * as TaskNone from "./taskNone.js"
import * as Tasks from "./tasks.js"

/** Why a server without the tasks code (a `StatelessServer` given no `tasks`) refuses `what`. */
const needsTasksCode = (what: string): string =>
  `effect-mcp: ${what} needs the tasks code: give the server tasks: StatelessServer.tasks`

// ---------------------------------------------------------------------------- requirements

/**
 * A handler's effect once what it requires is in hand, as the registry holds it. `McpRequest` is
 * in every request's fiber from its start (`Serving.requestContext`); the rest is provided
 * (`addTool` and the like) or merged into every engine the server serves (what `make` is given,
 * see `serve`). The registry is not generic in requirements: this is where the type lets them go.
 */
const erased = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E> => effect as Effect.Effect<A, E>

const provideTool = <R>(tool: Tool.Tool<R>, context: Context.Context<never>): Tool.Tool => ({
  ...tool,
  run: (args) => erased(Effect.provide(tool.run(args), context))
})

const provideCompleters = <R>(
  completions: Readonly<Record<string, Completion.Completer<R>>>,
  context: Context.Context<never>
): Readonly<Record<string, Completion.Completer>> =>
  Object.fromEntries(
    Object.entries(completions).map(([name, complete]) => [
      name,
      (value: string, args: Readonly<Record<string, string>>) => erased(Effect.provide(complete(value, args), context))
    ])
  )

const providePrompt = <R>(prompt: Prompt.Prompt<R>, context: Context.Context<never>): Prompt.Prompt => ({
  ...prompt,
  get: (args) => erased(Effect.provide(prompt.get(args), context)),
  completions: provideCompleters(prompt.completions, context)
})

const provideResource = <R>(
  resource: Resource.Resource<R> | Resource.Template<R>,
  context: Context.Context<never>
): Resource.Resource | Resource.Template =>
  resource._tag === "Resource"
    ? { ...resource, read: (uri: string) => erased(Effect.provide(resource.read(uri), context)) }
    : {
      ...resource,
      read: (uri, variables) => erased(Effect.provide(resource.read(uri, variables), context)),
      completions: provideCompleters(resource.completions, context)
    }

/**
 * What `make` is given, as the registry holds it: the handlers run with the server's context,
 * merged once into every engine the server serves (`serve`), not provided per call (only what is
 * added later carries its own). Erased as `erased` says.
 */
const given = (options: McpServer.Options<unknown>): McpServer.Options<never> => options as McpServer.Options<never>

// ---------------------------------------------------------------------------- checks when built

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
 * Whether a server given no key said that its random key cannot leave the process: once per
 * process. (The key itself is each server's own: a state one server seals, another of the process
 * does not open.)
 */
const randomKeyWarned = () =>
  globalValue(Symbol.for("@effect-mcp/server/randomRequestStateKeyWarned"), () => Ref.unsafeMake(false))

/** The `requestStateKey` given, read (a `Config` is read once, when the server is built). */
const readKey = Effect.fn("McpServer.requestStateKey")(function*(
  given: Redacted.Redacted<string> | Config.Config<Redacted.Redacted<string>> | undefined
) {
  if (given === undefined) return undefined
  return Redacted.isRedacted(given) ? given : yield* Effect.orDie(given)
})

// ---------------------------------------------------------------------------- off the public service

/** A server made here carries a synchronous tool lookup, off its public shape (see `unsafeTool`). */
const toolLookup: unique symbol = Symbol.for("@effect-mcp/server/McpServer/toolLookup")

interface Made extends McpServer.Service {
  readonly [toolLookup]: (name: string) => Tool.Tool | undefined
  readonly [entriesLookup]: () => Registry.Entries
  readonly [directLookup]: (transport: Telemetry.TransportDescription) => Effect.Effect<Stateless.Direct> | undefined
  readonly [tasksIdle]: Effect.Effect<void>
}

/** And the whole registry, read synchronously (see `unsafeEntries`). */
const entriesLookup: unique symbol = Symbol.for("@effect-mcp/server/McpServer/entriesLookup")

/** And how 2026-07-28 requests with channels of their own are served (see `direct`). */
const directLookup: unique symbol = Symbol.for("@effect-mcp/server/McpServer/directLookup")

/** And when its tasks are all done here (see `idle`). */
const tasksIdle: unique symbol = Symbol.for("@effect-mcp/server/McpServer/tasksIdle")

const isMade = (server: McpServer.Service): server is Made => toolLookup in server

/**
 * How a back end serves 2026-07-28 requests that each come with a channel of their own (a stateless
 * HTTP POST), without an engine, on the runtime of the caller with the server's context: made once
 * per back end. Undefined when the server does not speak the stateless era, or was not made by `make`.
 */
export const direct = (
  server: McpServer.Service,
  transport: Telemetry.TransportDescription
): Effect.Effect<Stateless.Direct> | undefined => isMade(server) ? server[directLookup](transport) : undefined

/**
 * The tool registered under `name` right now, read synchronously: for a transport that checks a
 * request against its tool before anything runs (2026-07-28 `Mcp-Param-*` headers). Undefined for
 * a server not made by `make`.
 */
export const unsafeTool = (server: McpServer.Service, name: string): Tool.Tool | undefined =>
  isMade(server) ? server[toolLookup](name) : undefined

/**
 * What the registry holds right now, read synchronously: for a transport that checks a request
 * against what it is for before anything runs (the scopes a call needs). Undefined for a server
 * not made by `make`.
 */
export const unsafeEntries = (server: McpServer.Service): Registry.Entries | undefined =>
  isMade(server) ? server[entriesLookup]() : undefined

/**
 * Completes once the server runs no task in this process or isolate (at once when it runs none):
 * a Worker keeps a request alive with it (`ctx.waitUntil`), since its timers, a task's included,
 * end with the request they were set in. At once for a server not made by `make`.
 */
export const idle = (server: McpServer.Service): Effect.Effect<void> => isMade(server) ? server[tasksIdle] : Effect.void

// ---------------------------------------------------------------------------- the server

/** The eras of `eras` an engine serves: `era` alone when the server speaks it, else all. */
const only = (eras: Engine.Eras, era: Revision.Era | undefined): Engine.Eras =>
  era === "stateless" && eras.stateless !== undefined
    ? { ...eras, handshake: undefined }
    : era === "handshake" && eras.handshake !== undefined
    ? { ...eras, stateless: undefined }
    : eras

/** The server's limits on subscriptions, from its options: each a positive integer, or a defect now. */
const subscriptionLimits = (options: McpServer.Options<unknown>): Effect.Effect<Subscriptions.Limits> =>
  Effect.gen(function*() {
    const maxOpen = options.maxSubscriptions ?? Subscriptions.defaultLimits.maxOpen
    const limits: Subscriptions.Limits = {
      maxOpen,
      maxPerClient: options.maxSubscriptionsPerClient ?? Subscriptions.defaultLimits.maxPerClient,
      maxPerHolder: options.maxSubscriptionsPerHolder ?? Holders.shareOf(maxOpen),
      maxUris: options.maxSubscriptionUris ?? Subscriptions.defaultLimits.maxUris,
      maxLength: options.subscriptionMaxLength ?? Subscriptions.defaultLimits.maxLength
    }
    for (
      const [name, value] of [
        ["maxSubscriptions", limits.maxOpen],
        ["maxSubscriptionsPerClient", limits.maxPerClient],
        ["maxSubscriptionsPerHolder", limits.maxPerHolder],
        ["maxSubscriptionUris", limits.maxUris],
        ["subscriptionMaxLength", limits.maxLength]
      ] as const
    ) {
      if (!Number.isSafeInteger(value) || value <= 0) {
        return yield* Effect.dieMessage(`${name} must be a positive integer (got ${value})`)
      }
    }
    return limits
  })

/**
 * What seals a 2026-07-28 request's state (made once, when first used): under `requestStateKey`, or a
 * random key of this server's own (said once); a short key is a defect now, for a server that seals.
 */
const sealerOf = (options: McpServer.Options<unknown>, seals: boolean) =>
  Effect.gen(function*() {
    const clock = yield* Effect.clock
    const key = yield* readKey(options.requestStateKey)
    const keyBytes = key === undefined ? undefined : new TextEncoder().encode(Redacted.value(key))
    // A short key (an empty variable, a placeholder) would seal states anyone can forge: said now, by
    // a server that seals any (one that serves 2026-07-28).
    if (keyBytes !== undefined && keyBytes.length < minimumKeyBytes && seals) {
      return yield* Effect.dieMessage(
        `requestStateKey must be at least ${minimumKeyBytes} bytes (got ${keyBytes.length}): ` +
          "make one with openssl rand -base64 32"
      )
    }
    const maxLength = options.requestStateMaxLength ?? InputRequired.defaultMaxLength
    if (!Number.isSafeInteger(maxLength) || maxLength <= 0) {
      return yield* Effect.dieMessage(`requestStateMaxLength must be a positive integer (got ${maxLength})`)
    }
    // Made by the first request that seals or opens a state (its random key drawn then: on Node the
    // first `crypto.getRandomValues` loads Web Crypto, a cost no plain call should pay).
    const sealer = yield* Effect.cached(
      Effect.tap(
        Effect.suspend(() =>
          InputRequired.sealer({
            // No key given: one of this server's own, so that another server of the process (a tenant,
            // a mounted or composed server) never opens what this one sealed.
            key: keyBytes ?? InputRequired.randomKey(),
            ttlMillis: Duration.toMillis(options.requestStateTtl ?? Duration.minutes(10)),
            maxLength,
            now: () => clock.unsafeCurrentTimeMillis()
          })
        ),
        () =>
          key === undefined
            ? Effect.flatMap(Ref.getAndSet(randomKeyWarned(), true), (warned) =>
              warned ? Effect.void : Effect.logWarning(
                "effect-mcp: requestState is sealed with a random key of this server (set requestStateKey): " +
                  "a retry of a multi-round-trip request cannot move to another process"
              ))
            : Effect.void
      )
    )
    return sealer
  })

/** The server's service over its registry, eras and subscriptions. */
const serviceOf = (
  options: McpServer.Options<unknown>,
  revisions: ReadonlyArray<Revision.Revision>,
  registry: Registry.Registry,
  eras: Engine.Eras,
  subscriptions: Subscriptions.Subscriptions,
  context: Context.Context<never>,
  tasks: Tasks.Runtime
): Made => {
  /** Edits the registry when `has` holds of its entries now; whether it did. */
  const removeIf = (
    kind: Registry.ListKind,
    has: (entries: Registry.Entries) => boolean,
    without: (entries: Registry.Entries) => Registry.Entries
  ): Effect.Effect<boolean> =>
    Effect.flatMap(
      Ref.get(registry.entries),
      (entries) => has(entries) ? Effect.as(registry.edit(kind, without), true) : Effect.succeed(false)
    )

  // Each `add*` provides the context it is run in, read before any span of its own. A tool that runs
  // as a task is refused by a server without the tasks code, as when it is built.
  const addTool = <R>(tool: Tool.Tool<R>): Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>> =>
    tool.task !== undefined && tasks === TaskNone.none
      ? Effect.dieMessage(needsTasksCode(`the tool ${JSON.stringify(tool.name)} runs as a task, which`))
      : Effect.flatMap(
        Effect.context<never>(),
        (ctx) =>
          registry.edit("tools", (e) => ({ ...e, tools: Registry.set(e.tools, tool.name, provideTool(tool, ctx)) }))
      )
  const addPrompt = <R>(prompt: Prompt.Prompt<R>): Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>> =>
    Effect.flatMap(Effect.context<never>(), (ctx) =>
      registry.edit(
        "prompts",
        (e) => ({ ...e, prompts: Registry.set(e.prompts, prompt.name, providePrompt(prompt, ctx)) })
      ))
  const addResource = <R>(
    resource: Resource.Resource<R> | Resource.Template<R>
  ): Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>> =>
    Effect.flatMap(Effect.context<never>(), (ctx) => {
      const provided = provideResource(resource, ctx)
      return registry.edit("resources", (e) =>
        provided._tag === "Resource"
          ? { ...e, resources: Registry.set(e.resources, provided.uri, provided) }
          : { ...e, templates: Registry.set(e.templates, provided.uriTemplate, provided) })
    })

  /** A copy of `map` without `removed`, with `added` set: one copy for the lot. */
  const edited = <A>(
    map: ReadonlyMap<string, A>,
    removed: ReadonlyArray<string> | undefined,
    added: ReadonlyArray<readonly [string, A]>
  ): ReadonlyMap<string, A> => {
    const next = new Map(map)
    if (removed !== undefined) { for (const key of removed) next.delete(key) }
    for (const [key, value] of added) next.set(key, value)
    return next
  }
  const update = <R>(
    changes: McpServer.Changes<R>
  ): Effect.Effect<void, never, Exclude<R, McpRequest.McpRequest>> => {
    // As `addTool`: a tool that runs as a task is refused by a server without the tasks code, and nothing changes.
    const asTask = tasks === TaskNone.none ? changes.tools?.find((tool) => tool.task !== undefined) : undefined
    if (asTask !== undefined) {
      return Effect.dieMessage(needsTasksCode(`the tool ${JSON.stringify(asTask.name)} runs as a task, which`))
    }
    return Effect.flatMap(Effect.context<never>(), (ctx) => {
      const tools = (changes.tools ?? []).map((t) => [t.name, provideTool(t, ctx)] as const)
      const prompts = (changes.prompts ?? []).map((p) => [p.name, providePrompt(p, ctx)] as const)
      const provided = (changes.resources ?? []).map((r) => provideResource(r, ctx))
      const resources = provided.flatMap((r) => r._tag === "Resource" ? [[r.uri, r] as const] : [])
      const templates = provided.flatMap((r) => r._tag === "Resource" ? [] : [[r.uriTemplate, r] as const])
      const edits: Array<Effect.Effect<void>> = []
      if (tools.length > 0 || (changes.removeTools?.length ?? 0) > 0) {
        edits.push(registry.edit("tools", (e) => ({ ...e, tools: edited(e.tools, changes.removeTools, tools) })))
      }
      if (prompts.length > 0 || (changes.removePrompts?.length ?? 0) > 0) {
        edits.push(
          registry.edit("prompts", (e) => ({ ...e, prompts: edited(e.prompts, changes.removePrompts, prompts) }))
        )
      }
      if (provided.length > 0 || (changes.removeResources?.length ?? 0) > 0) {
        edits.push(registry.edit("resources", (e) => ({
          ...e,
          resources: edited(e.resources, changes.removeResources, resources),
          templates: edited(e.templates, changes.removeResources, templates)
        })))
      }
      return Effect.all(edits, { discard: true })
    })
  }

  const service: Made = {
    serverInfo: options.serverInfo,
    revisions,
    addTool,
    removeTool: (name) =>
      removeIf("tools", (e) => e.tools.has(name), (e) => ({ ...e, tools: Registry.remove(e.tools, name) })),
    addPrompt,
    removePrompt: (name) =>
      removeIf("prompts", (e) => e.prompts.has(name), (e) => ({ ...e, prompts: Registry.remove(e.prompts, name) })),
    addResource,
    update,
    removeResource: (uri) =>
      Effect.flatMap(Ref.get(registry.entries), (entries) =>
        entries.resources.has(uri)
          ? removeIf(
            "resources",
            (e) => e.resources.has(uri),
            (e) => ({ ...e, resources: Registry.remove(e.resources, uri) })
          )
          : removeIf(
            "resources",
            (e) => e.templates.has(uri),
            (e) => ({ ...e, templates: Registry.remove(e.templates, uri) })
          )),
    resourceUpdated: registry.updated,
    log: (level, data, logger) => eras.logs.log(logger === undefined ? { level, data } : { level, data, logger }),
    tool: (name) => Effect.map(Ref.get(registry.entries), (entries) => Option.fromNullable(entries.tools.get(name))),
    [toolLookup]: (name) => registry.unsafeEntries().tools.get(name),
    [entriesLookup]: registry.unsafeEntries,
    [tasksIdle]: tasks.idle,
    [directLookup]: (transport) =>
      eras.stateless === undefined
        ? undefined
        : eras.stateless.module.direct(eras.stateless.server, context, transport),
    serve: (protocol: Transport.Protocol, serveOptions?: McpServer.ServeOptions) =>
      Effect.mapInputContext(
        Engine.serve(only(eras, serveOptions?.era), protocol),
        (outer: Context.Context<Scope.Scope>) => Context.merge(context, outer)
      ),
    activeSubscriptions: subscriptions.active,
    closeSubscription: subscriptions.close,
    closeAllSubscriptions: subscriptions.closeAll
  }
  return service
}

/**
 * Builds a server with `context` as what its handlers require (but `McpRequest`): the context of
 * whoever made it, read before the `McpServer.make` span opens, so that no request runs under it.
 */
const build = Effect.fn("McpServer.make")(function*(
  options: McpServer.Options<unknown>,
  context: Context.Context<never>,
  code: Code
) {
  const handshakeCode = code.handshake
  const handlers = given(options)
  const tools = handlers.tools ?? []
  const prompts = handlers.prompts ?? []
  const resources = handlers.resources ?? []
  // Both eras by default (dual): a client of either (the Inspector's 2026-07-28 included) is served.
  const revisions = options.revisions ?? (handshakeCode === undefined ? Revision.stateless : Revision.all)
  const handshakeRevisions = revisions.filter((r) => !Revision.isStateless(r))
  const statelessRevisions = revisions.filter(Revision.isStateless)
  // A server made without the handshake era's code (`StatelessServer`) cannot serve its revisions.
  if (handshakeCode === undefined && handshakeRevisions.length > 0) {
    return yield* Effect.dieMessage(
      `effect-mcp: a StatelessServer serves the 2026-07-28 revision only (got ${handshakeRevisions.join(", ")}): ` +
        "use McpServer.layer for the handshake era"
    )
  }
  // A server made without the tasks code (a `StatelessServer` given no `tasks`) runs none.
  const tasksCode = code.tasks
  if (tasksCode === undefined) {
    const asTask = tools.find((tool) => tool.task !== undefined)
    if (asTask !== undefined || options.capabilities?.tasks === true) {
      return yield* Effect.dieMessage(
        needsTasksCode(
          asTask === undefined ? "capabilities.tasks" : `the tool ${JSON.stringify(asTask.name)} runs as a task, which`
        )
      )
    }
  }
  // The task store of the server's context, if given (shared by instances), else one in memory.
  const givenStore = tasksCode === undefined ? Option.none() : yield* Effect.serviceOption(TaskStore.TaskStore)
  const store: TaskMemory.Store | undefined = tasksCode === undefined
    ? undefined
    : Option.isSome(givenStore)
    ? tasksCode.fromService(givenStore.value)
    : yield* tasksCode.memory()
  const tasks = tasksCode === undefined || store === undefined ? TaskNone.none : yield* tasksCode.make(store, {
    ttlMs: options.taskTtl !== undefined ? Duration.toMillis(options.taskTtl) : Tasks.defaults.ttlMs,
    maxTtlMs: options.taskMaxTtl !== undefined ? Duration.toMillis(options.taskMaxTtl) : Tasks.defaults.maxTtlMs,
    pollIntervalMs: options.taskPollInterval !== undefined
      ? Duration.toMillis(options.taskPollInterval)
      : Tasks.defaults.pollIntervalMs,
    leaseMs: options.taskLease !== undefined ? Duration.toMillis(options.taskLease) : Tasks.defaults.leaseMs,
    instance: options.instanceId ?? crypto.randomUUID()
  })
  // The skills of the server's context, if given (the skills extension is served with them).
  const skills = Option.getOrUndefined(yield* Effect.serviceOption(Skills.Skills))
  // The skills extension's code is loaded only by a server given skills.
  const SkillsExtension = skills === undefined ? undefined : yield* Effect.promise(() => modules.skills())
  const config: Serving.Config = {
    serverInfo: options.serverInfo,
    instructions: options.instructions,
    revisions: handshakeRevisions,
    pageSize: options.pageSize ?? 100,
    hideUnauthorized: options.hideUnauthorized ?? false,
    capabilities: options.capabilities ?? {},
    listChangedWindow: options.listChangedWindow ?? "10 millis",
    extensions: skills === undefined ? [] : [SkillsExtension!.extension(skills)],
    tasks,
    onResourceSubscribe: options.onResourceSubscribe,
    onLogLevel: options.onLogLevel,
    relay: options.relay
  }
  // The bus of the server's context, if given (shared with other servers), else none: this server's
  // changes are its own (a bus of its own would carry them to no one).
  const bus = Option.getOrUndefined(yield* Effect.serviceOption(NotificationBus.NotificationBus))
  // Two definitions under one name would leave one silently unreachable: a mistake, said now.
  const duplicate = firstDuplicate("tool name", tools.map((t) => t.name)) ??
    firstDuplicate("prompt name", prompts.map((p) => p.name)) ??
    firstDuplicate("resource URI", resources.flatMap((r) => r._tag === "Resource" ? [r.uri] : [])) ??
    firstDuplicate("resource template", resources.flatMap((r) => r._tag === "Template" ? [r.uriTemplate] : []))
  if (duplicate !== undefined) return yield* Effect.dieMessage(duplicate)
  // A tool linked to a view the server does not serve would show a host nothing: a mistake, said now.
  const broken = Apps.brokenLink(tools, resources.filter((r): r is Resource.Resource => r._tag === "Resource"))
  if (broken !== undefined) return yield* Effect.dieMessage(broken)
  const registry = yield* Registry.make({
    tools,
    prompts,
    resources: [
      ...resources.filter((r): r is Resource.Resource => r._tag === "Resource"),
      ...(skills === undefined ? [] : SkillsExtension!.resources(skills))
    ],
    templates: resources.filter((r): r is Resource.Template => r._tag === "Template"),
    window: config.listChangedWindow,
    bus
  })
  const limits = yield* subscriptionLimits(options)
  // Every subscription, over every engine; closed gracefully when the server's scope ends.
  const subscriptions = yield* Subscriptions.make(registry, config, limits)
  // Tasks' status changes: to their sessions (2025-11-25), to the listens that follow them (2026-07-28).
  yield* tasks.watch(subscriptions.taskChanged)
  // The server's own gauges (metrics on): open listens, tasks by status.
  if ((yield* Telemetry.enabled).metrics) {
    if (store !== undefined) yield* Metrics.followTasks(store)
    yield* Metrics.sampleEvery(
      Effect.flatMap(subscriptions.active, (open) => Metric.set(Metrics.listens, open.length))
    )
  }
  const sealer = yield* sealerOf(options, statelessRevisions.length > 0)
  // The 2026-07-28 era's module is loaded only by a server that speaks it.
  const Stateless = statelessRevisions.length > 0 ? yield* Engine.load : undefined
  const eras: Engine.Eras = {
    registry,
    logs: yield* Logs.make,
    handshake: handshakeCode !== undefined && handshakeRevisions.length > 0
      ? { server: handshakeCode.makeServer(registry, config, limits), code: handshakeCode }
      : undefined,
    stateless: Stateless !== undefined
      ? {
        server: Stateless.makeServer(registry, config, {
          revisions: statelessRevisions,
          supportedVersions: revisions,
          cachePolicy: Apps.cachePolicy(
            options.cachePolicy ?? {},
            resources.some((r) => r._tag === "Resource" && Apps.isView(r.definition))
          ),
          sealer
        }, subscriptions),
        module: Stateless
      }
      : undefined
  }

  return serviceOf(options, revisions, registry, eras, subscriptions, context, tasks)
})

/**
 * `McpServer.make`: what the handlers require (but `McpRequest`) is taken from the context here,
 * and served with them.
 */
export const make = <O extends McpServer.Options<unknown>>(
  options: O
): Effect.Effect<McpServer.Service, never, McpServer.Requirements<O> | Scope.Scope> =>
  Effect.flatMap(
    Effect.context<McpServer.Requirements<O>>(),
    (context: Context.Context<never>) => build(options, context, everything)
  )

/**
 * The code a server's optional parts run, given as values: a bundle carries a part only when what
 * it builds names it (`make` names every one; `makeStateless`, what its caller gives).
 */
export interface Code {
  readonly handshake: Engine.HandshakeCode | undefined
  readonly tasks: TasksCode | undefined
}

/** The tasks' code: the runtime, and the stores it runs on. */
export interface TasksCode {
  readonly make: typeof Tasks.make
  readonly memory: () => ReturnType<typeof TaskMemory.make>
  readonly fromService: typeof TaskMemory.fromService
}

/** The tasks' code (`StatelessServer.tasks`). */
export const tasksCode: TasksCode = {
  make: Tasks.make,
  memory: () => TaskMemory.make(),
  fromService: TaskMemory.fromService
}

/** Every part's code, as `make` gives it. */
const everything: Code = {
  handshake: { makeServer: Handshake.makeServer, era: Handshake.era, relay: RelayLane.protocol },
  tasks: tasksCode
}

/**
 * `StatelessServer.make`: a server of the 2026-07-28 revision only, built without the handshake
 * era's code, which its bundle then does not carry.
 */
export const makeStateless = <O extends McpServer.Options<unknown>>(
  options: O,
  tasks: TasksCode | undefined
): Effect.Effect<McpServer.Service, never, McpServer.Requirements<O> | Scope.Scope> =>
  Effect.flatMap(
    Effect.context<McpServer.Requirements<O>>(),
    (context: Context.Context<never>) => build(options, context, { handshake: undefined, tasks })
  )
