/**
 * The handshake era's HTTP sessions, owned by one structure with named operations (`create`,
 * `register`, `find`, `end`, `sweep`), and the transport protocol the server's engine runs on:
 * each session is one client of that engine, and `send` routes every outbound frame to the
 * response channel it belongs to.
 *
 * A channel is one open HTTP response: a POST answering its requests, or the GET stream. A POST
 * channel answers plain JSON unless something related to its request (progress, a log, a
 * server→client request) comes before the response; then it becomes an SSE stream, whose events
 * (and only those) enter the event store for resumption. Legacy HTTP+SSE sessions have a single
 * channel, their SSE stream, and nothing is stored.
 */
import { JsonRpc, Revision, Transport, Wire } from "@effect-mcp/core"
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as EventStore from "../../EventStore.js"
import type { Exchange, Stream } from "./exchange.js"
import * as Front from "./front.js"

type RequestId = JsonRpc.RequestId

export interface Config {
  readonly store: EventStore.Service
  readonly clock: Clock.Clock
  /** Sessions with no activity for this long end. */
  readonly idleMillis: number
  /** Most sessions at once (Streamable HTTP and legacy together). */
  readonly maxSessions: number
  /** Requests in flight longer than this are interrupted (undefined: no limit). */
  readonly maxRequestMillis: number | undefined
  /** The `retry` hint before a server-side close (2025-11-25 polling). */
  readonly retryMillis: number
  /** Runs an effect in the transport's runtime. */
  readonly fork: (effect: Effect.Effect<void>) => void
}

/** Frames kept for a GET stream that is not open yet. */
const maxBuffered = 100

/** One open (or resumable) response of a session. */
export class Channel {
  mode: "waiting" | "sse" | "detached" | "done"
  stream: Stream | undefined = undefined
  seq = 0
  pending: number
  constructor(
    readonly session: Session,
    readonly streamId: string,
    readonly exchange: Exchange | undefined,
    readonly ids: ReadonlyArray<RequestId>,
    readonly startedAt: number,
    /** This POST carries `initialize`: its answer registers (or drops) the session. */
    readonly initialize: boolean
  ) {
    this.mode = exchange === undefined ? "detached" : "waiting"
    this.pending = ids.length
  }
}

export interface Session {
  readonly id: string
  readonly client: Transport.ClientId
  readonly legacy: boolean
  revision: Revision.Revision | undefined
  /** Known by its id (initialize succeeded, or a legacy stream opened). */
  registered: boolean
  ended: boolean
  lastSeen: number
  /** In-flight request → the channel answering it. */
  readonly owner: Map<RequestId, Channel>
  /** SSE channels that are still going, by stream id. */
  readonly streams: Map<string, Channel>
  /** The GET stream (legacy: the session's SSE stream); detached while no GET is open. */
  standalone: Channel
  readonly buffered: Array<JsonRpc.Frame>
  nextStream: number
}

const randomId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const responseIds = (frame: JsonRpc.Frame): ReadonlyArray<RequestId> => {
  if (!Array.isArray(frame)) {
    const m = frame as JsonRpc.Message
    return !("method" in m) && m.id !== null ? [m.id] : []
  }
  const out: Array<RequestId> = []
  for (const m of frame as ReadonlyArray<JsonRpc.Message>) if (!("method" in m) && m.id !== null) out.push(m.id)
  return out
}

const closedError = () => new Transport.TransportError({ message: "the session ended" })

/** A placeholder until a session's own standalone channel exists (it needs the session). */
const none = undefined as unknown as Channel

export interface Sessions {
  readonly protocol: Transport.Protocol
  /** Completes once the engine runs on this protocol. */
  readonly ready: Effect.Effect<void>
  /** The engine's receiver (once `ready`). */
  readonly receiver: () => Transport.Receiver
  readonly count: () => number
  readonly isFull: () => boolean
  readonly now: () => number
  /** A new session, known only by its client until `register`. */
  readonly create: (legacy: boolean) => Session
  /** The registered session `id` of this kind, touched; undefined when unknown, ended or of the other kind. */
  readonly find: (id: string, legacy: boolean) => Session | undefined
  /** A channel for one POST answering `ids` (in flight from now). */
  readonly open: (
    session: Session,
    exchange: Exchange,
    ids: ReadonlyArray<RequestId>,
    initialize: boolean
  ) => Channel
  /** Stops waiting for the answer to `id` (it was cancelled): ends its channel when nothing else is pending. */
  readonly forget: (session: Session, id: RequestId) => void
  /** Attaches a GET stream to the standalone channel; the frames waiting for it go out first. */
  readonly attachStandalone: (session: Session, exchange: Exchange) => void
  /** Resumes the stream `lastEventId` names on `exchange` (replay, then live), or answers why it cannot. */
  readonly resume: (session: Session, exchange: Exchange, lastEventId: string) => Effect.Effect<void>
  /** Ends a session: its requests are interrupted, its streams end, its events are forgotten. */
  readonly end: (session: Session) => Effect.Effect<void>
  /** Ends idle sessions and interrupts requests over the maximum duration. */
  readonly sweep: Effect.Effect<void>
  /** Ends every session. */
  readonly endAll: Effect.Effect<void>
}

export const make = (config: Config): Sessions => {
  const { store } = config
  const byId = new Map<string, Session>()
  const byClient = new Map<Transport.ClientId, Session>()
  let nextClient = 0
  let receiver: Transport.Receiver | undefined
  const running = Deferred.unsafeMake<void>(FiberId.none)

  const now = () => config.clock.unsafeCurrentTimeMillis()
  const polling = (session: Session) => session.revision !== undefined && Revision.features(session.revision).ssePolling

  const headersOf = (session: Session): Front.Headers =>
    session.legacy ? Front.sseHeaders : { ...Front.sseHeaders, "mcp-session-id": session.id }

  // ------------------------------------------------------------------ channels

  const startSse = (channel: Channel) => {
    const session = channel.session
    channel.stream = channel.exchange!.stream(headersOf(session))
    channel.mode = "sse"
    session.streams.set(channel.streamId, channel)
    if (polling(session)) prime(session, channel.streamId, channel.stream)
  }

  /**
   * 2025-11-25: a priming event (an id, empty data) opens the stream, so the client can resume
   * it at once; it is stored too, so the store knows the stream from its first event.
   */
  const prime = (session: Session, streamId: string, stream: Stream) => {
    const event = { id: EventStore.eventId(streamId, 0), data: "" }
    config.fork(store.append(session.id, event))
    stream.write(Front.sse(event))
  }

  const finish = (channel: Channel) => {
    if (channel.mode === "done") return
    if (channel.mode === "waiting") startSse(channel)
    channel.mode = "done"
    channel.session.streams.delete(channel.streamId)
    channel.stream?.end()
    channel.stream = undefined
  }

  /** One frame as an SSE event of `channel`: stored (Streamable HTTP), then written when someone listens. */
  const emit = (channel: Channel, frame: JsonRpc.Frame): Effect.Effect<void> => {
    const session = channel.session
    const data = Wire.encode(frame)
    if (session.legacy) {
      channel.stream?.write(Front.sse({ event: "message", data }))
      return Effect.void
    }
    if (channel.mode === "waiting") startSse(channel)
    const event = { id: EventStore.eventId(channel.streamId, ++channel.seq), data }
    const text = Front.sse(event)
    return Effect.zipRight(
      store.append(session.id, event),
      Effect.sync(() => channel.stream?.write(text))
    )
  }

  const toStandalone = (session: Session, frame: JsonRpc.Frame): Effect.Effect<void> => {
    if (session.standalone.stream === undefined && !session.legacy) {
      // Nobody listens on the GET stream yet: keep it for the next GET.
      session.buffered.push(frame)
      if (session.buffered.length > maxBuffered) session.buffered.shift()
      return Effect.void
    }
    return emit(session.standalone, frame)
  }

  /** The answer to the POST that carried `initialize`: registers the session, or drops it. */
  const initialized = (session: Session, frame: JsonRpc.Frame) => {
    const version = (frame as { readonly result?: { readonly protocolVersion?: unknown } }).result?.protocolVersion
    if (Revision.isRevision(version)) {
      session.revision = version
      session.registered = true
      byId.set(session.id, session)
    } else {
      // A failed initialize creates no session.
      drop(session)
    }
  }

  const reply = (channel: Channel, frame: JsonRpc.Frame) => {
    const session = channel.session
    channel.mode = "done"
    channel.exchange!.reply(
      Front.body(200, Wire.encode(frame), session.registered ? { "mcp-session-id": session.id } : {})
    )
  }

  const send = (client: Transport.ClientId, frame: JsonRpc.Frame, context?: Transport.SendContext) =>
    Effect.suspend((): Effect.Effect<void, Transport.TransportError> => {
      const session = byClient.get(client)
      if (session === undefined || session.ended) return Effect.fail(closedError())
      if (session.legacy) return emit(session.standalone, frame)
      const ids = responseIds(frame)
      if (ids.length > 0) {
        const channel = session.owner.get(ids[0])
        for (const id of ids) {
          const owner = session.owner.get(id)
          if (owner === undefined) continue
          owner.pending--
          session.owner.delete(id)
        }
        // A response nobody waits for any more (cancelled, over its maximum duration): dropped, since
        // the GET stream must not carry responses.
        if (channel === undefined) return Effect.logDebug("effect-mcp: a response nobody waits for", ids)
        if (channel.initialize) initialized(session, frame)
        if (channel.mode === "waiting" && channel.pending === 0) {
          reply(channel, frame)
          return Effect.void
        }
        return Effect.zipRight(
          emit(channel, frame),
          Effect.sync(() => {
            if (channel.pending === 0) finish(channel)
          })
        )
      }
      const related = context?.related
      const channel = related === undefined ? undefined : session.owner.get(related)
      if (channel !== undefined && channel.mode !== "done") return emit(channel, frame)
      return toStandalone(session, frame)
    })

  // 2025-11-25 polling: end the request's SSE response now; its later events wait in the store.
  const closeStream = (client: Transport.ClientId, related: RequestId) =>
    Effect.sync(() => {
      const session = byClient.get(client)
      const channel = session?.owner.get(related)
      if (session === undefined || channel === undefined || !polling(session)) return
      // Only a primed stream can be resumed: start it if the request had sent nothing yet.
      if (channel.mode === "waiting") startSse(channel)
      if (channel.stream === undefined) return
      channel.stream.write(Front.sseRetry(config.retryMillis))
      channel.stream.end()
      channel.stream = undefined
      channel.mode = "detached"
    })

  const protocol: Transport.Protocol = {
    run: (r) =>
      Effect.zipRight(
        Effect.sync(() => {
          receiver = r
          Deferred.unsafeDone(running, Effect.void)
        }),
        Effect.never
      ),
    send,
    closeStream
  }

  // ------------------------------------------------------------------ sessions

  const create = (legacy: boolean): Session => {
    const client = nextClient++
    const session: Session = {
      id: randomId(),
      client,
      legacy,
      revision: legacy ? "2024-11-05" : undefined,
      registered: false,
      ended: false,
      lastSeen: now(),
      owner: new Map(),
      streams: new Map(),
      standalone: none,
      buffered: [],
      nextStream: 0
    }
    session.standalone = new Channel(session, "standalone", undefined, [], 0, false)
    byClient.set(client, session)
    if (legacy) {
      session.registered = true
      byId.set(session.id, session)
    }
    return session
  }

  const find = (id: string, legacy: boolean): Session | undefined => {
    const session = byId.get(id)
    if (session === undefined || session.ended || session.legacy !== legacy) return undefined
    session.lastSeen = now()
    return session
  }

  const open = (session: Session, exchange: Exchange, ids: ReadonlyArray<RequestId>, initialize: boolean) => {
    const channel = new Channel(session, `s${session.nextStream++}`, exchange, ids, now(), initialize)
    for (const id of ids) session.owner.set(id, channel)
    exchange.onClose(() => {
      // The client went away: not a cancellation in this era. The request goes on; an SSE
      // stream's later events wait in the store for a resumption.
      if (channel.mode === "waiting" || channel.mode === "sse") {
        channel.mode = "detached"
        channel.stream = undefined
      }
    })
    return channel
  }

  const forget = (session: Session, id: RequestId) => {
    const channel = session.owner.get(id)
    if (channel === undefined) return
    session.owner.delete(id)
    channel.pending--
    if (channel.pending === 0) finish(channel)
  }

  const attachStandalone = (session: Session, exchange: Exchange) => {
    const channel = session.standalone
    const stream = exchange.stream(headersOf(session))
    channel.stream = stream
    channel.mode = "sse"
    exchange.onClose(() => {
      if (channel.stream === stream) {
        channel.stream = undefined
        channel.mode = "detached"
      }
      if (session.legacy) config.fork(end(session))
    })
    if (polling(session)) prime(session, channel.streamId, stream)
    const waiting = session.buffered.splice(0, session.buffered.length)
    // Written in order; a store that waits delays only the events after it.
    config.fork(Effect.forEach(waiting, (frame) => emit(channel, frame), { discard: true }))
  }

  const resume = (session: Session, exchange: Exchange, lastEventId: string) =>
    Effect.gen(function*() {
      const parsed = EventStore.parseEventId(lastEventId)
      if (parsed === undefined) {
        return exchange.reply(Front.error(400, Front.transportError, "Bad Request: invalid Last-Event-ID"))
      }
      const live = parsed.streamId === "standalone" ? session.standalone : session.streams.get(parsed.streamId)
      const replay = yield* Effect.either(store.after(session.id, lastEventId))
      if (replay._tag === "Left") {
        return exchange.reply(Front.error(400, Front.transportError, `Bad Request: ${replay.left.message}`))
      }
      const stream = exchange.stream(headersOf(session))
      for (const event of replay.right) stream.write(Front.sse(event))
      if (live === undefined || live.mode === "done") return stream.end()
      // The stream goes on: this response takes it over from any earlier one.
      live.stream?.end()
      live.stream = stream
      live.mode = "sse"
      exchange.onClose(() => {
        if (live.stream === stream) {
          live.stream = undefined
          if (live.mode === "sse") live.mode = "detached"
        }
      })
    })

  const drop = (session: Session) => {
    session.ended = true
    byClient.delete(session.client)
    byId.delete(session.id)
    const r = receiver
    // Not from inside the engine's own send: the engine forgets the client right after.
    if (r !== undefined) queueMicrotask(() => r.disconnect(session.client))
  }

  const end = (session: Session) =>
    Effect.suspend(() => {
      if (session.ended) return Effect.void
      drop(session)
      for (const channel of [session.standalone, ...session.streams.values(), ...session.owner.values()]) {
        if (channel.mode === "waiting") {
          channel.mode = "done"
          channel.exchange?.reply(Front.error(404, -32001, "Session ended"))
          continue
        }
        channel.stream?.end()
        channel.stream = undefined
        channel.mode = "done"
      }
      session.owner.clear()
      return store.clear(session.id)
    })

  const sweep = Effect.suspend(() => {
    const t = now()
    const ending: Array<Session> = []
    for (const session of byClient.values()) {
      if (config.maxRequestMillis !== undefined) {
        for (const [id, channel] of session.owner) {
          if (t - channel.startedAt <= config.maxRequestMillis) continue
          // Over the maximum duration: interrupt the request, tell the client if it still listens.
          session.owner.delete(id)
          channel.pending--
          receiver?.responseClosed(session.client, id)
          const expired = JsonRpc.failure(id, {
            code: JsonRpc.Code.InternalError,
            message: "Request exceeded the server's maximum duration"
          })
          if (channel.mode === "waiting" && channel.pending === 0) reply(channel, expired)
          else if (channel.stream !== undefined) channel.stream.write(Front.sse({ data: Wire.encode(expired) }))
          if (channel.pending === 0) finish(channel)
        }
      }
      const idle = session.standalone.stream === undefined && session.owner.size === 0 &&
        t - session.lastSeen > config.idleMillis
      if (idle) ending.push(session)
    }
    return Effect.forEach(ending, end, { discard: true })
  })

  const endAll = Effect.suspend(() => Effect.forEach(Array.from(byClient.values()), end, { discard: true }))

  return {
    protocol,
    ready: Deferred.await(running),
    receiver: () => receiver!,
    count: () => byClient.size,
    isFull: () => byClient.size >= config.maxSessions,
    now,
    create,
    find,
    open,
    forget,
    attachStandalone,
    resume,
    end,
    sweep,
    endAll
  }
}
