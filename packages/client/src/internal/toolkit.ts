/**
 * The tools of connected servers as one `@effect/ai` toolkit: each MCP tool an `@effect/ai` tool
 * whose parameters carry the server's `inputSchema` verbatim, a handler calling it through the
 * client, the list kept current by the servers' list-change notifications.
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as ClientError from "../ClientError.js"
import type * as McpClient from "../McpClient.js"
import type * as McpToolkit from "../McpToolkit.js"

type Tool = McpSchema.Tool.Tool
type Content = McpSchema.Content.ContentBlock

/**
 * The parameters of every MCP tool: any object (the server checks the arguments), whose JSON
 * Schema is the annotation `jsonSchema`: Effect's `JSONSchema.fromAST` returns an object schema
 * annotation as it is, so the provider receives the server's `inputSchema`, `$defs` and all.
 */
export const Parameters = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** More tools than the toolkit offers (`maxTools`, after `include` and `exclude`). */
export class TooManyTools extends Data.TaggedError("TooManyTools")<{
  readonly limit: number
  readonly listed: number
}> {
  override get message(): string {
    return `The servers offer ${this.listed} tools, more than the toolkit's ${this.limit} (maxTools): ` +
      "narrow them with include or exclude, or raise maxTools"
  }
}

/** Where a tool of the toolkit comes from: an annotation of each `@effect/ai` tool. */
export const McpTool = Context.GenericTag<McpToolkit.McpToolInfo>("@effect-mcp/client/McpToolkit/McpTool")

/** A source as given: a client, or a client under a name of the caller's choice. */
const sourceOf = (
  given: McpClient.Service | McpToolkit.Source,
  index: number
): { readonly client: McpClient.Service; readonly name: string } => {
  const source: McpToolkit.Source = "client" in given ? given : { client: given }
  const name = source.name ?? source.client.serverInfo.pipe((info) => info._tag === "Some" ? info.value.name : "")
  return { client: source.client, name: safe(name === "" ? `server${index + 1}` : name) }
}

/** A name as providers take it: letters, digits, `_` and `-`, at most 64 characters. */
const safe = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)

const matches = (
  filter: ReadonlyArray<string> | ((tool: Tool) => boolean),
  tool: Tool
): boolean => typeof filter === "function" ? filter(tool) : filter.includes(tool.name)

/** The text of a result's blocks (a block that is not text, as its JSON). */
const textOf = (content: ReadonlyArray<Content>): string =>
  content.map((block) => block.type === "text" ? block.text : JSON.stringify(block)).join("\n")

/** What the model sees of a tool's result: its structured content, else its text, else its blocks. */
export const modelResult = (result: McpClient.RequestResult<"tools/call">): unknown =>
  result.isError === true
    ? textOf(result.content)
    : result.structuredContent !== undefined
    ? result.structuredContent
    : result.content.every((block) => block.type === "text")
    ? textOf(result.content)
    : result.content

/** One tool of one server as an `@effect/ai` tool. */
export const aiTool = (name: string, tool: Tool, server: string): McpToolkit.AiMcpTool => {
  const annotations = tool.annotations ?? {}
  let made = AiTool.make(name, {
    description: tool.description ?? annotations.title ?? tool.title,
    success: Schema.Unknown,
    failure: Schema.Unknown,
    failureMode: "return"
  }).setParameters(Parameters.annotations({ jsonSchema: tool.inputSchema as object }))
    .annotate(McpTool, { server, tool })
  const title = tool.title ?? annotations.title
  if (title !== undefined) made = made.annotate(AiTool.Title, title)
  if (annotations.readOnlyHint !== undefined) made = made.annotate(AiTool.Readonly, annotations.readOnlyHint)
  if (annotations.destructiveHint !== undefined) made = made.annotate(AiTool.Destructive, annotations.destructiveHint)
  if (annotations.idempotentHint !== undefined) made = made.annotate(AiTool.Idempotent, annotations.idempotentHint)
  if (annotations.openWorldHint !== undefined) made = made.annotate(AiTool.OpenWorld, annotations.openWorldHint)
  return made
}

/** Each source's list as the toolkit takes it (`include`, `exclude`), or `TooManyTools` past `maxTools`. */
const keptOf = (
  lists: ReadonlyArray<ReadonlyArray<Tool>>,
  options: McpToolkit.Options
): Effect.Effect<ReadonlyArray<ReadonlyArray<Tool>>, TooManyTools> => {
  const kept = lists.map((tools) =>
    tools.filter((tool) =>
      (options.include === undefined || matches(options.include, tool)) &&
      (options.exclude === undefined || !matches(options.exclude, tool))
    )
  )
  const limit = options.maxTools ?? defaultMaxTools
  const listed = kept.reduce((n, tools) => n + tools.length, 0)
  return listed > limit ? Effect.fail(new TooManyTools({ limit, listed })) : Effect.succeed(kept)
}

/** The tools a toolkit offers by default: providers take a few hundred at most in one request (OpenAI 128). */
export const defaultMaxTools = 1_000

/** The entries of every source's kept list: named (prefixed where names collide). */
const entriesOf = (
  sources: ReadonlyArray<{ readonly client: McpClient.Service; readonly name: string }>,
  kept: ReadonlyArray<ReadonlyArray<Tool>>
): ReadonlyMap<string, McpToolkit.Entry> => {
  const seen = new Map<string, number>()
  for (const tools of kept) for (const tool of tools) seen.set(tool.name, (seen.get(tool.name) ?? 0) + 1)
  const entries = new Map<string, McpToolkit.Entry>()
  // The collision that matters is on the final (safe) name: `a.b` and `a_b`, or a prefixed `fs_read` and another
  // server's own `fs_read`; a later one is suffixed `_2`, `_3`... in the order of the servers and their lists.
  const unique = (name: string): string => {
    let candidate = name
    for (let n = 2; entries.has(candidate); n++) candidate = `${name.slice(0, 64 - `_${n}`.length)}_${n}`
    return candidate
  }
  kept.forEach((tools, index) => {
    const source = sources[index]!
    for (const tool of tools) {
      const name = unique(safe(seen.get(tool.name)! > 1 ? `${source.name}_${tool.name}` : tool.name))
      entries.set(name, {
        name,
        server: source.name,
        tool,
        client: source.client,
        aiTool: aiTool(name, tool, source.name)
      })
    }
  })
  return entries
}

interface State {
  readonly lists: ReadonlyArray<ReadonlyArray<Tool>>
  readonly entries: ReadonlyMap<string, McpToolkit.Entry>
  readonly toolkit: AiToolkit.WithHandler<Record<string, McpToolkit.AiMcpTool>>
}

/** A tool's failure as the model sees it. */
const failed = (result: unknown) => ({ isFailure: true, result, encodedResult: result })

export const make = (
  given: McpClient.Service | ReadonlyArray<McpClient.Service | McpToolkit.Source>,
  options: McpToolkit.Options = {}
): Effect.Effect<McpToolkit.Service, ClientError.ClientError | TooManyTools, Scope.Scope> =>
  Effect.gen(function*() {
    // Two servers of one name: the second is `name_2`, and so on (each prefix says which server).
    const sources = (Array.isArray(given) ? given : [given]).map(sourceOf).map((source, index, all) => {
      const before = all.slice(0, index).filter((other) => other.name === source.name).length
      return before === 0 ? source : { ...source, name: safe(`${source.name}_${before + 1}`) }
    })
    // Subscribed before listing, so that no change between the two is missed (a server that offers no
    // list changes: the toolkit is refreshed by `refresh` only).
    const subscriptions = options.refresh === false ?
      [] :
      yield* Effect.forEach(sources, (source) =>
        source.client.subscribe({ toolsListChanged: true }).pipe(
          Effect.map(Option.some),
          Effect.catchAll((error) => Effect.as(Effect.logDebug("no tool list changes", error.message), Option.none()))
        ))
    const lists = yield* Effect.forEach(sources, (source) => source.client.listTools, { concurrency: "unbounded" })
    // The handler reads the current entries: a tool removed since the model was shown it is a failure it can read.
    const handle = (name: string, params: unknown) =>
      Effect.flatMap(SubscriptionRef.get(ref), (state) => {
        const entry = state.entries.get(name)
        if (entry === undefined) {
          return Effect.succeed(failed(`The tool ${name} is no longer available: its server removed it.`))
        }
        return entry.client.callTool(entry.tool.name, params as Record<string, unknown>, options.callOptions).pipe(
          Effect.map((result) => {
            const seen = modelResult(result)
            return result.isError === true ? failed(seen) : { isFailure: false, result: seen, encodedResult: seen }
          }),
          Effect.catchAll((error) => Effect.succeed(failed(`The tool ${name} failed: ${error.message}`)))
        )
      })
    /** The state of the sources' lists (each kept as the toolkit takes it), or `TooManyTools`: the state stays. */
    const stateOf = (listed: ReadonlyArray<ReadonlyArray<Tool>>): Effect.Effect<State, TooManyTools> =>
      Effect.map(keptOf(listed, options), (lists) => {
        const entries = entriesOf(sources, lists)
        const tools: Record<string, McpToolkit.AiMcpTool> = {}
        for (const [name, entry] of entries) tools[name] = entry.aiTool
        // `handle` is generic over the names of a toolkit known when it is written; these are known when listed.
        return { lists, entries, toolkit: { tools, handle: handle as any } }
      })
    const ref = yield* SubscriptionRef.make(yield* stateOf(lists))
    const refreshOne = (index: number) =>
      Effect.flatMap(sources[index]!.client.listTools, (tools) =>
        SubscriptionRef.updateEffect(ref, (state) =>
          stateOf(state.lists.map((list, i) => i === index ? tools : list))))
    yield* Effect.forEach(subscriptions, (subscription, index) =>
      Option.match(subscription, {
        onNone: () =>
          Effect.void,
        onSome: ({ notifications }) =>
          // Changes that come while it lists are one more listing in all (a storm of n was n listings).
          Effect.forkScoped(notifications.pipe(
            Stream.filter((n) => n.method === "notifications/tools/list_changed"),
            Stream.buffer({ capacity: 1, strategy: "sliding" }),
            Stream.runForEach(() => refreshOne(index).pipe(Effect.catchAll(Effect.logWarning)))
          ))
      }), { discard: true })
    return {
      toolkit: Effect.map(SubscriptionRef.get(ref), (state) => state.toolkit),
      entries: Effect.map(SubscriptionRef.get(ref), (state) => Array.from(state.entries.values())),
      changes: Stream.map(ref.changes, (state) => Array.from(state.entries.values())),
      refresh: Effect.forEach(sources, (_, index) => refreshOne(index), { discard: true, concurrency: "unbounded" })
    } satisfies McpToolkit.Service
  })
