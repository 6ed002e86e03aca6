/**
 * The subscriptions of one connection, shared: any number of subscribers to one channel cost one
 * `SUBSCRIBE`. Each subscriber reads a mailbox of its own, bounded, the oldest message going first
 * when it falls that far behind (with a warning, at most one every 10 seconds), and hears
 * `Resubscribed` when the connection came back after a loss.
 *
 * `ioredis` tells of messages and of its state through callbacks: a message is put in each
 * subscriber's mailbox there (`unsafeOffer`, a sliding mailbox never waits), and the commands a
 * callback or a release must send in order with what follows them on the connection (`SUBSCRIBE`,
 * `UNSUBSCRIBE`) are sent by a fiber started at once on the runtime of the scope.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as MutableRef from "effect/MutableRef"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { Redis } from "ioredis"
import { type Delivery, RedisUnavailable } from "../RedisConnection.js"

/** One subscriber: its mailbox and how many messages it holds at most. */
interface Subscriber {
  readonly mailbox: Mailbox.Mailbox<Delivery>
  readonly capacity: number
}

/** A channel subscribed to: its subscribers, and whether Redis confirmed the `SUBSCRIBE`. */
interface Channel {
  readonly subscribers: Set<Subscriber>
  readonly confirmed: Deferred.Deferred<void, RedisUnavailable>
}

/** How often at most a subscriber that fell behind is warned of. */
const warnEvery = Duration.toMillis(Duration.seconds(10))

/**
 * `subscribe` on the subscription connection `subscriber`, for the scope's life (its callbacks
 * are removed when it closes).
 */
export const make = (
  subscriber: Redis,
  defaultCapacity: number
): Effect.Effect<
  (
    channel: string,
    options?: { readonly capacity?: number }
  ) => Effect.Effect<Mailbox.ReadonlyMailbox<Delivery>, RedisUnavailable, Scope.Scope>,
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const clock = yield* Effect.clock
    /**
     * Runs `effect` on the scope's runtime, started at once: a command it sends goes out now, in
     * order with any sent after it on the connection.
     */
    const start = (effect: Effect.Effect<void>) => void Runtime.runFork(runtime)(effect)
    const channels = new Map<string, Channel>()
    /** Channels let go of while the connection was down: unsubscribed once it is back. */
    const released = new Set<string>()
    const warnedAt = MutableRef.make(Number.NEGATIVE_INFINITY)

    const deliver = (to: Subscriber, delivery: Delivery) => {
      if (Option.getOrElse(to.mailbox.unsafeSize(), () => 0) >= to.capacity) {
        const now = clock.unsafeCurrentTimeMillis()
        if (now - MutableRef.get(warnedAt) >= warnEvery) {
          MutableRef.set(warnedAt, now)
          start(Effect.logWarning("effect-mcp: a Redis subscriber fell behind; its oldest messages are dropped"))
        }
      }
      // Sliding: when full, the oldest goes.
      to.mailbox.unsafeOffer(delivery)
    }
    const unsubscribe = (names: ReadonlyArray<string>) =>
      start(Effect.ignore(Effect.tryPromise(() => subscriber.unsubscribe(...names))))

    const onMessage = (name: string, payload: string) => {
      const channel = channels.get(name)
      if (channel !== undefined) { for (const to of channel.subscribers) deliver(to, { _tag: "Message", payload }) }
    }
    // `ready` after the connection came back (ioredis has sent its SUBSCRIBEs again by then).
    const onReady = () => {
      const stale = Array.from(released).filter((name) => !channels.has(name))
      released.clear()
      if (stale.length > 0) unsubscribe(stale)
      for (const channel of channels.values()) {
        for (const to of channel.subscribers) deliver(to, { _tag: "Resubscribed" })
      }
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        subscriber.on("message", onMessage)
        subscriber.on("ready", onReady)
      }),
      () =>
        Effect.sync(() => {
          subscriber.off("message", onMessage)
          subscriber.off("ready", onReady)
        })
    )

    /** A subscriber of channel `name`, added (the channel subscribed to if it is its first). */
    const join = (name: string, capacity: number) =>
      Effect.gen(function*() {
        const to: Subscriber = { mailbox: yield* Mailbox.make<Delivery>({ capacity, strategy: "sliding" }), capacity }
        const known = channels.get(name)
        if (known !== undefined) {
          known.subscribers.add(to)
          return { channel: known, to }
        }
        const channel: Channel = {
          subscribers: new Set([to]),
          confirmed: yield* Deferred.make<void, RedisUnavailable>()
        }
        channels.set(name, channel)
        // Subscriptions wait for the connection while it is down (made when it is back).
        start(
          Effect.tryPromise({
            try: () => subscriber.subscribe(name),
            catch: (cause) => new RedisUnavailable({ cause })
          })
            .pipe(
              Effect.tapError(() => Effect.sync(() => channels.get(name) === channel && channels.delete(name))),
              Effect.exit,
              Effect.flatMap((exit) => Deferred.done(channel.confirmed, Exit.asVoid(exit)))
            )
        )
        return { channel, to }
      })

    /** The subscriber leaves; the last one of its channel unsubscribes it. */
    const leave = (name: string, channel: Channel, to: Subscriber) =>
      Effect.suspend(() => {
        channel.subscribers.delete(to)
        if (channel.subscribers.size === 0 && channels.get(name) === channel) {
          channels.delete(name)
          // Not while the connection is down (the command would wait for it): once it is back (and
          // resubscribed), what is no longer held is unsubscribed then. Sent, not waited for: a
          // Redis that does not answer holds up no release.
          if (subscriber.status === "ready") unsubscribe([name])
          else released.add(name)
        }
        return to.mailbox.shutdown
      })

    return (name, options) =>
      Effect.gen(function*() {
        const { channel, to } = yield* Effect.acquireRelease(
          join(name, options?.capacity ?? defaultCapacity),
          ({ channel, to }) => leave(name, channel, to)
        )
        // Subscribed once Redis confirmed the channel's first SUBSCRIBE.
        yield* Deferred.await(channel.confirmed)
        return to.mailbox
      })
  })
