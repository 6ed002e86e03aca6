/**
 * The seam between a transport whose handshake sessions are shared between instances (Streamable
 * HTTP and legacy HTTP+SSE with a `SessionStore` in context) and the handshake era serving them
 * on an engine. The transport attaches it to the protocol it gives the engine; without it (stdio,
 * a single process) nothing here is used.
 *
 * The era hands the shared part of a session's state (`Snapshot`) to the transport whenever it
 * changes (`changed`, awaited before the change is answered, so the next request, on any
 * instance, sees it), begins a session that began elsewhere from its record (`adopt`), and is
 * told when another instance changed it (`refresh`) or ended it (`end`), and when this instance
 * begins to hold its standalone stream (`held`).
 */
import type { McpError, Transport } from "@effect-mcp/core"
import type * as Effect from "effect/Effect"
import type * as NotificationBus from "../NotificationBus.js"

/** The shared part of a handshake session's state, as plain JSON. */
export interface Snapshot {
  readonly phase: "new" | "initializing" | "ready"
  readonly revision: string
  readonly clientInfo?: Readonly<Record<string, unknown>> | undefined
  readonly clientCapabilities: Readonly<Record<string, unknown>>
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly logLevel?: string | undefined
  readonly subscriptions: ReadonlyArray<string>
}

/** What the handshake era of an engine offers the transport. */
export interface Era {
  /** Another instance changed the session of `client`. */
  readonly refresh: (client: Transport.ClientId, snapshot: Snapshot) => Effect.Effect<void>
  /** The session of `client` ended for good (not only here): what it owns ends (forked on the engine's runtime). */
  readonly end: (client: Transport.ClientId) => void
  /**
   * The standalone stream of `client`'s session is held here from now on: the session begins
   * here (from its record) if it had not, so that it hears the changes to come, and is told of
   * those it `missed` while no instance held it (`"all"`: every list may have changed).
   */
  readonly held: (
    client: Transport.ClientId,
    missed: ReadonlyArray<NotificationBus.Event> | "all"
  ) => Effect.Effect<void>
}

/** What the transport offers the handshake era. */
export interface SharedSessions {
  /** The first id of the requests this instance sends to clients (its own range). */
  readonly firstId: number
  /** The state the session of `client` begins with, when it began on another instance. */
  readonly adopt: (client: Transport.ClientId) => Snapshot | undefined
  /** The shared state of `client`'s session changed: kept before this completes. */
  readonly changed: (client: Transport.ClientId, snapshot: Snapshot) => Effect.Effect<void, McpError.McpError>
  /** Who owns the tasks of `client`'s session: the session, whatever instance serves it. */
  readonly owner: (client: Transport.ClientId) => string | undefined
  /**
   * Is the standalone stream of `client`'s session held here? Change notifications go out from
   * the instance that holds it (each instance hears every change), so a session hears each once.
   */
  readonly holdsStandalone: (client: Transport.ClientId) => boolean
  /** The era, attached as the engine starts. */
  readonly attach: (era: Era) => void
}

/** A protocol that may carry shared sessions. */
export interface SharedProtocol extends Transport.Protocol {
  readonly shared?: SharedSessions | undefined
}

/** The shared sessions of a protocol, if it has them. */
export const of = (protocol: Transport.Protocol): SharedSessions | undefined => (protocol as SharedProtocol).shared
