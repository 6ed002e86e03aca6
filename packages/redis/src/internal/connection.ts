/**
 * One `ioredis` connection in a scope: opened (waiting for it to be ready), watched (the log
 * says when it is lost and when it is back), closed with the scope within `closeTimeout`.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Redis } from "ioredis"
import { RedisUnavailable } from "../RedisConnection.js"

/** The URL without its password, for the log. */
export const redact = (url: string): string => url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@")

/** How a connection is opened and closed. */
export interface OpenOptions {
  readonly url: string
  /** `command` or `subscription`: what the log calls it. */
  readonly role: string
  /** `ioredis`'s options. */
  readonly redis: Readonly<Record<string, unknown>>
  /** Say goodbye (`QUIT`, within `closeTimeout`) rather than just close. */
  readonly quit: boolean
  readonly closeTimeout: Duration.Duration
}

/**
 * Closes a connection: at once when it has nothing to finish or is down (a `QUIT` would wait for
 * it to come back); else its `QUIT` (which lets what was sent before it finish) gets
 * `closeTimeout` before the connection is closed.
 */
const close = (redis: Redis, options: OpenOptions): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!options.quit || redis.status !== "ready") return Effect.sync(() => redis.disconnect())
    // A Redis that does not answer (paused, cut off) is not waited for past closeTimeout.
    // (Interruptible: a finalizer is not, and the timeout could not cut it short otherwise.)
    return Effect.tryPromise(() => redis.quit()).pipe(
      Effect.ignore,
      Effect.interruptible,
      Effect.timeoutOption(options.closeTimeout),
      Effect.ensuring(Effect.sync(() => redis.status === "end" || redis.disconnect()))
    )
  })

/**
 * Logs when the connection is lost (once, whatever the number of failed attempts to reconnect)
 * and when it is back, until the scope closes (before the connection itself is closed: its own
 * end is not a loss).
 */
const watch = (redis: Redis, options: OpenOptions): Effect.Effect<void, never, Scope.Scope> =>
  Stream.asyncPush<"lost" | "back">((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const lost = () => emit.single("lost")
        const back = () => emit.single("back")
        redis.on("close", lost)
        redis.on("ready", back)
        return { lost, back }
      }),
      ({ back, lost }) =>
        Effect.sync(() => {
          redis.off("close", lost)
          redis.off("ready", back)
        })
    ), { bufferSize: 16, strategy: "sliding" }).pipe(
      Stream.changes,
      Stream.runForEach((event) =>
        event === "lost"
          ? Effect.logWarning(
            `effect-mcp: lost the Redis ${options.role} connection to ${redact(options.url)}; reconnecting`
          )
          : Effect.logInfo(`effect-mcp: the Redis ${options.role} connection to ${redact(options.url)} is back`)
      ),
      Effect.forkScoped,
      Effect.asVoid
    )

/**
 * A connection, ready, for the scope's life (closed with it, as `close` says); `RedisUnavailable`
 * when it cannot be opened.
 */
export const open = (options: OpenOptions): Effect.Effect<Redis, RedisUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const redis = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const redis = new Redis(options.url, { ...options.redis, lazyConnect: true })
        // Each failed attempt is an error event: `watch` says when the connection is lost and when it is back.
        redis.on("error", () => {})
        return redis
      }),
      (redis) => close(redis, options)
    )
    yield* Effect.tryPromise({ try: () => redis.connect(), catch: (cause) => new RedisUnavailable({ cause }) }).pipe(
      // Not reconnecting on its own meanwhile: the layer fails, and nothing is left running.
      Effect.tapError(() => Effect.sync(() => redis.disconnect()))
    )
    yield* watch(redis, options)
    return redis
  })
