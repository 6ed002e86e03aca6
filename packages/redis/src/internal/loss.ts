/**
 * What the Redis parts do with what they read and cannot use: a record (or a message) that does
 * not decode is lost, alone. It is counted (`recordsLost`, by kind) and logged, at most one
 * warning every 10 seconds per part (a foreign publisher on a channel could flood the log
 * otherwise), saying how many were not logged since.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"

/** The kinds of record a part reads from Redis, as `recordsLost` labels them. */
export type Kind =
  | "task"
  | "task-change"
  | "session"
  | "session-change"
  | "session-delivery"
  | "pending-frames"
  | "bus-event"
  | "reply"

/** Records read from Redis that did not decode (each skipped), by `record` (its kind). */
export const recordsLost = Metric.counter("mcp.redis.records_lost", {
  description: "Records read from Redis that did not decode, each skipped, by kind",
  incremental: true
})

const kinds: ReadonlyArray<Kind> = [
  "task",
  "task-change",
  "session",
  "session-change",
  "session-delivery",
  "pending-frames",
  "bus-event",
  "reply"
]
const counters = new Map(kinds.map((kind) => [kind, Metric.tagged(recordsLost, "record", kind)] as const))
const counterOf = (kind: Kind): Metric.Metric.Counter<number> => counters.get(kind) ?? recordsLost

interface Throttle {
  /** When the last warning was logged. */
  readonly at: number
  /** How many were not logged since. */
  readonly skipped: number
}

/**
 * A warning logged at most once every `every` (the first at once), with how many were not
 * logged since the last one; time from `Clock`.
 */
export const throttled = (
  every: Duration.DurationInput = Duration.seconds(10)
): Effect.Effect<(message: string, cause?: unknown) => Effect.Effect<void>> =>
  Effect.map(Ref.make<Throttle>({ at: Number.NEGATIVE_INFINITY, skipped: 0 }), (state) => {
    const period = Duration.toMillis(every)
    /** How many were not logged since the last (undefined: not this one either). */
    const next = (now: number) => (s: Throttle): readonly [number | undefined, Throttle] =>
      now - s.at < period ? [undefined, { at: s.at, skipped: s.skipped + 1 }] : [s.skipped, { at: now, skipped: 0 }]
    return (message, cause) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(Ref.modify(state, next(now)), (skipped) => {
          if (skipped === undefined) return Effect.void
          const more = skipped > 0 ? ` (and ${skipped} more since the last warning)` : ""
          const text = `effect-mcp: ${message}${more}`
          return cause === undefined ? Effect.logWarning(text) : Effect.logWarning(text, cause)
        }))
  })

/** Says what did not decode: the schema's own account of it, or the error's message. */
const describe = (cause: unknown): string =>
  ParseResult.isParseError(cause)
    ? ParseResult.TreeFormatter.formatErrorSync(cause)
    : cause instanceof Error
    ? cause.message
    : String(cause)

/**
 * The loss of one record of `kind`, read from `where`: counted at once, logged as the throttle
 * lets it. One per part (its own throttle).
 */
export const make: Effect.Effect<(kind: Kind, where: string, cause: unknown) => Effect.Effect<void>> = Effect.map(
  throttled(),
  (warn) => (kind, where, cause) =>
    Effect.zipRight(
      Metric.increment(counterOf(kind)),
      warn(`a ${kind} record read from Redis (${where}) did not decode and was skipped: ${describe(cause)}`)
    )
)
