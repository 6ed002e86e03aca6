/**
 * One handshake-era session (2024-11-05 … 2025-11-25) on one connection: its state in a
 * `Ref`, the dispatch table of its phase (before `notifications/initialized`: only
 * `initialize` and `ping`; then every method of the negotiated revision that the server
 * serves), derived from the method catalog.
 */
import type { JsonRpc, Transport } from "@effect-mcp/core"
import { Dispatch, McpError, Meta, Method, Peer, Revision, Schema as McpSchema } from "@effect-mcp/core"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Completion from "../Completion.js"
import * as McpRequest from "../McpRequest.js"
import * as Resource from "../Resource.js"
import type { Entries, Registry } from "./registry.js"
import * as Shape from "./shape.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel

export interface Config {
  readonly serverInfo: McpSchema.Base.Implementation
  readonly instructions: string | undefined
  /** Revisions offered in the handshake, oldest first. */
  readonly revisions: ReadonlyArray<Revision.Revision>
  readonly pageSize: number
  /** Capabilities declared up front, whatever the registry holds (for servers that add things later). */
  readonly capabilities: {
    readonly tools?: boolean
    readonly prompts?: boolean
    readonly resources?: boolean
    readonly completions?: boolean
  }
  /** Coalescing window of list_changed notifications. */
  readonly listChangedWindow: import("effect/Duration").DurationInput
}

export type Phase = "new" | "initializing" | "ready"

export interface State {
  readonly phase: Phase
  readonly revision: Revision.Revision
  readonly clientInfo: Option.Option<McpSchema.Base.Implementation>
  readonly clientCapabilities: ClientCapabilities
  readonly capabilities: ServerCapabilities
  readonly logLevel: Option.Option<LoggingLevel>
  readonly subscriptions: ReadonlySet<string>
  readonly roots: Option.Option<ReadonlyArray<McpSchema.Roots.Root>>
  /** Bumped by `notifications/roots/list_changed`: an answer asked for before it is not cached. */
  readonly rootsGeneration: number
}

const initialState = (revision: Revision.Revision): State => ({
  phase: "new",
  revision,
  clientInfo: Option.none(),
  clientCapabilities: {},
  capabilities: {},
  logLevel: Option.none(),
  subscriptions: new Set(),
  roots: Option.none(),
  rootsGeneration: 0
})

/** Capabilities derived from what the registry holds (or what the config declares). */
export const capabilitiesOf = (entries: Entries, config: Config, f: Revision.Features): ServerCapabilities => {
  const hasCompletions = Array.from(entries.prompts.values()).some((p) => Object.keys(p.completions).length > 0) ||
    Array.from(entries.templates.values()).some((t) => Object.keys(t.completions).length > 0)
  const tools = entries.tools.size > 0 || config.capabilities.tools === true
  const prompts = entries.prompts.size > 0 || config.capabilities.prompts === true
  const resources = entries.resources.size > 0 || entries.templates.size > 0 || config.capabilities.resources === true
  const completions = f.serverCapabilities.includes("completions") &&
    (hasCompletions || config.capabilities.completions === true)
  return {
    logging: {},
    ...(completions ? { completions: {} } : {}),
    ...(prompts ? { prompts: { listChanged: true } } : {}),
    ...(resources ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(tools ? { tools: { listChanged: true } } : {})
  }
}

// ---------------------------------------------------------------------------- pagination

const encodeCursor = (after: string): string => btoa(encodeURIComponent(after))

const decodeCursor = (cursor: string): Effect.Effect<string, McpError.InvalidParams> =>
  Effect.try({
    try: () => decodeURIComponent(atob(cursor)),
    catch: () => new McpError.InvalidParams({ message: `Invalid cursor: ${JSON.stringify(cursor)}` })
  })

/** One page of `items` (sorted by `key`) after the cursor. */
const page = <A>(
  items: ReadonlyArray<A>,
  key: (a: A) => string,
  cursor: string | undefined,
  size: number
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly nextCursor?: string }, McpError.InvalidParams> =>
  Effect.map(cursor === undefined ? Effect.succeed(undefined) : decodeCursor(cursor), (after) => {
    const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    const start = after === undefined ? 0 : sorted.findIndex((a) => key(a) > after)
    const from = start < 0 ? sorted.length : start
    const slice = sorted.slice(from, from + size)
    return from + size < sorted.length ? { items: slice, nextCursor: encodeCursor(key(slice[slice.length - 1])) } : {
      items: slice
    }
  })

// ---------------------------------------------------------------------------- the session

/**
 * Serves one handshake-era session on `transport` until the other side closes.
 */
export const serve = (
  registry: Registry,
  config: Config,
  transport: Transport.Transport
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const state = yield* Ref.make(initialState(config.revisions[config.revisions.length - 1]))
    const features = Effect.map(Ref.get(state), (s) => Revision.features(s.revision))
    let peer: Peer.Peer | undefined

    // ------------------------------------------------------------------ asks to the client

    const ask = <A>(
      request: JsonRpc.Request,
      method: string,
      capability: string,
      declared: (c: ClientCapabilities, f: Revision.Features) => boolean,
      params: unknown,
      options: McpRequest.AskOptions | undefined
    ): Effect.Effect<A, McpRequest.ClientRequestError> =>
      Effect.gen(function*() {
        const s = yield* Ref.get(state)
        const f = Revision.features(s.revision)
        const entry = Method.lookup(s.revision, method)
        if (entry === undefined || !f.serverRequests || !declared(s.clientCapabilities, f)) {
          return yield* new McpRequest.MissingClientCapability({ capability })
        }
        const result = yield* peer!.request(method, params, {
          related: request.id,
          ...(options?.timeout !== undefined ? { timeout: options.timeout } : {})
        })
        return yield* Effect.try({
          try: () => entry.decodeResult!(result) as A,
          catch: (error) =>
            new McpError.InternalError({ message: `The client's ${method} result is invalid: ${String(error)}` })
        })
      })

    const roots = (request: JsonRpc.Request, options?: McpRequest.AskOptions) =>
      Effect.flatMap(Ref.get(state), (s) =>
        Option.isSome(s.roots)
          ? Effect.succeed(s.roots.value)
          : ask<McpSchema.Roots.ListRootsResult>(
            request,
            "roots/list",
            "roots",
            (c) => c.roots !== undefined,
            {},
            options
          ).pipe(
            Effect.map((result) => result.roots),
            Effect.tap((list) =>
              // Cache only when the client can tell us the list changed, and it did not change meanwhile.
              Ref.update(state, (now) =>
                now.clientCapabilities.roots?.listChanged === true && now.rootsGeneration === s.rootsGeneration
                  ? { ...now, roots: Option.some(list) }
                  : now)
            )
          ))

    // ------------------------------------------------------------------ the per-request context

    const levels = McpSchema.Base.LoggingLevel.literals
    const atLeast = (level: LoggingLevel, threshold: LoggingLevel) => levels.indexOf(level) >= levels.indexOf(threshold)

    const context = (request: JsonRpc.Request, s: State): McpRequest.Service => {
      const meta = Meta.of(request.params)
      const progressToken = Meta.getProgressToken(meta)
      const f = Revision.features(s.revision)
      return {
        id: request.id,
        method: request.method,
        revision: s.revision,
        era: "handshake",
        clientInfo: s.clientInfo,
        clientCapabilities: s.clientCapabilities,
        progressToken,
        meta,
        logLevel: Effect.map(Ref.get(state), (now) => now.logLevel),
        progress: (progress, total, message) =>
          Option.isNone(progressToken) ? Effect.void : Effect.ignore(peer!.notify("notifications/progress", {
            progressToken: progressToken.value,
            progress,
            ...(total !== undefined ? { total } : {}),
            ...(message !== undefined && f.progressMessage ? { message } : {})
          }, { related: request.id })),
        log: (level, data, logger) =>
          Effect.flatMap(Ref.get(state), (now) =>
            Option.isSome(now.logLevel) && !atLeast(level, now.logLevel.value)
              ? Effect.void
              : Effect.ignore(peer!.notify("notifications/message", {
                level,
                data,
                ...(logger !== undefined ? { logger } : {})
              }, { related: request.id }))),
        sample: (_key, params, options) =>
          ask(
            request,
            "sampling/createMessage",
            "sampling",
            (c, f) =>
              c.sampling !== undefined &&
              (params.tools === undefined && params.toolChoice === undefined ||
                (f.samplingTools && c.sampling.tools !== undefined)),
            params,
            options
          ),
        elicit: (_key, params, options) => {
          const url = params.mode === "url"
          return ask(
            request,
            "elicitation/create",
            url ? "elicitation.url" : "elicitation",
            (c, f) =>
              f.elicitation && c.elicitation !== undefined && (url
                ? f.urlElicitation && c.elicitation.url !== undefined
                : !f.urlElicitation || c.elicitation.form !== undefined || c.elicitation.url === undefined),
            // 2025-06-18 has no `mode`: absent means form.
            f.urlElicitation ? params : omitMode(params),
            options
          )
        },
        roots: (_key, options) => roots(request, options),
        closeSseStream: transport.closeStream === undefined ? Effect.void : transport.closeStream(request.id),
        elicitationComplete: (elicitationId) =>
          f.urlElicitationRequiredError && s.clientCapabilities.elicitation?.url !== undefined
            ? Effect.ignore(peer!.notify("notifications/elicitation/complete", { elicitationId }))
            : Effect.void
      }
    }

    // The peer runs every inbound request in a fiber of its own that ends with it, so the
    // service is added to that fiber's context for good: `provideService` would also restore
    // the old context afterwards, which costs more than the rest of a small tool call.
    const provideWith = <A, E>(
      request: JsonRpc.Request,
      s: State,
      effect: Effect.Effect<A, E, McpRequest.McpRequest>
    ): Effect.Effect<A, E> =>
      Effect.zipRight(
        FiberRef.update(FiberRef.currentContext, Context.add(McpRequest.McpRequest, context(request, s))),
        effect as Effect.Effect<A, E>
      )
    const provide = <A, E>(request: JsonRpc.Request, effect: Effect.Effect<A, E, McpRequest.McpRequest>) =>
      Effect.flatMap(Ref.get(state), (s) => provideWith(request, s, effect))

    // ------------------------------------------------------------------ methods

    const entriesOf = Ref.get(registry.entries)

    const initialize = (params: McpSchema.Lifecycle.InitializeRequestParams) =>
      Effect.gen(function*() {
        const s = yield* Ref.get(state)
        if (s.phase !== "new") return yield* new McpError.InvalidRequest({ message: "Already initialized" })
        const revision = Revision.negotiate(params.protocolVersion, config.revisions)
        const f = Revision.features(revision)
        const capabilities = capabilitiesOf(yield* entriesOf, config, f)
        yield* Ref.set(state, {
          ...s,
          phase: "initializing" as const,
          revision,
          clientInfo: Option.some(params.clientInfo),
          clientCapabilities: params.capabilities,
          capabilities
        })
        return {
          protocolVersion: revision,
          capabilities,
          serverInfo: Shape.implementation(config.serverInfo, f),
          ...(config.instructions !== undefined ? { instructions: config.instructions } : {})
        }
      })

    const paginated = <A>(
      select: (entries: Entries) => ReadonlyArray<A>,
      key: (a: A) => string,
      render: (a: A, f: Revision.Features) => unknown,
      field: string
    ) =>
    (params: { readonly cursor?: string | undefined }) =>
      Effect.gen(function*() {
        const f = yield* features
        const result = yield* page(select(yield* entriesOf), key, params.cursor, config.pageSize)
        return {
          [field]: result.items.map((item) => render(item, f)),
          ...(result.nextCursor !== undefined ? { nextCursor: result.nextCursor } : {})
        }
      })

    // The hottest path of a server: plain combinators rather than a generator, and the state read once.
    const callTool = (params: McpSchema.Tool.CallToolRequestParams, request: JsonRpc.Request) =>
      Effect.flatMap(entriesOf, (entries) => {
        const tool = entries.tools.get(params.name)
        if (tool === undefined) {
          return Effect.fail(new McpError.InvalidParams({ message: `Unknown tool: ${params.name}` }))
        }
        return Effect.flatMap(Ref.get(state), (s) => {
          const f = Revision.features(s.revision)
          return Effect.matchEffect(tool.decode(params.arguments), {
            onFailure: (error) =>
              // 2025-11-25+: the model gets to see and correct its arguments; before: a protocol error.
              f.toolInputErrorsAsResults
                ? Effect.succeed({ content: [{ type: "text", text: error.message }], isError: true })
                : Effect.fail(new McpError.InvalidParams({ message: error.message })),
            onSuccess: (args) =>
              Effect.map(
                provideWith(request, s, tool.run(args) as Effect.Effect<any, any, McpRequest.McpRequest>),
                (result) => Shape.callToolResult(result, f)
              )
          })
        })
      })

    const readResource = (params: McpSchema.Resource.ReadResourceRequestParams, request: JsonRpc.Request) =>
      Effect.gen(function*() {
        const entries = yield* entriesOf
        const resource = entries.resources.get(params.uri)
        if (resource !== undefined) return yield* provide(request, resource.read(params.uri) as any)
        for (const template of entries.templates.values()) {
          const variables = template.match(params.uri)
          if (variables !== undefined) return yield* provide(request, template.read(params.uri, variables) as any)
        }
        return yield* new McpError.ResourceNotFound({ uri: params.uri })
      })

    const getPrompt = (params: McpSchema.Prompt.GetPromptRequestParams, request: JsonRpc.Request) =>
      Effect.gen(function*() {
        const prompt = (yield* entriesOf).prompts.get(params.name)
        if (prompt === undefined) {
          return yield* new McpError.InvalidParams({ message: `Unknown prompt: ${params.name}` })
        }
        const result = yield* provide(request, prompt.get(params.arguments) as any)
        return Shape.promptMessages(result as McpSchema.Prompt.GetPromptResult, yield* features)
      })

    const complete = (params: McpSchema.Completion.CompleteRequestParams, request: JsonRpc.Request) =>
      Effect.gen(function*() {
        const entries = yield* entriesOf
        const completer = params.ref.type === "ref/prompt"
          ? entries.prompts.get(params.ref.name)?.completions[params.argument.name]
          : entries.templates.get(params.ref.uri)?.completions[params.argument.name]
        if (completer === undefined) return Completion.result([])
        const values = yield* provide(request, completer(params.argument.value, params.context?.arguments ?? {}) as any)
        return Completion.result(values as ReadonlyArray<string>)
      })

    const subscription = (add: boolean) => (params: { readonly uri: string }) =>
      Effect.as(
        Ref.update(state, (s) => {
          const subscriptions = new Set(s.subscriptions)
          if (add) subscriptions.add(params.uri)
          else subscriptions.delete(params.uri)
          return { ...s, subscriptions }
        }),
        {}
      )

    const ping = () => Effect.succeed({})

    const handlers: Dispatch.Handlers<McpError.McpError, never> = {
      ping,
      initialize,
      "tools/list": paginated(
        (e) => Array.from(e.tools.values()),
        (t) => t.name,
        (t, f) => Shape.tool(t.definition, f),
        "tools"
      ),
      "tools/call": callTool as any,
      "prompts/list": paginated(
        (e) => Array.from(e.prompts.values()),
        (p) => p.name,
        (p, f) => Shape.prompt(p.definition, f),
        "prompts"
      ),
      "prompts/get": getPrompt as any,
      "resources/list": paginated(
        (e) => Array.from(e.resources.values()),
        (r) => r.uri,
        (r, f) => Shape.resource(r.definition, f),
        "resources"
      ),
      "resources/templates/list": paginated(
        (e) => Array.from(e.templates.values()),
        (t) => t.uriTemplate,
        (t, f) => Shape.resource(t.definition, f),
        "resourceTemplates"
      ),
      "resources/read": readResource as any,
      "resources/subscribe": subscription(true),
      "resources/unsubscribe": subscription(false),
      "completion/complete": complete as any,
      "logging/setLevel": (params) =>
        Effect.as(Ref.update(state, (s) => ({ ...s, logLevel: Option.some(params.level) })), {})
    }

    // One dispatch table per phase and revision, from the catalog: the methods the revision
    // has that the client may send, that this server serves, and whose capability it declared.
    const tables = new Map<string, (request: JsonRpc.Request) => Effect.Effect<unknown, McpError.McpError>>()
    const tableFor = (s: State) => {
      const ready = s.phase === "ready"
      const key = `${ready}:${s.revision}`
      let table = tables.get(key)
      if (table === undefined) {
        const served: Record<string, unknown> = {}
        // A capability gates only in the revisions that define it: 2024-11-05 has completion/complete
        // but no `completions` capability.
        const defined = Revision.features(s.revision).serverCapabilities
        for (const entry of Method.table(s.revision).values()) {
          const d = entry.definition
          const handler = (handlers as Record<string, unknown>)[d.name]
          if (handler === undefined || d.kind !== "request" || d.direction === "server") continue
          if (ready ? d.name === "initialize" : !d.beforeInitialized) continue
          if (
            ready && d.capability?.side === "server" && defined.includes(d.capability.key) &&
            !(d.capability.key in s.capabilities)
          ) continue
          served[d.name] = handler
        }
        table = Dispatch.make({
          revision: Effect.succeed(s.revision),
          handlers: served as Dispatch.Handlers<any, never>
        })
        tables.set(key, table)
      }
      return table
    }

    const onRequest = (request: JsonRpc.Request) =>
      Effect.flatMap(Ref.get(state), (s) => {
        // A second initialize, in either later phase, is an invalid request (not an unknown method).
        if (request.method === "initialize" && s.phase !== "new") {
          return Effect.fail(new McpError.InvalidRequest({ message: "Already initialized" }))
        }
        return tableFor(s)(request)
      })

    const onNotification = (notification: JsonRpc.Notification): Effect.Effect<void> => {
      switch (notification.method) {
        case "notifications/initialized":
          return Ref.update(state, (s): State => (s.phase === "initializing" ? { ...s, phase: "ready" } : s))
        case "notifications/roots/list_changed":
          return Ref.update(state, (s) => ({ ...s, roots: Option.none(), rootsGeneration: s.rootsGeneration + 1 }))
        default:
          return Effect.void
      }
    }

    peer = yield* Peer.make({
      transport,
      onRequest,
      onNotification,
      revision: Effect.map(Ref.get(state), (s) => s.revision),
      batching: Effect.map(Ref.get(state), (s) => s.phase === "ready" && Revision.allowsBatching(s.revision))
    })

    // ------------------------------------------------------------------ changes → notifications

    const listChanged: Record<string, string> = {
      tools: "notifications/tools/list_changed",
      prompts: "notifications/prompts/list_changed",
      resources: "notifications/resources/list_changed"
    }
    const changes = yield* registry.subscribe
    yield* Stream.fromQueue(changes).pipe(
      Stream.groupedWithin(256, config.listChangedWindow),
      Stream.runForEach((chunk) =>
        Effect.gen(function*() {
          const s = yield* Ref.get(state)
          if (s.phase !== "ready") return
          const kinds = new Set<string>()
          const uris = new Set<string>()
          for (const change of Chunk.toReadonlyArray(chunk)) {
            if (change._tag === "ListChanged") kinds.add(change.kind)
            else uris.add(change.uri)
          }
          for (const kind of kinds) {
            const declared = (s.capabilities as Record<string, { listChanged?: boolean } | undefined>)[kind]
            if (declared?.listChanged === true) yield* Effect.ignore(peer!.notify(listChanged[kind]))
          }
          if (s.capabilities.resources?.subscribe === true) {
            for (const uri of uris) {
              if (Array.from(s.subscriptions).some((subscribed) => Resource.covers(subscribed, uri))) {
                yield* Effect.ignore(peer!.notify("notifications/resources/updated", { uri }))
              }
            }
          }
        })
      ),
      Effect.forkScoped
    )

    yield* peer.closed
  })

const omitMode = <A extends { readonly mode?: unknown }>(params: A): Omit<A, "mode"> => {
  const { mode: _, ...rest } = params
  return rest
}
