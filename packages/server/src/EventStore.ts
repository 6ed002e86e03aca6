/**
 * Where Streamable HTTP keeps the SSE events it sent, so a client that lost a stream can
 * resume it with `Last-Event-ID` and lose nothing. Only SSE events are kept: a request answered
 * as plain JSON never enters the store. In memory by default (bounded in bytes per session); a
 * shared store (Redis, say) lets a session's resumption reach another process.
 *
 * Event ids are `<streamId>_<seq>`: unique per session and naming their stream, so a replay
 * never crosses streams. A resumption the store cannot serve whole (the stream is unknown, or
 * some of its events after `Last-Event-ID` were evicted) fails with `EventsUnavailable`: a gap
 * is an error, never silent.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"

/**
 * A stored event.
 *
 * @since 0.1.0
 * @category models
 */
export interface Event {
  readonly id: string
  readonly data: string
}

/**
 * The events after a `Last-Event-ID` cannot all be replayed: its stream is unknown (never seen,
 * or dropped), or some of its events were evicted.
 *
 * @since 0.1.0
 * @category errors
 */
export class EventsUnavailable extends Data.TaggedError("EventsUnavailable")<{
  readonly lastEventId: string
  readonly reason: "unknown-stream" | "evicted"
}> {
  override get message(): string {
    return this.reason === "evicted"
      ? `Events after ${this.lastEventId} are no longer kept`
      : `No stream is known for Last-Event-ID ${this.lastEventId}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Stores an event of a stream. */
  readonly append: (sessionId: string, event: Event) => Effect.Effect<void>
  /** The events of the stream that `lastEventId` belongs to, after it: all of them, or `EventsUnavailable`. */
  readonly after: (sessionId: string, lastEventId: string) => Effect.Effect<ReadonlyArray<Event>, EventsUnavailable>
  /** Forgets every event of a session (it ended). */
  readonly clear: (sessionId: string) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class EventStore extends Context.Tag("@effect-mcp/server/EventStore")<EventStore, Service>() {}

/**
 * The id of an event: its stream and its position.
 *
 * @since 0.1.0
 * @category constructors
 */
export const eventId = (streamId: string, seq: number): string => `${streamId}_${seq}`

/**
 * The stream and position an event id names, if it is one of ours.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseEventId = (id: string): { readonly streamId: string; readonly seq: number } | undefined => {
  const at = id.lastIndexOf("_")
  if (at <= 0) return undefined
  const seq = Number(id.slice(at + 1))
  return Number.isInteger(seq) && seq >= 0 ? { streamId: id.slice(0, at), seq } : undefined
}

/**
 * Options of the in-memory store.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryOptions {
  /** Bytes of event data kept per session, the newest (default 2 MiB): older events are evicted. */
  readonly maxBytesPerSession?: number
  /** Events kept per stream, the newest (default 1000). */
  readonly maxEventsPerStream?: number
  /** Streams kept per session, the newest (default 100): older ones can no longer be resumed. */
  readonly maxStreamsPerSession?: number
}

interface Kept {
  readonly seq: number
  readonly event: Event
  /** Dropped from its stream (by count, or with its stream): its `order` entry is dead. */
  dropped: boolean
}

interface StreamEvents {
  readonly events: Array<Kept>
  /** The highest seq evicted from this stream (-1: none). */
  evictedUpTo: number
}

interface SessionEvents {
  readonly streams: Map<string, StreamEvents>
  /** Every kept event in arrival order, for eviction by bytes; entries before `head` are gone. */
  order: Array<{ readonly stream: StreamEvents; readonly kept: Kept }>
  head: number
  bytes: number
  /** Events kept (not dropped): `order` is compacted when its dead entries outnumber them. */
  live: number
}

const sizeOf = (event: Event) => event.data.length + event.id.length

/**
 * An in-memory store: per session at most `maxBytesPerSession` bytes of events, at most
 * `maxEventsPerStream` events of each of the last `maxStreamsPerSession` streams.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: MemoryOptions = {}): Effect.Effect<Service> =>
  Effect.map(
    Ref.make(new Map<string, SessionEvents>()),
    (ref): Service => {
      const maxBytes = options.maxBytesPerSession ?? 2 * 1024 * 1024
      const maxEvents = options.maxEventsPerStream ?? 1000
      const maxStreams = options.maxStreamsPerSession ?? 100

      const drop = (session: SessionEvents, kept: Kept) => {
        kept.dropped = true
        session.live--
        session.bytes -= sizeOf(kept.event)
      }

      const evictOldest = (session: SessionEvents) => {
        const oldest = session.order[session.head++]
        if (oldest.kept.dropped) return
        const index = oldest.stream.events.indexOf(oldest.kept)
        if (index >= 0) oldest.stream.events.splice(index, 1)
        oldest.stream.evictedUpTo = Math.max(oldest.stream.evictedUpTo, oldest.kept.seq)
        drop(session, oldest.kept)
      }

      /** Forgets the entries of `order` that no stream holds any more (evicted, dropped by count). */
      const compact = (session: SessionEvents) => {
        if (session.order.length - session.head <= 2 * session.live + 1024) return
        session.order = session.order.slice(session.head).filter((entry) => !entry.kept.dropped)
        session.head = 0
      }

      return {
        append: (sessionId, event) =>
          Ref.update(ref, (sessions) => {
            const parsed = parseEventId(event.id)
            if (parsed === undefined) return sessions
            let session = sessions.get(sessionId)
            if (session === undefined) {
              sessions.set(sessionId, session = { streams: new Map(), order: [], head: 0, bytes: 0, live: 0 })
            }
            let stream = session.streams.get(parsed.streamId)
            if (stream === undefined) {
              session.streams.set(parsed.streamId, stream = { events: [], evictedUpTo: -1 })
              // Maps keep insertion order: the first key is the oldest stream.
              if (session.streams.size > maxStreams) {
                const [oldestId, oldest] = session.streams.entries().next().value!
                session.streams.delete(oldestId)
                for (const kept of oldest.events) drop(session, kept)
                oldest.events.length = 0
              }
            }
            const kept: Kept = { seq: parsed.seq, event, dropped: false }
            stream.events.push(kept)
            session.order.push({ stream, kept })
            session.bytes += sizeOf(event)
            session.live++
            if (stream.events.length > maxEvents) {
              const dropped = stream.events.splice(0, stream.events.length - maxEvents)
              for (const d of dropped) drop(session, d)
              stream.evictedUpTo = Math.max(stream.evictedUpTo, dropped[dropped.length - 1].seq)
            }
            while (session.bytes > maxBytes && session.head < session.order.length) evictOldest(session)
            compact(session)
            return sessions
          }),
        after: (sessionId, lastEventId) =>
          Effect.flatMap(Ref.get(ref), (sessions) => {
            const parsed = parseEventId(lastEventId)
            const stream = parsed === undefined ? undefined : sessions.get(sessionId)?.streams.get(parsed.streamId)
            if (parsed === undefined || stream === undefined) {
              return Effect.fail(new EventsUnavailable({ lastEventId, reason: "unknown-stream" }))
            }
            if (stream.evictedUpTo > parsed.seq) {
              return Effect.fail(new EventsUnavailable({ lastEventId, reason: "evicted" }))
            }
            return Effect.succeed(stream.events.filter((e) => e.seq > parsed.seq).map((e) => e.event))
          }),
        clear: (sessionId) =>
          Ref.update(ref, (sessions) => {
            sessions.delete(sessionId)
            return sessions
          })
      }
    }
  )

/**
 * The in-memory store as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options: MemoryOptions = {}): Layer.Layer<EventStore> =>
  Layer.effect(EventStore, makeMemory(options))
