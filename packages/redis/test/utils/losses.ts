/**
 * What a test reads of the records a Redis part lost: `RedisConnection.recordsLost` by kind, and
 * the warnings logged meanwhile.
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import * as RedisConnection from "../../src/RedisConnection.js"

/** How many records of `kind` were lost so far (in this process: compare before and after). */
export const lost = (kind: string): Effect.Effect<number> =>
  Effect.map(Metric.value(Metric.tagged(RedisConnection.recordsLost, "record", kind)), (state) => state.count)

/**
 * Runs `f` with every warning logged (by it and the fibers it forks) kept in the array it is
 * given (the default logger still prints them).
 */
export const withWarnings = <A, E, R>(
  f: (warnings: ReadonlyArray<string>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const warnings: Array<string> = []
    const keep = Logger.make(({ logLevel, message }) => {
      if (LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) {
        warnings.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
      }
    })
    return Effect.provide(f(warnings), Logger.add(keep))
  })
