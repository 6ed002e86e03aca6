/**
 * One open (or resumable) response of a handshake session: a POST answering its requests, or the
 * GET stream. A POST channel answers plain JSON unless something related to its request
 * (progress, a log, a server→client request) comes before the response; then it becomes an SSE
 * stream, whose events (and only those, in revisions that resume streams) enter the event store
 * for resumption: `emit`, `last`, `finish`, `close`, `detach`, `abort`.
 *
 * Legacy HTTP+SSE sessions have a single channel, their SSE stream, and nothing is stored.
 */
import { AuthInfo, type JsonRpc, Wire } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as EventStore from "../../EventStore.js"
import { noTimer, type TimerAt } from "../timer.js"
import type { Exchange, Stream } from "./exchange.js"
import * as Front from "./front.js"
import type { Session } from "./session.js"

/**
 * Runs `close` when the token of `auth` expires (a held-open stream ends with its token, so that
 * the client authorizes again); returns what cancels it.
 */
export const atExpiry = (timerAt: TimerAt, auth: AuthInfo.AuthInfo | undefined, close: () => void): () => void => {
  const expires = auth === undefined ? undefined : AuthInfo.expiresAtMillis(auth)
  return expires === undefined ? noTimer : timerAt(expires, close)
}

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
      const { config } = this.session.sessions
      config.fork(config.store.append(this.session.id, event))
      stream.write(Front.sse(event))
    }
  }

  /**
   * One frame as an SSE event: stored (when the session's streams can be resumed), then written
   * when someone listens.
   */
  emit(frame: JsonRpc.Frame): Effect.Effect<void> {
    return this.emitEncoded(Wire.encode(frame))
  }

  /** `emit`, of a frame already encoded (`Wire.encode`). */
  emitEncoded(data: string): Effect.Effect<void> {
    const session = this.session
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
