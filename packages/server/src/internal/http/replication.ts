/**
 * Handshake sessions shared between instances (a `SessionStore` in context): a session begun on
 * one instance is served by any. Its record lives in the store (kept within the cluster's
 * `maxSessions`, touched while in use, removed when it ends); an instance that meets a session
 * it does not know serves a replica of it, from its record. Its standalone stream is held by one
 * instance at a time (`holdStream`): frames raised for it elsewhere come there through the store,
 * and are decoded (`Wire.decode`) before they go on. Answers to another instance's requests, and
 * cancellations of requests not in flight here, go to the other instances (`forward`); what they
 * send and change comes here (`inbox`, `follow`).
 */
import type { AuthInfo } from "@effect-mcp/core"
import { JsonRpc, McpError, Revision, Wire } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as EffectStream from "effect/Stream"
import type * as NotificationBus from "../../NotificationBus.js"
import * as SessionStore from "../../SessionStore.js"
import type * as Shared from "../sharedSessions.js"
import type { Channel } from "./channel.js"
import * as Front from "./front.js"
import { holderOf, type Session } from "./session.js"
import type { Sessions } from "./sessions.js"

type Reply = Front.Reply

/** Sessions shared with other instances. */
export interface SharedConfig {
  readonly store: SessionStore.Service
  /** The least time between two touches of one session's record by this instance. */
  readonly touchMillis: number
}

/** The reply when the session store cannot be reached. */
export const storeUnavailable = (id?: JsonRpc.RequestId | null): Reply =>
  Front.error(503, Front.transportError, "Service Unavailable: the session store cannot be reached", {
    id: id ?? null
  })

const tooManySessions = "Service Unavailable: too many sessions, try again later"

/**
 * A frame another instance raised for a session's stream, decoded: its message (a batch's
 * messages), or undefined when it is not JSON-RPC (a batch: not all of it). Our own instances encoded it: no depth bound here (the
 * client's own applies).
 */
const frameOf = (text: string): JsonRpc.Frame | undefined => {
  const inbound = Wire.decode(text, { maxDepth: Number.POSITIVE_INFINITY })
  switch (inbound._tag) {
    case "Single":
      return inbound.message
    case "Batch": {
      const messages = inbound.items.flatMap((item) => item._tag === "Single" ? [item.message] : [])
      return messages.length === inbound.items.length ? messages : undefined
    }
    case "Invalid":
      return undefined
  }
}

/** What of the handshake sessions of one HTTP handler is shared with other instances. */
export class Replication {
  /** The handshake era of the engine, once it runs. */
  private era: Shared.Era | undefined = undefined

  constructor(readonly sessions: Sessions, readonly config: SharedConfig) {}

  /** What the handshake era of the engine is offered. */
  offered(): Shared.SharedSessions {
    const { sessions } = this
    return {
      firstId: SessionStore.firstRequestId(this.config.store.key),
      adopt: (client) => {
        const session = sessions.ofClient(client)
        const adopted = session?.adopted
        if (session !== undefined) session.adopted = undefined
        return adopted
      },
      changed: (client, snapshot) =>
        Effect.suspend(() => {
          const session = sessions.ofClient(client)
          if (session === undefined || session.ended) return Effect.void
          if (!session.registered) {
            session.snapshot = snapshot
            return Effect.void
          }
          const done = Deferred.unsafeMake<void>(FiberId.none)
          session.writes.add(done)
          return this.config.store.update(session.id, { ...snapshot }, sessions.config.idleMillis).pipe(
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
        const session = sessions.ofClient(client)
        return session === undefined ? undefined : `session:${session.id}`
      },
      holdsStandalone: (client) => sessions.ofClient(client)?.standalone.stream !== undefined,
      attach: (era) => {
        this.era = era
      }
    }
  }

  /**
   * The session `id` (`local`: the one known here, if any) for `Sessions.resolve`: a local one
   * touched in the store at most every `touchMillis` (one that expired meanwhile is not found),
   * else a replica of it from its record. `k` gets it or the reply that says why not.
   */
  resolve(
    id: string,
    legacy: boolean,
    auth: AuthInfo.AuthInfo | undefined,
    local: Session | undefined,
    k: (found: Session | Reply) => void
  ): void {
    const config = this.config
    const fork = this.sessions.config.fork
    if (local !== undefined) {
      const found = this.sessions.find(id, legacy, auth)
      if (found === undefined) return k(Front.sessionNotFound())
      const now = this.sessions.now()
      if (now - found.touchedAt < config.touchMillis) return k(found)
      found.touchedAt = now
      return void fork(
        Effect.match(config.store.touch(id, this.sessions.config.idleMillis), {
          onFailure: () => k(storeUnavailable()),
          onSuccess: (alive) => {
            if (alive) return k(found)
            this.sessions.release(found)
            k(Front.sessionNotFound())
          }
        })
      )
    }
    fork(
      Effect.match(config.store.get(id), {
        onFailure: () => k(storeUnavailable()),
        onSuccess: (record) => k(this.replica(record, legacy, auth))
      })
    )
  }

  /** A replica of a session another instance began, from its record; or why there is none. */
  private replica(
    record: Option.Option<SessionStore.SessionRecord>,
    legacy: boolean,
    auth: AuthInfo.AuthInfo | undefined
  ): Session | Reply {
    if (Option.isNone(record) || record.value.legacy !== legacy) return Front.sessionNotFound()
    const { id, state, subject } = record.value
    if (subject !== holderOf(auth)) {
      this.sessions.config.fork(
        Effect.logWarning("effect-mcp: a request named a session that belongs to another subject; answered 404")
      )
      return Front.sessionNotFound()
    }
    // Begun here meanwhile (two requests of one session at once): that one.
    const meanwhile = this.sessions.named(id)
    if (meanwhile !== undefined) return meanwhile
    if (this.sessions.isFull()) return Front.error(503, Front.transportError, tooManySessions)
    const snapshot = state as unknown as Shared.Snapshot
    const session = this.sessions.adopt(id, legacy, subject, snapshot)
    if (!legacy && Revision.isRevision(snapshot.revision) && snapshot.phase !== "new") {
      session.revision = snapshot.revision
    }
    session.touchedAt = this.sessions.now()
    return session
  }

  /**
   * The answer to the POST that carried `initialize`. The session is kept in the store (within
   * the cluster's `maxSessions`), then registered here and answered; or dropped, and the POST
   * answered 503.
   */
  register(session: Session, channel: Channel, frame: JsonRpc.Frame): Effect.Effect<void> {
    const { idleMillis, maxSessions } = this.sessions.config
    const version = (frame as { readonly result?: { readonly protocolVersion?: unknown } }).result?.protocolVersion
    if (!Revision.isRevision(version) || session.snapshot === undefined) {
      this.sessions.drop(session)
      return channel.last(frame)
    }
    const record: SessionStore.SessionRecord = {
      id: session.id,
      legacy: false,
      subject: session.subject,
      state: { ...session.snapshot }
    }
    return Effect.flatMap(
      Effect.either(this.config.store.create(record, { ttlMillis: idleMillis, maxSessions })),
      (created) => {
        if (created._tag === "Right" && created.right) {
          session.snapshot = undefined
          session.touchedAt = this.sessions.now()
          this.sessions.initialized(session, frame)
          return channel.last(frame)
        }
        this.sessions.drop(session)
        const id = (frame as JsonRpc.Response).id
        return Effect.sync(() =>
          channel.refuse(
            created._tag === "Left"
              ? storeUnavailable(id)
              : Front.error(503, Front.transportError, tooManySessions, { id })
          )
        )
      }
    )
  }

  /**
   * A new legacy session kept in the store (within the cluster's `maxSessions`) before its stream
   * opens; `k` gets undefined then, or the reply that refuses it (it is dropped).
   */
  createLegacy(session: Session, k: (refused: Reply | undefined) => void): void {
    const { idleMillis, maxSessions } = this.sessions.config
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
    this.sessions.config.fork(
      Effect.match(this.config.store.create(record, { ttlMillis: idleMillis, maxSessions }), {
        onFailure: () => {
          this.sessions.drop(session)
          k(storeUnavailable())
        },
        onSuccess: (created) => {
          if (created) {
            session.touchedAt = this.sessions.now()
            return k(undefined)
          }
          this.sessions.drop(session)
          k(Front.error(503, Front.transportError, tooManySessions))
        }
      })
    )
  }

  /** The session ends everywhere: the era ends what it owns, and its record goes (every instance drops its replica). */
  ending(session: Session): void {
    if (session.registered) this.era?.end(session.client)
  }

  /** Its record removed (after `ending`): it expires if that fails. */
  remove(session: Session): Effect.Effect<void> {
    return Effect.catchAll(
      this.config.store.remove(session.id),
      (error) => Effect.logWarning("effect-mcp: a session's record could not be removed (it expires)", error)
    )
  }

  /**
   * A session kept only by a connection open here (its GET stream, a long request) lives on in
   * the store too, its record and its events: touched at most every `touchMillis`; gone (ended
   * elsewhere, expired), its replica goes. Undefined when not due.
   */
  keepAlive(session: Session, now: number): Effect.Effect<void> | undefined {
    if (now - session.touchedAt < this.config.touchMillis) return undefined
    session.touchedAt = now
    return Effect.match(this.config.store.touch(session.id, this.sessions.config.idleMillis), {
      onFailure: () => undefined,
      onSuccess: (alive) => {
        if (!alive) this.sessions.release(session)
      }
    })
  }

  /**
   * This instance holds the standalone stream of `session` from now on, until `releaseStream`:
   * frames other instances raise for it come here; the era tells it what it missed while none did.
   */
  holdStream(session: Session): void {
    if (session.holding !== undefined || session.ended) return
    const { store } = this.config
    const channel = session.standalone
    const held = (missed: ReadonlyArray<NotificationBus.Event> | "all") =>
      this.era === undefined || session.ended ? Effect.void : this.era.held(session.client, missed)
    session.holding = this.sessions.config.fork(
      Effect.gen(function*() {
        const frames = yield* store.holdStandalone(session.id)
        // What changed while no instance held it (its holder died, or the client was away) is told
        // now; Redis unreachable, every list may have changed.
        const missed = store.missed === undefined
          ? []
          : yield* Effect.orElseSucceed(store.missed(session.id), () => "all" as const)
        yield* held(missed)
        while (true) {
          const frame = frameOf(yield* Queue.take(frames))
          if (frame === undefined) {
            yield* Effect.logWarning("effect-mcp: a frame from another instance is not JSON-RPC; it was dropped")
            continue
          }
          yield* channel.emit(frame)
        }
      }).pipe(
        Effect.scoped,
        Effect.catchAll((error) => Effect.logWarning("effect-mcp: could not hold a session's stream", error)),
        Effect.interruptible
      )
    )
  }

  /** The standalone stream of `session` is no longer held here. */
  releaseStream(session: Session): void {
    const fiber = session.holding
    if (fiber === undefined) return
    session.holding = undefined
    fiber.unsafeInterruptAsFork(FiberId.none)
  }

  /** A frame (encoded) for the standalone stream, which another instance may hold (or the next one will). */
  elsewhere(session: Session, data: string): Effect.Effect<void> {
    return Effect.catchAll(
      this.config.store.toStandalone(session.id, data),
      (error) => Effect.logWarning("effect-mcp: a frame for a session's stream elsewhere was lost", error)
    )
  }

  /** A frame (encoded) for the standalone stream, only to an instance holding it now: whether one took it. */
  toHolder(session: Session, data: string): Effect.Effect<boolean> {
    const toHolder = this.config.store.toHolder
    return toHolder === undefined
      ? Effect.succeed(false)
      : Effect.orElseSucceed(toHolder(session.id, data), () => false)
  }

  /** Does an instance hold the standalone stream of `session` now (not known: no)? */
  holding(session: Session): Effect.Effect<boolean> {
    const holding = this.config.store.holding
    return holding === undefined ? Effect.succeed(false) : Effect.orElseSucceed(holding(session.id), () => false)
  }

  /**
   * What of an inbound frame is another instance's. An answer to a request another instance sent
   * (its id in that instance's range) goes there; a cancellation of a request not in flight here
   * goes to every instance (whoever runs it stops it). Returns what this instance serves
   * (undefined: nothing).
   */
  forward(session: Session, inbound: Wire.Inbound): Wire.Inbound | undefined {
    if (inbound._tag === "Invalid") return inbound
    const { store } = this.config
    const fork = this.sessions.config.fork
    const elsewhere = (message: JsonRpc.Message): boolean => {
      if (!("method" in message)) {
        const owner = message.id === null ? undefined : SessionStore.keyOfRequestId(message.id)
        if (owner === undefined || owner === store.key) return false
        fork(this.deliver(store.send(owner, { sessionId: session.id, message })))
        return true
      }
      if (message.method === "notifications/cancelled" && !("id" in message)) {
        const id = (message.params as { readonly requestId?: unknown } | undefined)?.requestId
        const here = (typeof id === "string" || typeof id === "number") &&
          (session.owner.has(id) || session.started.has(id))
        if (!here) fork(this.deliver(store.broadcast({ sessionId: session.id, message })))
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

  /** Serves what other instances send here, for the scope's life (fork it). */
  get inbox(): Effect.Effect<void> {
    return EffectStream.runForEach(this.config.store.inbox, ({ message, sessionId }) =>
      Effect.sync(() => {
        const session = this.sessions.named(sessionId)
        if (session === undefined || session.ended) return
        this.sessions.receiver().receive(session.client, { _tag: "Single", message })
      }))
  }

  /** Follows what other instances change (a session's state, its end), for the scope's life (fork it). */
  get follow(): Effect.Effect<void> {
    const { store } = this.config
    return EffectStream.runForEach(store.changes, (change) =>
      Effect.suspend(() => {
        if (change.origin === store.key) return Effect.void
        const session = this.sessions.named(change.id)
        if (session === undefined || session.ended) return Effect.void
        if (change.state === undefined) {
          this.era?.end(session.client)
          this.sessions.release(session)
          return Effect.void
        }
        return this.era?.refresh(session.client, change.state as unknown as Shared.Snapshot) ?? Effect.void
      }))
  }
}
