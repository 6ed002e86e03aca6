/**
 * The tools of one or more connected MCP servers as an `@effect/ai` toolkit, for a
 * `LanguageModel` to call: `LanguageModel.generateText({ prompt, toolkit: tools.toolkit })`.
 *
 * - Each tool keeps its name (prefixed with its server's name where two servers offer the same
 *   one; made safe for providers, `[A-Za-z0-9_-]`, 64 at most; a name still taken then is suffixed
 *   `_2`, `_3`..., in the order of the servers and their lists), its description, and its annotations (`Title`, `Readonly`, `Destructive`,
 *   `Idempotent`, `OpenWorld`, and `McpTool`: the server and the tool as listed, `infoOf`).
 * - The provider receives the server's `inputSchema` as the tool's parameters, as it is (`$defs`,
 *   `$ref`s, enums and all): the parameters are an Effect Schema of any object carrying the
 *   `inputSchema` as its `jsonSchema` annotation, which `@effect/ai` hands to the provider
 *   unchanged; the server checks the arguments.
 * - A call goes through the client (its handlers answer the server's asks; `callOptions` add
 *   progress and a timeout); the model sees the result's `structuredContent`, else its text. An
 *   `isError` result, a refused call, or a tool removed since the model was shown it, is the
 *   tool's failure (`isFailure` on the tool result part): the model reads why, the run goes on.
 *   Interrupting the run cancels the call (`notifications/cancelled`).
 * - `tools/list_changed` (a handshake session) or a listen (2026-07-28) refreshes the toolkit:
 *   `toolkit` is an Effect read at each turn, so the next turn sees the new list. Changes that
 *   come while it lists are listed for once, after it (a storm of them is not a listing each).
 *
 * Requires the optional peer dependency `@effect/ai` (0.37, the Effect 3 line); import it from
 * `@effect-mcp/client/McpToolkit`. OpenAI's provider sends tools in strict mode by default, which
 * most servers' schemas do not meet: give it `OpenAiLanguageModel.model(name, { strict: false })`.
 *
 * @since 0.1.0
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import type * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as ClientError from "./ClientError.js"
import * as internal from "./internal/toolkit.js"
import * as McpClient from "./McpClient.js"

/**
 * The parameters schema of every tool of the toolkit (any object; its JSON Schema is the tool's
 * `inputSchema`).
 *
 * @since 0.1.0
 * @category models
 */
export type Parameters = typeof internal.Parameters

/**
 * An MCP tool as an `@effect/ai` tool: its failures are returned to the model (`failureMode:
 * "return"`).
 *
 * @since 0.1.0
 * @category models
 */
export type AiMcpTool = AiTool.Tool<string, {
  readonly parameters: Parameters
  readonly success: typeof Schema.Unknown
  readonly failure: typeof Schema.Unknown
  readonly failureMode: "return"
}>

/**
 * Where a tool comes from: the name of its server in the toolkit, and the tool as listed.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpToolInfo {
  readonly server: string
  readonly tool: McpSchema.Tool.Tool
}

/**
 * The annotation of each tool saying where it comes from (read it with `McpToolkit.infoOf`).
 *
 * @since 0.1.0
 * @category annotations
 */
export const McpTool: Context.Tag<McpToolInfo, McpToolInfo> = internal.McpTool

/**
 * Where an `@effect/ai` tool comes from, when it is one of a toolkit's: its server and the tool as listed.
 *
 * @since 0.1.0
 * @category accessors
 */
export const infoOf = (tool: AiTool.Any): Option.Option<McpToolInfo> =>
  Context.getOption(tool.annotations as Context.Context<McpToolInfo>, McpTool)

/**
 * A client, under a name of your choice (the prefix of its tools where names collide; default
 * its server's name).
 *
 * @since 0.1.0
 * @category models
 */
export interface Source {
  readonly client: McpClient.Service
  readonly name?: string | undefined
}

/**
 * Which tools, and how they are called.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Only these tools: names, or a test of the tool as listed (`McpToolkit.readOnly`). */
  readonly include?: ReadonlyArray<string> | ((tool: McpSchema.Tool.Tool) => boolean)
  /** Not these tools: names, or a test of the tool as listed. */
  readonly exclude?: ReadonlyArray<string> | ((tool: McpSchema.Tool.Tool) => boolean)
  /** Follow the servers' list changes (default `true`). */
  readonly refresh?: boolean
  /** Options of every call (progress, timeout). */
  readonly callOptions?: McpClient.CallOptions
  /**
   * Tools the toolkit offers, from every server, after `include` and `exclude` (default 1,000):
   * past it `make` fails with `TooManyTools`, and a refresh keeps the list it had (and says why
   * in a warning). A server listing 100,000 tools held 300 MiB of `@effect/ai` tools.
   */
  readonly maxTools?: number
}

/**
 * The servers offer more tools than the toolkit's `maxTools`, after `include` and `exclude`:
 * `limit`, and how many were `listed`.
 *
 * @since 0.1.0
 * @category errors
 */
export const TooManyTools: typeof internal.TooManyTools = internal.TooManyTools

/**
 * @since 0.1.0
 * @category errors
 */
export type TooManyTools = internal.TooManyTools

/**
 * A tool of the toolkit: its name there, its server, the tool as listed, its client and its
 * `@effect/ai` tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly name: string
  readonly server: string
  readonly tool: McpSchema.Tool.Tool
  readonly client: McpClient.Service
  readonly aiTool: AiMcpTool
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The toolkit with its handlers, as it is now: give it to `LanguageModel.generateText`. */
  readonly toolkit: Effect.Effect<AiToolkit.WithHandler<Record<string, AiMcpTool>>>
  /** The tools, as they are now. */
  readonly entries: Effect.Effect<ReadonlyArray<Entry>>
  /** The tools now and after each change. */
  readonly changes: Stream.Stream<ReadonlyArray<Entry>>
  /** Lists every server's tools again (`TooManyTools` past `maxTools`: the list stays as it was). */
  readonly refresh: Effect.Effect<void, ClientError.ClientError | TooManyTools>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpToolkit extends Context.Tag("@effect-mcp/client/McpToolkit")<McpToolkit, Service>() {}

/**
 * The tools of one client, or of several, as a toolkit kept current for the lifetime of the scope.
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import * as McpToolkit from "@effect-mcp/client/McpToolkit"
 * import { LanguageModel } from "@effect/ai"
 * import { Effect } from "effect"
 *
 * const answer = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const tools = yield* McpToolkit.make(client, { include: McpToolkit.readOnly })
 *   const response = yield* LanguageModel.generateText({ prompt: "What is 2 + 3?", toolkit: tools.toolkit })
 *   return response.text
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  clients: McpClient.Service | ReadonlyArray<McpClient.Service | Source>,
  options?: Options
) => Effect.Effect<Service, ClientError.ClientError | TooManyTools, Scope.Scope> = internal.make

/**
 * The toolkit of the `McpClient` in context, as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<McpToolkit, ClientError.ClientError | TooManyTools, McpClient.McpClient> =>
  Layer.scoped(McpToolkit, Effect.flatMap(McpClient.McpClient, (client) => make(client, options)))

/**
 * Whether a tool says it only reads (`readOnlyHint`): `McpToolkit.make(client, { include: McpToolkit.readOnly })`.
 *
 * @since 0.1.0
 * @category filters
 */
export const readOnly = (tool: McpSchema.Tool.Tool): boolean => tool.annotations?.readOnlyHint === true
