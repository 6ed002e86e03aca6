/**
 * Timers of held-open streams (one ends when its token expires): a fiber of the transport's runtime,
 * in its scope (closing it stops them all), that sleeps on the runtime's `Clock` (so a `TestClock`
 * moves it) and sleeps again past the longest delay a timer takes.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"

/** Longest delay a timer takes (the default clock never wakes a longer sleep). */
const maxTimer = 2 ** 31 - 1

/** What cancels no timer. */
export const noTimer = (): void => {}

/** Runs `close` at `at` (`Clock` epoch milliseconds, however far); returns what cancels it. */
export type TimerAt = (at: number, close: () => void) => () => void

/** Waits until the clock reaches `at`. */
const until = (at: number): Effect.Effect<void> =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now) => now >= at ? Effect.void : Effect.zipRight(Effect.sleep(Math.min(at - now, maxTimer)), until(at))
  )

/** Timers in fibers of `runtime`, in `scope`. */
export const make = (runtime: Runtime.Runtime<never>, scope: Scope.Scope): TimerAt => {
  const fork = Runtime.runFork(runtime)
  return (at, close) => {
    const fiber: Fiber.RuntimeFiber<void> = fork(Effect.zipRight(until(at), Effect.sync(close)), { scope })
    return () => fiber.unsafeInterruptAsFork(FiberId.none)
  }
}
