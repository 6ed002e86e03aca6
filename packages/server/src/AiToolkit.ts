/**
 * An `@effect/ai` toolkit served as MCP tools: one definition (`Tool.make` + `Toolkit.make` +
 * `toolkit.toLayer(handlers)` of `@effect/ai`) for an LLM and for MCP clients alike.
 *
 * - The parameters schema becomes `inputSchema` (arguments are checked with it, and invalid
 *   ones are answered as any tool's are); the success schema `outputSchema` and
 *   `structuredContent`; the failure schema an `isError` result carrying the encoded failure,
 *   whichever the tool's `failureMode` (`"error"` or `"return"`).
 * - The description carries over, and the `Title`, `Readonly`, `Destructive`, `Idempotent`
 *   and `OpenWorld` annotations become MCP tool annotations.
 * - The handlers are the toolkit's own, from its handlers layer.
 *
 * Requires the optional peer dependency `@effect/ai` (0.37, the Effect 3 line: `npm install
 * @effect/ai@^0.37`); import it from `@effect-mcp/server/AiToolkit`.
 *
 * ```ts
 * import { Tool as AiTool, Toolkit } from "@effect/ai"
 * import * as AiToolkit from "@effect-mcp/server/AiToolkit"
 *
 * const GetWeather = AiTool.make("GetWeather", {
 *   description: "The weather in a city",
 *   parameters: { city: Schema.String },
 *   success: Schema.Struct({ celsius: Schema.Number })
 * })
 * const Weather = Toolkit.make(GetWeather)
 * const WeatherHandlers = Weather.toLayer({ GetWeather: ({ city }) => Effect.succeed({ celsius: 21 }) })
 *
 * const Server = McpServer.layer({ serverInfo, tools: [] }).pipe(
 *   Layer.provideMerge(AiToolkit.layer(Weather)), ...
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { McpError } from "@effect-mcp/core"
import * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as Failure from "./internal/failure.js"
import * as McpServer from "./McpServer.js"
import * as Tool from "./Tool.js"

/** Whether a schema carries no value (`Schema.Void`, `Schema.Never`, `Schema.Undefined`). */
const isEmpty = (schema: Schema.Schema.All): boolean => {
  const tag = SchemaAST.encodedAST(schema.ast)._tag
  return tag === "VoidKeyword" || tag === "NeverKeyword" || tag === "UndefinedKeyword"
}

/** A success as a tool result: its JSON as text, and as structured content when it is an object. */
const successOf = (encoded: unknown): Tool.Result => ({
  content: encoded === undefined ? [] : [{ type: "text", text: Failure.textOf(encoded) }],
  ...(typeof encoded === "object" && encoded !== null && !Array.isArray(encoded) ? { structuredContent: encoded } : {})
})

/** The annotations that differ from MCP's defaults (which are @effect/ai's too). */
const annotationsOf = (annotations: Context.Context<never>) => {
  const title = Context.getOption(annotations, AiTool.Title)
  const readOnly = Context.get(annotations, AiTool.Readonly)
  const destructive = Context.get(annotations, AiTool.Destructive)
  const idempotent = Context.get(annotations, AiTool.Idempotent)
  const openWorld = Context.get(annotations, AiTool.OpenWorld)
  const out = {
    ...(title._tag === "Some" && typeof title.value === "string" ? { title: title.value } : {}),
    ...(readOnly ? { readOnlyHint: true } : {}),
    ...(!destructive ? { destructiveHint: false } : {}),
    ...(idempotent ? { idempotentHint: true } : {}),
    ...(!openWorld ? { openWorldHint: false } : {})
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * The MCP tools of a toolkit, served by its handlers (given by `toolkit.toLayer(...)`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const tools = <Tools extends Record<string, AiTool.Any>>(
  toolkit: AiToolkit.Toolkit<Tools>
): Effect.Effect<
  ReadonlyArray<Tool.Tool<AiTool.Requirements<Tools[keyof Tools]>>>,
  never,
  AiTool.HandlersFor<Tools>
> =>
  Effect.map(toolkit, (handled) =>
    Object.values(handled.tools).map((tool) => {
      const success = isEmpty(tool.successSchema) ? undefined : tool.successSchema
      const failure = isEmpty(tool.failureSchema) ? undefined : tool.failureSchema as Schema.Schema<any, any, never>
      const annotations = annotationsOf(tool.annotations)
      // The definition and the argument check, as any tool's; the call is the toolkit's. The success
      // schema is published as it is: an LLM tool's success may be a string (structuredContent is then
      // left out, and an outputSchema that is not an object only reaches revisions that take any).
      const base = Tool.make(tool.name, {
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.parametersSchema as Schema.Schema<any, any, never>,
        ...(success !== undefined ? { outputSchema: Tool.outputSchema(success) } : {}),
        ...(annotations !== undefined ? { annotations } : {})
      }, () => Effect.void as Effect.Effect<any>)
      const declared: Failure.Declared | undefined = failure && {
        is: Schema.is(failure),
        encode: Schema.encodeUnknown(failure),
        unencodable: (error) =>
          new Tool.Defect({
            message: `Tool ${tool.name} failed with a value its failure schema cannot encode: ${error.message}`
          })
      }
      const hasOutput = base.definition.outputSchema !== undefined
      const run = (args: unknown): Effect.Effect<Tool.Result, McpError.McpError, any> =>
        handled.handle(tool.name as keyof Tools, args as never).pipe(
          Effect.matchEffect({
            onSuccess: ({ encodedResult, isFailure }) =>
              Effect.succeed(
                isFailure
                  ? Failure.toolFailure(encodedResult, Failure.textOf(encodedResult), hasOutput)
                  : successOf(encodedResult)
              ),
            // The failure policy, as any tool's: the declared failure as an `isError` result; an
            // AiError (the handler's result does not fit its schemas) is a bug, -32603 and logged.
            onFailure: (error) => Failure.tool(error, declared, hasOutput)
          })
        )
      return {
        ...base,
        // Checked as any tool's arguments, and handed to the toolkit as sent (it decodes them).
        decode: (args: unknown) => Either.map(base.decode(args), () => args ?? {}),
        run
      } as unknown as Tool.Tool<AiTool.Requirements<Tools[keyof Tools]>>
    }))

/**
 * Registers a toolkit's tools on the `McpServer` of the context, for the lifetime of the layer
 * (they are removed when it ends).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <Tools extends Record<string, AiTool.Any>>(
  toolkit: AiToolkit.Toolkit<Tools>
): Layer.Layer<
  never,
  never,
  McpServer.McpServer | AiTool.HandlersFor<Tools> | Exclude<AiTool.Requirements<Tools[keyof Tools]>, never>
> =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const served = yield* tools(toolkit)
    for (const tool of served) {
      yield* server.addTool(tool)
      yield* Effect.addFinalizer(() => server.removeTool(tool.name))
    }
  })) as any
