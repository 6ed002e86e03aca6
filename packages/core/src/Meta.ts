/**
 * The `_meta` object: reserved key names, typed readers, key rules and merging.
 *
 * Keys are kept verbatim everywhere (the wire boundary never renames them); this
 * module only names the reserved ones and reads them with their schemas.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ClientCapabilities } from "./internal/schema/capabilities.js"
import { Implementation, LoggingLevel, parseOptions, ProgressToken, RequestId } from "./Schema/Base.js"
import type { MetaObject } from "./Schema/Base.js"

type ClientCapabilitiesType = typeof ClientCapabilities.Type
type ImplementationType = typeof Implementation.Type

/**
 * `io.modelcontextprotocol/protocolVersion`: the revision of a 2026-07-28 request.
 *
 * @since 0.1.0
 * @category keys
 */
export const protocolVersion = "io.modelcontextprotocol/protocolVersion" as const

/**
 * `io.modelcontextprotocol/clientCapabilities`: the capabilities of a 2026-07-28 request.
 *
 * @since 0.1.0
 * @category keys
 */
export const clientCapabilities = "io.modelcontextprotocol/clientCapabilities" as const

/**
 * `io.modelcontextprotocol/clientInfo`: the client's `Implementation` (display only).
 *
 * @since 0.1.0
 * @category keys
 */
export const clientInfo = "io.modelcontextprotocol/clientInfo" as const

/**
 * `io.modelcontextprotocol/logLevel`: opt-in to `notifications/message` for one 2026-07-28 request.
 *
 * @since 0.1.0
 * @category keys
 */
export const logLevel = "io.modelcontextprotocol/logLevel" as const

/**
 * `io.modelcontextprotocol/serverInfo`: the server's `Implementation` on 2026-07-28 results.
 *
 * @since 0.1.0
 * @category keys
 */
export const serverInfo = "io.modelcontextprotocol/serverInfo" as const

/**
 * `io.modelcontextprotocol/subscriptionId`: the id of the `subscriptions/listen` a message belongs to.
 *
 * @since 0.1.0
 * @category keys
 */
export const subscriptionId = "io.modelcontextprotocol/subscriptionId" as const

/**
 * `io.modelcontextprotocol/related-task`: the task a message belongs to (2025-11-25 tasks).
 *
 * @since 0.1.0
 * @category keys
 */
export const relatedTask = "io.modelcontextprotocol/related-task" as const

/**
 * `io.modelcontextprotocol/model-immediate-response` on a 2025-11-25 `CreateTaskResult`.
 *
 * @since 0.1.0
 * @category keys
 */
export const modelImmediateResponse = "io.modelcontextprotocol/model-immediate-response" as const

/**
 * `progressToken`: opt-in to progress notifications for a request.
 *
 * @since 0.1.0
 * @category keys
 */
export const progressToken = "progressToken" as const

/**
 * effect-mcp's own key (not the protocol's): the encoded typed failure of an `isError` tool
 * result. It rides in `_meta` when the tool publishes an `outputSchema`, because
 * `structuredContent` must then fit that schema (older SDK clients check it even on errors).
 *
 * @since 0.1.0
 * @category keys
 */
export const toolFailure = "dev.effect-mcp/failure" as const

/**
 * W3C trace context and baggage keys (un-prefixed by exception).
 *
 * @since 0.1.0
 * @category keys
 */
export const traceKeys = ["traceparent", "tracestate", "baggage"] as const

const readWith = <A, I>(schema: Schema.Schema<A, I>) => {
  // Compiled on first use: importing this module compiles no parser.
  let decode: ((u: unknown) => Either.Either<A, ParseResult.ParseError>) | undefined
  return (meta: MetaObject | undefined, key: string): Option.Option<A> => {
    if (meta === undefined || !Object.hasOwn(meta, key)) return Option.none()
    return Either.getRight((decode ??= Schema.decodeUnknownEither(schema, parseOptions))(meta[key]))
  }
}

const readString = readWith(Schema.String)
const readCapabilities = readWith(ClientCapabilities)
const readImplementation = readWith(Implementation)
const readLevel = readWith(LoggingLevel)
const readToken = readWith(ProgressToken)
const readId = readWith(RequestId)

/**
 * @since 0.1.0
 * @category readers
 */
export const getProtocolVersion = (meta: MetaObject | undefined): Option.Option<string> =>
  readString(meta, protocolVersion)

/**
 * @since 0.1.0
 * @category readers
 */
export const getClientCapabilities = (meta: MetaObject | undefined): Option.Option<ClientCapabilitiesType> =>
  readCapabilities(meta, clientCapabilities)

/**
 * @since 0.1.0
 * @category readers
 */
export const getClientInfo = (meta: MetaObject | undefined): Option.Option<ImplementationType> =>
  readImplementation(meta, clientInfo)

/**
 * @since 0.1.0
 * @category readers
 */
export const getServerInfo = (meta: MetaObject | undefined): Option.Option<ImplementationType> =>
  readImplementation(meta, serverInfo)

/**
 * @since 0.1.0
 * @category readers
 */
export const getLogLevel = (meta: MetaObject | undefined): Option.Option<typeof LoggingLevel.Type> =>
  readLevel(meta, logLevel)

/**
 * @since 0.1.0
 * @category readers
 */
export const getProgressToken = (meta: MetaObject | undefined): Option.Option<typeof ProgressToken.Type> =>
  readToken(meta, progressToken)

/**
 * @since 0.1.0
 * @category readers
 */
export const getSubscriptionId = (meta: MetaObject | undefined): Option.Option<typeof RequestId.Type> =>
  readId(meta, subscriptionId)

/**
 * The `_meta` of a params or result object, if it has one.
 *
 * @since 0.1.0
 * @category readers
 */
export const of = (value: unknown): MetaObject | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const meta = (value as { readonly _meta?: unknown })._meta
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? meta as MetaObject : undefined
}

const label = "[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
const keyPattern = new RegExp(
  `^(?:${label}(?:\\.${label})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`
)

/**
 * Does the key follow the `_meta` key syntax (optional dotted-label prefix ending in
 * `/`, then a name that starts and ends alphanumeric)?
 *
 * @since 0.1.0
 * @category predicates
 */
export const isValidKey = (key: string): boolean => key.length > 0 && keyPattern.test(key)

/**
 * Is the key's prefix reserved for MCP (its second label is `modelcontextprotocol` or `mcp`)?
 *
 * @since 0.1.0
 * @category predicates
 */
export const isReserved = (key: string): boolean => {
  const slash = key.indexOf("/")
  if (slash < 0) return false
  const labels = key.slice(0, slash).split(".")
  return labels.length >= 2 && (labels[1] === "modelcontextprotocol" || labels[1] === "mcp")
}

/**
 * Merges `_meta` objects left to right: later keys win; `undefined` inputs are skipped;
 * the result is `undefined` when every input is.
 *
 * @since 0.1.0
 * @category combinators
 */
export const merge = (...metas: ReadonlyArray<MetaObject | undefined>): MetaObject | undefined => {
  let out: Record<string, unknown> | undefined
  for (const meta of metas) {
    if (meta === undefined) continue
    // Object.assign onto a fresh object: a spread copy gaining keys is slow on Node 20.
    out = Object.assign(out ?? {}, meta)
  }
  return out
}

/**
 * Returns `params` with `entries` merged into its `_meta` (a new object; the input is untouched).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withMeta = <P extends object | undefined>(params: P, entries: MetaObject): P & { _meta: MetaObject } => {
  const base = (params ?? {}) as Record<string, unknown>
  return { ...base, _meta: merge(of(base), entries)! } as any
}
