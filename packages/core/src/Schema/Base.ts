/**
 * The building blocks every other MCP schema is made of: ids, tokens, `_meta`,
 * icons, annotations, `Implementation`, the generic request/result envelopes.
 *
 * Conventions for every module under `Schema/`:
 * - wire types are `Schema.Struct`s (their `fields` can be extended), decoded and
 *   encoded with {@link parseOptions}, which keeps unknown fields verbatim;
 * - the plain name is the newest shape of a type, without the 2026-07-28 envelope
 *   fields (`resultType`, caching hints, required `_meta`) which `Stateless` adds;
 * - an older shape keeps its own export, suffixed with the first revision that used
 *   it (`ContentBlock20241105`); the method catalog says which revision uses which.
 *
 * @since 0.1.0
 */
import type * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import type { ParseOptions } from "effect/SchemaAST"
import * as Guard from "../internal/guard.js"

/**
 * Parse options for every wire decode and encode: unknown fields survive, so a proxy
 * never drops a newer peer's fields.
 *
 * @since 0.1.0
 * @category options
 */
export const parseOptions: ParseOptions = { onExcessProperty: "preserve", errors: "first" }

const jsonValueArbitrary: Arbitrary.LazyArbitrary<unknown> = (fc) =>
  fc.jsonValue({ maxDepth: 2, depthSize: "small" }).map((value) => JSON.parse(JSON.stringify(value)))

/**
 * Any JSON value (what `JSON.parse` can return). Not checked on decode: the value
 * came out of `JSON.parse` already.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonValue: Schema.Schema<unknown> = Schema.Unknown.annotations({
  identifier: "JsonValue",
  arbitrary: () => jsonValueArbitrary
})

/**
 * A JSON object with arbitrary keys.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonObject = Schema.Record({ key: Schema.String, value: JsonValue }).annotations({
  identifier: "JsonObject"
})

/**
 * @since 0.1.0
 * @category models
 */
export type JsonObject = typeof JsonObject.Type

/**
 * A JSON-RPC request id: a string or a number (0 is an id), never `null`, never a bigint.
 * MCP says integer; fractional numbers are accepted on decode and never generated.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestId = Schema.Union(Schema.String, Schema.Number).annotations({
  identifier: "RequestId",
  arbitrary: () => (fc) => fc.oneof(fc.string(), fc.integer({ min: -1_000_000, max: Number.MAX_SAFE_INTEGER }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type RequestId = string | number

/**
 * A progress token (string or integer).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProgressToken = RequestId.annotations({ identifier: "ProgressToken" })

/**
 * @since 0.1.0
 * @category models
 */
export type ProgressToken = string | number

/**
 * An opaque pagination cursor. The empty string is a cursor, not the end of a list.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Cursor = Schema.String.annotations({ identifier: "Cursor" })

/**
 * A URI (RFC 3986). Not checked on decode beyond being a string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Uri = Schema.String.annotations({
  identifier: "Uri",
  arbitrary: () => (fc) =>
    fc.oneof(
      fc.webUrl(),
      fc.constantFrom("file:///tmp/a.txt", "test://static-text", "git://host/repo", "urn:example:resource")
    )
})

/**
 * An RFC 6570 URI template.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UriTemplate = Schema.String.annotations({
  identifier: "UriTemplate",
  arbitrary: () => (fc) =>
    fc.constantFrom("file:///{path}", "test://template/{id}/data", "https://example.com/{+rest}{?q,lang}")
})

/**
 * Base64-encoded bytes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Base64 = Schema.String.annotations({
  identifier: "Base64",
  arbitrary: () => (fc) => fc.base64String({ maxLength: 64 })
})

/**
 * A non-negative integer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

/**
 * The `_meta` object: any keys, values kept verbatim (`io.modelcontextprotocol/...`,
 * `progressToken`, trace keys). See the `Meta` module for the reserved names.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MetaObject = Schema.Record({ key: Schema.String, value: JsonValue }).annotations({
  identifier: "MetaObject",
  arbitrary: () => (fc) =>
    fc.dictionary(
      fc.oneof(fc.constantFrom("com.example/trace", "io.modelcontextprotocol/related-task", "x"), fc.string()),
      jsonValueArbitrary(fc),
      { maxKeys: 3 }
    )
})

/**
 * @since 0.1.0
 * @category models
 */
export type MetaObject = typeof MetaObject.Type

/**
 * The optional `_meta` field, for spreading into a struct's fields.
 *
 * @since 0.1.0
 * @category fields
 */
export const metaField = { _meta: Schema.optional(MetaObject) }

/**
 * `user` or `assistant`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Role = Schema.Literal("user", "assistant").annotations({ identifier: "Role" })

/**
 * @since 0.1.0
 * @category models
 */
export type Role = typeof Role.Type

/**
 * The eight syslog levels, lowest first.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LoggingLevel = Schema.Literal(
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
).annotations({ identifier: "LoggingLevel" })

/**
 * @since 0.1.0
 * @category models
 */
export type LoggingLevel = typeof LoggingLevel.Type

/**
 * An icon (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Icon = Schema.Struct({
  src: Uri,
  mimeType: Schema.optional(Schema.String),
  sizes: Schema.optional(Schema.Array(Schema.String)),
  theme: Schema.optional(Schema.Literal("light", "dark"))
}).annotations({ identifier: "Icon" })

/**
 * @since 0.1.0
 * @category models
 */
export type Icon = typeof Icon.Type

/**
 * The annotation of a field that not every revision has: the first revision that has it and,
 * when a later one dropped it, the last. Read by {@link absentFields}; the server's projection
 * of what it sends for a revision is derived from it, and a test holds it to the official
 * schema of each revision.
 *
 * @since 0.1.0
 * @category annotations
 */
export const RevisionsId: unique symbol = Symbol.for("@effect-mcp/core/Schema/Revisions")

/**
 * @since 0.1.0
 * @category annotations
 */
export interface FieldRevisions {
  /** The first revision with the field (a revision string: `YYYY-MM-DD`). */
  readonly since: string
  /** The last revision with the field, when a later one dropped it. */
  readonly until?: string | undefined
}

/**
 * Marks an optional field as present in revisions `since` … `until` only.
 *
 * @since 0.1.0
 * @category annotations
 */
export const since = <S extends Schema.Schema.Any>(
  field: Schema.optional<S>,
  first: string,
  last?: string
): Schema.optional<S> => field.annotations({ [RevisionsId]: { since: first, until: last } satisfies FieldRevisions })

const hasField = (revisions: FieldRevisions, revision: string): boolean =>
  revision >= revisions.since && (revisions.until === undefined || revision <= revisions.until)

/**
 * The fields of a struct schema that `revision` does not have (per their {@link since}
 * annotation). Fields without the annotation are in every revision.
 *
 * @since 0.1.0
 * @category annotations
 */
export const absentFields = (schema: Schema.Schema.Any, revision: string): ReadonlyArray<string> => {
  let ast = schema.ast
  while (ast._tag === "Refinement" || ast._tag === "Transformation") ast = ast._tag === "Refinement" ? ast.from : ast.to
  if (ast._tag !== "TypeLiteral") return []
  return ast.propertySignatures.flatMap((ps) => {
    const revisions = ps.annotations[RevisionsId] as FieldRevisions | undefined
    return revisions !== undefined && !hasField(revisions, revision) ? [String(ps.name)] : []
  })
}

/**
 * The optional `icons` field (2025-11-25+), for spreading into a struct's fields.
 *
 * @since 0.1.0
 * @category fields
 */
export const iconsField = { icons: since(Schema.optional(Schema.Array(Icon)), "2025-11-25") }

/**
 * The `_meta` of a definition (a tool, prompt, resource, template): 2025-06-18+.
 *
 * @since 0.1.0
 * @category fields
 */
export const definitionMetaField = { _meta: since(Schema.optional(MetaObject), "2025-06-18") }

/**
 * `name` and the optional display `title` (2025-06-18+), for spreading into a struct's fields.
 *
 * @since 0.1.0
 * @category fields
 */
export const baseMetadataFields = {
  name: Schema.String,
  title: since(Schema.optional(Schema.String), "2025-06-18")
}

/**
 * Annotations for the client (audience, priority, last modified).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Annotations = Schema.Struct({
  audience: Schema.optional(Schema.Array(Role)),
  priority: Schema.optional(Schema.Number.pipe(Schema.between(0, 1))),
  lastModified: Schema.optional(Schema.String)
}).annotations({ identifier: "Annotations" })

/**
 * @since 0.1.0
 * @category models
 */
export type Annotations = typeof Annotations.Type

/**
 * The name and version of an MCP implementation (`clientInfo`, `serverInfo`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Implementation = Schema.Struct({
  ...baseMetadataFields,
  version: Schema.String,
  description: since(Schema.optional(Schema.String), "2025-11-25"),
  websiteUrl: since(Schema.optional(Uri), "2025-11-25"),
  ...iconsField
}).annotations({ identifier: "Implementation" })

/**
 * @since 0.1.0
 * @category models
 */
export type Implementation = typeof Implementation.Type

/**
 * The `_meta` of a handshake-era request: `progressToken` and anything else.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestMeta = Schema.Struct(
  { progressToken: Schema.optional(ProgressToken) },
  Schema.Record({ key: Schema.String, value: JsonValue })
).annotations({ identifier: "RequestMeta" })

/**
 * Params of a request that takes nothing but `_meta`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestParams = Schema.Struct({
  _meta: Schema.optional(RequestMeta)
}).annotations({ identifier: "RequestParams" })

/**
 * Params of a paginated list request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PaginatedRequestParams = Schema.Struct({
  ...RequestParams.fields,
  cursor: Schema.optional(Cursor)
}).annotations({ identifier: "PaginatedRequestParams" })

/**
 * Params of a notification that takes nothing but `_meta`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NotificationParams = Schema.Struct(metaField).annotations({ identifier: "NotificationParams" })

/**
 * A result that carries nothing but `_meta`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Result = Schema.Struct(metaField).annotations({ identifier: "Result" })

/**
 * The empty result (`ping`, `resources/subscribe`, `logging/setLevel`, ...).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EmptyResult = Result.annotations({ identifier: "EmptyResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type EmptyResult = typeof EmptyResult.Type

/**
 * The fields of a page of a paginated list result, for spreading into a struct's fields.
 *
 * @since 0.1.0
 * @category fields
 */
export const paginatedResultFields = {
  ...metaField,
  nextCursor: Schema.optional(Cursor)
}

const transforms = (ast: SchemaAST.AST, seen: Set<SchemaAST.AST>): boolean => {
  if (seen.has(ast)) return false
  seen.add(ast)
  switch (ast._tag) {
    case "Transformation":
      return true
    case "Declaration":
      // A schema built on first use stands for a wire schema that only checks (it says so when built).
      return Guard.deferredOf(ast) === undefined
    case "Refinement":
      return transforms(ast.from, seen)
    case "Suspend":
      return transforms(ast.f(), seen)
    case "Union":
      return ast.types.some((t) => transforms(t, seen))
    case "TupleType":
      return ast.elements.some((e) => transforms(e.type, seen)) || ast.rest.some((r) => transforms(r.type, seen))
    case "TypeLiteral":
      return ast.propertySignatures.some((p) => transforms(p.type, seen)) ||
        ast.indexSignatures.some((i) => transforms(i.type, seen))
    default:
      return false
  }
}

/**
 * Does decoding or encoding with this schema only check values (no transformations, no
 * classes)? Every MCP wire schema here does.
 *
 * @since 0.1.0
 * @category codecs
 */
export const checksOnly = (schema: Schema.Schema.Any): boolean => !transforms(schema.ast, new Set())

/**
 * Decodes or encodes with `schema`. When the schema only checks values, a value that passes
 * the check (a predicate answering as `Schema.is` does, without building a value) is its own
 * result: it is returned as it is, unknown fields and all, and nothing is copied (with `options`
 * that say to drop or refuse excess properties, only a value that has none is its own result);
 * the full decode or encode runs only for a failing value, to describe the failure (or to drop
 * what the options drop). Otherwise this is the plain decode or encode.
 *
 * @since 0.1.0
 * @category codecs
 */
export const codec = <A, I>(
  schema: Schema.Schema<A, I>,
  direction: "decode" | "encode",
  options?: ParseOptions
): (u: unknown) => Either.Either<unknown, ParseResult.ParseError> => {
  // Effect compiles its parser when it is asked for one: behind a guard (below) that is only when
  // a value fails the guard, which a well-formed value never does.
  let parse: ((u: unknown) => Either.Either<unknown, ParseResult.ParseError>) | undefined
  // Effect's parser can throw on hostile input (a union looks its members up with `String(value)`,
  // which throws for `{ "toString": 0 }`): that input is not valid, and says so like any other.
  const full = (u: unknown): Either.Either<unknown, ParseResult.ParseError> => {
    parse ??= direction === "decode"
      ? Schema.decodeUnknownEither(schema, options)
      : Schema.encodeUnknownEither(schema, options)
    try {
      return parse(u)
    } catch (defect) {
      return Either.left(
        new ParseResult.ParseError({
          issue: new ParseResult.Type(
            schema.ast,
            u,
            `a value that cannot be read as ${direction === "decode" ? "input" : "output"} (${
              defect instanceof Error ? defect.message : "it threw"
            })`
          )
        })
      )
    }
  }
  if (!checksOnly(schema)) return full
  // The check as a predicate that builds nothing (`Schema.is` decodes and drops the value). Where
  // the options say what to do with excess properties, other than keep them, a value that has
  // some is not its own result: the full decode drops (or refuses) them (a tool's arguments keep
  // nothing its schema does not name).
  const exact = options?.onExcessProperty === "ignore" || options?.onExcessProperty === "error"
  const is = Guard.compile(schema.ast, exact) ?? (exact ? undefined : Schema.is(schema))
  if (is === undefined) return full
  return (u) => (is(u) ? Either.right(u) : full(u))
}
