/**
 * Where handshake sessions live when more than one process serves them: a session begun on one
 * instance is served by any other, with no sticky sessions. Without a store in context (the
 * default) a session is served by the process that created it, and nothing here is used.
 *
 * A store keeps two things:
 *
 * - **The session's record**: who holds it (the subject of its token, authorization on), whether
 *   it is a legacy HTTP+SSE session, and the handshake's state (negotiated revision, client info
 *   and capabilities, the server's capabilities, log level, resource subscriptions) as plain
 *   JSON. It lives `ttl` after its last activity (the idle timeout). Every instance keeps a
 *   replica of the sessions it serves, refreshed by `changes` when another instance changes a
 *   record or ends a session.
 * - **The path between instances**: each instance has a `key` (unique among the live ones), and
 *   the requests it sends to clients carry ids in its own range (`key × 2³²` on), so that an
 *   answer POSTed to any instance reaches the one waiting for it (`send`); a cancellation is
 *   `broadcast` to whoever runs the request; a frame for a session's standalone stream (the GET
 *   stream, or a legacy session's SSE stream) reaches the instance holding it (`toStandalone`,
 *   `holdStandalone`), and waits for the next one, bounded, while none does. Changes to the
 *   server's lists and resources are told by the instance holding the stream; what changed while
 *   none held it (its instance died, or the client was away) the next one tells (`missed`).
 *
 * `@effect-mcp/redis` provides one on Redis.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as NotificationBus from "./NotificationBus.js"

/**
 * One session, as stored.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionRecord {
  readonly id: string
  /** A legacy HTTP+SSE (2024-11-05) session: its one stream carries everything. */
  readonly legacy: boolean
  /** Who holds the token that created it (authorization on): only their tokens may use it. */
  readonly subject: string | undefined
  /** The handshake's state, as the server writes it (plain JSON). */
  readonly state: Readonly<Record<string, unknown>>
}

/**
 * A change another instance made: a session's new state, or its end (`state` undefined).
 *
 * @since 0.1.0
 * @category models
 */
export interface Change {
  readonly id: string
  readonly state: Readonly<Record<string, unknown>> | undefined
  /** The instance that made it (an instance skips its own). */
  readonly origin: number
}

/**
 * A message for a session, from another instance.
 *
 * @since 0.1.0
 * @category models
 */
export interface Delivery {
  readonly sessionId: string
  readonly message: JsonRpc.Message
}

/**
 * The store cannot be reached: a request that needs a session's shared state is answered with a
 * 503 and a JSON-RPC error saying so.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStoreUnavailable extends Data.TaggedError("SessionStoreUnavailable")<{
  readonly cause?: unknown
}> {
  override get message(): string {
    return "The session store cannot be reached"
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** This instance's key, unique among the live instances (at most 2²⁰ − 1). */
  readonly key: number
  /**
   * Keeps a new session for `ttlMillis`, unless `maxSessions` sessions are live over every
   * instance: false then.
   */
  readonly create: (
    record: SessionRecord,
    options: { readonly ttlMillis: number; readonly maxSessions: number }
  ) => Effect.Effect<boolean, SessionStoreUnavailable>
  /** The live session `id`. */
  readonly get: (id: string) => Effect.Effect<Option.Option<SessionRecord>, SessionStoreUnavailable>
  /** Replaces its state, for every instance (`changes`): false when it is gone. */
  readonly update: (
    id: string,
    state: Readonly<Record<string, unknown>>,
    ttlMillis: number
  ) => Effect.Effect<boolean, SessionStoreUnavailable>
  /** Activity: the session lives `ttlMillis` from now. False when it is gone (ended, or expired). */
  readonly touch: (id: string, ttlMillis: number) => Effect.Effect<boolean, SessionStoreUnavailable>
  /** Ends it, for every instance (`changes`). */
  readonly remove: (id: string) => Effect.Effect<void, SessionStoreUnavailable>
  /** What other instances change: new states, and ends. */
  readonly changes: Stream.Stream<Change>
  /** Sends a message of session `sessionId` to the instance `key` (an answer to a request it sent). */
  readonly send: (key: number, delivery: Delivery) => Effect.Effect<void, SessionStoreUnavailable>
  /** Sends a message to every other instance (a cancellation: whoever runs the request stops it). */
  readonly broadcast: (delivery: Delivery) => Effect.Effect<void, SessionStoreUnavailable>
  /** What other instances send to this one (`send`, `broadcast`). */
  readonly inbox: Stream.Stream<Delivery>
  /**
   * A frame (its JSON) for the standalone stream of session `sessionId`: to the instance holding
   * it, or kept for the next one (the newest few, bounded) when none does.
   */
  readonly toStandalone: (sessionId: string, frame: string) => Effect.Effect<void, SessionStoreUnavailable>
  /**
   * Does an instance hold the standalone stream of session `sessionId` now? Absent: not known (a
   * message that must reach a stream open now, a task's ask, is then not sent to other instances).
   */
  readonly holding?: ((sessionId: string) => Effect.Effect<boolean, SessionStoreUnavailable>) | undefined
  /**
   * A frame (its JSON) for the standalone stream of session `sessionId`, only to an instance holding
   * it now: true when one took it; false, and nothing kept, when none holds it. Absent: as `holding`.
   */
  readonly toHolder?:
    | ((sessionId: string, frame: string) => Effect.Effect<boolean, SessionStoreUnavailable>)
    | undefined
  /** This instance holds the session's standalone stream for the scope's life: its frames, kept ones first. */
  readonly holdStandalone: (
    sessionId: string
  ) => Effect.Effect<Queue.Dequeue<string>, SessionStoreUnavailable, Scope.Scope>
  /**
   * The changes (list changes, resource updates) that may not have reached the standalone stream
   * of session `sessionId` while no instance held it (the one that held it died, or the client
   * was away), asked for by the instance that begins to hold it, once `holdStandalone` holds it:
   * the server tells the client of those it asked to hear (a list change at least once). `"all"`
   * when the store cannot tell which (every list may have changed). Absent: nothing is made up for.
   */
  readonly missed?:
    | ((sessionId: string) => Effect.Effect<ReadonlyArray<NotificationBus.Event> | "all", SessionStoreUnavailable>)
    | undefined
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
export class SessionStore extends Context.Tag("@effect-mcp/server/SessionStore")<SessionStore, Service>() {}

/**
 * The first id of the requests an instance sends to clients: its own range of 2³² ids.
 *
 * @since 0.1.0
 * @category constructors
 */
export const firstRequestId = (key: number): number => key * 2 ** 32

/**
 * The instance that sent request `id` to a client, if it is one of a range.
 *
 * @since 0.1.0
 * @category constructors
 */
export const keyOfRequestId = (id: JsonRpc.RequestId): number | undefined =>
  typeof id === "number" && Number.isSafeInteger(id) && id >= 2 ** 32 ? Math.floor(id / 2 ** 32) : undefined
