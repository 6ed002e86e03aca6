/**
 * The server's notification bus on Redis pub/sub: what one process changes (a tool added, a
 * resource updated) reaches the clients held by every other, through one channel,
 * `<prefix>bus`, its messages the events as JSON (`NotificationBus.encode`), each with the
 * `origin` its server gave it (a server skips its own when they come back).
 *
 * **When to use**: give every server of a deployment this layer (on one `RedisConnection`), so
 * that a `notifications/tools/list_changed` (say) reaches the sessions and `subscriptions/listen`
 * streams of every process, not only of the one that made the change.
 *
 * **Details**:
 *
 * - Each change is also kept in a log (`<prefix>changes`, the newest `changeLog`, written with
 *   the message in one script), from which an instance that takes over a session's GET stream
 *   tells it what changed while no instance held it (`RedisSessionStore`).
 * - Pub/sub delivers to whoever is subscribed at the moment: nothing is kept. When the
 *   subscription connection was lost and is back (`Resubscribed`), what was published meanwhile
 *   is lost; so every subscriber then receives `ListChanged` for tools, prompts and resources
 *   (without an origin: every server tells its clients, which list again). A lost
 *   `ResourceUpdated` is not made up for: a client that must not miss one reads the resource again
 *   after a list change.
 * - `publish` while Redis is down logs a warning and succeeds: the server has already told its
 *   own clients, and the other processes hear of the change with the next list change after
 *   Redis is back (the `Resubscribed` above, when their subscriptions were lost too).
 * - `subscribe` completes once Redis has confirmed the subscription; while Redis is down it waits
 *   at most `subscribeTimeout` and then completes anyway, logged, its subscription made when Redis
 *   is back (followed by the three `ListChanged`).
 * - Events are encoded and decoded with the bus's schema (`NotificationBus.Event`): a message on
 *   the channel that is not an event is skipped, logged (at most one warning every 10 seconds) and
 *   counted (`RedisConnection.recordsLost`, `bus-event`).
 * - Each subscriber holds at most `capacity` events not yet taken (the publisher waits in this
 *   process, the connection's own bounded queue dropping the oldest behind it, with a warning).
 *
 * @since 0.1.0
 */
import { NotificationBus } from "@effect-mcp/server"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Loss from "./internal/loss.js"
import * as RedisConnection from "./RedisConnection.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Events kept for one subscriber that has not taken them yet (default 1000). */
  readonly capacity?: number
  /** How long `subscribe` waits for Redis to confirm the subscription (default 5 seconds). */
  readonly subscribeTimeout?: Duration.DurationInput
  /** Changes kept in the log, the newest (default 1000). */
  readonly changeLog?: number
}

/**
 * Publishes a change and logs it (the message goes even when Redis refuses to log it: full, under
 * `noeviction`). ARGV: prefix, channel, event, the log's length.
 */
const publishScript: RedisConnection.Script = {
  name: "mcpBusPublish",
  numberOfKeys: 0,
  lua: `
local P = ARGV[1]
local log, max = P .. 'changes', tonumber(ARGV[4])
local heard = redis.call('PUBLISH', ARGV[2], ARGV[3])
local logged = redis.pcall('XADD', log, '*', 'e', ARGV[3])
if type(logged) == 'table' and logged.err then return heard end
local over = redis.call('XLEN', log) - max
if over > 0 then
  local old = redis.call('XRANGE', log, '-', '+', 'COUNT', over)
  for _, entry in ipairs(old) do redis.call('XDEL', log, entry[1]) end
  redis.pcall('SET', P .. 'changes:cut', old[#old][1])
end
return heard`
}

/** An event as the channel and the change log carry it: its JSON. */
const EventJson = Schema.parseJson(NotificationBus.Event)
const encodeEvent = Schema.encode(EventJson)
const decodeEvent = Schema.decodeUnknownEither(EventJson)

/** What every subscriber hears after messages were lost: each list may have changed. */
const everyList: ReadonlyArray<NotificationBus.Event> = [
  NotificationBus.listChanged("tools"),
  NotificationBus.listChanged("prompts"),
  NotificationBus.listChanged("resources")
]

/**
 * The bus on the connection in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<NotificationBus.Service, never, RedisConnection.RedisConnection> =>
  Effect.gen(function*() {
    const redis = yield* RedisConnection.RedisConnection
    const channel = `${redis.prefix}bus`
    const capacity = options.capacity ?? 1000
    const changeLog = options.changeLog ?? 1000
    for (const [name, value] of [["capacity", capacity], ["changeLog", changeLog]] as const) {
      if (!Number.isSafeInteger(value) || value <= 0) {
        return yield* Effect.dieMessage(`${name} must be a positive integer (got ${value})`)
      }
    }
    const wait = options.subscribeTimeout ?? Duration.seconds(5)
    const lose = yield* Loss.make

    const publish: NotificationBus.Service["publish"] = (event) =>
      encodeEvent(event).pipe(
        // An event of ours that is not one is a bug.
        Effect.orDie,
        Effect.flatMap((text) => redis.eval(publishScript, [], [redis.prefix, channel, text, changeLog])),
        Effect.asVoid,
        Effect.catchAll((error) =>
          Effect.logWarning(
            `effect-mcp: a change could not be published on the Redis bus (${error.message}); ` +
              "other processes hear of it with the next change"
          )
        )
      )

    /** Turns what the connection delivers into events for `events` (a message that is not one is lost). */
    const deliverTo = (events: Queue.Enqueue<NotificationBus.Event>) => (delivery: RedisConnection.Delivery) => {
      if (delivery._tag === "Resubscribed") return Queue.offerAll(events, everyList)
      const decoded = decodeEvent(delivery.payload)
      return Either.isRight(decoded)
        ? Queue.offer(events, decoded.right)
        : lose("bus-event", `the channel ${channel}`, decoded.left)
    }

    const subscribe: NotificationBus.Service["subscribe"] = Effect.gen(function*() {
      const events = yield* Effect.acquireRelease(Queue.bounded<NotificationBus.Event>(capacity), Queue.shutdown)
      const deliver = deliverTo(events)
      // Decided once: subscribed in time, or late (then what came before is lost, and the subscriber is told).
      const verdict = yield* Deferred.make<"subscribed" | "late">()
      // Subscribes (again and again while Redis refuses), then turns messages into events.
      const pump = Effect.gen(function*() {
        const deliveries = yield* Effect.retry(
          redis.subscribe(channel, { capacity }),
          Schedule.exponential(Duration.millis(100)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(5))))
        )
        if (!(yield* Deferred.succeed(verdict, "subscribed"))) {
          // The connection says so too when it came back meanwhile (its `Resubscribed` is then first): the
          // subscriber is told once.
          const [first, ...rest] = Chunk.toReadonlyArray(yield* deliveries.clear)
          yield* Queue.offerAll(events, everyList)
          if (first !== undefined && first._tag === "Message") yield* deliver(first)
          for (const delivery of rest) yield* deliver(delivery)
        }
        // One at a time: what this subscriber holds is its queue, the one delivery on its way, and the mailbox.
        yield* Effect.forever(Effect.flatMap(deliveries.take, deliver)).pipe(
          Effect.catchTag("NoSuchElementException", () => Effect.void)
        )
      })
      yield* Effect.forkScoped(Effect.scoped(pump))
      const confirmed = yield* Effect.timeoutOption(Deferred.await(verdict), wait)
      if (Option.isNone(confirmed) && (yield* Deferred.succeed(verdict, "late"))) {
        yield* Effect.logWarning(
          `effect-mcp: the Redis bus could not subscribe to ${channel} yet; it will once Redis is back ` +
            "(its subscriber then hears that every list may have changed)"
        )
      }
      return events
    })

    return { publish, subscribe, ready: redis.isReady } satisfies NotificationBus.Service
  })

/**
 * The bus as the server's `NotificationBus`, on the connection of the context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<NotificationBus.NotificationBus, never, RedisConnection.RedisConnection> =>
  Layer.effect(NotificationBus.NotificationBus, make(options))
