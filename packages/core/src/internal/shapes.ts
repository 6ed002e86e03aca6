/**
 * The shapes of the method catalog (`Method.ts`) whose schemas are derived from the wire classes (a
 * 2026-07-28 envelope, a union): each built when a method is first used, not when the catalog is
 * defined, so a server builds the derived schemas of the methods it serves only.
 */
import * as Schema from "effect/Schema"
import * as Revision from "../Revision.js"
import * as InputRequired from "../Schema/InputRequired.js"
import * as Stateless from "../Schema/Stateless.js"

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

/** A request's shape of the handshake era whose result is a union, built when first read. */
export const union = <P extends Schema.Schema.Any, Members extends ReadonlyArray<Schema.Schema.Any>>(
  revisions: ReadonlyArray<Revision.Revision>,
  params: P,
  ...members: Members
) => derived(revisions, () => params, () => Schema.Union(...members))

/** A 2026-07-28 request: `_meta` required; results tagged `complete`. */
export const modern = <P extends Schema.Struct.Fields, A extends Schema.Struct.Fields>(
  params: Schema.Struct<P>,
  result: () => Schema.Struct<A>
) => derived(stateless, () => Stateless.params(params), () => Stateless.result(result()))

/** A 2026-07-28 request whose result type exists only in 2026 (it carries its own `resultType`). */
export const modernOwn = <P extends Schema.Struct.Fields, A, I>(
  params: Schema.Struct<P>,
  result: Schema.Schema<A, I>
) => derived(stateless, () => Stateless.params(params), () => result)

/** A 2026-07-28 cacheable request. */
export const modernCacheable = <P extends Schema.Struct.Fields, A extends Schema.Struct.Fields>(
  params: Schema.Struct<P>,
  result: Schema.Struct<A>
) => derived(stateless, () => Stateless.params(params), () => Stateless.cacheableResult(result))

/** A 2026-07-28 request that may answer `input_required`; its complete results are made when first read. */
export const modernRetryable = <P extends Schema.Struct.Fields, Members extends ReadonlyArray<Schema.Schema<any, any>>>(
  params: Schema.Struct<P>,
  complete: () => Members
) =>
  derived(
    stateless,
    () => InputRequired.withInputResponses(Stateless.params(params)),
    () => Schema.Union(...complete(), InputRequired.InputRequiredResult)
  )

/** A 2026-07-28 notification. */
export const modernNotification = <P extends Schema.Struct.Fields>(
  params: Schema.Struct<P>,
  paramsOptional = false
) => {
  let built: ReturnType<typeof Stateless.notificationParams<P>> | undefined
  return {
    revisions: stateless,
    get params() {
      return built ??= Stateless.notificationParams(params)
    },
    paramsOptional
  }
}
