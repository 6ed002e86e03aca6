/**
 * The envelope fields of the stateless 2026-07-28 revision, and the helpers that put
 * them on a handshake-era shape: the required per-request `_meta`, `resultType` on
 * every result, and caching hints on cacheable results.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ClientCapabilities } from "../internal/schema/capabilities.js"
import { Implementation, JsonValue, LoggingLevel, NonNegativeInt, ProgressToken, RequestId } from "./Base.js"

/**
 * The `_meta` every 2026-07-28 request carries.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestMeta = Schema.Struct(
  {
    "io.modelcontextprotocol/protocolVersion": Schema.String,
    "io.modelcontextprotocol/clientCapabilities": ClientCapabilities,
    "io.modelcontextprotocol/clientInfo": Schema.optional(Implementation),
    "io.modelcontextprotocol/logLevel": Schema.optional(LoggingLevel),
    progressToken: Schema.optional(ProgressToken)
  },
  Schema.Record({ key: Schema.String, value: JsonValue })
).annotations({ identifier: "RequestMetaObject" })

/**
 * @since 0.1.0
 * @category models
 */
export type RequestMeta = typeof RequestMeta.Type

/**
 * The `_meta` of a 2026-07-28 result.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResultMeta = Schema.Struct(
  { "io.modelcontextprotocol/serverInfo": Schema.optional(Implementation) },
  Schema.Record({ key: Schema.String, value: JsonValue })
).annotations({ identifier: "ResultMetaObject" })

/**
 * The `_meta` of a 2026-07-28 notification.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NotificationMeta = Schema.Struct(
  { "io.modelcontextprotocol/subscriptionId": Schema.optional(RequestId) },
  Schema.Record({ key: Schema.String, value: JsonValue })
).annotations({ identifier: "NotificationMetaObject" })

/**
 * The core result types. Extensions add their own (`"task"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResultType = Schema.Literal("complete", "input_required")

/**
 * @since 0.1.0
 * @category models
 */
export type ResultType = typeof ResultType.Type

/**
 * `public` (shareable across users) or `private` (per authorization context).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CacheScope = Schema.Literal("public", "private")

/**
 * @since 0.1.0
 * @category models
 */
export type CacheScope = typeof CacheScope.Type

/**
 * The caching hints of a cacheable result, for spreading into a struct's fields.
 *
 * @since 0.1.0
 * @category fields
 */
export const cacheFields = {
  ttlMs: NonNegativeInt,
  cacheScope: CacheScope
}

/**
 * The caching hints of a result that carries them although its definition does not require them
 * (the skills extension's `resources/directory/read`): our servers always write them (the era puts
 * them on every result the catalog calls cacheable); a peer may leave them out (an absent `ttlMs`
 * is 0, SEP-2549). Optional fields, so the wire schema only checks.
 *
 * @since 0.1.0
 * @category fields
 */
export const optionalCacheFields = {
  ttlMs: Schema.optional(NonNegativeInt),
  cacheScope: Schema.optional(CacheScope)
}

/**
 * A handshake-era params struct as a 2026-07-28 params struct: `_meta` required.
 *
 * @since 0.1.0
 * @category combinators
 */
export const params = <Fields extends Schema.Struct.Fields>(
  struct: Schema.Struct<Fields>
): Schema.Struct<Omit<Fields, "_meta"> & { _meta: typeof RequestMeta }> =>
  Schema.Struct({ ...struct.fields, _meta: RequestMeta }) as any

/**
 * A handshake-era result struct as a 2026-07-28 complete result: `resultType: "complete"`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const result = <Fields extends Schema.Struct.Fields>(
  struct: Schema.Struct<Fields>
): Schema.Struct<
  Omit<Fields, "_meta" | "resultType"> & {
    resultType: Schema.Literal<["complete"]>
    _meta: Schema.optional<typeof ResultMeta>
  }
> =>
  Schema.Struct({ ...struct.fields, resultType: Schema.Literal("complete"), _meta: Schema.optional(ResultMeta) }) as any

/**
 * A handshake-era result struct as a 2026-07-28 cacheable complete result: `resultType`,
 * `ttlMs` and `cacheScope`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const cacheableResult = <Fields extends Schema.Struct.Fields>(
  struct: Schema.Struct<Fields>
): Schema.Struct<
  Omit<Fields, "_meta" | "resultType" | "ttlMs" | "cacheScope"> & {
    resultType: Schema.Literal<["complete"]>
    _meta: Schema.optional<typeof ResultMeta>
    ttlMs: typeof NonNegativeInt
    cacheScope: typeof CacheScope
  }
> =>
  Schema.Struct({
    ...struct.fields,
    resultType: Schema.Literal("complete"),
    _meta: Schema.optional(ResultMeta),
    ...cacheFields
  }) as any

/**
 * A handshake-era notification params struct with the 2026-07-28 notification `_meta`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const notificationParams = <Fields extends Schema.Struct.Fields>(
  struct: Schema.Struct<Fields>
): Schema.Struct<Omit<Fields, "_meta"> & { _meta: Schema.optional<typeof NotificationMeta> }> =>
  Schema.Struct({ ...struct.fields, _meta: Schema.optional(NotificationMeta) }) as any
