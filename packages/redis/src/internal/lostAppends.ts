/**
 * The appends `RedisEventStore` lost while Redis was down, remembered by one process until Redis
 * records them (a fiber of the store's scope does, once Redis answers again): by session, then
 * stream, the highest position lost. At most `max` streams are remembered: past that, the oldest
 * session's records go (a resumption across its lost appends may then find no gap).
 *
 * The state is this process's alone, read and changed in one step each (no fiber waits between
 * two), as the store's functions need it.
 */
import * as Effect from "effect/Effect"

/** One lost append: the highest position lost of a stream of a session. */
export interface Lost {
  readonly sessionId: string
  readonly streamId: string
  readonly seq: number
}

/** What the store does with the appends it lost. */
export interface LostAppends {
  /** An append of `seq` was lost. */
  readonly remember: (lost: Lost) => Effect.Effect<void>
  /** The session ended: nothing of it needs recording. */
  readonly forget: (sessionId: string) => Effect.Effect<void>
  /** The highest position lost of a stream, if any. */
  readonly lostAt: (sessionId: string, streamId: string) => Effect.Effect<number | undefined>
  /** Every lost append, oldest session first. */
  readonly all: Effect.Effect<ReadonlyArray<Lost>>
  /** Redis recorded this one: it goes, if it is still the same (a later loss may have raised it meanwhile). */
  readonly recorded: (lost: Lost) => Effect.Effect<void>
}

/** Remembers lost appends of at most `max` streams. */
export const make = (max: number): Effect.Effect<LostAppends> =>
  Effect.sync(() => {
    // Maps keep arrival order: the first session is the oldest.
    const sessions = new Map<string, Map<string, number>>()
    const count = { streams: 0 }
    const remove = (sessionId: string, streams: Map<string, number>) => {
      sessions.delete(sessionId)
      count.streams -= streams.size
    }
    return {
      remember: ({ seq, sessionId, streamId }) =>
        Effect.sync(() => {
          const streams = sessions.get(sessionId) ?? new Map<string, number>()
          sessions.set(sessionId, streams)
          const before = streams.get(streamId)
          if (before === undefined) count.streams++
          streams.set(streamId, Math.max(before ?? -1, seq))
          for (const [oldest, records] of sessions) {
            if (count.streams <= max) break
            remove(oldest, records)
          }
        }),
      forget: (sessionId) =>
        Effect.sync(() => {
          const streams = sessions.get(sessionId)
          if (streams !== undefined) remove(sessionId, streams)
        }),
      lostAt: (sessionId, streamId) => Effect.sync(() => sessions.get(sessionId)?.get(streamId)),
      all: Effect.sync(() =>
        Array.from(sessions).flatMap(([sessionId, streams]) =>
          Array.from(streams, ([streamId, seq]) => ({ sessionId, streamId, seq }))
        )
      ),
      recorded: ({ seq, sessionId, streamId }) =>
        Effect.sync(() => {
          const streams = sessions.get(sessionId)
          if (streams?.get(streamId) !== seq) return
          streams.delete(streamId)
          count.streams--
          if (streams.size === 0) sessions.delete(sessionId)
        })
    }
  })
