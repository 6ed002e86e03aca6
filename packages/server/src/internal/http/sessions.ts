/**
 * The handshake era's HTTP sessions and the transport protocol the server's engine runs on: each
 * session is one client of that engine, and `send` routes every outbound frame to the response
 * channel it belongs to. Three structures, each with its named operations:
 *
 * - `Channel`: one open HTTP response, a POST answering its requests or the GET stream. A POST
 *   channel answers plain JSON unless something related to its request (progress, a log, a
 *   server→client request) comes before the response; then it becomes an SSE stream, whose events
 *   (and only those, in revisions that resume streams) enter the event store for resumption:
 *   `emit`, `finish`, `close`, `detach`.
 * - `Session`: one client's channels, by the request each answers: `open`, `route`, `forget`,
 *   `attach`, `resume`.
 * - `Sessions`: every session, by id and by client: `create`, `find`, `end`, `sweep`, and the
 *   protocol host its engine runs on (`host.ts`, shared with the stateless back end).
 *
 * Legacy HTTP+SSE sessions have a single channel, their SSE stream, and nothing is stored.
 */
import { AuthInfo, JsonRpc, Revision, Transport, Wire } from "@effect-mcp/core"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as EventStore from "../../EventStore.js"
import { noTimer, timerAt } from "../timer.js"
import type { Exchange, Stream } from "./exchange.js"
import * as Front from "./front.js"
import { ProtocolHost } from "./host.js"

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

/** Frames kept for a GET stream that is not open yet: at most this many, and this many characters of JSON. */
const maxBuffered = 100
const maxBufferedLength = 256 * 1024

/**
 * Runs `close` when the token of `auth` expires (a held-open stream ends with its token, so that
 * the client authorizes again); returns what cancels it.
 */
export const atExpiry = (auth: AuthInfo.AuthInfo | undefined, close: () => void): () => void => {
  const expires = auth === undefined ? undefined : AuthInfo.expiresAtMillis(auth)
  return expires === undefined ? noTimer : timerAt(expires, close)
}

/** Who holds a token, as a session is bound to it (`AuthInfo.holder`). */
const holderOf = (auth: AuthInfo.AuthInfo | undefined): string | undefined =>
  auth === undefined ? undefined : AuthInfo.holder(auth)

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

// ---------------------------------------------------------------------------- Channel

/** One open (or resumable) response of a session. */
export class Channel {
  mode: "waiting" | "sse" | "detached" | "done"
  stream: Stream | undefined = undefined
  seq = 0
  /** Answers still to come: one per request; a batch with invalid items waits for its array too. */
  pending: number
  /** A batch's requests that ran over the maximum duration: their errors join the batch's array. */
  readonly expired: Array<JsonRpc.Response> = []
  /** Cancels the timer that ends its stream when the stream's token expires (a held-open stream's). */
  cancelExpiry: () => void = noTimer
  constructor(
    readonly session: Session,
    readonly streamId: string,
    readonly exchange: Exchange | undefined,
    pending: number,
    readonly startedAt: number,
    /** This POST carries `initialize`: its answer registers (or drops) the session. */
    readonly initialize: boolean,
    /** This POST is a batch (2025-03-26): answered by one array. */
    readonly batch: boolean
  ) {
    this.mode = exchange === undefined ? "detached" : "waiting"
    this.pending = pending
  }

  /** Answers the waiting POST with one JSON body. */
  reply(frame: JsonRpc.Frame): void {
    this.mode = "done"
    const session = this.session
    this.exchange!.reply(
      Front.body(200, Wire.encode(frame), session.registered ? { "mcp-session-id": session.id } : {})
    )
  }

  /** The waiting POST becomes an SSE stream (primed in 2025-11-25). */
  private startSse(): void {
    this.attach(this.exchange!.stream(this.session.headers()))
    this.session.streams.set(this.streamId, this)
  }

  /** `stream` carries this channel from now on (primed in 2025-11-25). */
  attach(stream: Stream): void {
    this.stream = stream
    this.mode = "sse"
    if (this.session.polling()) {
      // A priming event (an id of its own, empty data) opens the stream, so the client can resume it
      // at once; it is stored too, so the store knows the stream from its first event.
      const event = { id: EventStore.eventId(this.streamId, this.seq++), data: "" }
      this.session.sessions.config.fork(this.session.sessions.config.store.append(this.session.id, event))
      stream.write(Front.sse(event))
    }
  }

  /**
   * One frame as an SSE event: stored (when the session's streams can be resumed), then written
   * when someone listens.
   */
  emit(frame: JsonRpc.Frame): Effect.Effect<void> {
    const session = this.session
    const data = Wire.encode(frame)
    if (session.legacy) {
      this.stream?.write(Front.sse({ event: "message", data }))
      return Effect.void
    }
    if (this.mode === "waiting") this.startSse()
    if (!session.resumable()) {
      // No id a client could resume with, so nothing to keep.
      this.stream?.write(Front.sse({ data }))
      return Effect.void
    }
    const event = { id: EventStore.eventId(this.streamId, ++this.seq), data }
    const text = Front.sse(event)
    return Effect.zipRight(
      session.sessions.config.store.append(session.id, event),
      Effect.sync(() => this.stream?.write(text))
    )
  }

  /** Nothing more will be sent: the response ends (a waiting POST as an empty SSE stream). */
  finish(): void {
    if (this.mode === "done") return
    if (this.mode === "waiting") this.startSse()
    this.mode = "done"
    this.session.streams.delete(this.streamId)
    this.session.touch()
    this.stream?.end()
    this.stream = undefined
  }

  /** Delivers the last of what this channel answers (JSON when nothing came before it), and ends. */
  last(frame: JsonRpc.Frame): Effect.Effect<void> {
    if (this.mode === "waiting") {
      this.reply(frame)
      this.session.touch()
      return Effect.void
    }
    return Effect.zipRight(this.emit(frame), Effect.sync(() => this.finish()))
  }

  /** One of its requests will not be answered (cancelled, interrupted). */
  unanswered(): Effect.Effect<void> {
    this.pending--
    if (this.pending > 0) return Effect.void
    if (this.expired.length > 0) return this.last(this.expired)
    return Effect.sync(() => this.finish())
  }

  /** 2025-11-25 polling: the response ends now, with a `retry` hint; later events wait in the store. */
  close(retryMillis: number): void {
    // Only a primed stream can be resumed: start it if the request had sent nothing yet.
    if (this.mode === "waiting") this.startSse()
    if (this.stream === undefined) return
    this.stream.write(Front.sseRetry(retryMillis))
    this.detach()
  }

  /** Its stream, from now on ended when the token of `auth` expires (`expired`); the last one's timer goes. */
  expireWith(auth: AuthInfo.AuthInfo | undefined, stream: Stream): void {
    this.cancelExpiry()
    this.cancelExpiry = atExpiry(auth, () => this.session.expired(this, stream))
  }

  /** The client went away: not a cancellation in this era; a stream's later events wait in the store. */
  detach(): void {
    this.cancelExpiry()
    this.cancelExpiry = noTimer
    this.stream?.end()
    this.stream = undefined
    if (this.mode === "waiting" || this.mode === "sse") this.mode = "detached"
    // The idle timeout of a session left with no connection counts from here.
    this.session.touch()
  }

  /** The session ended under it. */
  abort(): void {
    this.cancelExpiry()
    this.cancelExpiry = noTimer
    if (this.mode === "waiting") {
      this.mode = "done"
      this.exchange?.reply(Front.sessionNotFound("Session ended"))
      return
    }
    this.stream?.end()
    this.stream = undefined
    this.mode = "done"
  }
}

// ---------------------------------------------------------------------------- Session

/** One session: its channels, by the request each answers. */
export class Session {
  revision: Revision.Revision | undefined
  /** Known by its id (initialize succeeded, or a legacy stream opened). */
  registered: boolean
  ended = false
  lastSeen: number
  /** In-flight request → the channel answering it. */
  readonly owner = new Map<RequestId, Channel>()
  /** SSE channels that are still going, by stream id. */
  readonly streams = new Map<string, Channel>()
  /** The GET stream (legacy: the session's SSE stream); detached while no GET is open. */
  readonly standalone: Channel
  readonly buffered: Array<JsonRpc.Frame> = []
  /** The characters of JSON of `buffered`, with each frame's own. */
  private bufferedLengths: Array<number> = []
  private bufferedLength = 0
  /** Batch channels waiting for their array, oldest first (an array may carry no id to find it by). */
  readonly batches: Array<Channel> = []
  /** Legacy HTTP+SSE: requests in flight and when they started (their answers go on the stream). */
  readonly started = new Map<RequestId, number>()
  private nextStream = 0

  constructor(
    readonly sessions: Sessions,
    readonly id: string,
    readonly client: Transport.ClientId,
    readonly legacy: boolean,
    /** Who holds the token that opened it (`holderOf`, authorization on): only their tokens may use it. */
    readonly subject: string | undefined
  ) {
    this.revision = legacy ? "2024-11-05" : undefined
    this.registered = legacy
    this.lastSeen = sessions.now()
    this.standalone = new Channel(this, "standalone", undefined, 0, 0, false, false)
  }

  /** Activity: the idle timeout counts from now. */
  touch(): void {
    this.lastSeen = this.sessions.now()
  }

  polling(): boolean {
    return this.revision !== undefined && Revision.features(this.revision).ssePolling
  }

  /**
   * Its SSE streams can be resumed with `Last-Event-ID`, so their events carry ids and enter the
   * store: Streamable HTTP as 2025-03-26, 2025-06-18 and 2025-11-25 define it (in 2025-11-25 each
   * stream is primed, so it is resumable from its first event). Not legacy HTTP+SSE, nor a
   * 2024-11-05 session over Streamable HTTP: that revision has no resumption. Until `initialize`
   * is answered the revision is unknown, and its stream counts as resumable.
   */
  resumable(): boolean {
    return !this.legacy &&
      (this.revision === undefined || Revision.features(this.revision).httpTransport === "streamable-http")
  }

  headers(): Front.Headers {
    return this.legacy ? Front.sseHeaders : { ...Front.sseHeaders, "mcp-session-id": this.id }
  }

  /**
   * A channel for one POST answering `ids` (in flight from now); a batch's channel also waits for
   * the array that answers it, which its invalid items alone may make.
   */
  open(
    exchange: Exchange,
    ids: ReadonlyArray<RequestId>,
    options: { readonly initialize?: boolean; readonly batch?: boolean; readonly invalid?: boolean } = {}
  ): Channel {
    const pending = ids.length + (options.invalid === true ? 1 : 0)
    const channel = new Channel(
      this,
      `s${this.nextStream++}`,
      exchange,
      pending,
      this.sessions.now(),
      options.initialize === true,
      options.batch === true
    )
    for (const id of ids) this.owner.set(id, channel)
    if (channel.batch) this.batches.push(channel)
    exchange.onClose(() => channel.detach())
    return channel
  }

  /** Routes one outbound frame to the channel it belongs to. */
  route(frame: JsonRpc.Frame, related: RequestId | undefined): Effect.Effect<void> {
    if (this.legacy) {
      for (const id of responseIds(frame)) this.started.delete(id)
      return this.standalone.emit(frame)
    }
    if (Array.isArray(frame)) return this.routeBatch(frame as ReadonlyArray<JsonRpc.Message>)
    const ids = responseIds(frame)
    if (ids.length === 0) {
      const channel = related === undefined ? undefined : this.owner.get(related)
      return channel !== undefined && channel.mode !== "done" ? channel.emit(frame) : this.toStandalone(frame)
    }
    const channel = this.owner.get(ids[0])
    // A response nobody waits for any more (cancelled, over its maximum duration): dropped, since
    // the GET stream must not carry responses.
    if (channel === undefined) return Effect.logDebug("effect-mcp: a response nobody waits for", ids)
    this.owner.delete(ids[0])
    channel.pending--
    if (channel.initialize) this.sessions.initialized(this, frame)
    if (channel.pending === 0) return channel.last(frame)
    return channel.emit(frame)
  }

  /** The array that answers a batch: its POST's, found by an id it answers or, with none, the oldest. */
  private routeBatch(frame: ReadonlyArray<JsonRpc.Message>): Effect.Effect<void> {
    const ids = responseIds(frame)
    const byId = ids.map((id) => this.owner.get(id)).find((c) => c !== undefined && c.batch)
    const channel = byId ?? this.batches[0]
    if (channel === undefined) return Effect.logDebug("effect-mcp: a batch answer nobody waits for", ids)
    for (const id of ids) if (this.owner.get(id) === channel) this.owner.delete(id)
    const at = this.batches.indexOf(channel)
    if (at >= 0) this.batches.splice(at, 1)
    channel.pending = 0
    return channel.last(channel.expired.length > 0 ? [...frame, ...channel.expired] : frame)
  }

  /** Everything kept for the GET stream, given to it. */
  private takeBuffered(): Array<JsonRpc.Frame> {
    this.bufferedLengths = []
    this.bufferedLength = 0
    return this.buffered.splice(0, this.buffered.length)
  }

  private toStandalone(frame: JsonRpc.Frame): Effect.Effect<void> {
    if (this.standalone.stream === undefined) {
      // Nobody listens on the GET stream yet: keep it for the next GET.
      // The oldest go first; one frame longer than the whole bound is not kept at all.
      const length = JSON.stringify(frame).length
      if (length > maxBufferedLength) return Effect.logDebug("effect-mcp: a frame too long to keep for a GET stream")
      this.buffered.push(frame)
      this.bufferedLengths.push(length)
      this.bufferedLength += length
      while (this.buffered.length > maxBuffered || this.bufferedLength > maxBufferedLength) {
        this.buffered.shift()
        this.bufferedLength -= this.bufferedLengths.shift()!
      }
      return Effect.void
    }
    return this.standalone.emit(frame)
  }

  /** Request `id` will not be answered (cancelled, interrupted): its channel stops waiting for it. */
  forget(id: RequestId): Effect.Effect<void> {
    this.started.delete(id)
    const channel = this.owner.get(id)
    if (channel === undefined) return Effect.void
    this.owner.delete(id)
    const done = channel.unanswered()
    if (channel.pending <= 0) {
      const at = this.batches.indexOf(channel)
      if (at >= 0) this.batches.splice(at, 1)
    }
    return done
  }

  /**
   * A GET stream carries the standalone channel from now on; the frames waiting for it go out
   * first. It ends when the token it came with expires (a legacy session with it).
   */
  attach(exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void {
    const channel = this.standalone
    const stream = exchange.stream(this.headers())
    channel.attach(stream)
    channel.expireWith(auth, stream)
    exchange.onClose(() => {
      if (channel.stream === stream) {
        channel.cancelExpiry()
        channel.stream = undefined
        channel.mode = "detached"
        this.touch()
      }
      if (this.legacy) this.sessions.config.fork(this.sessions.end(this))
    })
    const waiting = this.takeBuffered()
    // Written in order; a store that waits delays only the events after it.
    this.sessions.config.fork(Effect.forEach(waiting, (frame) => channel.emit(frame), { discard: true }))
  }

  /**
   * The token a held-open stream came with expired: the stream ends (with a `retry` hint where
   * the client resumes it), so that the client authorizes again; a legacy session ends with it.
   */
  expired(channel: Channel, stream: Stream): void {
    if (channel.stream !== stream) return
    channel.cancelExpiry = noTimer
    if (this.legacy) return this.sessions.config.fork(this.sessions.end(this))
    channel.stream = undefined
    channel.mode = "detached"
    if (this.polling()) stream.write(Front.sseRetry(this.sessions.config.retryMillis))
    stream.end()
    this.touch()
  }

  /** Resumes the stream `lastEventId` names on `exchange` (replay, then live), or answers why it cannot. */
  resume(exchange: Exchange, lastEventId: string, auth: AuthInfo.AuthInfo | undefined): Effect.Effect<void> {
    const parsed = EventStore.parseEventId(lastEventId)
    if (parsed === undefined) {
      return Effect.sync(() =>
        exchange.reply(Front.error(400, Front.transportError, "Bad Request: invalid Last-Event-ID"))
      )
    }
    const live = parsed.streamId === "standalone" ? this.standalone : this.streams.get(parsed.streamId)
    return Effect.map(Effect.either(this.sessions.config.store.after(this.id, lastEventId)), (replay) => {
      if (replay._tag === "Left") {
        return exchange.reply(Front.error(400, Front.transportError, `Bad Request: ${replay.left.message}`))
      }
      const stream = exchange.stream(this.headers())
      for (const event of replay.right) stream.write(Front.sse(event))
      if (live === undefined || live.mode === "done") return stream.end()
      // The stream goes on: this response takes it over from any earlier one.
      live.stream?.end()
      live.stream = stream
      live.mode = "sse"
      if (live === this.standalone) live.expireWith(auth, stream)
      exchange.onClose(() => {
        if (live.stream === stream) {
          live.cancelExpiry()
          live.stream = undefined
          if (live.mode === "sse") live.mode = "detached"
          this.touch()
        }
      })
      if (live === this.standalone && this.buffered.length > 0) {
        // What was sent while no GET was open follows the replay.
        const waiting = this.takeBuffered()
        this.sessions.config.fork(Effect.forEach(waiting, (frame) => live.emit(frame), { discard: true }))
      }
    })
  }

  /**
   * Requests over the maximum duration: interrupted, and answered with an error in their stead (on
   * their own channel, stored for a resumption; a batch's join its array).
   */
  expire(now: number, maxRequestMillis: number, receiver: Transport.Receiver | undefined): Effect.Effect<void> {
    const answers: Array<Effect.Effect<void>> = []
    const expired = (id: RequestId) =>
      JsonRpc.failure(id, {
        code: JsonRpc.Code.InternalError,
        message: "Request exceeded the server's maximum duration"
      })
    for (const [id, channel] of this.owner) {
      if (now - channel.startedAt <= maxRequestMillis) continue
      this.owner.delete(id)
      receiver?.responseClosed(this.client, id)
      if (channel.batch) {
        channel.expired.push(expired(id))
        answers.push(channel.unanswered())
        continue
      }
      channel.pending--
      answers.push(channel.pending === 0 ? channel.last(expired(id)) : channel.emit(expired(id)))
    }
    for (const [id, startedAt] of this.started) {
      if (now - startedAt <= maxRequestMillis) continue
      this.started.delete(id)
      receiver?.responseClosed(this.client, id)
      answers.push(this.standalone.emit(expired(id)))
    }
    return Effect.all(answers, { discard: true })
  }

  /** A comment on every open SSE stream: proxies keep it open, a dead connection shows itself. */
  keepAlive(): void {
    const comment = Front.sseComment("keep-alive")
    this.standalone.stream?.write(comment)
    for (const channel of this.streams.values()) channel.stream?.write(comment)
  }

  /**
   * No activity for `idleMillis`, and no connection open to this session. Requests in flight do
   * not keep it once their client is gone: in this era a dropped connection is no cancellation,
   * so a request that never ends would otherwise pin its session (and a place under
   * `maxSessions`) for good. A client that comes back within the timeout (a GET with
   * `Last-Event-ID`, a new POST) is activity, and keeps it.
   */
  idle(now: number, idleMillis: number): boolean {
    if (now - this.lastSeen <= idleMillis || this.standalone.stream !== undefined) return false
    for (const channel of this.owner.values()) {
      if (channel.mode === "waiting" || channel.stream !== undefined) return false
    }
    return true
  }
}

// ---------------------------------------------------------------------------- Sessions

/** Every session of one HTTP handler, and the protocol its engine runs on. */
export class Sessions {
  private readonly byId = new Map<string, Session>()
  private readonly byClient = new Map<Transport.ClientId, Session>()
  private nextClient = 0

  constructor(readonly config: Config) {}

  /** The engine's receiver (once the host is `ready`). */
  receiver(): Transport.Receiver {
    return this.host.receiver!
  }

  now(): number {
    return this.config.clock.unsafeCurrentTimeMillis()
  }

  count(): number {
    return this.byClient.size
  }

  isFull(): boolean {
    return this.byClient.size >= this.config.maxSessions
  }

  /** The protocol the engine runs on: each session is a client; `send` routes to its channels. */
  readonly host = new ProtocolHost({
    send: (client, frame, context) =>
      Effect.suspend(() => {
        const session = this.byClient.get(client)
        return session === undefined || session.ended
          ? Effect.fail(new Transport.TransportError({ message: "the session ended" }))
          : session.route(frame, context?.related)
      }),
    closeStream: (client, related) =>
      Effect.sync(() => {
        const session = this.byClient.get(client)
        if (session === undefined || !session.polling()) return
        session.owner.get(related)?.close(this.config.retryMillis)
      }),
    unanswered: (client, id) => {
      const session = this.byClient.get(client)
      if (session !== undefined) this.config.fork(session.forget(id))
    }
  })

  /**
   * A new session, known only by its client until initialize succeeds (a legacy one at once),
   * bound to the subject of `auth`.
   */
  create(legacy: boolean, auth: AuthInfo.AuthInfo | undefined): Session {
    const session = new Session(this, randomId(), this.nextClient++, legacy, holderOf(auth))
    this.byClient.set(session.client, session)
    if (legacy) this.byId.set(session.id, session)
    return session
  }

  /**
   * The registered session `id` of this kind, touched; undefined when unknown, ended or of the
   * other kind, or when it belongs to another subject than the one of `auth` (logged: someone
   * brought their token to another's session).
   */
  find(id: string, legacy: boolean, auth: AuthInfo.AuthInfo | undefined): Session | undefined {
    const session = this.byId.get(id)
    if (session === undefined || session.ended || session.legacy !== legacy) return undefined
    if (session.subject !== holderOf(auth)) {
      this.config.fork(
        Effect.logWarning("effect-mcp: a request named a session that belongs to another subject; answered 404")
      )
      return undefined
    }
    session.lastSeen = this.now()
    return session
  }

  /** The answer to the POST that carried `initialize`: registers the session, or drops it. */
  initialized(session: Session, frame: JsonRpc.Frame): void {
    const version = (frame as { readonly result?: { readonly protocolVersion?: unknown } }).result?.protocolVersion
    if (Revision.isRevision(version)) {
      session.revision = version
      session.registered = true
      this.byId.set(session.id, session)
      // What its initialize stream stored before the revision was known, nobody can resume.
      if (!session.legacy && !session.resumable()) this.config.fork(this.config.store.clear(session.id))
    } else {
      // A failed initialize creates no session.
      this.drop(session)
    }
  }

  private drop(session: Session): void {
    session.ended = true
    this.byClient.delete(session.client)
    this.byId.delete(session.id)
    const engine = this.host.receiver
    // Not from inside the engine's own send: the engine forgets the client right after.
    if (engine !== undefined) queueMicrotask(() => engine.disconnect(session.client))
  }

  /** Ends a session: its requests are interrupted, its streams end, its events are forgotten. */
  end(session: Session): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (session.ended) return Effect.void
      this.drop(session)
      for (const channel of new Set([session.standalone, ...session.streams.values(), ...session.owner.values()])) {
        channel.abort()
      }
      session.owner.clear()
      return this.config.store.clear(session.id)
    })
  }

  /** Ends idle sessions and interrupts requests over the maximum duration. */
  get sweep(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const now = this.now()
      const ending: Array<Session> = []
      const expiring: Array<Effect.Effect<void>> = []
      for (const session of this.byClient.values()) {
        if (this.config.maxRequestMillis !== undefined) {
          expiring.push(session.expire(now, this.config.maxRequestMillis, this.host.receiver))
        }
        if (session.idle(now, this.config.idleMillis)) ending.push(session)
        else session.keepAlive()
      }
      return Effect.zipRight(
        Effect.all(expiring, { discard: true }),
        Effect.forEach(ending, (session) => this.end(session), { discard: true })
      )
    })
  }

  /** Ends every session. */
  get endAll(): Effect.Effect<void> {
    return Effect.suspend(() =>
      Effect.forEach(Array.from(this.byClient.values()), (session) => this.end(session), { discard: true })
    )
  }
}
