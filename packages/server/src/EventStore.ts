/**
 * Where Streamable HTTP keeps the SSE events it sent, so a client that lost a stream can
 * resume it with `Last-Event-ID` and lose nothing. Only SSE events of streams a client can resume
 * are kept: a request answered as plain JSON never enters the store, nor does a session whose
 * revision has no resumption (2024-11-05). In memory by default (bounded in bytes per session and
 * across sessions); a shared store (Redis, say) lets a session's resumption reach another process.
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
 * or dropped), or some of its events were evicted, or the store cannot be reached (a shared
 * store whose server is down).
 *
 * @since 0.1.0
 * @category errors
 */
export class EventsUnavailable extends Data.TaggedError("EventsUnavailable")<{
  readonly lastEventId: string
  readonly reason: "unknown-stream" | "evicted" | "unavailable"
}> {
  override get message(): string {
    return this.reason === "evicted"
      ? `Events after ${this.lastEventId} are no longer kept`
      : this.reason === "unavailable"
      ? "The event store cannot be reached"
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
  /**
   * Whether the store can serve now (a shared one: its backing service answers), for the HTTP
   * handler's `readyPath`. Absent: always.
   */
  readonly ready?: Effect.Effect<boolean> | undefined
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
  /**
   * Bytes held for all sessions together (default 64 MiB): event data and the records that keep
   * it. Past it, the session holding the most loses its oldest events, until the total is under
   * again; a session that holds little keeps its events however many sessions there are.
   */
  readonly maxBytes?: number
  /** Events kept per stream, the newest (default 1000). */
  readonly maxEventsPerStream?: number
  /** Streams kept per session, the newest (default 100): older ones can no longer be resumed. */
  readonly maxStreamsPerSession?: number
}

/**
 * The in-memory store, with what it holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface Memory extends Service {
  /** The bytes held as `maxBytes` counts them: by one session, or (without one) by all. */
  readonly bytes: (sessionId?: string) => Effect.Effect<number>
}

interface Kept {
  readonly seq: number
  readonly event: Event
  /** The bytes of its strings (`sizeOf`). */
  readonly size: number
  readonly stream: StreamEvents
  /** Its neighbours in its session's arrival order (older, newer), while it is kept. */
  older: Kept | undefined
  newer: Kept | undefined
}

interface StreamEvents {
  /** Kept events in arrival order: the session's oldest event is its stream's first. */
  readonly events: Array<Kept>
  /** The highest seq evicted from this stream (-1: none). */
  evictedUpTo: number
}

interface SessionEvents {
  readonly id: string
  /** By stream id; Maps keep insertion order, so the first is the oldest stream. */
  readonly streams: Map<string, StreamEvents>
  /** The ends of the list of kept events in arrival order, for eviction by bytes. */
  oldest: Kept | undefined
  newest: Kept | undefined
  events: number
  /** The bytes of its events' strings: what `maxBytesPerSession` bounds. */
  bytes: number
  /** Its index in `State.heap`. */
  slot: number
}

interface State {
  readonly sessions: Map<string, SessionEvents>
  /** Every session, as a binary max-heap on `held`: the one holding the most is first. */
  readonly heap: Array<SessionEvents>
  /** The sum of `held` over the sessions: what `maxBytes` bounds. */
  total: number
}

/**
 * A string's bytes as JavaScript engines hold it (V8, JavaScriptCore): one per UTF-16 code unit
 * when every unit fits in Latin-1 (JSON text mostly does), two otherwise.
 */
const bytesOf = (s: string): number => /[\u0100-\uffff]/.test(s) ? 2 * s.length : s.length

const sizeOf = (event: Event): number => bytesOf(event.data) + bytesOf(event.id)

// What V8 (Node 20, 64-bit) holds beyond the strings' characters, as measured (about 150, 265
// and 330 bytes), rounded up: per kept event (its records, string headers, array slots), per
// stream (its record and map entry), per session (its record, map entry and heap slot).
const eventOverhead = 160
const streamOverhead = 272
const sessionOverhead = 512

/** What a session holds: its events' strings and the records that keep them. */
const held = (session: SessionEvents): number =>
  session.bytes + session.events * eventOverhead + session.streams.size * streamOverhead + sessionOverhead

const place = (heap: Array<SessionEvents>, session: SessionEvents, slot: number) => {
  heap[slot] = session
  session.slot = slot
}

/** Restores the heap after `session`'s `held` changed. */
const reheap = (heap: Array<SessionEvents>, session: SessionEvents): void => {
  const size = held(session)
  let slot = session.slot
  while (slot > 0) {
    const parent = (slot - 1) >> 1
    if (held(heap[parent]) >= size) break
    place(heap, heap[parent], slot)
    slot = parent
  }
  for (;;) {
    let child = 2 * slot + 1
    if (child >= heap.length) break
    if (child + 1 < heap.length && held(heap[child + 1]) > held(heap[child])) child++
    if (held(heap[child]) <= size) break
    place(heap, heap[child], slot)
    slot = child
  }
  place(heap, session, slot)
}

/**
 * An in-memory store: per session at most `maxBytesPerSession` bytes of events, at most
 * `maxEventsPerStream` events of each of the last `maxStreamsPerSession` streams; all sessions
 * together at most `maxBytes`.
 *
 * Bytes are counted as held: a string's UTF-16 code units, one byte each when all of them are
 * Latin-1, two otherwise; the `maxBytes` total adds what the records holding events, streams and
 * sessions take. Past `maxBytes` the largest session is trimmed first (its oldest event, then,
 * once it has none, its oldest stream), again and again until the total is under: after every
 * `append` the total is at most `maxBytes`, sessions that fill the store shrink each other to an
 * equal share, and one that holds less than its share loses nothing. An evicted event is a gap:
 * a resumption that needs it fails with `EventsUnavailable`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: MemoryOptions = {}): Effect.Effect<Memory> =>
  Effect.map(
    Ref.make<State>({ sessions: new Map(), heap: [], total: 0 }),
    (ref): Memory => {
      const maxBytesPerSession = options.maxBytesPerSession ?? 2 * 1024 * 1024
      const maxBytes = options.maxBytes ?? 64 * 1024 * 1024
      const maxEvents = options.maxEventsPerStream ?? 1000
      const maxStreams = options.maxStreamsPerSession ?? 100

      /** `kept` leaves its session's arrival list (it was dropped or evicted). */
      const unlink = (session: SessionEvents, kept: Kept) => {
        if (kept.older === undefined) session.oldest = kept.newer
        else kept.older.newer = kept.newer
        if (kept.newer === undefined) session.newest = kept.older
        else kept.newer.older = kept.older
        kept.older = kept.newer = undefined
        session.events--
        session.bytes -= kept.size
      }

      /** The oldest event of a session goes; its stream remembers the gap. */
      const evictOldest = (session: SessionEvents) => {
        const oldest = session.oldest!
        oldest.stream.events.shift()
        oldest.stream.evictedUpTo = Math.max(oldest.stream.evictedUpTo, oldest.seq)
        unlink(session, oldest)
      }

      const forget = (state: State, session: SessionEvents) => {
        state.sessions.delete(session.id)
        state.total -= held(session)
        const last = state.heap.pop()!
        if (last !== session) {
          place(state.heap, last, session.slot)
          reheap(state.heap, last)
        }
      }

      /** The session holding the most gives up its oldest event (its oldest stream, when it has none). */
      const trimLargest = (state: State) => {
        const largest = state.heap[0]
        const before = held(largest)
        if (largest.oldest !== undefined) {
          evictOldest(largest)
        } else {
          // Only records of streams whose events all went: a resumption of this one is now unknown-stream.
          largest.streams.delete(largest.streams.keys().next().value!)
        }
        state.total += held(largest) - before
        if (largest.streams.size === 0) forget(state, largest)
        else reheap(state.heap, largest)
      }

      const append = (state: State, sessionId: string, event: Event) => {
        const parsed = parseEventId(event.id)
        if (parsed === undefined) return
        let session = state.sessions.get(sessionId)
        if (session === undefined) {
          session = {
            id: sessionId,
            streams: new Map(),
            oldest: undefined,
            newest: undefined,
            events: 0,
            bytes: 0,
            slot: state.heap.length
          }
          state.sessions.set(sessionId, session)
          state.heap.push(session)
          state.total += held(session)
        }
        const before = held(session)
        let stream = session.streams.get(parsed.streamId)
        if (stream === undefined) {
          session.streams.set(parsed.streamId, stream = { events: [], evictedUpTo: -1 })
          if (session.streams.size > maxStreams) {
            const [oldestId, oldest] = session.streams.entries().next().value!
            session.streams.delete(oldestId)
            for (const kept of oldest.events) unlink(session, kept)
            oldest.events.length = 0
          }
        }
        const kept: Kept = {
          seq: parsed.seq,
          event,
          size: sizeOf(event),
          stream,
          older: session.newest,
          newer: undefined
        }
        if (session.newest === undefined) session.oldest = kept
        else session.newest.newer = kept
        session.newest = kept
        stream.events.push(kept)
        session.events++
        session.bytes += kept.size
        if (stream.events.length > maxEvents) {
          const dropped = stream.events.splice(0, stream.events.length - maxEvents)
          for (const d of dropped) unlink(session, d)
          stream.evictedUpTo = Math.max(stream.evictedUpTo, dropped[dropped.length - 1].seq)
        }
        while (session.bytes > maxBytesPerSession && session.oldest !== undefined) evictOldest(session)
        state.total += held(session) - before
        reheap(state.heap, session)
        while (state.total > maxBytes && state.heap.length > 0) trimLargest(state)
      }

      return {
        append: (sessionId, event) =>
          Ref.update(ref, (state) => {
            append(state, sessionId, event)
            return state
          }),
        after: (sessionId, lastEventId) =>
          Effect.flatMap(Ref.get(ref), (state) => {
            const parsed = parseEventId(lastEventId)
            const stream = parsed === undefined
              ? undefined
              : state.sessions.get(sessionId)?.streams.get(parsed.streamId)
            if (parsed === undefined || stream === undefined) {
              return Effect.fail(new EventsUnavailable({ lastEventId, reason: "unknown-stream" }))
            }
            if (stream.evictedUpTo > parsed.seq) {
              return Effect.fail(new EventsUnavailable({ lastEventId, reason: "evicted" }))
            }
            return Effect.succeed(stream.events.filter((e) => e.seq > parsed.seq).map((e) => e.event))
          }),
        clear: (sessionId) =>
          Ref.update(ref, (state) => {
            const session = state.sessions.get(sessionId)
            if (session !== undefined) forget(state, session)
            return state
          }),
        bytes: (sessionId) =>
          Effect.map(Ref.get(ref), (state) => {
            if (sessionId === undefined) return state.total
            const session = state.sessions.get(sessionId)
            return session === undefined ? 0 : held(session)
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
