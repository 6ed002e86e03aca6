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
 * Each subscriber reads from a mailbox of its own, bounded (the oldest message goes first when a
 * subscriber falls that far behind, with a warning), and hears `Resubscribed` after the
 * subscription connection came back: what was published meanwhile is lost, and the subscriber
 * decides what to do about it (the notification bus tells its clients that every list may have
 * changed).
 *
 * **What is read back** from Redis is decoded with a schema by each part; a record that does not
 * decode is lost alone (skipped, logged, and counted in `recordsLost`), never the part.
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
import type * as Mailbox from "effect/Mailbox"
import type * as Metric from "effect/Metric"
import type * as Scope from "effect/Scope"
import type { Redis } from "ioredis"
import * as Crypto from "node:crypto"
import * as Connection from "./internal/connection.js"
import * as Loss from "./internal/loss.js"
import * as Subscriptions from "./internal/subscriptions.js"

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
 * A Lua script run with `EVALSHA` (sent whole once Redis says it does not know it: on first use,
 * again after a Redis restart).
 *
 * @since 0.1.0
 * @category models
 */
export interface Script {
  /** A name of its own. */
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
   * lifetime of the scope: a mailbox of its own, holding at most `capacity` messages (the oldest
   * dropped), ended when the scope closes.
   */
  readonly subscribe: (
    channel: string,
    options?: { readonly capacity?: number }
  ) => Effect.Effect<Mailbox.ReadonlyMailbox<Delivery>, RedisUnavailable, Scope.Scope>
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

/**
 * Records read from Redis that did not decode, by kind (the label `record`: `task`,
 * `task-change`, `session`, `session-change`, `session-delivery`, `pending-frames`, `bus-event`,
 * `reply`: a script's or a command's answer). Each was skipped, alone, and logged (at most one warning every 10 seconds
 * per part): a part that reads one goes on.
 *
 * @since 0.1.0
 * @category metrics
 */
export const recordsLost: Metric.Metric.Counter<number> = Loss.recordsLost

/** Is this Redis saying it does not know the script (first use, or it restarted)? */
const isNoScript = (error: RedisUnavailable): boolean =>
  error.cause instanceof Error && error.cause.message.startsWith("NOSCRIPT")

/**
 * Opens both connections (waiting for the first to be ready), in the scope's lifetime.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Service, RedisUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const url = options.url ?? "redis://127.0.0.1:6379"
    const maxDelay = Duration.toMillis(options.maxReconnectDelay ?? Duration.seconds(2))
    const closeTimeout = Duration.decode(options.closeTimeout ?? Duration.millis(500))
    const common = {
      connectTimeout: Duration.toMillis(options.connectTimeout ?? Duration.seconds(10)),
      retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), maxDelay),
      // Closed (FIN sent), a connection whose Redis does not close its side is destroyed this late.
      disconnectTimeout: Duration.toMillis(closeTimeout)
    }
    const redis = yield* Connection.open({
      url,
      role: "command",
      redis: {
        ...common,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: Duration.toMillis(options.commandTimeout ?? Duration.seconds(5)),
        enableAutoPipelining: true
      },
      quit: true,
      closeTimeout
    })
    // Subscriptions wait for the connection (queued while it is down) and are made again after it.
    // Closed without a QUIT: it has nothing to finish (its subscriptions go with it).
    const subscriber = yield* Connection.open({
      url,
      role: "subscription",
      redis: { ...common, autoResubscribe: true, maxRetriesPerRequest: null },
      quit: false,
      closeTimeout
    })
    const subscribe = yield* Subscriptions.make(subscriber, options.subscriberCapacity ?? 10_000)

    const use = <A>(f: (redis: Redis) => Promise<A>): Effect.Effect<A, RedisUnavailable> =>
      Effect.tryPromise({ try: () => f(redis), catch: (cause) => new RedisUnavailable({ cause }) })

    // By its digest (one per script, computed once); sent whole once Redis says it does not know it.
    const digests = new Map<string, string>()
    const digestOf = (lua: string): string => {
      const known = digests.get(lua)
      if (known !== undefined) return known
      const digest = Crypto.createHash("sha1").update(lua).digest("hex")
      digests.set(lua, digest)
      return digest
    }
    const evaluate: Service["eval"] = (script, keys, args) =>
      Effect.suspend(() =>
        use((r) => r.evalsha(digestOf(script.lua), script.numberOfKeys, ...keys, ...args)).pipe(
          Effect.catchIf(isNoScript, () => use((r) => r.eval(script.lua, script.numberOfKeys, ...keys, ...args)))
        )
      )

    return {
      prefix: options.prefix ?? "mcp:",
      use,
      eval: evaluate,
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
