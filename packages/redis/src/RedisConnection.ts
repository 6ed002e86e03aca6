/**
 * The connection every Redis-backed part of a server shares: one connection for commands, one
 * for subscriptions (Redis gives a subscribed connection to nothing else), both on `ioredis`,
 * opened with the layer's scope and closed with it.
 *
 * **Failing fast.** Commands are not queued while the connection is down (`enableOfflineQueue`
 * off) and each has a deadline (`commandTimeout`), so a request that needs shared state fails
 * at once with `RedisUnavailable` (the server answers it with a clear JSON-RPC error, a 503 on
 * HTTP) instead of waiting for a Redis that may not come back. Meanwhile the connections
 * reconnect by themselves, with a capped backoff, and say so in the log (once when the
 * connection is lost, once when it is back).
 *
 * **Subscriptions** are shared: any number of subscribers to one channel cost one `SUBSCRIBE`.
 * Each subscriber reads from a queue of its own, bounded (the oldest message goes first when a
 * subscriber falls that far behind, with a warning), and hears `Resubscribed` after the
 * subscription connection came back: what was published meanwhile is lost, and the subscriber
 * decides what to do about it (the notification bus tells its clients that every list may have
 * changed).
 *
 * **Closing.** When the layer is released (the server stopping), nothing waits on Redis longer
 * than `closeTimeout` (default half a second) at a time: a subscription let go is not waited for,
 * the subscription connection is closed at once, the command connection's `QUIT` (which lets what
 * was sent before it finish) gets that long before the connection is closed, and a connection
 * whose Redis does not close its side is destroyed that long after. A Redis that takes connections
 * but does not answer (paused, or cut off by the network) delays a stopping server by about a
 * second (this instance's key given back, the `QUIT`), not for as long as it does not answer.
 *
 * Every key and channel is under `prefix` (default `mcp:`), so one Redis can hold several
 * deployments.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import * as Crypto from "node:crypto"

/**
 * Redis cannot be reached, or did not answer in time.
 *
 * @since 0.1.0
 * @category errors
 */
export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{
  readonly cause?: unknown
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? `: ${this.cause.message}` : ""
    return `Redis is unavailable${reason}`
  }
}

/**
 * What a subscriber reads: a message published on its channel, or word that the subscription
 * connection came back after a loss (messages published meanwhile were not received).
 *
 * @since 0.1.0
 * @category models
 */
export type Delivery =
  | { readonly _tag: "Message"; readonly payload: string }
  | { readonly _tag: "Resubscribed" }

/**
 * A Lua script run with `EVALSHA` (loaded on first use, again after a Redis restart).
 *
 * @since 0.1.0
 * @category models
 */
export interface Script {
  /** A name of its own (the command it is defined as on the connection). */
  readonly name: string
  readonly numberOfKeys: number
  readonly lua: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** What every key and channel begins with. */
  readonly prefix: string
  /** Runs commands on the command connection; a failure (down, too slow, refused) is `RedisUnavailable`. */
  readonly use: <A>(f: (redis: Redis) => Promise<A>) => Effect.Effect<A, RedisUnavailable>
  /** Runs a script with these keys and arguments. */
  readonly eval: (
    script: Script,
    keys: ReadonlyArray<string>,
    args: ReadonlyArray<string | number | Buffer>
  ) => Effect.Effect<unknown, RedisUnavailable>
  /**
   * What is published on `channel` from now on (subscribed once this completes), for the
   * lifetime of the scope.
   */
  readonly subscribe: (
    channel: string,
    options?: { readonly capacity?: number }
  ) => Effect.Effect<Queue.Dequeue<Delivery>, RedisUnavailable, Scope.Scope>
  /** Are both connections (commands and subscriptions) up right now? */
  readonly isReady: Effect.Effect<boolean>
  /**
   * How long a goodbye may take when the scope closes (`Options.closeTimeout`): a part's last
   * write on its way out (this instance's key given back, say) is bounded by it.
   */
  readonly closeTimeout: Duration.Duration
  /** The command connection itself, for what the service does not cover. */
  readonly redis: Redis
}

/**
 * @since 0.1.0
 * @category tags
 */
export class RedisConnection extends Context.Tag("@effect-mcp/redis/RedisConnection")<RedisConnection, Service>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (default `redis://127.0.0.1:6379`). */
  readonly url?: string
  /** What every key and channel begins with (default `mcp:`). */
  readonly prefix?: string
  /** How long the layer waits for the first connection (default 10 seconds). */
  readonly connectTimeout?: Duration.DurationInput
  /** How long a command may take before it fails (default 5 seconds). */
  readonly commandTimeout?: Duration.DurationInput
  /** The longest wait between two reconnection attempts (default 2 seconds). */
  readonly maxReconnectDelay?: Duration.DurationInput
  /**
   * When the layer is released, how long the command connection's `QUIT` (and a part's last
   * write) may take before the connection is closed, and how long a closed connection waits for
   * Redis to close its side before it is destroyed (default 500 milliseconds: a Redis that
   * answers does in a few).
   */
  readonly closeTimeout?: Duration.DurationInput
  /** Messages kept for one subscriber that falls behind (default 10,000). */
  readonly subscriberCapacity?: number
}

/** The URL without its password, for the log. */
const redact = (url: string): string => url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@")

/**
 * Opens both connections (waiting for the first to be ready), in the scope's lifetime.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Service, RedisUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const url = options.url ?? "redis://127.0.0.1:6379"
    const prefix = options.prefix ?? "mcp:"
    const capacity = options.subscriberCapacity ?? 10_000
    const maxDelay = Duration.toMillis(options.maxReconnectDelay ?? Duration.seconds(2))
    const closeTimeout = Duration.decode(options.closeTimeout ?? Duration.millis(500))
    const runtime = yield* Effect.runtime<never>()
    const log = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect)
    const common = {
      connectTimeout: Duration.toMillis(options.connectTimeout ?? Duration.seconds(10)),
      retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), maxDelay),
      lazyConnect: true,
      // Closed (FIN sent), a connection whose Redis does not close its side is destroyed this late.
      disconnectTimeout: Duration.toMillis(closeTimeout)
    }
    let closing = false
    const watch = (redis: Redis, role: string) => {
      let lost = false
      redis.on("error", () => {
        // Each failed attempt is an error event: the log says when the connection is lost and when it is back.
      })
      redis.on("close", () => {
        if (lost || closing) return
        lost = true
        log(Effect.logWarning(`effect-mcp: lost the Redis ${role} connection to ${redact(url)}; reconnecting`))
      })
      redis.on("ready", () => {
        if (!lost) return
        lost = false
        log(Effect.logInfo(`effect-mcp: the Redis ${role} connection to ${redact(url)} is back`))
      })
    }
    /** `quit`: say goodbye (within `closeTimeout`) rather than just close. */
    const open = (role: string, extra: Record<string, unknown>, quit: boolean) =>
      Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const redis = new Redis(url, { ...common, ...extra })
            watch(redis, role)
            try {
              await redis.connect()
            } catch (cause) {
              redis.disconnect()
              throw cause
            }
            return redis
          },
          catch: (cause) => new RedisUnavailable({ cause })
        }),
        (redis) =>
          Effect.suspend(() => {
            closing = true
            // Down (reconnecting): nothing to say goodbye to, and a QUIT would wait for it to come back.
            if (!quit || redis.status !== "ready") return Effect.sync(() => redis.disconnect())
            // A Redis that does not answer (paused, cut off) is not waited for past closeTimeout.
            // (Interruptible: a finalizer is not, and the timeout could not cut it short otherwise.)
            return Effect.promise(() => redis.quit().catch(() => undefined)).pipe(
              Effect.interruptible,
              Effect.timeoutOption(closeTimeout),
              Effect.ensuring(Effect.sync(() => redis.status === "end" || redis.disconnect()))
            )
          })
      )
    const redis = yield* open("command", {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: Duration.toMillis(options.commandTimeout ?? Duration.seconds(5)),
      enableAutoPipelining: true
    }, true)
    // Subscriptions wait for the connection (queued while it is down) and are made again after it.
    // Closed without a QUIT: it has nothing to finish (its subscriptions go with it).
    const subscriber = yield* open("subscription", { autoResubscribe: true, maxRetriesPerRequest: null }, false)

    const use = <A>(f: (redis: Redis) => Promise<A>): Effect.Effect<A, RedisUnavailable> =>
      Effect.tryPromise({ try: () => f(redis), catch: (cause) => new RedisUnavailable({ cause }) })

    // By its digest; sent whole once Redis says it does not know it (first use, after a restart).
    const digests = new Map<string, string>()
    const evalScript: Service["eval"] = (script, keys, args) =>
      use(async (r) => {
        let sha = digests.get(script.lua)
        if (sha === undefined) {
          sha = Crypto.createHash("sha1").update(script.lua).digest("hex")
          digests.set(script.lua, sha)
        }
        try {
          return await r.evalsha(sha, script.numberOfKeys, ...keys, ...args)
        } catch (error) {
          if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error
          return await r.eval(script.lua, script.numberOfKeys, ...keys, ...args)
        }
      })

    // channel → its subscribers' queues
    const channels = new Map<string, Set<Queue.Queue<Delivery>>>()
    let warnedAt = 0
    const deliver = (queue: Queue.Queue<Delivery>, delivery: Delivery) => {
      if (Option.getOrElse(queue.unsafeSize(), () => 0) >= queue.capacity()) {
        const now = Date.now()
        if (now - warnedAt > 10_000) {
          warnedAt = now
          log(Effect.logWarning("effect-mcp: a Redis subscriber fell behind; its oldest messages are dropped"))
        }
      }
      // Sliding: when full, the oldest goes (an offer to a sliding queue never waits).
      Effect.runSync(Queue.offer(queue, delivery))
    }
    subscriber.on("message", (channel: string, payload: string) => {
      const queues = channels.get(channel)
      if (queues !== undefined) { for (const queue of queues) deliver(queue, { _tag: "Message", payload }) }
    })
    let subscribed = true
    /** Channels let go of while the connection was down. */
    const released = new Set<string>()
    subscriber.on("close", () => {
      subscribed = false
    })
    subscriber.on("ready", () => {
      const stale = Array.from(released).filter((channel) => !channels.has(channel))
      released.clear()
      if (stale.length > 0) subscriber.unsubscribe(...stale).catch(() => undefined)
      if (subscribed) return
      subscribed = true
      for (const queues of channels.values()) for (const queue of queues) deliver(queue, { _tag: "Resubscribed" })
    })

    /** Channels whose first SUBSCRIBE is not confirmed yet. */
    const confirmed = new Map<string, Promise<unknown>>()
    const subscribe: Service["subscribe"] = (channel, subscribeOptions) =>
      Effect.acquireRelease(
        Effect.gen(function*() {
          const queue = yield* Queue.sliding<Delivery>(subscribeOptions?.capacity ?? capacity)
          const queues = channels.get(channel)
          if (queues !== undefined) {
            queues.add(queue)
            // Subscribed once the channel's first SUBSCRIBE is confirmed.
            const confirming = confirmed.get(channel)
            if (confirming !== undefined) yield* Effect.promise(() => confirming.catch(() => undefined))
            return queue
          }
          channels.set(channel, new Set([queue]))
          const confirming = subscriber.subscribe(channel)
          confirmed.set(channel, confirming)
          yield* Effect.tryPromise({
            try: () => confirming,
            catch: (cause) => new RedisUnavailable({ cause })
          }).pipe(
            Effect.tapError(() => Effect.sync(() => channels.delete(channel))),
            Effect.ensuring(Effect.sync(() => confirmed.delete(channel)))
          )
          return queue
        }),
        (queue) =>
          Effect.suspend(() => {
            const queues = channels.get(channel)
            queues?.delete(queue)
            const last = queues !== undefined && queues.size === 0
            if (last) channels.delete(channel)
            return Effect.zipRight(
              Queue.shutdown(queue),
              // Not while the connection is down (the command would wait for it): once it is back
              // (and resubscribed), what is no longer held is unsubscribed then. Sent, not waited
              // for: the connection keeps commands in order (a SUBSCRIBE again after it is one
              // after it), and a Redis that does not answer holds up no release.
              Effect.sync(() => {
                if (!last) return
                if (subscriber.status === "ready") subscriber.unsubscribe(channel).catch(() => undefined)
                else released.add(channel)
              })
            )
          })
      )

    return {
      prefix,
      use,
      eval: evalScript,
      subscribe,
      // Both: what is published reaches no one while the subscription connection is down.
      isReady: Effect.sync(() => redis.status === "ready" && subscriber.status === "ready"),
      closeTimeout,
      redis
    } satisfies Service
  })

/**
 * The connection as a layer: every Redis-backed layer of `@effect-mcp/redis` takes it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<RedisConnection, RedisUnavailable> =>
  Layer.scoped(RedisConnection, make(options))
