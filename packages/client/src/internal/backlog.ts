/**
 * The client's notifications as its subscribers hear them: one sliding PubSub bounded by count
 * (`maxQueuedNotifications`), and by bytes (`maxQueuedNotificationBytes`): what the PubSub still
 * holds for a subscriber that has not taken it is counted, and past the bound the oldest of it is
 * emptied (its slot stays, holding nothing, and no subscriber sees it), as the count bound slides
 * the oldest out. The PubSub is shared, so the bound holds per subscriber and in total; the newest
 * notification is always kept (one alone is bounded by the transport's message limit).
 *
 * A notification's size is estimated without serialising it: a walk of its parsed value (string
 * lengths, 8 bytes a number, a few bytes a key or entry), stopped once it passes the bound.
 */
import type { JsonRpc } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** One notification the PubSub holds, emptied when the bytes held pass the bound. */
interface Slot {
  notification: JsonRpc.Notification | undefined
  readonly bytes: number
}

/** One subscriber's inbox: the notifications published from its subscription on. */
export interface Inbox {
  /** The next notification (emptied ones skipped). */
  readonly take: Effect.Effect<JsonRpc.Notification>
  /** The notifications, one at a time (a chunk taken at once would hold them outside the bound). */
  readonly stream: Stream.Stream<JsonRpc.Notification>
}

/** The client's notifications, bounded by count and by bytes. */
export interface Backlog {
  readonly publish: (notification: JsonRpc.Notification) => Effect.Effect<void>
  readonly subscribe: Effect.Effect<Inbox, never, Scope.Scope>
  /** Every notification from when it is run on. */
  readonly stream: Stream.Stream<JsonRpc.Notification>
}

/** The estimated size of a parsed JSON value as sent, at most a little past `cap` (the walk stops there). */
export const sizeOf = (root: unknown, cap: number): number => {
  let bytes = 0
  const stack: Array<unknown> = [root]
  while (stack.length > 0 && bytes <= cap) {
    const value = stack.pop()
    if (typeof value === "string") {
      bytes += value.length + 2
    } else if (Array.isArray(value)) {
      bytes += 2 + value.length
      for (let i = 0; i < value.length && bytes <= cap; i++) stack.push(value[i])
    } else if (typeof value === "object" && value !== null) {
      bytes += 2
      for (const key in value) {
        bytes += key.length + 4
        stack.push((value as Record<string, unknown>)[key])
      }
    } else {
      bytes += 8
    }
  }
  return bytes
}

/** An inbox on `queue`; `taken` after each slot it takes (what every subscriber took is let go). */
const inboxOf = (queue: Queue.Dequeue<Slot>, taken: Effect.Effect<void>): Inbox => {
  const take: Effect.Effect<JsonRpc.Notification> = Effect.flatMap(
    Effect.zipLeft(Queue.take(queue), taken),
    (slot) => slot.notification === undefined ? take : Effect.succeed(slot.notification)
  )
  return {
    take,
    // One at a time: a chunk taken at once would hold its notifications outside the bound.
    stream: Stream.repeatEffect(take)
  }
}

export const make = (maxCount: number, maxBytes: number): Effect.Effect<Backlog, never, Scope.Scope> =>
  Effect.map(Effect.acquireRelease(PubSub.sliding<Slot>(maxCount), PubSub.shutdown), (pubsub) => {
    /** The newest slots the PubSub holds that are not emptied, oldest first from `head`; their bytes. */
    const held: Array<Slot | undefined> = []
    const counted = { head: 0, bytes: 0 }
    const drop = () => {
      const slot = held[counted.head]!
      // Let go of here too: a slot every subscriber took must not be kept alive by this list.
      held[counted.head] = undefined
      counted.head++
      counted.bytes -= slot.bytes
      if (counted.head > 1024 && counted.head * 2 > held.length) {
        held.splice(0, counted.head)
        counted.head = 0
      }
      return slot
    }
    // What every subscriber took already, or the count bound slid out, is no longer held.
    const release = (holding: number) => {
      while (held.length - counted.head > holding) drop()
    }
    const account = (slot: Slot, holding: number) => {
      held.push(slot)
      counted.bytes += slot.bytes
      release(holding)
      while (counted.bytes > maxBytes && held.length - counted.head > 1) drop().notification = undefined
    }
    const taken = Effect.map(PubSub.size(pubsub), release)
    const subscribe = Effect.map(PubSub.subscribe(pubsub), (queue) => inboxOf(queue, taken))
    return {
      publish: (notification) =>
        Effect.suspend(() => {
          const slot: Slot = { notification, bytes: notification.method.length + sizeOf(notification.params, maxBytes) }
          return Effect.flatMap(
            PubSub.publish(pubsub, slot),
            () => Effect.map(PubSub.size(pubsub), (holding) => account(slot, holding))
          )
        }),
      subscribe,
      stream: Stream.unwrapScoped(Effect.map(subscribe, (inbox) => inbox.stream))
    }
  })
