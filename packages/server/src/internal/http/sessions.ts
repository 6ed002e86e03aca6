/**
 * The handshake era's HTTP sessions and the transport protocol the server's engine runs on: each
 * session is one client of that engine, and `send` routes every outbound frame to the response
 * channel it belongs to. By concern:
 *
 * - `channel.ts`: one open HTTP response, a POST answering its requests or the GET stream, and
 *   its events in the event store;
 * - `session.ts`: one session, its record and its channels, by the request each answers;
 * - `replication.ts`: what is shared with other instances (a `SessionStore` in context);
 * - here, `Sessions`: every session, by id and by client, and their lifetimes: `create`, `find`,
 *   `resolve`, `end`, `sweep`, and the protocol host its engine runs on (`host.ts`, shared with
 *   the stateless back end).
 *
 * Work is forked with `Config.fork`: on the server's runtime, in the handler's scope.
 */
import type { AuthInfo, JsonRpc, Wire } from "@effect-mcp/core"
import { Revision, Transport } from "@effect-mcp/core"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as EventStore from "../../EventStore.js"
import * as Holders from "../holders.js"
import type * as Shared from "../sharedSessions.js"
import type { TimerAt } from "../timer.js"
import * as Front from "./front.js"
import { ProtocolHost } from "./host.js"
import { type InFlightTally, tooManyRequests } from "./inFlight.js"
import { Replication, type SharedConfig } from "./replication.js"
import { holderOf, Session } from "./session.js"

export { storeUnavailable } from "./replication.js"
export type { SharedConfig } from "./replication.js"

export interface Config {
  readonly store: EventStore.Service
  readonly clock: Clock.Clock
  /** Sessions with no activity for this long end. */
  readonly idleMillis: number
  /** Most sessions at once (Streamable HTTP and legacy together). */
  readonly maxSessions: number
  /** Most sessions one holder opens here (`Holders`: its token's holder, else its address). */
  readonly maxSessionsPerHolder: number
  /** Most requests one session has in flight (`HttpTransport.Options.maxRequestsInFlight`). */
  readonly maxRequestsInFlight: number
  /** The handler's requests in flight, per holder and in total, with their bounds (both eras count there). */
  readonly inFlight: InFlightTally
  /** Requests in flight longer than this are interrupted (undefined: no limit). */
  readonly maxRequestMillis: number | undefined
  /** The `retry` hint before a server-side close (2025-11-25 polling). */
  readonly retryMillis: number
  /** Runs an effect on the server's runtime, in the handler's scope (closing it interrupts the effect). */
  readonly fork: (effect: Effect.Effect<void>) => Fiber.RuntimeFiber<void>
  /** Timers on the transport's clock, in its runtime and scope. */
  readonly timerAt: TimerAt
  /** Sessions shared with other instances (a `SessionStore` in context), or undefined. */
  readonly shared: SharedConfig | undefined
}

type Reply = Front.Reply

const randomId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const tooManySessions = (): Reply =>
  Front.error(503, Front.transportError, "Service Unavailable: too many sessions, try again later")

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
  /** What is shared with other instances, when sessions are. */
  readonly shared: Replication | undefined
  /** The protocol the engine runs on: each session is a client; `send` routes to its channels. */
  readonly host: ProtocolHost

  constructor(readonly config: Config) {
    this.perHolder = new Holders.Counts(config.maxSessionsPerHolder)
    const key = config.shared?.store.key
    this.streamTag = key === undefined ? "" : `k${key}`
    this.standaloneId = key === undefined ? "standalone" : `standalone${key}`
    this.shared = config.shared === undefined ? undefined : new Replication(this, config.shared)
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
      // A lone answer to a waiting POST, written without a fiber (a relayed call's: `RelayTable`).
      sendNow: (client, frame) => {
        const session = this.byClient.get(client)
        return session !== undefined && session.answerNow(frame)
      },
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
          return this.shared === undefined ? Effect.succeed(false) : this.shared.holding(session)
        }),
      shared: this.shared?.offered()
    })
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

  /** The session of an engine's client (registered or not). */
  ofClient(client: Transport.ClientId): Session | undefined {
    return this.byClient.get(client)
  }

  /** The registered session `id`, as is (not touched, whoever asks). */
  named(id: string): Session | undefined {
    return this.byId.get(id)
  }

  /**
   * Why a new session of the holder of `auth` (else of `peer`, its address) is refused, or
   * undefined: the server holds `maxSessions`, or that holder its share.
   */
  refusal(auth: AuthInfo.AuthInfo | undefined, peer: string | undefined): Reply | undefined {
    if (this.isFull()) return tooManySessions()
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

  /**
   * Why a POST of `requests` (its requests: none for notifications and answers, which always pass)
   * in `session` is refused, or undefined: it would take that session past `maxRequestsInFlight`,
   * its holder's sessions past `maxRequestsInFlightPerHolder`, or all sessions past
   * `maxRequestsInFlightTotal`. The reply is 429 with a JSON-RPC error carrying the first
   * request's id; nothing of the POST may run then.
   */
  inFlightRefusal(session: Session, requests: ReadonlyArray<JsonRpc.Request>): Reply | undefined {
    const n = requests.length
    if (n === 0) return undefined
    const max = this.config.maxRequestsInFlight
    if (session.inFlight() + n > max) {
      return tooManyRequests(requests[0].id, `this session has ${max} requests in flight (maxRequestsInFlight)`)
    }
    return this.config.inFlight.refusal(session.holder, n, requests[0].id)
  }

  /**
   * A new session, known only by its client until initialize succeeds (a legacy one at once),
   * bound to the subject of `auth`.
   */
  create(legacy: boolean, auth: AuthInfo.AuthInfo | undefined, peer?: string): Session {
    const holder = Holders.holderOf(auth, peer)
    const session = new Session(this, randomId(), this.nextClient++, legacy, holderOf(auth), holder)
    this.byClient.set(session.client, session)
    if (holder !== undefined) {
      this.holders.set(session.client, holder)
      this.perHolder.add(holder)
    }
    if (legacy) this.byId.set(session.id, session)
    return session
  }

  /** Shared: a replica here of the session `id` another instance began, registered, with the state it began with. */
  adopt(id: string, legacy: boolean, subject: string | undefined, snapshot: Shared.Snapshot): Session {
    const session = new Session(this, id, this.nextClient++, legacy, subject)
    session.adopted = snapshot
    session.registered = true
    this.byClient.set(session.client, session)
    this.byId.set(id, session)
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
    const local = this.byId.get(id)
    if (this.shared === undefined || (local !== undefined && (local.ended || local.legacy !== legacy))) {
      const found = this.find(id, legacy, auth)
      return k(found ?? Front.sessionNotFound())
    }
    this.shared.resolve(id, legacy, auth, local, k)
  }

  /**
   * Shared: a new legacy session kept in the store (within the cluster's `maxSessions`) before
   * its stream opens; `k` gets undefined then, or the reply that refuses it (it is dropped).
   */
  createShared(session: Session, k: (refused: Reply | undefined) => void): void {
    this.shared!.createLegacy(session, k)
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

  /** The session is known here no more; the engine forgets its client. */
  drop(session: Session): void {
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
      const shared = this.shared
      shared?.ending(session)
      this.close(session)
      const removed = shared === undefined || !session.registered ? Effect.void : shared.remove(session)
      return Effect.zipRight(removed, this.config.store.clear(session.id))
    })
  }

  /** Shared: this instance's replica of a session goes (the session goes on, elsewhere or later here). */
  release(session: Session): void {
    if (session.ended) return
    this.close(session)
  }

  private close(session: Session): void {
    this.drop(session)
    this.shared?.releaseStream(session)
    for (const channel of new Set([session.standalone, ...session.streams.values(), ...session.owner.values()])) {
      channel.abort()
    }
    session.owner.clear()
    session.started.clear()
  }

  /** Ends idle sessions and interrupts requests over the maximum duration. */
  get sweep(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const now = this.now()
      const ending: Array<Session> = []
      const expiring: Array<Effect.Effect<void>> = []
      const touching: Array<Effect.Effect<void>> = []
      const shared = this.shared
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
          // Shared: a session kept only by a connection open here lives on in the store too.
          const touch = shared !== undefined && session.registered ? shared.keepAlive(session, now) : undefined
          if (touch !== undefined) touching.push(touch)
        }
      }
      return Effect.zipRight(
        Effect.all([...expiring, ...touching], { discard: true }),
        Effect.forEach(ending, (session) => this.end(session), { discard: true })
      )
    })
  }

  /** Ends every session (shared ones only here: they go on on the other instances). */
  get endAll(): Effect.Effect<void> {
    return Effect.suspend(() =>
      Effect.forEach(
        Array.from(this.byClient.values()),
        (session) =>
          this.shared !== undefined && session.registered
            ? Effect.sync(() => this.release(session))
            : this.end(session),
        { discard: true }
      )
    )
  }

  /**
   * Shared: what of an inbound frame is another instance's goes there (`Replication.forward`).
   * Returns what this instance serves (undefined: nothing).
   */
  forward(session: Session, inbound: Wire.Inbound): Wire.Inbound | undefined {
    return this.shared === undefined ? inbound : this.shared.forward(session, inbound)
  }

  /** Shared: serves what other instances send here, for the scope's life (fork it). */
  get inbox(): Effect.Effect<void> {
    return this.shared?.inbox ?? Effect.void
  }

  /** Shared: follows what other instances change (a session's state, its end), for the scope's life (fork it). */
  get follow(): Effect.Effect<void> {
    return this.shared?.follow ?? Effect.void
  }
}
