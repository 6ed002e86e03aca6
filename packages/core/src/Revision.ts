/**
 * The MCP revisions as data.
 *
 * Every difference between revisions that the rest of the library needs is a
 * field of {@link Features} here, so that code asks `Revision.features(rev).batching`
 * instead of comparing version strings.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Every revision this library speaks, oldest first.
 *
 * @since 0.1.0
 * @category models
 */
export const all = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type Revision = typeof all[number]

/**
 * @since 0.1.0
 * @category schemas
 */
export const Revision: Schema.Literal<typeof all> = Schema.Literal(...all)

/**
 * The two eras: the handshake era (`initialize`, sessions) and the stateless era
 * (per-request `_meta`, no sessions).
 *
 * @since 0.1.0
 * @category models
 */
export type Era = "handshake" | "stateless"

/**
 * How a revision runs tasks: not at all, the experimental core tasks of 2025-11-25,
 * or the `io.modelcontextprotocol/tasks` extension of 2026-07-28.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskModel = "none" | "core" | "extension"

/**
 * Everything that differs between revisions.
 *
 * @since 0.1.0
 * @category models
 */
export interface Features {
  readonly revision: Revision
  readonly era: Era
  /** JSON-RPC batches must be accepted (2025-03-26 only). */
  readonly batching: boolean
  /** `initialize` / `notifications/initialized` / `ping` exist. */
  readonly handshake: boolean
  /** `server/discover`, per-request `_meta`, `resultType` on every result. */
  readonly stateless: boolean
  /** `resultType` is required on results. */
  readonly resultType: boolean
  /** `ttlMs` / `cacheScope` on cacheable results. */
  readonly cachingHints: boolean
  /** Servers may send JSON-RPC requests to clients (sampling, roots, elicitation, ping). */
  readonly serverRequests: boolean
  /** Multi-round-trip requests (`input_required` results). */
  readonly inputRequired: boolean
  /** Tool annotations (`Tool.annotations`). */
  readonly toolAnnotations: boolean
  /** Audio content blocks. */
  readonly audioContent: boolean
  /** `resource_link` content blocks. */
  readonly resourceLinks: boolean
  /** `title` on named things (BaseMetadata). */
  readonly titles: boolean
  /** Icons, `Implementation.description` and `websiteUrl`. */
  readonly icons: boolean
  /** `ProgressNotification.message`. */
  readonly progressMessage: boolean
  /** The server capabilities this revision defines (a method gated by one the revision lacks is not gated). */
  readonly serverCapabilities: ReadonlyArray<string>
  /** `completion/complete` takes `context.arguments`. */
  readonly completionContext: boolean
  /** Structured tool output: none, an object, or any JSON value. */
  readonly structuredOutput: "none" | "object" | "any"
  /** Form elicitation (`elicitation/create`, or an input request in 2026). */
  readonly elicitation: boolean
  /** URL-mode elicitation. */
  readonly urlElicitation: boolean
  /** `-32042`, `elicitationId` and `notifications/elicitation/complete` (2025-11-25 only). */
  readonly urlElicitationRequiredError: boolean
  /** Multi-select and titled enum schemas in elicitation (SEP-1330), defaults on every primitive. */
  readonly richEnums: boolean
  /** Sampling with tools (`tools`, `toolChoice`, tool_use / tool_result content). */
  readonly samplingTools: boolean
  /** The task model of this revision. */
  readonly tasks: TaskModel
  /** Logging through `logging/setLevel` (handshake) or `_meta` logLevel (stateless). */
  readonly logLevelIn: "setLevel" | "meta"
  /** Resource subscriptions: `resources/subscribe` or `subscriptions/listen`. */
  readonly subscriptions: "resources/subscribe" | "subscriptions/listen"
  /** `notifications/roots/list_changed` exists. */
  readonly rootsListChanged: boolean
  /** Invalid tool arguments are a tool execution error (`isError`) rather than -32602. */
  readonly toolInputErrorsAsResults: boolean
  /** JSON-RPC error code for an unknown resource in `resources/read`. */
  readonly resourceNotFoundCode: -32002 | -32602
  /** The `MCP-Protocol-Version` HTTP header is required after initialization. */
  readonly protocolVersionHeader: boolean
  /** Streamable HTTP SSE polling: priming events, and `retry` before a server-side close (2025-11-25). */
  readonly ssePolling: boolean
  /** Transport that HTTP uses in this revision. */
  readonly httpTransport: "http+sse" | "streamable-http" | "streamable-http-stateless"
  /** `CancelledNotification.params.requestId` is optional. */
  readonly cancelRequestIdOptional: boolean
  /** The `extensions` capability map. */
  readonly extensions: boolean
  /** The JSON Schema dialect used by `schema.json` and the default for tool schemas. */
  readonly jsonSchemaDialect: "draft-07" | "2020-12"
}

const base: Omit<Features, "revision"> = {
  era: "handshake",
  batching: false,
  handshake: true,
  stateless: false,
  resultType: false,
  cachingHints: false,
  serverRequests: true,
  inputRequired: false,
  toolAnnotations: false,
  audioContent: false,
  resourceLinks: false,
  titles: false,
  icons: false,
  progressMessage: false,
  serverCapabilities: ["experimental", "logging", "prompts", "resources", "tools"],
  completionContext: false,
  structuredOutput: "none",
  elicitation: false,
  urlElicitation: false,
  urlElicitationRequiredError: false,
  richEnums: false,
  samplingTools: false,
  tasks: "none",
  logLevelIn: "setLevel",
  subscriptions: "resources/subscribe",
  rootsListChanged: true,
  toolInputErrorsAsResults: false,
  resourceNotFoundCode: -32002,
  protocolVersionHeader: false,
  ssePolling: false,
  httpTransport: "http+sse",
  cancelRequestIdOptional: false,
  extensions: false,
  jsonSchemaDialect: "draft-07"
}

const v20241105: Features = { ...base, revision: "2024-11-05" }

const v20250326: Features = {
  ...v20241105,
  revision: "2025-03-26",
  batching: true,
  toolAnnotations: true,
  audioContent: true,
  progressMessage: true,
  serverCapabilities: ["experimental", "logging", "completions", "prompts", "resources", "tools"],
  httpTransport: "streamable-http"
}

const v20250618: Features = {
  ...v20250326,
  revision: "2025-06-18",
  batching: false,
  resourceLinks: true,
  titles: true,
  completionContext: true,
  structuredOutput: "object",
  elicitation: true,
  protocolVersionHeader: true
}

const v20251125: Features = {
  ...v20250618,
  revision: "2025-11-25",
  icons: true,
  urlElicitation: true,
  urlElicitationRequiredError: true,
  richEnums: true,
  samplingTools: true,
  tasks: "core",
  serverCapabilities: ["experimental", "logging", "completions", "prompts", "resources", "tools", "tasks"],
  toolInputErrorsAsResults: true,
  cancelRequestIdOptional: true,
  ssePolling: true,
  jsonSchemaDialect: "2020-12"
}

const v20260728: Features = {
  ...v20251125,
  revision: "2026-07-28",
  era: "stateless",
  handshake: false,
  stateless: true,
  resultType: true,
  cachingHints: true,
  serverRequests: false,
  inputRequired: true,
  structuredOutput: "any",
  urlElicitationRequiredError: false,
  tasks: "extension",
  logLevelIn: "meta",
  subscriptions: "subscriptions/listen",
  rootsListChanged: false,
  resourceNotFoundCode: -32602,
  serverCapabilities: ["experimental", "extensions", "logging", "completions", "prompts", "resources", "tools"],
  ssePolling: false,
  httpTransport: "streamable-http-stateless",
  cancelRequestIdOptional: false,
  extensions: true
}

const table: { readonly [R in Revision]: Features } = {
  "2024-11-05": v20241105,
  "2025-03-26": v20250326,
  "2025-06-18": v20250618,
  "2025-11-25": v20251125,
  "2026-07-28": v20260728
}

/**
 * The features of a revision.
 *
 * @since 0.1.0
 * @category accessors
 */
export const features = (revision: Revision): Features => table[revision]

/**
 * The newest revision.
 *
 * @since 0.1.0
 * @category constants
 */
export const latest: Revision = "2026-07-28"

/**
 * The revisions negotiated with `initialize`, oldest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const handshake: ReadonlyArray<Revision> = all.filter((r) => table[r].handshake)

/**
 * The newest handshake revision: what a server offers when the client asks for one it does not know.
 *
 * @since 0.1.0
 * @category constants
 */
export const latestHandshake: Revision = handshake[handshake.length - 1]

/**
 * The stateless revisions.
 *
 * @since 0.1.0
 * @category constants
 */
export const stateless: ReadonlyArray<Revision> = all.filter((r) => table[r].stateless)

/**
 * Is this string a revision we speak?
 *
 * @since 0.1.0
 * @category guards
 */
export const isRevision = (u: unknown): u is Revision => typeof u === "string" && Object.hasOwn(table, u)

/**
 * Order of two revisions: negative when `a` is older than `b`.
 *
 * @since 0.1.0
 * @category ordering
 */
export const compare = (a: Revision, b: Revision): number => all.indexOf(a) - all.indexOf(b)

/**
 * Is `revision` at least `since`?
 *
 * @since 0.1.0
 * @category ordering
 */
export const atLeast = (revision: Revision, since: Revision): boolean => compare(revision, since) >= 0

/**
 * The revisions from `since` on (inclusive), optionally up to `until` (inclusive).
 *
 * @since 0.1.0
 * @category constructors
 */
export const range = (since: Revision, until?: Revision): ReadonlyArray<Revision> =>
  all.filter((r) => atLeast(r, since) && (until === undefined || atLeast(until, r)))

/**
 * Handshake-era version negotiation: echo the requested version when it is one of
 * `supported`, otherwise offer the newest of `supported`.
 *
 * @since 0.1.0
 * @category negotiation
 */
export const negotiate = (requested: string, supported: ReadonlyArray<Revision> = handshake): Revision =>
  supported.includes(requested as Revision) ? requested as Revision : supported[supported.length - 1]

/**
 * @since 0.1.0
 * @category predicates
 */
export const allowsBatching = (revision: Revision): boolean => table[revision].batching

/**
 * @since 0.1.0
 * @category predicates
 */
export const isStateless = (revision: Revision): boolean => table[revision].stateless

/**
 * @since 0.1.0
 * @category predicates
 */
export const hasElicitation = (revision: Revision): boolean => table[revision].elicitation

/**
 * @since 0.1.0
 * @category predicates
 */
export const hasUrlElicitation = (revision: Revision): boolean => table[revision].urlElicitation

/**
 * @since 0.1.0
 * @category predicates
 */
export const hasTasks = (revision: Revision): boolean => table[revision].tasks !== "none"

/**
 * @since 0.1.0
 * @category predicates
 */
export const structuredOutput = (revision: Revision): Features["structuredOutput"] => table[revision].structuredOutput

/**
 * @since 0.1.0
 * @category predicates
 */
export const resourceNotFoundCode = (revision: Revision): -32002 | -32602 => table[revision].resourceNotFoundCode
