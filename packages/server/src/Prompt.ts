/**
 * Prompts: a name, a Schema of string arguments (published as the prompt's `arguments`,
 * validated on `prompts/get`: a missing required argument is -32602), optional completions
 * per argument, and a handler that is an Effect.
 *
 * @since 0.1.0
 */
import { McpError, Method } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type { Completer } from "./Completion.js"
import * as Failure from "./internal/failure.js"
import * as McpSchema from "./internal/mcpSchema.js"

/**
 * One message of a prompt.
 *
 * @since 0.1.0
 * @category models
 */
export type PromptMessage = McpSchema.Prompt.PromptMessage
/**
 * A whole `prompts/get` result.
 *
 * @since 0.1.0
 * @category models
 */
export type GetPromptResult = McpSchema.Prompt.GetPromptResult

/**
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@effect-mcp/server/Prompt")

/**
 * What a prompt handler may return: one user text, messages, or a whole result.
 *
 * @since 0.1.0
 * @category models
 */
export type Output = string | ReadonlyArray<PromptMessage> | GetPromptResult

/**
 * A prompt, ready to be registered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prompt<R = never> {
  readonly [TypeId]: typeof TypeId
  readonly name: string
  /** The wire definition (`prompts/list`). */
  readonly definition: McpSchema.Prompt.Prompt
  /** Completions by argument name. */
  readonly completions: Readonly<Record<string, Completer<R>>>
  /** Validates the arguments and runs the handler. */
  readonly get: (
    args: Readonly<Record<string, string>> | undefined
  ) => Effect.Effect<GetPromptResult, McpError.McpError, R>
  /**
   * The OAuth scopes a caller's access token needs for this prompt (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
}

/**
 * Options of `make`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<A extends Schema.Struct.Fields, R> {
  readonly title?: string
  readonly description?: string
  /** String arguments; `Schema.optional` ones are not required. Descriptions come from annotations. */
  readonly arguments?: Schema.Struct<A>
  /** Completions for arguments, by name. */
  readonly complete?: { readonly [K in keyof A]?: Completer<R> }
  readonly icons?: ReadonlyArray<McpSchema.Base.Icon>
  readonly _meta?: McpSchema.Base.MetaObject
  /**
   * The OAuth scopes a caller's access token needs for this prompt (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
}

/** `Schema.String` carries a built-in title ("string") and description ("a string"): not the author's. */
const authored = (ast: SchemaAST.AST, key: symbol, value: Option.Option<string>): Option.Option<string> =>
  Option.filter(value, (v) => ast._tag !== "StringKeyword" || v !== SchemaAST.stringKeyword.annotations[key])

/** The annotated schema of an argument: `Schema.optional(X)` has the type `X | undefined`. */
const argumentType = (ast: SchemaAST.AST): SchemaAST.AST => {
  if (ast._tag !== "Union") return ast
  const defined = ast.types.filter((member) => member._tag !== "UndefinedKeyword")
  return defined.length === 1 ? defined[0] : ast
}

const argumentsOf = (schema: Schema.Struct<any>): ReadonlyArray<McpSchema.Prompt.PromptArgument> =>
  schema.ast._tag !== "TypeLiteral" ? [] : (schema.ast as SchemaAST.TypeLiteral).propertySignatures.map((ps) => {
    const type = argumentType(ps.type)
    const description = SchemaAST.getDescriptionAnnotation(ps).pipe(
      Option.orElse(() => authored(type, SchemaAST.DescriptionAnnotationId, SchemaAST.getDescriptionAnnotation(type)))
    )
    const title = SchemaAST.getTitleAnnotation(ps).pipe(
      Option.orElse(() => authored(type, SchemaAST.TitleAnnotationId, SchemaAST.getTitleAnnotation(type)))
    )
    return {
      name: String(ps.name),
      ...(Option.isSome(title) ? { title: title.value } : {}),
      ...(Option.isSome(description) ? { description: description.value } : {}),
      required: !ps.isOptional
    }
  })

const toResult = (output: Output, description: string | undefined): GetPromptResult => {
  if (typeof output === "string") {
    return {
      ...(description !== undefined ? { description } : {}),
      messages: [{ role: "user", content: { type: "text", text: output } }]
    }
  }
  if (Array.isArray(output)) {
    return { ...(description !== undefined ? { description } : {}), messages: output as ReadonlyArray<PromptMessage> }
  }
  return output as GetPromptResult
}

/**
 * Defines a prompt.
 *
 * A failure of the handler that is an `McpError` reaches the client as itself (say,
 * `McpError.InvalidParams` for arguments the handler refuses); any other is -32603 with a generic
 * message ("Internal error"), logged on the server with its cause: its own message never leaves
 * the server. Map what the client should be told to an `McpError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R, E, A extends Schema.Struct.Fields = {}>(
  name: string,
  options: Options<A, R>,
  handler: (args: Schema.Struct.Type<A>) => Effect.Effect<Output, E, R>
): Prompt<R> => {
  const schema = (options.arguments ?? Schema.Struct({})) as Schema.Struct<any>
  const decode = Schema.decodeUnknown(schema as unknown as Schema.Schema<any, any, never>, {
    errors: "all",
    onExcessProperty: "ignore"
  })
  const definition: McpSchema.Prompt.Prompt = {
    name,
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    arguments: argumentsOf(schema),
    ...(options.icons !== undefined ? { icons: options.icons } : {}),
    ...(options._meta !== undefined ? { _meta: options._meta } : {})
  }
  return {
    [TypeId]: TypeId,
    name,
    definition,
    ...(options.scopes !== undefined ? { scopes: options.scopes } : {}),
    completions: (options.complete ?? {}) as Record<string, Completer<R>>,
    get: (args): Effect.Effect<GetPromptResult, McpError.McpError, R> =>
      decode(args ?? {}).pipe(
        // One line per problem, each with its path, as a tool's arguments.
        Effect.mapError((error) => {
          const problems = Method.describeError(error)
          return new McpError.InvalidParams({
            message: `Invalid arguments for prompt ${name}:${problems.includes("\n") ? "\n" : " "}${problems}`
          })
        }),
        Effect.flatMap((decoded) => Effect.catchAll(handler(decoded as Schema.Struct.Type<A>), Failure.undeclared)),
        Effect.map((output) => toResult(output, options.description))
      )
  }
}

/**
 * Is this value a prompt?
 *
 * @since 0.1.0
 * @category guards
 */
export const isPrompt = (u: unknown): u is Prompt<unknown> => typeof u === "object" && u !== null && TypeId in u
