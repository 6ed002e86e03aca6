/**
 * One handshake session over HTTP (Streamable HTTP, or legacy HTTP+SSE): its record (id, client of
 * the engine, revision, the subject bound to it, when it was last seen) and its channels, by the
 * request each answers. What the server sends is routed here to the channel it belongs to:
 * `open`, `route`, `forget`, `attach`, `resume`, `expire`, `idle`. What only a session shared
 * with other instances needs is `replication.ts`'s.
 */
import { AuthInfo, JsonRpc, Revision, Transport, Wire } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as EventStore from "../../EventStore.js"
import type * as Shared from "../sharedSessions.js"
import { noTimer } from "../timer.js"
import { Channel } from "./channel.js"
import type { Exchange, Stream } from "./exchange.js"
import * as Front from "./front.js"
import type { InFlightTally } from "./inFlight.js"
import type { Sessions } from "./sessions.js"

type RequestId = JsonRpc.RequestId

/** A `live` frame (`Transport.SendContext`) found no stream open to take it: nothing was sent or kept. */
const notListening = new Transport.TransportError({ message: "no stream of the session is open to take it" })

/** Frames kept for a GET stream that is not open yet: at most this many, and this many characters of JSON. */
const maxBuffered = 100
const maxBufferedLength = 256 * 1024

/** Who holds a token, as a session is bound to it (`AuthInfo.holder`). */
export const holderOf = (auth: AuthInfo.AuthInfo | undefined): string | undefined =>
  auth === undefined ? undefined : AuthInfo.holder(auth)

/** The ids of the responses in a frame (a batch's, or one). */
export const responseIds = (frame: JsonRpc.Frame): ReadonlyArray<RequestId> => {
  if (!Array.isArray(frame)) {
    const m = frame as JsonRpc.Message
    return !("method" in m) && m.id !== null ? [m.id] : []
  }
  const out: Array<RequestId> = []
  for (const m of frame as ReadonlyArray<JsonRpc.Message>) if (!("method" in m) && m.id !== null) out.push(m.id)
  return out
}

/**
 * A session's requests in flight, by id, counted in its handler's {@link InFlightTally} as they
 * come and go (every way in or out is `set`, `delete` or `clear`).
 */
class InFlight<V> extends Map<RequestId, V> {
  constructor(private readonly tally: InFlightTally, private readonly holder: string | undefined) {
    super()
  }

  override set(id: RequestId, value: V): this {
    if (!super.has(id)) this.tally.add(this.holder, 1)
    return super.set(id, value)
  }

  override delete(id: RequestId): boolean {
    const had = super.delete(id)
    if (had) this.tally.add(this.holder, -1)
    return had
  }

  override clear(): void {
    this.tally.add(this.holder, -this.size)
    super.clear()
  }
}

/** One session: its channels, by the request each answers. */
export class Session {
  revision: Revision.Revision | undefined
  /** Known by its id (initialize succeeded, or a legacy stream opened). */
  registered: boolean
  ended = false
  lastSeen: number
  /** In-flight request → the channel answering it. */
  readonly owner: Map<RequestId, Channel>
  /** SSE channels that are still going, by stream id. */
  readonly streams = new Map<string, Channel>()
  /** The GET stream (legacy: the session's SSE stream); detached while no GET is open. */
  readonly standalone: Channel
  /** Frames kept for the next GET stream, encoded (`Wire.encode`), oldest first. */
  private buffered: Array<string> = []
  /** The characters of JSON of `buffered`. */
  private bufferedLength = 0
  /** Batch channels waiting for their array, oldest first (an array may carry no id to find it by). */
  readonly batches: Array<Channel> = []
  /** Legacy HTTP+SSE: requests in flight and when they started (their answers go on the stream). */
  readonly started: Map<RequestId, number>
  private nextStream = 0
  /** Shared: the state it began with, when it began on another instance (until the engine takes it). */
  adopted: Shared.Snapshot | undefined = undefined
  /** Shared: its state, before it is registered (kept when initialize succeeds). */
  snapshot: Shared.Snapshot | undefined = undefined
  /** Shared: when this instance last touched its record. */
  touchedAt = 0
  /** Shared: writes of its state not done yet (a notification's 202 waits for them). */
  readonly writes = new Set<Deferred.Deferred<void>>()
  /** Shared: while this instance holds its standalone stream, the fiber holding it. */
  holding: Fiber.RuntimeFiber<void> | undefined = undefined

  constructor(
    readonly sessions: Sessions,
    readonly id: string,
    readonly client: Transport.ClientId,
    readonly legacy: boolean,
    /** Who holds the token that opened it (`holderOf`, authorization on): only their tokens may use it. */
    readonly subject: string | undefined,
    /** Whose quotas it counts against (`Holders.holderOf`: its token's holder, else its address), if known. */
    readonly holder?: string | undefined
  ) {
    this.owner = new InFlight(sessions.config.inFlight, holder)
    this.started = new InFlight(sessions.config.inFlight, holder)
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

  /** Its requests in flight (answered on their POSTs' channels, or, legacy, on its stream). */
  inFlight(): number {
    return this.owner.size + this.started.size
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
    const shared = this.sessions.shared
    if (this.legacy) {
      for (const id of responseIds(frame)) this.started.delete(id)
      // Shared: its stream may be held by another instance.
      return this.standalone.stream === undefined && shared !== undefined
        ? shared.elsewhere(this, Wire.encode(frame))
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
      if (shared !== undefined) return shared.register(this, channel, frame)
      this.sessions.initialized(this, frame)
    }
    if (channel.pending === 0) return channel.last(frame)
    return channel.emit(frame)
  }

  /**
   * The answer to a request whose POST waits for it alone, written now as its JSON body (what
   * `route` would do, without an effect): true once written; false for anything else (a stream, a
   * batch, an `initialize`, a legacy session, a notification), which `route` sends.
   */
  answerNow(frame: JsonRpc.Frame): boolean {
    if (this.legacy || this.ended || Array.isArray(frame)) return false
    const message = frame as JsonRpc.Message
    if ("method" in message || message.id === null) return false
    const channel = this.owner.get(message.id)
    if (
      channel === undefined || channel.mode !== "waiting" || channel.pending !== 1 || channel.initialize ||
      channel.batch
    ) return false
    this.owner.delete(message.id)
    channel.pending = 0
    channel.reply(frame)
    this.touch()
    return true
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

  /** Everything kept for the GET stream, written on `channel` in order (a store that waits delays only what follows). */
  private flushBuffered(channel: Channel): void {
    if (this.buffered.length === 0) return
    const waiting = this.buffered
    this.buffered = []
    this.bufferedLength = 0
    this.sessions.config.fork(Effect.forEach(waiting, (data) => channel.emitEncoded(data), { discard: true }))
  }

  /**
   * A frame for the GET stream: on it when it is open here; else (shared) to the instance holding
   * it, or kept for the next one; else kept for the next GET here. `live` (a task's ask): never
   * kept, where the newest frames push the oldest out or the next holder alone would get it: sent
   * to a stream open now, or the send fails (the ask then waits for the task's `tasks/result`).
   */
  private toStandalone(frame: JsonRpc.Frame, live: boolean): Effect.Effect<void, Transport.TransportError> {
    if (this.standalone.stream !== undefined) return this.standalone.emit(frame)
    const shared = this.sessions.shared
    if (live) {
      return shared === undefined ? Effect.fail(notListening) : Effect.flatMap(
        shared.toHolder(this, Wire.encode(frame)),
        (taken) => taken ? Effect.void : Effect.fail(notListening)
      )
    }
    if (shared !== undefined) return shared.elsewhere(this, Wire.encode(frame))
    // Nobody listens on the GET stream yet: keep it for the next GET.
    // The oldest go first; one frame longer than the whole bound is not kept at all.
    const data = Wire.encode(frame)
    if (data.length > maxBufferedLength) return Effect.logDebug("effect-mcp: a frame too long to keep for a GET stream")
    this.buffered.push(data)
    this.bufferedLength += data.length
    while (this.buffered.length > maxBuffered || this.bufferedLength > maxBufferedLength) {
      this.bufferedLength -= this.buffered.shift()!.length
    }
    return Effect.void
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

  /** The standalone stream is no longer open here: it is no longer held here either (shared). */
  private detached(): void {
    this.sessions.shared?.releaseStream(this)
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
        this.detached()
        this.touch()
      }
      if (this.legacy) this.sessions.config.fork(this.sessions.end(this))
    })
    this.sessions.shared?.holdStream(this)
    this.flushBuffered(channel)
  }

  /**
   * The token a held-open stream came with expired: the stream ends (with a `retry` hint where
   * the client resumes it), so that the client authorizes again; a legacy session ends with it.
   */
  expired(channel: Channel, stream: Stream): void {
    if (channel.stream !== stream) return
    channel.cancelExpiry = noTimer
    if (this.legacy) return void this.sessions.config.fork(this.sessions.end(this))
    channel.stream = undefined
    channel.mode = "detached"
    if (channel === this.standalone) this.detached()
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
        this.sessions.shared?.holdStream(this)
      }
      exchange.onClose(() => {
        if (live.stream === stream) {
          live.cancelExpiry()
          live.stream = undefined
          if (live.mode === "sse") live.mode = "detached"
          if (live === this.standalone) this.detached()
          this.touch()
        }
      })
      // What was sent while no GET was open follows the replay.
      if (live === this.standalone) this.flushBuffered(live)
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
