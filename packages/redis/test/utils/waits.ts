/**
 * Waits on what happens, not on the clock: a state polled until it holds, or an effect retried
 * until it succeeds, each bounded by a generous guard (a failure past it, never a pass).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as RedisConnection from "../../src/RedisConnection.js"

/** How long a wait may take before it fails: only a guard (a loaded machine takes its time). */
export const guard = Duration.seconds(20)

/** Polled often: a state is seen soon after it changes. */
const often = Schedule.spaced(Duration.millis(10))

/** `effect` retried until it succeeds, failing past the guard with `what`. */
export const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, what = "the effect never succeeded") =>
  Effect.retry(effect, often).pipe(Effect.timeoutFail({ duration: guard, onTimeout: () => new Error(what) }))

/** Until `check` holds, failing past the guard with `what`. */
export const until = <E, R>(check: Effect.Effect<boolean, E, R>, what: string) =>
  Effect.repeat(check, { until: (holds) => holds, schedule: often }).pipe(
    Effect.timeoutFail({ duration: guard, onTimeout: () => new Error(what) }),
    Effect.asVoid
  )

/** Until the connection has seen its Redis go: both its connections down (no longer ready). */
export const down = (connection: RedisConnection.Service) =>
  until(
    Effect.map(connection.isReady, (ready) => !ready && connection.redis.status !== "ready"),
    "the connection never saw its Redis go"
  )

/**
 * `effect`, which must not wait for a Redis that is down: connections made with
 * `slowCommands` would hold a command that waited for a minute, this fails it past the guard.
 */
export const atOnce = <A, E, R>(effect: Effect.Effect<A, E, R>, what: string) =>
  Effect.timeoutFail(effect, { duration: guard, onTimeout: () => new Error(`${what} waited for Redis`) })

/** A command timeout longer than the guard: a command that waited for Redis would outlast it. */
export const slowCommands = { commandTimeout: Duration.minutes(1) } as const
