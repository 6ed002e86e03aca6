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
import { AuthInfo, JsonRpc, McpError, Revision, Transport, Wire } from "@effect-mcp/core"
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as EffectStream from "effect/Stream"
import * as EventStore from "../../EventStore.js"
import type * as NotificationBus from "../../NotificationBus.js"
import * as SessionStore from "../../SessionStore.js"
import * as Holders from "../holders.js"
import type * as Shared from "../sharedSessions.js"
import { noTimer, type TimerAt } from "../timer.js"
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
  /** Most sessions one holder opens here (`Holders`: its token's holder, else its address). */
  readonly maxSessionsPerHolder: number
  /** Requests in flight longer than this are interrupted (undefined: no limit). */
  readonly maxRequestMillis: number | undefined
  /** The `retry` hint before a server-side close (2025-11-25 polling). */
  readonly retryMillis: number
  /** Runs an effect in the transport's runtime. */
  readonly fork: (effect: Effect.Effect<void>) => void
  /** Timers on the transport's clock, in its runtime and scope. */
  readonly timerAt: TimerAt
  /** Sessions shared with other instances (a `SessionStore` in context), or undefined. */
  readonly shared: SharedConfig | undefined
}

/** Sessions shared with other instances. */
export interface SharedConfig {
  readonly store: SessionStore.Service
  /** The least time between two touches of one session's record by this instance. */
  readonly touchMillis: number
}

/** The reply when the session store cannot be reached. */
export const storeUnavailable = (id?: RequestId | null): Reply =>
  Front.error(503, Front.transportError, "Service Unavailable: the session store cannot be reached", {
    id: id ?? null
  })

type Reply = Front.Reply

/** A `live` frame (`Transport.SendContext`) found no stream open to take it: nothing was sent or kept. */
const notListening = new Transport.TransportError({ message: "no stream of the session is open to take it" })

/** Frames kept for a GET stream that is not open yet: at most this many, and this many characters of JSON. */
const maxBuffered = 100
const maxBufferedLength = 256 * 1024

/**
 * Runs `close` when the token of `auth` expires (a held-open stream ends with its token, so that
 * the client authorizes again); returns what cancels it.
 */
export const atExpiry = (timerAt: TimerAt, auth: AuthInfo.AuthInfo | undefined, close: () => void): () => void => {
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
  /** The last position used (0: none yet, or the first priming event). */
  seq = 0
  primed = false
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

  /** Answers the waiting POST with `reply` instead (the session could not be kept); a stream just ends. */
  refuse(reply: Front.Reply): void {
    if (this.mode === "waiting") this.exchange!.reply(reply)
    else this.stream?.end()
    this.mode = "done"
    this.stream = undefined
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
      // Positions follow one another with no hole (a store may check it): the first priming event is
      // the stream's position 0, a later one (another GET) the next position.
      const event = { id: EventStore.eventId(this.streamId, this.primed ? ++this.seq : this.seq), data: "" }
      this.primed = true
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
    this.cancelExpiry = atExpiry(this.session.sessions.config.timerAt, auth, () => this.session.expired(this, stream))
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
  /** Shared: the state it began with, when it began on another instance (until the engine takes it). */
  adopted: Shared.Snapshot | undefined = undefined
  /** Shared: its state, before it is registered (kept when initialize succeeds). */
  snapshot: Shared.Snapshot | undefined = undefined
  /** Shared: when this instance last touched its record. */
  touchedAt = 0
  /** Shared: writes of its state not done yet (a notification's 202 waits for them). */
  readonly writes = new Set<Deferred.Deferred<void>>()
  /** Shared: while this instance holds its standalone stream, what ends the hold. */
  holding: Scope.CloseableScope | undefined = undefined

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
    this.standalone = new Channel(this, sessions.standaloneId, undefined, 0, 0, false, false)
  }

  /** Shared: completes once the writes of its state begun so far are done. */
  get settled(): Effect.Effect<void> {
    return this.writes.size === 0
      ? Effect.void
      : Effect.forEach(Array.from(this.writes), Deferred.await, { discard: true })
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
      `${this.sessions.streamTag}s${this.nextStream++}`,
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

  /**
   * Routes one outbound frame to the channel it belongs to. `live`: one for the GET stream goes
   * only on a stream open now (here, or shared, on the instance holding it), or fails (`toStandalone`).
   */
  route(
    frame: JsonRpc.Frame,
    related: RequestId | undefined,
    live = false
  ): Effect.Effect<void, Transport.TransportError> {
    if (this.legacy) {
      for (const id of responseIds(frame)) this.started.delete(id)
      // Shared: its stream may be held by another instance.
      return this.standalone.stream === undefined && this.sessions.config.shared !== undefined
        ? this.elsewhere(frame)
        : this.standalone.emit(frame)
    }
    if (Array.isArray(frame)) return this.routeBatch(frame as ReadonlyArray<JsonRpc.Message>)
    const ids = responseIds(frame)
    if (ids.length === 0) {
      const channel = related === undefined ? undefined : this.owner.get(related)
      return channel !== undefined && channel.mode !== "done" ? channel.emit(frame) : this.toStandalone(frame, live)
    }
    const channel = this.owner.get(ids[0])
    // A response nobody waits for any more (cancelled, over its maximum duration): dropped, since
    // the GET stream must not carry responses.
    if (channel === undefined) return Effect.logDebug("effect-mcp: a response nobody waits for", ids)
    this.owner.delete(ids[0])
    channel.pending--
    if (channel.initialize) {
      // Shared: the session is kept (cluster-wide bound) before the client hears of it.
      if (this.sessions.config.shared !== undefined) return this.sessions.register(this, channel, frame)
      this.sessions.initialized(this, frame)
    }
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

  /** Shared: a frame for the standalone stream, which another instance may hold (or the next one will). */
  elsewhere(frame: JsonRpc.Frame): Effect.Effect<void> {
    return Effect.catchAll(
      this.sessions.config.shared!.store.toStandalone(this.id, Wire.encode(frame)),
      (error) => Effect.logWarning("effect-mcp: a frame for a session's stream elsewhere was lost", error)
    )
  }

  /**
   * Shared: this instance holds the standalone stream from now on, until `release`: frames other
   * instances raise for it come here.
   */
  hold(): void {
    const shared = this.sessions.config.shared
    if (shared === undefined || this.holding !== undefined || this.ended) return
    const scope = Effect.runSync(Scope.make())
    this.holding = scope
    const channel = this.standalone
    const sessions = this.sessions
    this.sessions.config.fork(
      Effect.gen(function*() {
        const frames = yield* shared.store.holdStandalone(channel.session.id)
        // What changed while no instance held it (its holder died, or the client was away) is told
        // now; Redis unreachable, every list may have changed.
        const missed = shared.store.missed === undefined
          ? []
          : yield* Effect.orElseSucceed(shared.store.missed(channel.session.id), () => "all" as const)
        yield* sessions.held(channel.session, missed)
        while (true) {
          const text = yield* Queue.take(frames)
          let frame: JsonRpc.Frame
          try {
            frame = JSON.parse(text) as JsonRpc.Frame
          } catch {
            continue
          }
          yield* channel.emit(frame)
        }
      }).pipe(
        Effect.catchAll((error) => Effect.logWarning("effect-mcp: could not hold a session's stream", error)),
        Scope.extend(scope),
        Effect.interruptible,
        Effect.forkIn(scope),
        Effect.asVoid
      )
    )
  }

  /** Shared: the standalone stream is no longer held here. */
  release(): void {
    const scope = this.holding
    if (scope === undefined) return
    this.holding = undefined
    this.sessions.config.fork(Scope.close(scope, Exit.void))
  }

  /**
   * A frame for the GET stream: on it when it is open here; else (shared) to the instance holding
   * it, or kept for the next one; else kept for the next GET here. `live` (a task's ask): never
   * kept, where the newest frames push the oldest out or the next holder alone would get it: sent
   * to a stream open now, or the send fails (the ask then waits for the task's `tasks/result`).
   */
  private toStandalone(frame: JsonRpc.Frame, live: boolean): Effect.Effect<void, Transport.TransportError> {
    if (live && this.standalone.stream === undefined) {
      const shared = this.sessions.config.shared
      const toHolder = shared?.store.toHolder
      return toHolder === undefined
        ? Effect.fail(notListening)
        : Effect.flatMap(
          Effect.orElseSucceed(toHolder(this.id, Wire.encode(frame)), () => false),
          (taken) => taken ? Effect.void : Effect.fail(notListening)
        )
    }
    if (this.standalone.stream === undefined && this.sessions.config.shared !== undefined) {
      return this.elsewhere(frame)
    }
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
        this.release()
        this.touch()
      }
      if (this.legacy) this.sessions.config.fork(this.sessions.end(this))
    })
    this.hold()
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
    if (channel === this.standalone) this.release()
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
    // A standalone stream's id names the instance that held it (shared): resumed here, it is held here.
    const live = parsed.streamId.startsWith("standalone") ? this.standalone : this.streams.get(parsed.streamId)
    return Effect.map(Effect.either(this.sessions.config.store.after(this.id, lastEventId)), (replay) => {
      if (replay._tag === "Left") {
        return exchange.reply(
          replay.left.reason === "unavailable"
            ? Front.error(503, Front.transportError, `Service Unavailable: ${replay.left.message}`)
            : Front.error(400, Front.transportError, `Bad Request: ${replay.left.message}`)
        )
      }
      const stream = exchange.stream(this.headers())
      for (const event of replay.right) stream.write(Front.sse(event))
      if (live === undefined || live.mode === "done") return stream.end()
      // The stream goes on: this response takes it over from any earlier one.
      live.stream?.end()
      live.stream = stream
      live.mode = "sse"
      if (live === this.standalone) {
        live.expireWith(auth, stream)
        this.hold()
      }
      exchange.onClose(() => {
        if (live.stream === stream) {
          live.cancelExpiry()
          live.stream = undefined
          if (live.mode === "sse") live.mode = "detached"
          if (live === this.standalone) this.release()
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
  /** The holder of each session opened here (not of replicas), and how many each holds. */
  private readonly holders = new Map<Transport.ClientId, string>()
  private readonly perHolder: Holders.Counts
  /** Shared: what the stream ids of this instance begin with (unique per session across instances). */
  readonly streamTag: string
  readonly standaloneId: string
  /** Shared: the handshake era of the engine, once it runs. */
  private era: Shared.Era | undefined = undefined

  constructor(readonly config: Config) {
    this.perHolder = new Holders.Counts(config.maxSessionsPerHolder)
    const key = config.shared?.store.key
    this.streamTag = key === undefined ? "" : `k${key}`
    this.standaloneId = key === undefined ? "standalone" : `standalone${key}`
    this.host = new ProtocolHost({
      telemetry: {
        transport: "tcp",
        protocol: "http",
        sessionId: (client) => this.byClient.get(client)?.id
      },
      send: (client, frame, context) =>
        Effect.suspend(() => {
          const session = this.byClient.get(client)
          return session === undefined || session.ended
            ? Effect.fail(new Transport.TransportError({ message: "the session ended" }))
            : session.route(frame, context?.related, context?.live === true)
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
      },
      listening: (client) =>
        Effect.suspend(() => {
          const session = this.byClient.get(client)
          if (session === undefined || session.ended) return Effect.succeed(false)
          if (session.standalone.stream !== undefined) return Effect.succeed(true)
          const holding = this.config.shared?.store.holding
          return holding === undefined ? Effect.succeed(false) : Effect.orElseSucceed(holding(session.id), () => false)
        }),
      shared: config.shared === undefined ? undefined : this.sharedSessions(config.shared)
    })
  }

  /** What the handshake era of the engine is offered when sessions are shared. */
  private sharedSessions(shared: SharedConfig): Shared.SharedSessions {
    return {
      firstId: SessionStore.firstRequestId(shared.store.key),
      adopt: (client) => {
        const session = this.byClient.get(client)
        const adopted = session?.adopted
        if (session !== undefined) session.adopted = undefined
        return adopted
      },
      changed: (client, snapshot) =>
        Effect.suspend(() => {
          const session = this.byClient.get(client)
          if (session === undefined || session.ended) return Effect.void
          if (!session.registered) {
            session.snapshot = snapshot
            return Effect.void
          }
          const done = Deferred.unsafeMake<void>(FiberId.none)
          session.writes.add(done)
          return shared.store.update(session.id, { ...snapshot }, this.config.idleMillis).pipe(
            Effect.asVoid,
            Effect.mapError((error) =>
              new McpError.InternalError({ message: `The session's state could not be kept: ${error.message}` })
            ),
            Effect.ensuring(Effect.sync(() => {
              session.writes.delete(done)
              Deferred.unsafeDone(done, Exit.void)
            }))
          )
        }),
      owner: (client) => {
        const session = this.byClient.get(client)
        return session === undefined ? undefined : `session:${session.id}`
      },
      holdsStandalone: (client) => this.byClient.get(client)?.standalone.stream !== undefined,
      attach: (era) => {
        this.era = era
      }
    }
  }

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

  /**
   * Why a new session of the holder of `auth` (else of `peer`, its address) is refused, or
   * undefined: the server holds `maxSessions`, or that holder its share.
   */
  refusal(auth: AuthInfo.AuthInfo | undefined, peer: string | undefined): Reply | undefined {
    if (this.isFull()) {
      return Front.error(503, Front.transportError, "Service Unavailable: too many sessions, try again later")
    }
    if (this.perHolder.full(Holders.holderOf(auth, peer))) {
      return Front.error(
        503,
        Front.transportError,
        `Service Unavailable: this client holds ${this.config.maxSessionsPerHolder} sessions ` +
          "(maxSessionsPerHolder); end one first"
      )
    }
    return undefined
  }

  /** The protocol the engine runs on: each session is a client; `send` routes to its channels. */
  readonly host: ProtocolHost

  /**
   * A new session, known only by its client until initialize succeeds (a legacy one at once),
   * bound to the subject of `auth`.
   */
  create(legacy: boolean, auth: AuthInfo.AuthInfo | undefined, peer?: string): Session {
    const session = new Session(this, randomId(), this.nextClient++, legacy, holderOf(auth))
    this.byClient.set(session.client, session)
    const holder = Holders.holderOf(auth, peer)
    if (holder !== undefined) {
      this.holders.set(session.client, holder)
      this.perHolder.add(holder)
    }
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

  /**
   * The registered session `id` of this kind, as `find`; shared, also one that another instance
   * began (a replica of it here, from its record) and, at most every `touchMillis`, its record
   * touched (a session that expired meanwhile is not found). `k` gets the session or the reply
   * that says why not, at once when nothing needs the store.
   */
  resolve(
    id: string,
    legacy: boolean,
    auth: AuthInfo.AuthInfo | undefined,
    k: (found: Session | Reply) => void
  ): void {
    const shared = this.config.shared
    const local = this.byId.get(id)
    if (shared === undefined || (local !== undefined && (local.ended || local.legacy !== legacy))) {
      const found = this.find(id, legacy, auth)
      return k(found ?? Front.sessionNotFound())
    }
    if (local !== undefined) {
      const found = this.find(id, legacy, auth)
      if (found === undefined) return k(Front.sessionNotFound())
      const now = this.now()
      if (now - found.touchedAt < shared.touchMillis) return k(found)
      found.touchedAt = now
      return this.config.fork(
        Effect.match(shared.store.touch(id, this.config.idleMillis), {
          onFailure: () => k(storeUnavailable()),
          onSuccess: (alive) => {
            if (alive) return k(found)
            this.release(found)
            k(Front.sessionNotFound())
          }
        })
      )
    }
    this.config.fork(
      Effect.match(shared.store.get(id), {
        onFailure: () => k(storeUnavailable()),
        onSuccess: (record) => k(this.replica(record, legacy, auth))
      })
    )
  }

  /** Shared: a replica of a session another instance began, from its record; or why there is none. */
  private replica(
    record: Option.Option<SessionStore.SessionRecord>,
    legacy: boolean,
    auth: AuthInfo.AuthInfo | undefined
  ): Session | Reply {
    if (Option.isNone(record) || record.value.legacy !== legacy) return Front.sessionNotFound()
    const { id, state, subject } = record.value
    if (subject !== holderOf(auth)) {
      this.config.fork(
        Effect.logWarning("effect-mcp: a request named a session that belongs to another subject; answered 404")
      )
      return Front.sessionNotFound()
    }
    // Begun here meanwhile (two requests of one session at once): that one.
    const meanwhile = this.byId.get(id)
    if (meanwhile !== undefined) return meanwhile
    if (this.isFull()) {
      return Front.error(503, Front.transportError, "Service Unavailable: too many sessions, try again later")
    }
    const session = new Session(this, id, this.nextClient++, legacy, subject)
    const snapshot = state as unknown as Shared.Snapshot
    session.adopted = snapshot
    session.registered = true
    if (!legacy && Revision.isRevision(snapshot.revision) && snapshot.phase !== "new") {
      session.revision = snapshot.revision
    }
    session.touchedAt = this.now()
    this.byClient.set(session.client, session)
    this.byId.set(id, session)
    return session
  }

  /**
   * Shared: the answer to the POST that carried `initialize`. The session is kept in the store
   * (within the cluster's `maxSessions`), then registered here and answered; or dropped, and the
   * POST answered 503.
   */
  register(session: Session, channel: Channel, frame: JsonRpc.Frame): Effect.Effect<void> {
    const shared = this.config.shared!
    const version = (frame as { readonly result?: { readonly protocolVersion?: unknown } }).result?.protocolVersion
    if (!Revision.isRevision(version) || session.snapshot === undefined) {
      this.drop(session)
      return channel.last(frame)
    }
    const record: SessionStore.SessionRecord = {
      id: session.id,
      legacy: false,
      subject: session.subject,
      state: { ...session.snapshot }
    }
    return Effect.flatMap(
      Effect.either(
        shared.store.create(record, { ttlMillis: this.config.idleMillis, maxSessions: this.config.maxSessions })
      ),
      (created) => {
        if (created._tag === "Right" && created.right) {
          session.snapshot = undefined
          session.touchedAt = this.now()
          this.initialized(session, frame)
          return channel.last(frame)
        }
        this.drop(session)
        const id = (frame as JsonRpc.Response).id
        return Effect.sync(() =>
          channel.refuse(
            created._tag === "Left"
              ? storeUnavailable(id)
              : Front.error(503, Front.transportError, "Service Unavailable: too many sessions, try again later", {
                id
              })
          )
        )
      }
    )
  }

  /**
   * Shared: a new legacy session kept in the store (within the cluster's `maxSessions`) before
   * its stream opens; `k` gets undefined then, or the reply that refuses it (it is dropped).
   */
  createShared(session: Session, k: (refused: Reply | undefined) => void): void {
    const shared = this.config.shared!
    const state: Shared.Snapshot = {
      phase: "new",
      revision: "2024-11-05",
      clientCapabilities: {},
      capabilities: {},
      subscriptions: []
    }
    const record: SessionStore.SessionRecord = {
      id: session.id,
      legacy: true,
      subject: session.subject,
      state: { ...state }
    }
    this.config.fork(
      Effect.match(
        shared.store.create(record, { ttlMillis: this.config.idleMillis, maxSessions: this.config.maxSessions }),
        {
          onFailure: () => {
            this.drop(session)
            k(storeUnavailable())
          },
          onSuccess: (created) => {
            if (created) {
              session.touchedAt = this.now()
              return k(undefined)
            }
            this.drop(session)
            k(Front.error(503, Front.transportError, "Service Unavailable: too many sessions, try again later"))
          }
        }
      )
    )
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
    const holder = this.holders.get(session.client)
    if (holder !== undefined) {
      this.holders.delete(session.client)
      this.perHolder.remove(holder)
    }
    this.byId.delete(session.id)
    const engine = this.host.receiver
    // Not from inside the engine's own send: the engine forgets the client right after.
    if (engine !== undefined) queueMicrotask(() => engine.disconnect(session.client))
  }

  /**
   * Ends a session: its requests are interrupted, its streams end, its events are forgotten.
   * Shared, it ends everywhere: its record goes, and every instance drops its replica.
   */
  end(session: Session): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (session.ended) return Effect.void
      const shared = this.config.shared
      if (shared !== undefined && session.registered) this.era?.end(session.client)
      this.close(session)
      const removed = shared === undefined || !session.registered
        ? Effect.void
        : Effect.catchAll(
          shared.store.remove(session.id),
          (error) => Effect.logWarning("effect-mcp: a session's record could not be removed (it expires)", error)
        )
      return Effect.zipRight(removed, this.config.store.clear(session.id))
    })
  }

  /**
   * Shared: this instance holds the standalone stream of `session` from now on; the era tells it
   * what it `missed` while none did.
   */
  held(session: Session, missed: ReadonlyArray<NotificationBus.Event> | "all"): Effect.Effect<void> {
    return this.era === undefined || session.ended ? Effect.void : this.era.held(session.client, missed)
  }

  /** Shared: this instance's replica of a session goes (the session goes on, elsewhere or later here). */
  release(session: Session): void {
    if (session.ended) return
    this.close(session)
  }

  private close(session: Session): void {
    this.drop(session)
    session.release()
    for (const channel of new Set([session.standalone, ...session.streams.values(), ...session.owner.values()])) {
      channel.abort()
    }
    session.owner.clear()
  }

  /** Ends idle sessions and interrupts requests over the maximum duration. */
  get sweep(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const now = this.now()
      const ending: Array<Session> = []
      const expiring: Array<Effect.Effect<void>> = []
      const touching: Array<Effect.Effect<void>> = []
      const shared = this.config.shared
      for (const session of this.byClient.values()) {
        if (this.config.maxRequestMillis !== undefined) {
          expiring.push(session.expire(now, this.config.maxRequestMillis, this.host.receiver))
        }
        if (session.idle(now, this.config.idleMillis)) {
          // Shared: the replica goes; the session ends when its record expires (no instance touched it).
          if (shared !== undefined && session.registered) this.release(session)
          else ending.push(session)
        } else {
          session.keepAlive()
          // Shared: a session kept only by a connection open here (its GET stream, a long request)
          // lives on in the store too, its record and its events.
          if (shared !== undefined && session.registered && now - session.touchedAt >= shared.touchMillis) {
            session.touchedAt = now
            touching.push(this.touch(shared, session))
          }
        }
      }
      return Effect.zipRight(
        Effect.all([...expiring, ...touching], { discard: true }),
        Effect.forEach(ending, (session) => this.end(session), { discard: true })
      )
    })
  }

  /** Shared: a session's record touched; gone (ended elsewhere, expired), its replica goes. */
  private touch(shared: SharedConfig, session: Session): Effect.Effect<void> {
    return Effect.match(shared.store.touch(session.id, this.config.idleMillis), {
      onFailure: () => undefined,
      onSuccess: (alive) => {
        if (!alive) this.release(session)
      }
    })
  }

  /** Ends every session (shared ones only here: they go on on the other instances). */
  get endAll(): Effect.Effect<void> {
    return Effect.suspend(() =>
      Effect.forEach(
        Array.from(this.byClient.values()),
        (session) =>
          this.config.shared !== undefined && session.registered
            ? Effect.sync(() => this.release(session))
            : this.end(session),
        { discard: true }
      )
    )
  }

  /**
   * Shared: what of an inbound frame is another instance's. An answer to a request another
   * instance sent (its id in that instance's range) goes there; a cancellation of a request not in
   * flight here goes to every instance (whoever runs it stops it). Returns what this instance
   * serves (undefined: nothing).
   */
  forward(session: Session, inbound: Wire.Inbound): Wire.Inbound | undefined {
    const shared = this.config.shared
    if (shared === undefined || inbound._tag === "Invalid") return inbound
    const key = shared.store.key
    const elsewhere = (message: JsonRpc.Message): boolean => {
      if (!("method" in message)) {
        const owner = message.id === null ? undefined : SessionStore.keyOfRequestId(message.id)
        if (owner === undefined || owner === key) return false
        this.config.fork(this.deliver(shared.store.send(owner, { sessionId: session.id, message })))
        return true
      }
      if (message.method === "notifications/cancelled" && !("id" in message)) {
        const id = (message.params as { readonly requestId?: unknown } | undefined)?.requestId
        const here = (typeof id === "string" || typeof id === "number") &&
          (session.owner.has(id) || session.started.has(id))
        if (!here) this.config.fork(this.deliver(shared.store.broadcast({ sessionId: session.id, message })))
      }
      return false
    }
    if (inbound._tag === "Single") return elsewhere(inbound.message) ? undefined : inbound
    const items = inbound.items.filter((item) => item._tag !== "Single" || !elsewhere(item.message))
    return items.length === 0 ? undefined : items.length === inbound.items.length ? inbound : { ...inbound, items }
  }

  private deliver(effect: Effect.Effect<void, SessionStore.SessionStoreUnavailable>): Effect.Effect<void> {
    return Effect.catchAll(
      effect,
      (error) => Effect.logWarning("effect-mcp: a message for another instance was lost", error)
    )
  }

  /** Shared: serves what other instances send here, for the scope's life (fork it). */
  get inbox(): Effect.Effect<void> {
    const shared = this.config.shared
    if (shared === undefined) return Effect.void
    return EffectStream.runForEach(shared.store.inbox, ({ message, sessionId }) =>
      Effect.sync(() => {
        const session = this.byId.get(sessionId)
        if (session === undefined || session.ended) return
        this.receiver().receive(session.client, { _tag: "Single", message })
      }))
  }

  /** Shared: follows what other instances change (a session's state, its end), for the scope's life (fork it). */
  get follow(): Effect.Effect<void> {
    const shared = this.config.shared
    if (shared === undefined) return Effect.void
    return EffectStream.runForEach(shared.store.changes, (change) =>
      Effect.sync(() => {
        if (change.origin === shared.store.key) return
        const session = this.byId.get(change.id)
        if (session === undefined || session.ended) return
        if (change.state === undefined) {
          this.era?.end(session.client)
          return this.release(session)
        }
        this.era?.refresh(session.client, change.state as unknown as Shared.Snapshot)
      }))
  }
}
