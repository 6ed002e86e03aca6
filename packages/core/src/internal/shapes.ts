/**
 * The shapes of the method catalog (`Method.ts`) whose schemas are derived from the wire classes (a
 * 2026-07-28 envelope, a union): each built when a method is first used, not when the catalog is
 * defined, so a server builds the derived schemas of the methods it serves only.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as Revision from "../Revision.js"
import { checksOnly } from "../Schema/Base.js"
import * as Stateless from "../Schema/Stateless.js"
import { DeferredId } from "./guard.js"
import { inputRequired } from "./schema/inputRequired.js"

const stateless = Revision.stateless

/**
 * A request's shape whose schemas are derived (a 2026-07-28 envelope, a union) when first read, not
 * when the catalog is defined: a server builds the derived schemas of the methods it serves only.
 */
export const derived = <P extends Schema.Schema.Any, R extends Schema.Schema.Any>(
  revisions: ReadonlyArray<Revision.Revision>,
  params: () => P,
  result: () => R
): { readonly revisions: ReadonlyArray<Revision.Revision>; readonly params: P; readonly result: R } => {
  let builtParams: P | undefined
  let builtResult: R | undefined
  return {
    revisions,
    get params() {
      return builtParams ??= params()
    },
    get result() {
      return builtResult ??= result()
    }
  }
}

/**
 * A schema that builds `make()` when a value first goes through it (decoded or encoded), so that the
 * schemas of a feature (sampling, elicitation, the tasks extension) a method may carry are not built
 * for a message that carries none. `tag`: the `resultType` of a union member, so that a union picks
 * it by that literal without building it. Parses and fails exactly as the schema it builds, which
 * must only check (a wire schema): the codecs check values with its predicate (`internal/guard.ts`).
 */
export const deferred = <A, I>(
  make: () => Schema.Schema<A, I>,
  annotations: { readonly identifier: string; readonly tag?: string }
): Schema.Schema<A, I> => {
  let built: Schema.Schema<A, I> | undefined
  const schema = () => {
    if (built !== undefined) return built
    built = make()
    if (!checksOnly(built)) throw new Error(`${annotations.identifier} is deferred but transforms`)
    return built
  }
  // The schema is the declaration's type parameter, behind a suspension: what walks a schema's
  // parameters (a parser, an arbitrary) reaches it when it first needs it, not before.
  const inner = Schema.suspend(schema)
  return Schema.declare([inner], {
    decode: (inner) => (input, options) => ParseResult.decodeUnknownEither(inner)(input, options),
    encode: (inner) => (input, options) => ParseResult.encodeUnknownEither(inner)(input, options)
  }, {
    identifier: annotations.identifier,
    [DeferredId]: () => schema().ast,
    arbitrary: (inner) => inner,
    ...(annotations.tag === undefined ? {} : {
      [SchemaAST.SurrogateAnnotationId]: Schema.Struct({ resultType: Schema.Literal(annotations.tag) }).ast
    })
  })
}

/** A shape whose params (and result, for a request) are read from a feature's schemas when first used. */
export const deferredShape = <P extends Schema.Schema.Any, R extends Schema.Schema.Any>(
  revisions: ReadonlyArray<Revision.Revision>,
  params: () => P,
  result: () => R
) => derived(revisions, params, result)

/** A notification's shape whose params are read from a feature's schemas when first used. */
export const deferredNotification = <P extends Schema.Schema.Any>(
  revisions: ReadonlyArray<Revision.Revision>,
  params: () => P
) => {
  let built: P | undefined
  return {
    revisions,
    get params() {
      return built ??= params()
    }
  }
}

/** A request's shape of the handshake era whose params and result (a union of `members()`) are built when first read. */
export const union = <P extends Schema.Schema.Any, Members extends ReadonlyArray<Schema.Schema.Any>>(
  revisions: ReadonlyArray<Revision.Revision>,
  params: () => P,
  members: () => Members
) => derived(revisions, params, () => Schema.Union(...members()))

/** A 2026-07-28 request: `_meta` required; results tagged `complete`. */
export const modern = <P extends Schema.Struct.Fields, A extends Schema.Struct.Fields>(
  params: () => Schema.Struct<P>,
  result: () => Schema.Struct<A>
) => derived(stateless, () => Stateless.params(params()), () => Stateless.result(result()))

/** A 2026-07-28 request whose result type exists only in 2026 (it carries its own `resultType`). */
export const modernOwn = <P extends Schema.Struct.Fields, A, I>(
  params: () => Schema.Struct<P>,
  result: () => Schema.Schema<A, I>
) => derived(stateless, () => Stateless.params(params()), result)

/** A 2026-07-28 cacheable request. */
export const modernCacheable = <P extends Schema.Struct.Fields, A extends Schema.Struct.Fields>(
  params: () => Schema.Struct<P>,
  result: () => Schema.Struct<A>
) => derived(stateless, () => Stateless.params(params()), () => Stateless.cacheableResult(result()))

/**
 * A retry's `inputResponses` and the interim `input_required` result, as `Schema/InputRequired.ts`
 * has them, built when a retry or an interim result first goes through them: they hold the
 * sampling and elicitation schemas, which a call that asks for no input never builds.
 */
const inputResponses = deferred(() => inputRequired().InputResponses, { identifier: "InputResponses" })
const inputRequiredResult = deferred(() => inputRequired().InputRequiredResult, {
  identifier: "InputRequiredResult",
  tag: "input_required"
})

/** A 2026-07-28 request that may answer `input_required`; its complete results are made when first read. */
export const modernRetryable = <P extends Schema.Struct.Fields, Members extends ReadonlyArray<Schema.Schema<any, any>>>(
  params: () => Schema.Struct<P>,
  complete: () => Members
) =>
  derived(
    stateless,
    () =>
      Schema.Struct({
        ...Stateless.params(params()).fields,
        inputResponses: Schema.optional(inputResponses),
        requestState: Schema.optional(Schema.String)
      }),
    () => Schema.Union(...complete(), inputRequiredResult)
  )

/** A 2026-07-28 notification, its params made from `params()` when first read. */
export const modernNotification = <P extends Schema.Struct.Fields>(
  params: () => Schema.Struct<P>,
  paramsOptional = false
) => {
  let built: ReturnType<typeof Stateless.notificationParams<P>> | undefined
  return {
    revisions: stateless,
    get params() {
      return built ??= Stateless.notificationParams(params())
    },
    paramsOptional
  }
}
