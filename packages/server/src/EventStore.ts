/**
 * Where Streamable HTTP keeps the events it sent, so a client that lost a stream can
 * resume it with `Last-Event-ID` and lose nothing. In memory by default; a shared store
 * (Redis, say) lets a session's resumption reach another process.
 *
 * Event ids are `<streamId>_<seq>`: unique per session and naming their stream, so a
 * replay never crosses streams.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
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
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Stores an event of a stream. */
  readonly append: (sessionId: string, event: Event) => Effect.Effect<void>
  /** The events of the stream that `lastEventId` belongs to, after it. */
  readonly after: (sessionId: string, lastEventId: string) => Effect.Effect<ReadonlyArray<Event>>
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
  /** Events kept per stream, the newest (default 1000). */
  readonly maxEventsPerStream?: number
  /** Streams kept per session, the newest (default 100): older ones can no longer be resumed. */
  readonly maxStreamsPerSession?: number
}

/**
 * An in-memory store keeping the last `maxEventsPerStream` events of each of the last
 * `maxStreamsPerSession` streams of a session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: MemoryOptions = {}): Effect.Effect<Service> =>
  Effect.map(
    Ref.make(new Map<string, Map<string, Array<Event>>>()),
    (ref): Service => {
      const max = options.maxEventsPerStream ?? 1000
      const maxStreams = options.maxStreamsPerSession ?? 100
      return {
        append: (sessionId, event) =>
          Ref.update(ref, (sessions) => {
            const parsed = parseEventId(event.id)
            if (parsed === undefined) return sessions
            let streams = sessions.get(sessionId)
            if (streams === undefined) sessions.set(sessionId, streams = new Map())
            let events = streams.get(parsed.streamId)
            if (events === undefined) {
              streams.set(parsed.streamId, events = [])
              // Maps keep insertion order: the first key is the oldest stream.
              if (streams.size > maxStreams) streams.delete(streams.keys().next().value!)
            }
            events.push(event)
            if (events.length > max) events.splice(0, events.length - max)
            return sessions
          }),
        after: (sessionId, lastEventId) =>
          Effect.map(Ref.get(ref), (sessions) => {
            const parsed = parseEventId(lastEventId)
            if (parsed === undefined) return []
            const events = sessions.get(sessionId)?.get(parsed.streamId) ?? []
            return events.filter((e) => parseEventId(e.id)!.seq > parsed.seq)
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
