/**
 * Tools: a name, a Schema for the arguments (published as the JSON Schema `inputSchema`),
 * optionally Schemas for the success value (`outputSchema` + `structuredContent`) and the
 * typed failure (an `isError` result), and a handler that is an Effect with its own
 * requirements.
 *
 * @since 0.1.0
 */
import { McpError, Method } from "@effect-mcp/core"
import * as FeatureSchemas from "@effect-mcp/core/FeatureSchemas"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as Eager from "./internal/eager.js"
import * as Failure from "./internal/failure.js"
import * as JsonSchema from "./internal/jsonSchema.js"
import * as McpSchema from "./internal/mcpSchema.js"

/**
 * A content block of a result (text, image, audio, a resource link or an embedded resource).
 *
 * @since 0.1.0
 * @category models
 */
export type Content = McpSchema.Content.ContentBlock
/**
 * A whole `tools/call` result.
 *
 * @since 0.1.0
 * @category models
 */
export type CallToolResult = McpSchema.Tool.CallToolResult

/**
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@effect-mcp/server/Tool")

/**
 * What a handler without a `success` schema may return: text, content blocks, or a whole result.
 *
 * @since 0.1.0
 * @category models
 */
export type Output = string | ReadonlyArray<Content> | CallToolResult

/**
 * A tool, ready to be registered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<R = never> {
  readonly [TypeId]: typeof TypeId
  readonly name: string
  /** The wire definition (`tools/list`). */
  readonly definition: McpSchema.Tool.Tool
  /** Decodes the arguments; `Left` carries a readable message. */
  readonly decode: (args: unknown) => Either.Either<unknown, ArgumentsRejected>
  /** Runs the handler on decoded arguments; typed failures are already turned into `isError` results. */
  readonly run: (args: unknown) => Effect.Effect<Result, McpError.McpError, R>
  /**
   * The OAuth scopes a caller's access token needs for this tool (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
  /** How it runs as a task, when it may (`task` given to `make`); absent: never. */
  readonly task?: TaskPolicy
}

/**
 * The Schemas a tool was made with, as `make` was given them (the ones given, none other): what
 * a typed client call takes the tool itself for (`McpClient.callToolWith(tool, args)` encodes the
 * arguments with `parameters` and decodes the value with `success`, a failure with `failure`).
 *
 * @since 0.1.0
 * @category models
 */
export type Schemas<P, S, F> =
  & (P extends Schema.Schema.Any ? { readonly parameters: P } : {})
  & (S extends Schema.Schema.Any ? { readonly success: S } : {})
  & (F extends Schema.Schema.Any ? { readonly failure: F } : {})

/**
 * How a tool runs as a task.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskPolicy {
  /**
   * `optional`: a task when the client can take one, a plain call otherwise; `required`: only
   * as a task (a client that cannot take one is refused: -32601 in 2025-11-25, -32021 naming the
   * tasks extension in 2026-07-28).
   */
  readonly support: "optional" | "required"
  /**
   * `immediately` (the default): the call is a task from its start. `onDetach`: it runs as a plain
   * request until the handler calls `McpTask.detach` (in 2026-07-28 its first asks are then
   * multi-round trips of the request, answered before the task exists), and finishes as one.
   */
  readonly start: "immediately" | "onDetach"
  /** How long the task is kept after its creation, in milliseconds (default: the server's). */
  readonly ttlMs?: number
  /** How often clients should poll it, in milliseconds (default: the server's). */
  readonly pollIntervalMs?: number
}

/**
 * What a tool run produced, before the revision shapes it: content, and the structured
 * value when the tool has a `success` schema.
 *
 * @since 0.1.0
 * @category models
 */
export interface Result {
  readonly content: ReadonlyArray<Content>
  readonly structuredContent?: unknown
  readonly isError?: boolean | undefined
  readonly _meta?: McpSchema.Base.MetaObject | undefined
}

/**
 * The arguments a call brought do not match the tool's `parameters` schema: the tool rejects
 * them, and nothing runs (2025-11-25+: an `isError` result the model may correct; before: -32602).
 *
 * @since 0.1.0
 * @category errors
 */
export class ArgumentsRejected
  extends Schema.TaggedError<ArgumentsRejected>("@effect-mcp/server/ArgumentsRejected")("ArgumentsRejected", {
    message: Schema.String
  })
{}

/**
 * The tool's own output does not fit its `success` schema: a bug, answered with -32603.
 *
 * @since 0.1.0
 * @category errors
 */
export class Defect extends Schema.TaggedError<Defect>("@effect-mcp/server/ToolDefect")("ToolDefect", {
  message: Schema.String
}) {}

/**
 * Options of `make`: what every tool may say, and what its results carry besides content, one of
 * two kinds (`StructuredOutput`, `RawOutput`): a `success` schema and an `outputSchema` are never
 * given together.
 *
 * @since 0.1.0
 * @category models
 */
export type Options<
  P extends Schema.Schema.Any | undefined,
  S extends Schema.Schema.Any | undefined,
  F extends Schema.Schema.Any | undefined,
  I extends McpSchema.Tool.ToolInputSchema | undefined = undefined
> = CommonOptions<P, F, I> & (StructuredOutput<S> | RawOutput)

/**
 * Results whose structured value is the handler's, of the `success` schema (or, without one,
 * content alone).
 *
 * @since 0.1.0
 * @category models
 */
export interface StructuredOutput<S extends Schema.Schema.Any | undefined> {
  /**
   * The success value. Published as `outputSchema`; results carry it as `structuredContent` (2025-06-18+).
   * An object schema, as `parameters` is: a list or a single value goes in a field,
   * `Schema.Struct({ items: Schema.Array(Item) })`.
   */
  readonly success?: S
  readonly outputSchema?: undefined
}

/**
 * Results the handler returns whole, carrying their own `structuredContent`, described by a raw
 * `outputSchema` (a proxy forwarding another server's tool).
 *
 * @since 0.1.0
 * @category models
 */
export interface RawOutput {
  readonly success?: undefined
  /** A raw JSON Schema published as `outputSchema` verbatim. */
  readonly outputSchema: McpSchema.Tool.ToolOutputSchema
}

/**
 * The options every tool may give, whatever its results carry.
 *
 * @since 0.1.0
 * @category models
 */
export interface CommonOptions<
  P extends Schema.Schema.Any | undefined,
  F extends Schema.Schema.Any | undefined,
  I extends McpSchema.Tool.ToolInputSchema | undefined = undefined
> {
  readonly description?: string
  readonly title?: string
  /** The arguments. Published as `inputSchema` (JSON Schema 2020-12, root `type: "object"`). */
  readonly parameters?: P
  /**
   * A raw JSON Schema published as `inputSchema` verbatim, in place of the one derived from
   * `parameters` (for keywords Effect Schema does not render: `$defs`, `if`/`then`/`else`, …).
   * With `parameters`, the arguments are still decoded by `parameters`; alone, the handler
   * gets the arguments object as sent (any object, not validated against this schema).
   */
  readonly inputSchema?: I
  /**
   * The typed failure, and with `McpError`s the only errors the handler may fail with (the compiler
   * says so of any other: map it, or declare it here). A failure becomes an `isError` result whose text is the encoded failure
   * (JSON, unless `failureText` says otherwise), carrying it structured too: as
   * `structuredContent` (2025-06-18+) when the tool has no `success` schema, else under `_meta`
   * (`Meta.toolFailure`), since `structuredContent` must fit the published `outputSchema`.
   */
  readonly failure?: F
  /** The text of a failure's `isError` result (default: the encoded failure as JSON). */
  readonly failureText?: (failure: F extends Schema.Schema.Any ? Schema.Schema.Type<F> : never) => string
  readonly annotations?: McpSchema.Tool.ToolAnnotations
  readonly icons?: ReadonlyArray<McpSchema.Base.Icon>
  readonly execution?: McpSchema.Tool.ToolExecution
  /**
   * Runs as a task when the client can take one (`"optional"`), or only so (`"required"`); or
   * the whole policy. Published as `execution.taskSupport` in 2025-11-25. Absent: never a task.
   */
  readonly task?: "optional" | "required" | {
    readonly support: "optional" | "required"
    readonly start?: "immediately" | "onDetach"
    readonly ttl?: Duration.DurationInput
    readonly pollInterval?: Duration.DurationInput
  }
  readonly _meta?: McpSchema.Base.MetaObject
  /**
   * The OAuth scopes a caller's access token needs for this tool (HTTP with authorization on): a
   * call without them is answered 403 with a step-up challenge naming every scope it needs.
   */
  readonly scopes?: ReadonlyArray<string>
}

/**
 * What the handler gets: the decoded `parameters`; without them, the arguments object as sent
 * when a raw `inputSchema` is given, else nothing (`{}`).
 *
 * @since 0.1.0
 * @category models
 */
export type Arguments<P, I> = P extends Schema.Schema.Any ? Schema.Schema.Type<P>
  : I extends McpSchema.Tool.ToolInputSchema ? Readonly<Record<string, unknown>>
  : {}

type HandlerOutput<S> = S extends Schema.Schema.Any ? Schema.Schema.Type<S> : Output

/** What a handler may fail with: its declared `failure`, and the wire errors (`McpError`). */
type DeclaredError<F> = F extends Schema.Schema.Any ? Schema.Schema.Type<F> | McpError.McpError : McpError.McpError

/** The compiler's message for a handler failing with an error, when the tool has no `failure` schema. */
type MissingFailure =
  "the handler fails with an error the tool does not declare: declare it with `failure:` (its Schema), or map it (Effect.catchTag, Effect.mapError, Effect.orDie)"

/** The compiler's message for a handler failing with an error its `failure` schema does not cover. */
type UncoveredFailure =
  "the handler fails with an error its `failure` schema does not cover: add it to `failure:` (Schema.Union), or map it (Effect.catchTag, Effect.mapError, Effect.orDie)"

/**
 * The handler's error channel, checked: the errors it fails with (`E`, inferred) when each is
 * declared; otherwise one message, where the compiler would list `McpError` members the user never wrote.
 */
type CheckedError<E, F> = [Exclude<E, DeclaredError<F>>] extends [never] ? E
  : E & (F extends Schema.Schema.Any ? UncoveredFailure : MissingFailure)

const EmptyParameters = Schema.Struct({})

/**
 * Whether a schema's wire form is a JSON object (what `arguments` always is). A success value may also be a
 * union of objects (`unions`), and `Schema.Any` / `Schema.Unknown`, which say nothing of it, are trusted there.
 */
const isObjectSchema = (ast: SchemaAST.AST, unions = false): boolean => {
  const encoded = SchemaAST.encodedAST(ast)
  switch (encoded._tag) {
    case "TypeLiteral":
      return true
    case "Refinement":
      return isObjectSchema(encoded.from, unions)
    case "Suspend":
      return isObjectSchema(encoded.f(), unions)
    case "Declaration":
      // A declared type says nothing of its JSON form: trusted.
      return true
    case "Union":
      return unions && encoded.types.every((member) => isObjectSchema(member, unions))
    case "AnyKeyword":
    case "UnknownKeyword":
      return unions
    default:
      return false
  }
}

/**
 * What a `parameters` schema must be in the types: one whose encoded side is an object (not an
 * array, a string, a number, ...). A union of structs passes here and is refused by `make`.
 */
type ObjectParameters<P> = P extends Schema.Schema<any, infer I, any> ? 0 extends (1 & I) ? P
  : [I] extends [ReadonlyArray<any>] ? "parameters must be an object schema (Schema.Struct), not an array"
  : [I] extends [object] ? P
  : "parameters must be an object schema (Schema.Struct): a tool's arguments are always a JSON object"
  : P

/**
 * What a `success` schema must be in the types: one whose encoded side is an object, since MCP's
 * `outputSchema` describes an object and `structuredContent` is one. A union of structs passes here
 * and is refused by `make`.
 */
type ObjectSuccess<S> = S extends Schema.Schema<any, infer I, any> ? 0 extends (1 & I) ? S
  : [I] extends [ReadonlyArray<any>] ?
    "success must be an object schema (Schema.Struct), not an array: wrap it in a field, Schema.Struct({ items: Schema.Array(...) })"
  : [I] extends [object] ? S
  : "success must be an object schema (Schema.Struct): structuredContent is a JSON object, so wrap the value in a field, Schema.Struct({ value: ... })"
  : S

const UnknownArguments = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * JSON Schema 2020-12 for `inputSchema`: the root is an object schema (no `$schema`, the
 * 2020-12 default).
 *
 * @since 0.1.0
 * @category json schema
 */
export const inputSchema = (schema: Schema.Schema.Any): McpSchema.Tool.ToolInputSchema => {
  const json = jsonSchemaOf(schema)
  // An empty struct renders as `{}`-like "object or array"; a tool's arguments are always an object.
  return isInputSchema(json) ? json : { type: "object", properties: {}, additionalProperties: false }
}

// The tool schemas are built when a tool is first defined or a result first checked, not when the module is evaluated.
const isInputSchema = ((): (u: unknown) => u is McpSchema.Tool.ToolInputSchema => {
  let built: ((u: unknown) => u is McpSchema.Tool.ToolInputSchema) | undefined
  return (u): u is McpSchema.Tool.ToolInputSchema => (built ??= Schema.is(FeatureSchemas.tool().ToolInputSchema))(u)
})()

/** JSON Schema 2020-12 of a schema, in its plain form, without `$schema` (the 2020-12 default). */
const jsonSchemaOf = (schema: Schema.Schema.Any): Record<string, unknown> => {
  // A copy: the generator's root type is a union of interfaces, which is no record of keywords.
  const root = { ...JSONSchema.make(schema as Schema.Schema<any, any, never>, { target: "jsonSchema2020-12" }) }
  const { $schema: _, ...json } = JsonSchema.plain(root)
  return json
}

/**
 * JSON Schema 2020-12 for `outputSchema`.
 *
 * @since 0.1.0
 * @category json schema
 */
export const outputSchema = (schema: Schema.Schema.Any): McpSchema.Tool.ToolOutputSchema => {
  const json = jsonSchemaOf(schema)
  const encoded = SchemaAST.encodedAST(schema.ast)
  if (
    SchemaAST.isTypeLiteral(encoded) && encoded.propertySignatures.length === 0 &&
    encoded.indexSignatures.length === 0
  ) {
    // An empty struct renders as "object or array", which the 2025 revisions' outputSchema (an object) refuses.
    return { type: "object", properties: {}, additionalProperties: false }
  }
  if (json.type === undefined && Array.isArray(json.anyOf) && isObjectSchema(schema.ast, true)) {
    // A union of objects is an object: said at the root, where the 2025 revisions look for it.
    return { type: "object", ...json }
  }
  return json
}

const isResult = (u: unknown): u is CallToolResult =>
  typeof u === "object" && u !== null && !Array.isArray(u) && "content" in u && Array.isArray(u.content)

/** `CallToolResult`'s encoder, compiled on its first use (not when a server whose tools declare `success` starts). */
const validResult = ((): (u: unknown) => Either.Either<unknown, ParseResult.ParseError> => {
  let compiled: ((u: unknown) => Either.Either<unknown, ParseResult.ParseError>) | undefined
  return (u) =>
    (compiled ??= McpSchema.Base.codec(FeatureSchemas.tool().CallToolResult, "encode", McpSchema.Base.parseOptions))(u)
})()

/**
 * What a handler without a `success` schema returned, as a result: text is wrapped here; content
 * blocks and whole results are checked here, once (the server sends tool results as they are).
 */
const toResult = (name: string, output: Output): Effect.Effect<Result> => {
  if (typeof output === "string") return Effect.succeed({ content: [{ type: "text", text: output }] })
  const result: Result = isResult(output) ? output : { content: output as ReadonlyArray<Content> }
  const checked = validResult(result)
  return checked._tag === "Right"
    ? Effect.succeed(result)
    // Content the protocol cannot carry: a bug, answered with -32603 and logged.
    : Effect.die(
      new Defect({ message: `Tool ${name} returned an invalid result: ${Method.describeError(checked.left)}` })
    )
}

/**
 * Defines a tool.
 *
 * ```ts
 * const Greet = Tool.make("greet", {
 *   description: "Say hello",
 *   parameters: Schema.Struct({ name: Schema.String }),
 *   success: Schema.Struct({ greeting: Schema.String })
 * }, ({ name }) => Effect.succeed({ greeting: `hello ${name}` }))
 *
 * // A hand-written JSON Schema, published verbatim; the handler gets the arguments as sent.
 * const Lookup = Tool.make("lookup", {
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, additionalProperties: false }
 * }, (args) => Effect.succeed(`looked up ${String(args.id)}`))
 * ```
 *
 * Names follow the 2025-11-25 rule (1–128 characters of `A-Z a-z 0-9 _ . -`): any other name
 * throws here, when the tool is defined, rather than confusing clients later; so do `parameters`
 * and `success` schemas that are not objects (the types refuse most of them already).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <
  R,
  P extends Schema.Schema.Any | undefined = undefined,
  S extends Schema.Schema.Any | undefined = undefined,
  F extends Schema.Schema.Any | undefined = undefined,
  I extends McpSchema.Tool.ToolInputSchema | undefined = undefined,
  // Last, with a default: type arguments given by hand keep their places, and the check passes.
  E = DeclaredError<F>
>(
  name: string,
  options: Options<P, S, F, I> & {
    readonly parameters?: ObjectParameters<P>
    readonly success?: ObjectSuccess<S>
  },
  handler: (args: Arguments<P, I>) => Effect.Effect<HandlerOutput<S>, CheckedError<E, F>, R>
):
  & Tool<
    | R
    | (P extends Schema.Schema.Any ? Schema.Schema.Context<P> : never)
    | (S extends Schema.Schema.Any ? Schema.Schema.Context<S> : never)
  >
  & Schemas<P, S, F> =>
{
  if (!FeatureSchemas.isValidToolName(name)) {
    throw new Error(
      `Invalid tool name ${JSON.stringify(name)}: use 1 to 128 characters of A-Z, a-z, 0-9, "_", "." and "-"`
    )
  }
  if (options.parameters !== undefined && !isObjectSchema(options.parameters.ast)) {
    throw new Error(
      `Tool ${name}: parameters must be an object schema (Schema.Struct, a Schema.Class, a Schema.Record), ` +
        `not ${String(options.parameters.ast)}: a tool's arguments are always a JSON object, and clients would be ` +
        `told this tool takes none. Name the value in a field instead: Schema.Struct({ value: ... })`
    )
  }
  if (options.success !== undefined && !isObjectSchema(options.success.ast, true)) {
    throw new Error(
      `Tool ${name}: success must be an object schema (Schema.Struct, a Schema.Class, a Schema.Record, or a union of them), ` +
        `not ${String(options.success.ast)}: MCP's outputSchema describes an object, and structuredContent is one. ` +
        `Wrap the value in a field instead: Schema.Struct({ items: Schema.Array(...) })`
    )
  }
  const parameters = (options.parameters ??
    (options.inputSchema !== undefined ? UnknownArguments : EmptyParameters)) as Schema.Schema<any, any, never>
  const success = options.success as Schema.Schema<any, any, never> | undefined
  const failure = options.failure as Schema.Schema<any, any, never> | undefined
  // Synchronous decode and encode: no Effect pipeline for what is pure data work.
  const decodeArgs = McpSchema.Base.codec(parameters, "decode", { errors: "all", onExcessProperty: "ignore" })
  const encodeSuccess = success && McpSchema.Base.codec(success, "encode")
  const failureText = options.failureText as ((failure: unknown) => string) | undefined
  const declared: Failure.Declared | undefined = failure && {
    is: Schema.is(failure),
    encode: Schema.encode(failure),
    ...(failureText !== undefined ? { text: (error: unknown) => failureText(error) } : {}),
    unencodable: (error) =>
      new Defect({ message: `Tool ${name} failed with a value its failure schema cannot encode: ${error.message}` })
  }

  const task = taskPolicy(name, options.task)
  const definition: McpSchema.Tool.Tool = {
    name,
    inputSchema: options.inputSchema ?? inputSchema(parameters),
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.outputSchema !== undefined
      ? { outputSchema: options.outputSchema }
      : success !== undefined
      ? { outputSchema: outputSchema(success) }
      : {}),
    ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
    ...(options.icons !== undefined ? { icons: options.icons } : {}),
    ...(task !== undefined
      ? { execution: { ...options.execution, taskSupport: task.support } }
      : options.execution !== undefined
      ? { execution: options.execution }
      : {}),
    ...(options._meta !== undefined ? { _meta: options._meta } : {})
  }

  const decode = (args: unknown): Either.Either<unknown, ArgumentsRejected> => {
    const decoded = decodeArgs(args ?? {})
    if (decoded._tag === "Right") return decoded as Either.Either<unknown, never>
    // One line per problem, each with its path.
    const problems = Method.describeError(decoded.left)
    return Either.left(
      new ArgumentsRejected({
        message: `Invalid arguments for tool ${name}:${problems.includes("\n") ? "\n" : " "}${problems}`
      })
    )
  }

  const structured = (value: unknown): Effect.Effect<Result> => {
    const encoded = encodeSuccess!(value)
    return encoded._tag === "Right"
      ? Effect.succeed({
        content: [{ type: "text", text: JSON.stringify(encoded.right) }],
        structuredContent: encoded.right
      })
      // The tool's own output does not fit its schema: a bug, answered with -32603 and logged.
      : Effect.die(
        new Defect({
          message: `Tool ${name} returned a value that does not fit its success schema: ${encoded.left.message}`
        })
      )
  }

  // The failure policy (`internal/failure.ts`): the declared failure as an `isError` result, an
  // `McpError` as itself, anything else -32603 with a generic message, logged.
  const hasOutputSchema = definition.outputSchema !== undefined
  const failed = (error: unknown): Effect.Effect<Result, McpError.McpError> =>
    Failure.tool(error, declared, hasOutputSchema)

  // The one erased boundary of a tool: `decode` made the arguments of the `parameters` type (or
  // the object as sent), which `run` hands to the handler.
  const call = (args: unknown): Effect.Effect<unknown, unknown, R> => handler(args as Arguments<P, I>)
  const succeeded = (value: unknown): Effect.Effect<Result, McpError.McpError> =>
    encodeSuccess === undefined ? toResult(name, value as Output) : structured(value)
  const run = (args: unknown): Effect.Effect<Result, McpError.McpError, R> => {
    const out = call(args)
    // A handler done already (`Effect.succeed`): its result at once, done too (no fiber step).
    return Eager.done(out)
      ? succeeded(out.value)
      : Effect.matchEffect(out, { onFailure: failed, onSuccess: succeeded })
  }

  const tool: Tool<R> = {
    [TypeId]: TypeId,
    name,
    definition,
    decode,
    run,
    ...(options.scopes !== undefined ? { scopes: options.scopes } : {}),
    ...(task !== undefined ? { task } : {}),
    // The Schemas given, for a typed client call to take the tool itself (`Schemas`).
    ...(options.parameters !== undefined ? { parameters: options.parameters } : {}),
    ...(success !== undefined ? { success } : {}),
    ...(failure !== undefined ? { failure } : {})
  }
  // The Schemas are there when given (above): the type says which.
  return tool as Tool<R> & Schemas<P, S, F>
}

const wholeMillis = (name: string, what: string, value: Duration.DurationInput): number => {
  const millis = Duration.toMillis(Duration.decode(value))
  if (!Number.isFinite(millis) || millis < 1) {
    throw new Error(`Tool ${name}: task ${what} must be at least 1 millisecond`)
  }
  return Math.round(millis)
}

/** The task policy `make` was given, whole. */
const taskPolicy = (name: string, given: CommonOptions<any, any, any>["task"]): TaskPolicy | undefined => {
  if (given === undefined) return undefined
  if (typeof given === "string") return { support: given, start: "immediately" }
  return {
    support: given.support,
    start: given.start ?? "immediately",
    ...(given.ttl !== undefined ? { ttlMs: wholeMillis(name, "ttl", given.ttl) } : {}),
    ...(given.pollInterval !== undefined
      ? { pollIntervalMs: wholeMillis(name, "pollInterval", given.pollInterval) }
      : {})
  }
}

/**
 * Is this value a tool?
 *
 * @since 0.1.0
 * @category guards
 */
export const isTool = (u: unknown): u is Tool<unknown> => typeof u === "object" && u !== null && TypeId in u
