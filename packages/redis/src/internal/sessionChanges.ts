/**
 * The session store's `changes`, fanned out to each follower with a bound and no loss of state.
 *
 * A change carries a session's whole state (or its end), so a follower needs only the newest of
 * each session: each follower keeps its pending changes by session, a newer one replacing the one
 * it has not taken. The states it holds are bounded in count and bytes (their length as they came
 * over the channel); past either, the oldest pending session's state is let go and only its id
 * kept: when the follower comes to it, the session's record is read again from Redis (gone: told
 * as its end), so what the follower hears is as new as what it would have heard. The ids waiting
 * so are bounded too (ten times the count): past that, the oldest is lost and logged, its replica
 * stale until its next change.
 */
import type * as SessionStore from "@effect-mcp/server/SessionStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"

/** A session's pending change: its state as it came (and its length), or only its id (re-read it). */
interface Pending {
  readonly change: SessionStore.Change | undefined
  readonly bytes: number
}

interface Follower {
  /** By session, oldest first (a newer change moves its session last). */
  readonly pending: Map<string, Pending>
  readonly held: { count: number; bytes: number }
  readonly wake: Queue.Queue<void>
}

export interface Changes {
  /** A change as it came over the channel, `bytes` its length. */
  readonly publish: (change: SessionStore.Change, bytes: number) => Effect.Effect<void>
  readonly stream: Stream.Stream<SessionStore.Change>
}

export const make = (options: {
  readonly maxCount: number
  readonly maxBytes: number
  /** The session's record, read again (none: it is gone). */
  readonly reread: (id: string) => Effect.Effect<Option.Option<SessionStore.SessionRecord>, unknown>
  readonly lose: (id: string) => Effect.Effect<void>
}): Changes => {
  const followers = new Set<Follower>()
  const maxIds = options.maxCount * 10
  const letGo = (follower: Follower, id: string, entry: Pending) => {
    if (entry.change === undefined) return
    follower.held.count--
    follower.held.bytes -= entry.bytes
    follower.pending.set(id, { change: undefined, bytes: 0 })
  }
  const add = (follower: Follower, change: SessionStore.Change, bytes: number): Array<string> => {
    const before = follower.pending.get(change.id)
    if (before !== undefined) {
      letGo(follower, change.id, before)
      follower.pending.delete(change.id)
    }
    follower.pending.set(change.id, { change, bytes })
    follower.held.count++
    follower.held.bytes += bytes
    const lost: Array<string> = []
    const oldest = follower.pending.entries()
    while (
      (follower.held.count > options.maxCount || follower.held.bytes > options.maxBytes) && follower.held.count > 1
    ) {
      const [id, entry] = oldest.next().value!
      letGo(follower, id, entry)
    }
    while (follower.pending.size > maxIds) {
      const id = follower.pending.keys().next().value!
      letGo(follower, id, follower.pending.get(id)!)
      follower.pending.delete(id)
      lost.push(id)
    }
    return lost
  }
  /** The change of a session whose state was let go: its record, read again (retried while Redis is away). */
  const reread = (id: string): Effect.Effect<SessionStore.Change> =>
    options.reread(id).pipe(
      Effect.retry(Schedule.spaced("1 second")),
      // Retried without end: it never fails.
      Effect.orDie,
      // Origin 0 is no instance's key: every follower applies it.
      Effect.map(Option.match({
        onNone: () => ({ id, state: undefined, origin: 0 }),
        onSome: (record) => ({ id, state: record.state, origin: 0 })
      }))
    )
  const next = (follower: Follower): Effect.Effect<SessionStore.Change> =>
    Effect.suspend(() => {
      const first = follower.pending.entries().next()
      if (first.done === true) return Effect.zipRight(Queue.take(follower.wake), next(follower))
      const [id, entry] = first.value
      follower.pending.delete(id)
      if (entry.change === undefined) return reread(id)
      follower.held.count--
      follower.held.bytes -= entry.bytes
      return Effect.succeed(entry.change)
    })
  return {
    publish: (change, bytes) =>
      Effect.forEach(followers, (follower) =>
        Effect.zipRight(
          Effect.forEach(add(follower, change, bytes), options.lose, { discard: true }),
          Queue.offer(follower.wake, undefined)
        ), { discard: true }),
    stream: Stream.unwrapScoped(
      Effect.map(
        Effect.acquireRelease(
          Effect.map(Queue.dropping<void>(1), (wake) => {
            const follower: Follower = { pending: new Map(), held: { count: 0, bytes: 0 }, wake }
            followers.add(follower)
            return follower
          }),
          (follower) => Effect.sync(() => followers.delete(follower))
        ),
        (follower) => Stream.repeatEffect(next(follower))
      )
    )
  }
}
