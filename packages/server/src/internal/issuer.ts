/**
 * What a resource server reads from an authorization server, and how it copes when that server
 * is hostile or unhealthy:
 *
 * - every answer (metadata, a key set, an introspection answer) is read up to a bound, counted as
 *   its bytes arrive: past it, the connection is dropped and the answer refused (the client side
 *   bounds OAuth answers the same way, at the same 1 MiB, over its `HttpClient`);
 * - a value fetched from it (its metadata, its keys) is a {@link Remote}: one fetch at a time, in a
 *   fiber of the verifier's own (callers that need it wait for that fetch, not for another);
 *   failures remembered with an exponential backoff (no fetch until it passes); a value that aged
 *   but is still usable served at once while it is fetched again behind (stale-while-revalidate:
 *   only a caller with nothing usable waits for a fetch), and kept for use while fetching it again
 *   fails, up to a bound. Times come from `Clock`.
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"

/** The largest answer read from an authorization server: 1 MiB, as the client reads. */
export const maxAnswerBytes = 1024 * 1024

/** An answer past the bound. */
export class AnswerTooLarge extends Error {
  constructor(readonly url: string, readonly maxBytes: number) {
    super(`${url} answered more than ${maxBytes} bytes`)
  }
}

/** What a fetch is asked (oauth4webapi's `customFetch` options among them). */
export type FetchInit = { readonly [K in keyof RequestInit]?: RequestInit[K] | undefined }

/** The fetch of oauth4webapi's requests (its `customFetch`) and of key sets: the global one, answers bounded. */
export type Fetch = (url: string, init: FetchInit) => Promise<Response>

/**
 * `fetch`, its answer read whole (at most `maxBytes`, counted as the bytes arrive: a larger answer
 * is cancelled there, and the call fails with {@link AnswerTooLarge}) and handed on as a new
 * `Response`.
 */
export const boundedFetch = (maxBytes: number = maxAnswerBytes): Fetch => async (url, init) => {
  // The options as oauth4webapi gives them (an absent body as `undefined`), which fetch takes.
  const response = await fetch(url, init as RequestInit)
  const body = response.body
  if (body === null) return response
  const declared = Number(response.headers.get("content-length") ?? NaN)
  if (declared > maxBytes) {
    await body.cancel().catch(() => undefined)
    throw new AnswerTooLarge(url, maxBytes)
  }
  const reader = body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw new AnswerTooLarge(url, maxBytes)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  const empty = response.status === 204 || response.status === 205 || response.status === 304
  return new Response(empty ? null : bytes, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers
  })
}

// ---------------------------------------------------------------------------- a remote value

/** How a failing fetch is tried again: not before `initialMillis`, twice as long after each failure, at most `maxMillis`. */
export interface Backoff {
  readonly initialMillis: number
  readonly maxMillis: number
}

/** The wait after `failures` failures in a row. */
export const backoffMillis = (backoff: Backoff, failures: number): number =>
  Math.min(backoff.maxMillis, backoff.initialMillis * 2 ** Math.min(Math.max(0, failures - 1), 30))

/** A value as fetched, and when (`Clock` milliseconds). */
export interface Fetched<A> {
  readonly value: A
  readonly at: number
}

interface State<A, E> {
  readonly held: Fetched<A> | undefined
  /** Failures in a row since the last good fetch; no fetch before `retryAt`. */
  readonly failures: number
  readonly retryAt: number
  readonly lastError: E | undefined
  /** The fetch under way, if any: every caller that needs one waits for this one. */
  readonly running: Fiber.RuntimeFiber<Either.Either<Fetched<A>, E>> | undefined
}

/** How long a {@link Remote}'s value is used. */
export interface Ages {
  /** Fetched again when older than this (Infinity: kept once fetched). */
  readonly maxAgeMillis: number
  /** Still used while fetching it again fails, up to this age. */
  readonly maxStaleMillis: number
  /** At least this long between two fetches asked for by {@link Remote.refresh}. */
  readonly cooldownMillis: number
}

/**
 * A value fetched from an authorization server: see the module's description. `unavailable`
 * makes the error of a call refused during the backoff (from the last failure and the wait left).
 */
export interface Remote<A, E> {
  /**
   * The value: the one held while it is young enough; an older one still usable (`maxStaleMillis`)
   * at once, while it is fetched again behind; else the one fetched now (the caller waits).
   */
  readonly get: Effect.Effect<Fetched<A>, E>
  /**
   * A fresher value than `seen` (a token named a key `seen` does not have): the one another caller
   * fetched meanwhile, or the one a fetch under way or made now gives; none when `seen` is younger
   * than the cooldown. Fails while backing off, or when the fetch fails.
   */
  readonly refresh: (seen: Fetched<A>) => Effect.Effect<Option.Option<Fetched<A>>, E>
}

/**
 * Where a {@link Remote}'s fetches run: a fiber of the verifier's own runtime, in its scope (closing
 * it stops a fetch under way), never a caller's fiber (a caller given up must not stop the fetch
 * others wait for) nor the default runtime.
 */
export type Fork = <X>(effect: Effect.Effect<X>) => Fiber.RuntimeFiber<X>

/** Fetches as the verifier built with `runtime` runs them, in `scope`. */
export const forkIn = (runtime: Runtime.Runtime<never>, scope: Scope.Scope): Fork => (effect) =>
  Runtime.runFork(runtime)(effect, { scope })

export const makeRemote = <A, E>(
  fetch: Effect.Effect<A, E>,
  options: {
    readonly ages: Ages
    readonly backoff: Backoff
    readonly clock: Clock.Clock
    readonly fork: Fork
    readonly unavailable: (last: E | undefined, waitMillis: number) => E
    /** A fetch again failed, and the value held (this old) is used meanwhile: what tells (a warning in the log). */
    readonly stale: (error: E, ageMillis: number) => Effect.Effect<void>
  }
): Remote<A, E> => {
  const { ages, backoff, clock } = options
  const state = SynchronizedRef.unsafeMake<State<A, E>>({
    held: undefined,
    failures: 0,
    retryAt: 0,
    lastError: undefined,
    running: undefined
  })
  const now = () => clock.unsafeCurrentTimeMillis()
  const fresh = (held: Fetched<A> | undefined, at: number): held is Fetched<A> =>
    held !== undefined && at - held.at < ages.maxAgeMillis
  const usable = (held: Fetched<A> | undefined, at: number): held is Fetched<A> =>
    held !== undefined && at - held.at < Math.max(ages.maxAgeMillis, ages.maxStaleMillis)
  /** The fetch under way (one that ended, interrupted with the scope, is none). */
  const running = (s: State<A, E>) => s.running !== undefined && s.running.unsafePoll() === null ? s.running : undefined

  /**
   * One fetch, in a fiber of its own: its outcome goes into the state (a failure starts or lengthens
   * the backoff and, while a value is still usable, is said once), and is what its waiters get.
   */
  const run: Effect.Effect<Either.Either<Fetched<A>, E>> = Effect.flatMap(
    Effect.either(fetch),
    (result) =>
      SynchronizedRef.modifyEffect(state, (s): Effect.Effect<readonly [Either.Either<Fetched<A>, E>, State<A, E>]> => {
        const at = now()
        if (Either.isRight(result)) {
          const held = { value: result.right, at }
          return Effect.succeed(
            [
              Either.right(held),
              { held, failures: 0, retryAt: 0, lastError: undefined, running: undefined }
            ] as const
          )
        }
        const failures = s.failures + 1
        const next: State<A, E> = {
          held: s.held,
          failures,
          retryAt: at + backoffMillis(backoff, failures),
          lastError: result.left,
          running: undefined
        }
        return Effect.as(
          usable(s.held, at) ? options.stale(result.left, at - s.held.at) : Effect.void,
          [Either.left(result.left), next] as const
        )
      })
  )

  /** The fetch under way, else one started now: the state that says so. */
  const started = (s: State<A, E>) =>
    Effect.sync(() => {
      const fiber = running(s) ?? options.fork(run)
      return [fiber, { ...s, running: fiber }] as const
    })

  /** What a fetch gave its waiter: its outcome (none when the scope stopped it). */
  const outcome = (fiber: Fiber.RuntimeFiber<Either.Either<Fetched<A>, E>>) =>
    Effect.map(
      Fiber.await(fiber),
      (exit) => Exit.isSuccess(exit) ? exit.value : Either.left(options.unavailable(undefined, 0))
    )

  /** What the caller gets when no fetch is made (backing off): a stale value, or the error. */
  const withoutFetch = (s: State<A, E>, at: number): Effect.Effect<Fetched<A>, E> =>
    usable(s.held, at) ? Effect.succeed(s.held) : Effect.fail(options.unavailable(s.lastError, s.retryAt - at))

  const get: Remote<A, E>["get"] = Effect.flatMap(SynchronizedRef.get(state), (s) => {
    const at = now()
    if (fresh(s.held, at)) return Effect.succeed(s.held)
    // Held keys that still serve while a fetch is under way or backing off: at once, no lock.
    if (usable(s.held, at) && (running(s) !== undefined || at < s.retryAt)) return Effect.succeed(s.held)
    return Effect.flatten(SynchronizedRef.modifyEffect(state, (current) => {
      // Another caller may have fetched, failed or started a fetch meanwhile.
      const at = now()
      if (fresh(current.held, at)) return Effect.succeed([Effect.succeed(current.held), current] as const)
      if (running(current) === undefined && at < current.retryAt) {
        return Effect.succeed([withoutFetch(current, at), current] as const)
      }
      return Effect.map(started(current), ([fiber, next]) => {
        const held = current.held
        // Stale but usable: taken now, the fetch goes on behind (stale-while-revalidate): no caller
        // waits on an authorization server that is slow or hangs while what is held still verifies.
        if (usable(held, at)) return [Effect.succeed(held), next] as const
        // Nothing usable: every caller waits for the one fetch.
        return [
          Effect.flatMap(outcome(fiber), (result) =>
            Either.isRight(result)
              ? Effect.succeed(result.right)
              : Effect.flatMap(
                SynchronizedRef.get(state),
                (after) => usable(after.held, now()) ? Effect.succeed(after.held) : Effect.fail(result.left)
              )),
          next
        ] as const
      })
    }))
  })

  const refresh: Remote<A, E>["refresh"] = (seen) =>
    Effect.flatten(SynchronizedRef.modifyEffect(state, (current) => {
      const at = now()
      // Each good fetch makes a new `Fetched`: another than `seen` is newer.
      if (current.held !== undefined && current.held !== seen) {
        return Effect.succeed([Effect.succeedSome(current.held), current] as const)
      }
      // A fetch under way gives the freshest value soon: waited for, whatever the cooldown.
      if (running(current) === undefined) {
        if (at - seen.at < ages.cooldownMillis) return Effect.succeed([Effect.succeedNone, current] as const)
        if (at < current.retryAt) {
          return Effect.succeed(
            [Effect.fail(options.unavailable(current.lastError, current.retryAt - at)), current] as const
          )
        }
      }
      return Effect.map(started(current), ([fiber, next]) =>
        [
          Effect.flatMap(
            outcome(fiber),
            (result) => Either.isRight(result) ? Effect.succeedSome(result.right) : Effect.fail(result.left)
          ),
          next
        ] as const)
    }))

  return { get, refresh }
}
