/**
 * The serving core: what the methods every era serves do, once, as functions of the registry,
 * the features of the request's revision and the request's context (`McpRequest`). An era
 * decides only how a request arrives and what context it carries; it never copies these.
 *
 * tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/templates/list,
 * resources/read, completion/complete.
 */
import type { Transport } from "@effect-mcp/core"
import { AuthInfo, Dispatch, McpError, Meta, Method, Revision } from "@effect-mcp/core"
import * as FeatureSchemas from "@effect-mcp/core/FeatureSchemas"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Completion from "../Completion.js"
import * as McpRequest from "../McpRequest.js"
import type { RelayTable } from "../RelayTable.js"
import type * as Resource from "../Resource.js"
import * as TaskStore from "../TaskStore.js"
import type * as Tool from "../Tool.js"
import * as Apps from "./apps.js"
import * as Eager from "./eager.js"
import * as McpSchema from "./mcpSchema.js"
import type { Entries, Registry } from "./registry.js"
import type { Request } from "./request.js"
import * as Shape from "./shape.js"
import * as Tasks from "./tasks.js"

type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities

/** The server's configuration, shared by every era. */
export interface Config {
  readonly serverInfo: McpSchema.Base.Implementation
  readonly instructions: string | undefined
  /** Handshake revisions offered, oldest first. */
  readonly revisions: ReadonlyArray<Revision.Revision>
  readonly pageSize: number
  /** Lists leave out what the caller's token lacks the scopes for. */
  readonly hideUnauthorized: boolean
  /** Capabilities declared up front, whatever the registry holds (for servers that add things later). */
  readonly capabilities: {
    readonly tools?: boolean
    readonly prompts?: boolean
    readonly resources?: boolean
    readonly completions?: boolean
    /** Tasks (2025-11-25 `tasks`, the 2026-07-28 extension), whether or not a tool has a task policy yet. */
    readonly tasks?: boolean
  }
  /** Coalescing window of change notifications. */
  readonly listChangedWindow: Duration.DurationInput
  /** The extensions served beside the core methods (skills, tasks), in the order given. */
  readonly extensions: ReadonlyArray<Extension>
  /** The tasks runtime: tools with a task policy run as tasks when the client can take one. */
  readonly tasks: Tasks.Runtime
  /** Told of each resource URI a client subscribes to, before it is acknowledged (`McpServer.Options`). */
  readonly onResourceSubscribe: ((uri: string) => Effect.Effect<void>) | undefined
  /** Told of each handshake session's `logging/setLevel`, before it is acknowledged (`McpServer.Options`). */
  readonly onLogLevel?: ((level: McpSchema.Base.LoggingLevel) => Effect.Effect<void>) | undefined
  /** `tools/call`s handed on without being served (`McpServer.Options.relay`). */
  readonly relay?: RelayTable | undefined
}

/**
 * An extension the server serves: its id and settings, declared under `capabilities.extensions`
 * (2026-07-28's map, and 2025-11-25's open capabilities), and the methods it adds. Its methods are
 * in the catalog (`Method.ts`, each naming its extension); an extension's handlers never replace a
 * core method's.
 */
export interface Extension {
  readonly id: string
  /** Its settings, as declared (an empty object: supported, no settings). */
  readonly settings: Readonly<Record<string, unknown>>
  readonly handlers: Dispatch.Handlers<McpError.McpError, never, RequestContext>
  /** It is served over resources: the server declares them, whatever the registry holds. */
  readonly resources?: boolean
  /**
   * 2026-07-28: the caching hints of its methods the catalog calls cacheable (default `ttlMs: 0`,
   * `cacheScope: "public"`); a handler's own `ttlMs` / `cacheScope` take precedence.
   */
  readonly cacheHint?: { readonly ttlMs: number; readonly cacheScope: "public" | "private" }
}

/**
 * What the serving core reads of a request: its `McpRequest`, the features of its revision, who
 * owns its tasks, what a task keeps of it (`Request`, whichever era made it).
 */
export type RequestContext = Request

/** The tools as a client that renders no views sees them (`Apps.forPlainClient`), app-only ones left out. */
const plainTools = (tools: Iterable<Tool.Tool>): Array<Tool.Tool> => {
  const out: Array<Tool.Tool> = []
  for (const tool of tools) {
    const definition = Apps.forPlainClient(tool.definition)
    if (definition === tool.definition) out.push(tool)
    else if (definition !== undefined) out.push({ ...tool, definition })
  }
  return out
}

/** MCP Apps: the tools listed to a request; a client that renders no views is shown no link, no app-only tool. */
const listedTools = (entries: Entries, request: RequestContext): Iterable<Tool.Tool> =>
  Apps.showsViews(request) ? entries.tools.values() : plainTools(entries.tools.values())

/** MCP Apps: the resources listed to a request; a client that renders no views is shown no view. */
const listedResources = (entries: Entries, request: RequestContext): Iterable<Resource.Resource> =>
  Apps.showsViews(request)
    ? entries.resources.values()
    : Array.from(entries.resources.values()).filter((r) => !Apps.isView(r.definition))

/** The 2025-11-25 tasks capability: tool calls as tasks, listed and cancelled. */
const coreTasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } }

/** Capabilities derived from what the registry holds (or what the config declares). */
export const capabilities = (entries: Entries, config: Config, f: Revision.Features): ServerCapabilities => {
  const hasCompletions = Array.from(entries.prompts.values()).some((p) => Object.keys(p.completions).length > 0) ||
    Array.from(entries.templates.values()).some((t) => Object.keys(t.completions).length > 0)
  const tools = entries.tools.size > 0 || config.capabilities.tools === true
  const prompts = entries.prompts.size > 0 || config.capabilities.prompts === true
  const resources = entries.resources.size > 0 || entries.templates.size > 0 ||
    config.capabilities.resources === true ||
    config.extensions.some((e) => e.resources === true)
  const completions = f.serverCapabilities.includes("completions") &&
    (hasCompletions || config.capabilities.completions === true)
  const tasks = config.capabilities.tasks === true ||
    Array.from(entries.tools.values()).some((t) => t.task !== undefined)
  // 2026-07-28 has the `extensions` map; 2025-11-25's capabilities are open, and the extensions
  // of its time (skills) are declared there too (as the conformance suite's servers do). Tasks
  // are 2025-11-25's own capability.
  const extensions: Record<string, Readonly<Record<string, unknown>>> = {}
  if (f.extensions || f.tasks === "core") {
    for (const extension of config.extensions) extensions[extension.id] = extension.settings
    if (tasks && f.tasks === "extension") extensions[Tasks.extensionId] = {}
    // MCP Apps: a server with views says so (the extension defines no server settings).
    if (Array.from(entries.resources.values()).some((r) => Apps.isView(r.definition))) {
      extensions[FeatureSchemas.appsExtensionId] = {}
    }
  }
  return {
    ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
    ...(tasks && f.tasks === "core" ? { tasks: coreTasks } : {}),
    logging: {},
    ...(completions ? { completions: {} } : {}),
    ...(prompts ? { prompts: { listChanged: true } } : {}),
    ...(resources ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(tools ? { tools: { listChanged: true } } : {})
  }
}

/**
 * A user handler, run where the request's `McpRequest` is: every request's fiber starts with it
 * in its context (the era gives it to the engine, which forks the fiber with it), so nothing is
 * provided per handler.
 */
const withRequest = <A, E>(effect: Effect.Effect<A, E, McpRequest.McpRequest>): Effect.Effect<A, E> =>
  effect as Effect.Effect<A, E>

/** The params of a request's `notifications/progress`: `message` only where the revision has it. */
export const progressParams = (
  progressToken: McpSchema.Base.ProgressToken,
  progress: number,
  total: number | undefined,
  message: string | undefined,
  features: Revision.Features
) => ({
  progressToken,
  progress,
  ...(total !== undefined ? { total } : {}),
  ...(message !== undefined && features.progressMessage ? { message } : {})
})

const noAuth: Option.Option<AuthInfo.AuthInfo> = Option.none()

/** Who holds the token a request came with, when its transport verified one. */
export const authOf = (received: Transport.ReceiveContext | undefined): Option.Option<AuthInfo.AuthInfo> =>
  received?.auth === undefined ? noAuth : Option.some(received.auth)

/** The context a request's fiber starts with: its `McpRequest`. */
export const requestContext = (request: McpRequest.Service): Context.Context<McpRequest.McpRequest> =>
  Context.make(McpRequest.McpRequest, request)

// ---------------------------------------------------------------------------- pagination

const encodeCursor = (after: string): string => btoa(encodeURIComponent(after))

const decodeCursor = (cursor: string): string | undefined => {
  try {
    return decodeURIComponent(atob(cursor))
  } catch {
    return undefined
  }
}

const byKey = <A>(key: (a: A) => string) => (a: A, b: A) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)

/** One page of `items` (in a stable order: sorted by `key`) after the cursor. */
const page = <A>(
  items: Iterable<A>,
  key: (a: A) => string,
  cursor: string | undefined,
  size: number
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly nextCursor?: string }, McpError.InvalidParams> => {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  if (cursor !== undefined && after === undefined) {
    return Effect.fail(new McpError.InvalidParams({ message: `Invalid cursor: ${JSON.stringify(cursor)}` }))
  }
  const sorted = Array.from(items).sort(byKey(key))
  const start = after === undefined ? 0 : sorted.findIndex((a) => key(a) > after)
  const from = start < 0 ? sorted.length : start
  const slice = sorted.slice(from, from + size)
  return Effect.succeed(
    from + size < sorted.length ? { items: slice, nextCursor: encodeCursor(key(slice[slice.length - 1])) } : {
      items: slice
    }
  )
}

// ---------------------------------------------------------------------------- the methods

/**
 * The methods whose results are valid by construction, so a dispatch table need not check them
 * again: tools/call (the hottest path of a server) is assembled here from a tool's result, whose
 * structured value its `success` schema checked and whose raw content `Tool` checked, and is
 * shaped for the revision by `shape.ts`.
 */
export const trusted: ReadonlyArray<"tools/call"> = ["tools/call"]

// ---------------------------------------------------------------------------- tasks

/** Does this request declare the tasks extension (2026-07-28, on the request itself)? */
const declaresTasks = (request: RequestContext): boolean =>
  request.clientCapabilities.extensions?.[Tasks.extensionId] !== undefined

/** Refuses a 2026-07-28 tasks method to a request that does not declare the extension (-32021). */
const gateTasks = (request: RequestContext): McpError.McpError | undefined =>
  request.features.tasks === "extension" && !declaresTasks(request)
    ? new McpError.MissingRequiredClientCapability({
      requiredCapabilities: { extensions: { [Tasks.extensionId]: {} } },
      detail: `${request.method} needs the ${Tasks.extensionId} extension`
    })
    : undefined

/**
 * The tasks methods, in the shapes of the request's revision: 2025-11-25's `tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel`; the extension's `tasks/get`, `tasks/update`,
 * `tasks/cancel` (which answer empty results the era puts in its envelope).
 */
const tasksMethods = (config: Config): Dispatch.Handlers<McpError.McpError, never, RequestContext> => {
  const tasks = config.tasks
  const gated = <A>(request: RequestContext, run: () => Effect.Effect<A, McpError.McpError>) => {
    const refused = gateTasks(request)
    return refused === undefined ? run() : Effect.fail(refused)
  }
  return {
    "tasks/get": (params, request) =>
      gated(
        request,
        () =>
          Effect.map(tasks.find(params.taskId, request), (record) =>
            request.features.tasks === "core" ? Tasks.task20251125(record) : Tasks.detailed(record) as never)
      ),
    "tasks/cancel": (params, request) =>
      gated(request, () => {
        if (request.features.tasks !== "core") return Effect.as(tasks.cancel(params.taskId, request), {} as never)
        return Effect.flatMap(tasks.find(params.taskId, request), (record) =>
          TaskStore.isTerminal(record.status)
            ? Effect.fail(
              new McpError.InvalidParams({ message: `Task ${params.taskId} has already ended (${record.status})` })
            )
            : Effect.map(tasks.cancel(params.taskId, request), Tasks.task20251125))
      }),
    "tasks/update": (params, request) =>
      gated(request, () => Effect.as(tasks.update(params.taskId, params.inputResponses, request), {} as never)),
    "tasks/result": (params, request) =>
      Effect.flatMap(tasks.terminal(params.taskId, request), (record) => {
        const related = { [Meta.relatedTask]: { taskId: record.taskId } }
        const outcome = record.outcome
        if (outcome?._tag === "Result") {
          const own = (outcome.result as { readonly _meta?: McpSchema.Base.MetaObject })._meta
          return Effect.succeed({ ...outcome.result, _meta: own === undefined ? related : Meta.merge(own, related) })
        }
        // An error carries the task in its `data` (as a result does in `_meta`): a `data` that is no
        // object is kept under `value`.
        const tagged = (data: unknown) =>
          typeof data === "object" && data !== null && !Array.isArray(data)
            ? { ...data, _meta: related }
            : data === undefined
            ? { _meta: related }
            : { value: data, _meta: related }
        if (outcome?._tag === "Error") {
          return Effect.fail(McpError.fromWire({ ...outcome.error, data: tagged(outcome.error.data) }))
        }
        // Cancelled: what a cancelled request answers.
        return Effect.fail(
          new McpError.InvalidRequest({ message: `Task ${record.taskId} was cancelled`, data: tagged(undefined) })
        )
      }),
    "tasks/list": (params, request) =>
      Effect.flatMap(
        params.cursor === undefined ? Effect.void : Effect.mapError(
          tasks.find(params.cursor, request),
          () => new McpError.InvalidParams({ message: `Invalid cursor: ${JSON.stringify(params.cursor)}` })
        ),
        () =>
          Effect.map(tasks.list(request, params.cursor, config.pageSize), (page) => ({
            tasks: page.tasks.map(Tasks.task20251125),
            ...(page.next !== undefined ? { nextCursor: page.next } : {})
          }))
      )
  }
}

// ---------------------------------------------------------------------------- dispatch tables

/** A dispatch table of the serving core's methods (and an era's own), for one context. */
export type Table<C> = Dispatch.Table<McpError.McpError, never, C>

/** A kind of table an era serves: which methods, gated by the declared capabilities or not, and its own routes. */
export interface Variant<C> {
  /** Names the kind in the cache (a phase of a handshake session). */
  readonly name: string
  /** Which methods of the catalog it serves, beside the gate (a server's own requests never). */
  readonly include: (definition: Method.Definition) => boolean
  /** Whether the capabilities the server declared gate its methods. */
  readonly gated: boolean
  /** Routes it adds or replaces, once the catalog's are in. */
  readonly extend?: (
    routes: Map<string, Dispatch.Route<McpError.McpError, never, C>>,
    revision: Revision.Revision
  ) => void
}

/** Every method the catalog has for the revision, each gated by its capability. */
const served: Omit<Variant<never>, "extend"> = { name: "served", include: () => true, gated: true }

/**
 * The dispatch tables of an era's handlers, built once per kind, revision and declared
 * capabilities, and kept. A method gated by a server capability is left out when the server does
 * not declare it, in the revisions that define that capability only (2024-11-05 has
 * completion/complete but no `completions` capability).
 */
export const tables = <C>(
  handlers: Dispatch.Handlers<McpError.McpError, never, C>
): (revision: Revision.Revision, capabilities: ServerCapabilities, variant?: Variant<C>) => Table<C> => {
  const kept = new Map<string, Table<C>>()
  return (revision, capabilities, variant = served) => {
    const key = `${variant.name}:${revision}:${variant.gated ? Object.keys(capabilities).sort().join(",") : ""}`
    let found = kept.get(key)
    if (found === undefined) {
      const defined = Revision.features(revision).serverCapabilities
      /** The server capability that gates `d` out of this table (one the server does not declare). */
      const undeclared = (d: Method.Definition) =>
        variant.gated && d.capability?.side === "server" && defined.includes(d.capability.key) &&
          !(d.capability.key in capabilities)
          ? d.capability.key
          : undefined
      const routes = new Map(Dispatch.make(revision, handlers, {
        include: (d) => d.direction !== "server" && variant.include(d) && undeclared(d) === undefined,
        trusted
      }))
      // A method of a capability the server does not declare is -32601 (the lifecycle: only what was
      // negotiated is used), saying why: a client that asks anyway learns the server has none.
      for (const entry of Method.table(revision).values()) {
        const d = entry.definition
        const key = d.kind === "request" && d.direction !== "server" && variant.include(d) ? undeclared(d) : undefined
        if (key === undefined || routes.has(d.name) || !Object.hasOwn(handlers, d.name)) continue
        // Built when asked: most servers leave whole capabilities out and are never asked for them.
        const detail = `Method not found: ${d.name} (this server has no ${key}: it declares no ${key} capability)`
        routes.set(d.name, () => Effect.fail(new McpError.MethodNotFound({ method: d.name, detail })))
      }
      variant.extend?.(routes, revision)
      kept.set(key, found = routes)
    }
    return found
  }
}

/** The methods every era serves, typed by the catalog, for a registry and a config. */
export const make = (
  registry: Registry,
  config: Config
): Dispatch.Handlers<McpError.McpError, never, RequestContext> => {
  const entriesOf = Ref.get(registry.entries)
  /** What the caller may see: everything, unless `hideUnauthorized` and its token lacks the scopes. */
  const visible = <A extends { readonly scopes?: ReadonlyArray<string> | undefined }>(
    items: Iterable<A>,
    request: RequestContext
  ): Iterable<A> => {
    const auth = request.auth
    if (!config.hideUnauthorized || Option.isNone(auth)) return items
    return Array.from(items).filter((item) => item.scopes === undefined || AuthInfo.hasScopes(auth.value, item.scopes))
  }

  const list = <A extends { readonly scopes?: ReadonlyArray<string> | undefined }, B>(
    select: (entries: Entries, request: RequestContext) => Iterable<A>,
    key: (a: A) => string,
    render: (a: A, f: Revision.Features) => B
  ) =>
  (params: { readonly cursor?: string | undefined }, request: RequestContext) =>
    Effect.flatMap(
      entriesOf,
      (entries) =>
        Effect.map(
          page(visible(select(entries, request), request), key, params.cursor, config.pageSize),
          (result) => ({
            items: result.items.map((item) => render(item, request.features)),
            ...(result.nextCursor !== undefined ? { nextCursor: result.nextCursor } : {})
          })
        )
    )

  const tools = list(listedTools, (t) => t.name, (t, f) => Shape.tool(t.definition, f))
  const prompts = list((e) => e.prompts.values(), (p) => p.name, (p, f) => Shape.prompt(p.definition, f))
  const resources = list(listedResources, (r) => r.uri, (r, f) => Shape.resource(r.definition, f))
  const templates = list((e) => e.templates.values(), (t) => t.uriTemplate, (t, f) => Shape.template(t.definition, f))

  return {
    // An extension's methods first: a core method of the same name (a mistake) stays the core's.
    ...Object.assign({}, ...config.extensions.map((e) => e.handlers)) as Dispatch.Handlers<
      McpError.McpError,
      never,
      RequestContext
    >,
    "tools/list": (params, request) =>
      Effect.map(tools(params, request), ({ items, ...rest }) => ({ tools: items, ...rest })),

    // The hottest path of a server: plain combinators, the registry read once, synchronously; a
    // tool whose handler is done at once gives a done result (`eager.ts`), answered without a fiber.
    "tools/call": (params, request): Effect.Effect<McpSchema.Tool.CallToolResult20250618, McpError.McpError> => {
      const known = request.tool
      const tool = known !== undefined && known.name === params.name
        ? known
        : registry.unsafeEntries().tools.get(params.name)
      if (tool === undefined) {
        return Effect.fail(new McpError.InvalidParams({ message: `Unknown tool: ${params.name}` }))
      }
      const f = request.features
      const args = tool.decode(params.arguments)
      if (args._tag === "Left") {
        // 2025-11-25+: the model gets to see and correct its arguments; before: a protocol error.
        return f.toolInputErrorsAsResults
          ? Effect.succeed({ content: [{ type: "text" as const, text: args.left.message }], isError: true })
          : Effect.fail(new McpError.InvalidParams({ message: args.left.message }))
      }
      const policy = tool.task
      if (policy !== undefined && f.tasks !== "none") {
        // 2025-11-25: a task when the client asked for one; 2026-07-28: when the request declares the
        // extension (the server decides). A `required` tool refuses a client that cannot take one.
        const asked = f.tasks === "core" ? params.task !== undefined : declaresTasks(request)
        if (asked) {
          return config.tasks.start(
            tool,
            args.right,
            request,
            f.tasks === "core" ? params.task?.ttl : undefined
          ) as Effect.Effect<never, McpError.McpError>
        }
        if (policy.support === "required") {
          return Effect.fail(
            f.tasks === "core"
              ? new McpError.MethodNotFound({
                method: "tools/call",
                detail: `Tool ${params.name} runs only as a task: call it with params.task`
              })
              : new McpError.MissingRequiredClientCapability({
                requiredCapabilities: { extensions: { [Tasks.extensionId]: {} } },
                detail: `Tool ${params.name} runs only as a task: declare the ${Tasks.extensionId} extension`
              })
          )
        }
      }
      return Eager.map(withRequest(tool.run(args.right)), (result) => Shape.callToolResult(result, f))
    },

    ...tasksMethods(config),

    "prompts/list": (params, request) =>
      Effect.map(prompts(params, request), ({ items, ...rest }) => ({ prompts: items, ...rest })),

    "prompts/get": (params, request) =>
      Effect.flatMap(entriesOf, (entries) => {
        const prompt = entries.prompts.get(params.name)
        if (prompt === undefined) {
          return Effect.fail(new McpError.InvalidParams({ message: `Unknown prompt: ${params.name}` }))
        }
        return Effect.map(
          withRequest(prompt.get(params.arguments)),
          (result) => Shape.promptMessages(result, request.features)
        )
      }),

    "resources/list": (params, request) =>
      Effect.map(resources(params, request), ({ items, ...rest }) => ({ resources: items, ...rest })),

    "resources/templates/list": (params, request) =>
      Effect.map(templates(params, request), ({ items, ...rest }) => ({ resourceTemplates: items, ...rest })),

    "resources/read": (params, request) =>
      Effect.flatMap(entriesOf, (entries): Effect.Effect<McpSchema.Resource.ReadResourceResult, McpError.McpError> => {
        const resource = entries.resources.get(params.uri)
        if (resource !== undefined) {
          return withRequest(resource.read(params.uri))
        }
        for (const template of entries.templates.values()) {
          const variables = template.match(params.uri)
          if (variables !== undefined) {
            return withRequest(template.read(params.uri, variables))
          }
        }
        return Effect.fail(new McpError.ResourceNotFound({ uri: params.uri }))
      }),

    "completion/complete": (params, request) =>
      Effect.flatMap(entriesOf, (entries) => {
        const completer = params.ref.type === "ref/prompt"
          ? entries.prompts.get(params.ref.name)?.completions[params.argument.name]
          : entries.templates.get(params.ref.uri)?.completions[params.argument.name]
        if (completer === undefined) return Effect.succeed(Completion.result([]))
        return Effect.map(
          withRequest(completer(params.argument.value, params.context?.arguments ?? {})),
          (values) => Completion.result(values)
        )
      })
  }
}
