/**
 * An upstream's log messages, to the gateway's clients: each `notifications/message` the upstream
 * sends is logged by its part of the gateway's server (`McpServer.log` on `Mount.under`: the
 * logger is the upstream's name, or `name/logger`), which tells every handshake session whose level
 * admits it. What the clients ask for reaches the upstreams as the most verbose level any of them
 * set (`lowest`): each session then hears only what its own level admits.
 *
 * Only what the upstream logs outside any request is broadcast: a log that came on the response
 * stream of one of the gateway's requests (`related`) belongs to the client whose request that
 * was; where that request's `onLog` did not take it (a task call, a completion, a listing, a log
 * after the answer), it is dropped, never told to the other sessions.
 */
import type { McpClient } from "@effect-mcp/client"
import { Schema as McpSchema } from "@effect-mcp/core"
import type { McpServer } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

type LoggingLevel = McpSchema.Base.LoggingLevel

const isLevel = (level: unknown): level is LoggingLevel =>
  typeof level === "string" && (McpSchema.Logging.levels as ReadonlyArray<string>).includes(level)

/** The more verbose of two levels (`undefined`: none set yet). */
export const lowest = (a: LoggingLevel | undefined, b: LoggingLevel): LoggingLevel =>
  a === undefined || McpSchema.Logging.isAtLeast(a, b) ? b : a

/** The most log messages of one upstream waiting for the clients. */
export const maxBehind = 256

/**
 * The most bytes of one message's `data` (as JSON) kept while it waits: `maxBehind` of them then
 * hold at most 16 MiB per upstream, and 64 KiB is far above any log line (a stack trace, a request
 * dump) a client reads. A larger one is replaced by a short note saying how large it was.
 */
export const maxDataBytes = 64 * 1024

/** `data`, or a note in its place when its JSON is over `maxDataBytes` (or cannot be written). */
export const capped = (data: unknown): unknown => sized(data).data

/**
 * `capped`'s `data`, and what it takes while it waits: its JSON's UTF-16 units, two bytes each (at
 * most what its text takes in the heap).
 */
export const sized = (data: unknown): { readonly data: unknown; readonly bytes: number } => {
  let json: string | undefined
  try {
    json = JSON.stringify(data)
  } catch {
    return noted("[log data dropped by the gateway: not JSON]")
  }
  // Each UTF-16 unit is at most 3 bytes of UTF-8: the exact count only when it could be over.
  if (json === undefined || json.length * 3 <= maxDataBytes) return { data, bytes: (json?.length ?? 0) * 2 }
  const bytes = Buffer.byteLength(json, "utf8")
  return bytes <= maxDataBytes
    ? { data, bytes: json.length * 2 }
    : noted(`[log data dropped by the gateway: ${bytes} bytes of JSON, over ${maxDataBytes}]`)
}

const noted = (note: string) => ({ data: note, bytes: note.length * 2 })

/**
 * The most bytes (`sized`) of upstream calls' logs waiting to be logged on their downstream
 * requests, all calls of one relay together: each call keeps at most 256 of them, up to 64 KiB
 * each, so a slow client and many loud calls would otherwise hold 16 MiB per call. Past it a log is
 * dropped (as past a call's 256).
 */
export const maxCallLogBytes = 16 * 1024 * 1024

interface Message {
  readonly level: LoggingLevel
  readonly data: unknown
  readonly logger: string | undefined
}

/**
 * Follows the upstream's log messages for the lifetime of the scope, logging each on `part` (its
 * view of the gateway's server). A message that is not one (no known level) is dropped.
 */
export const follow = (client: McpClient.Service, part: McpServer.Service): Effect.Effect<void, never, Scope.Scope> =>
  client.notificationsReceived.pipe(
    // A log related to a request is its caller's (or nobody's): never broadcast.
    Stream.filterMap(({ notification: n, related }): Option.Option<Message> => {
      if (related !== undefined || n.method !== "notifications/message") return Option.none()
      const params = n.params as
        | { readonly level?: unknown; readonly data?: unknown; readonly logger?: unknown }
        | undefined
      if (params === undefined || params === null || !isLevel(params.level)) return Option.none()
      return Option.some({
        level: params.level,
        data: capped(params.data),
        logger: typeof params.logger === "string" ? params.logger : undefined
      })
    }),
    // Taken at once from the client's queue: while the clients are slower than the upstream logs,
    // at most `maxBehind` wait here (each at most `maxDataBytes`), the oldest dropped first.
    Stream.buffer({ capacity: maxBehind, strategy: "sliding" }),
    Stream.runForEach((m) => part.log(m.level, m.data, m.logger)),
    Effect.forkScoped,
    Effect.asVoid
  )
