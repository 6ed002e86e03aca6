/**
 * The handshake era (2024-11-05 … 2025-11-25) on one engine serving any number of sessions:
 * what is the handshake's and nothing else. A session is plain data (its state in a `Ref`, an
 * entry in a map; no fiber while idle): phase, negotiated revision and capabilities, log level,
 * subscriptions, roots. The methods themselves are the serving core's (`serving.ts`); this
 * module adds `initialize`, `ping`, `logging/setLevel`, `resources/(un)subscribe`, the
 * server→client asks, and the change notifications of its sessions.
 *
 * Dispatch tables are built once per server, per phase, revision and declared capabilities,
 * from the catalog: before `notifications/initialized` only what the catalog marks
 * `beforeInitialized` (`initialize`, `ping`), any other method of the session's revision being
 * refused as too early (-32600 `Session not initialized: send initialize before tools/call`);
 * after it, every method of the negotiated revision the server serves and whose capability it
 * declared. A session holds a reference to its table.
 */
import type { JsonRpc, Peer, Transport } from "@effect-mcp/core"
import { Dispatch, McpError, Method, Revision, Telemetry } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as NotificationBus from "../NotificationBus.js"
import * as Resource from "../Resource.js"
import * as Eager from "./eager.js"
import {
  type HandshakeRequest,
  type Host,
  make as makeRequest,
  ownerOf,
  persist,
  type Phase,
  type Server,
  type Session,
  type State,
  type Table,
  update
} from "./handshakeRequest.js"
import type * as Logs from "./logs.js"
import * as McpSchema from "./mcpSchema.js"
import type { Changes, Registry } from "./registry.js"
import type { Config } from "./serving.js"
import * as Serving from "./serving.js"
import * as Shared from "./sharedSessions.js"
import * as Tasks from "./tasks.js"

export type { Host, Phase, Server, Session, State } from "./handshakeRequest.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel
type Route = Dispatch.Route<McpError.McpError, never, HandshakeRequest>

// ---------------------------------------------------------------------------- the server's part

/** The server's part: its dispatch tables, built once and kept. */
export const makeServer = (
  registry: Registry,
  config: Config,
  subscriptionLimits: Server["subscriptionLimits"]
): Server => {
  const core = Serving.make(registry, config)
  const handlers: Dispatch.Handlers<McpError.McpError, never, HandshakeRequest> = {
    ...core,
    // A call answered with a task (2025-11-25, the client asked for one): the task, nested.
    "tools/call": (params, request) =>
      Eager.map(
        core["tools/call"]!(params, request),
        (result) => Tasks.isCreated(result) ? { task: Tasks.task20251125(result.record) } : result
      ),
    ping: () => Effect.succeed({}),
    initialize: (params, request) => request.client.initialize(params),
    "logging/setLevel": (params, request) =>
      Effect.as(
        Effect.zipRight(
          persist(request.client.host, request.client.session, (s) => ({ ...s, logLevel: Option.some(params.level) })),
          config.onLogLevel === undefined ? Effect.void : config.onLogLevel(params.level)
        ),
        {}
      ),
    "resources/subscribe": (params, request) => Effect.as(request.client.subscribe(params.uri, true), {}),
    "resources/unsubscribe": (params, request) => Effect.as(request.client.subscribe(params.uri, false), {})
  }
  const alreadyInitialized: Route = () => Effect.fail(new McpError.InvalidRequest({ message: "Already initialized" }))
  // What a client may ask of a server in a revision: asked before the session is initialized, such a
  // method is an invalid request that says what to send first (-32600), not an unknown method (-32601,
  // kept for names the revision does not have).
  const asked = (revision: Revision.Revision): ReadonlyArray<string> =>
    Array.from(Method.table(revision).values()).flatMap(({ definition }) =>
      definition.kind === "request" && definition.direction !== "server" ? [definition.name] : []
    )
  const tooEarly = (first: string): Route => (request) =>
    Effect.fail(
      new McpError.InvalidRequest({ message: `Session not initialized: send ${first} before ${request.method}` })
    )
  // Before the session is ready: what the catalog marks `beforeInitialized`, and every other
  // method the revision has is too early; ready: every method the server declared. A second
  // initialize, in either later phase, is an invalid request (not an unknown method).
  const early = (first: string) => (routes: Map<string, Route>, revision: Revision.Revision) => {
    const route = tooEarly(first)
    for (const name of asked(revision)) if (!routes.has(name)) routes.set(name, route)
  }
  const phases: { readonly [P in Phase]: Serving.Variant<HandshakeRequest> } = {
    new: { name: "new", gated: false, include: (d) => d.beforeInitialized, extend: early("initialize") },
    initializing: {
      name: "initializing",
      gated: false,
      include: (d) => d.beforeInitialized && d.name !== "initialize",
      extend: (routes, revision) => {
        early("notifications/initialized")(routes, revision)
        routes.set("initialize", alreadyInitialized)
      }
    },
    ready: {
      name: "ready",
      gated: true,
      include: (d) => d.name !== "initialize",
      extend: (routes) => void routes.set("initialize", alreadyInitialized)
    }
  }
  const tables = Serving.tables(handlers)
  const table = (phase: Phase, revision: Revision.Revision, capabilities: ServerCapabilities): Table =>
    tables(revision, capabilities, phases[phase])
  return { registry, config, subscriptionLimits, table }
}

// ---------------------------------------------------------------------------- serving an engine

const listChanged: Record<string, string> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed"
}

const noSubscriptions: ReadonlySet<string> = new Set()

/** A state from what another instance shared of it. */
const fromSnapshot = (
  server: Server,
  snapshot: Shared.Snapshot,
  since: number,
  roots: State["roots"] = Option.none()
): State => {
  const revision = Revision.isRevision(snapshot.revision)
    ? snapshot.revision
    : server.config.revisions[server.config.revisions.length - 1]
  const capabilities = snapshot.capabilities as ServerCapabilities
  return {
    phase: snapshot.phase,
    revision,
    clientInfo: Option.fromNullable(snapshot.clientInfo as McpSchema.Base.Implementation | undefined),
    clientCapabilities: snapshot.clientCapabilities as ClientCapabilities,
    capabilities,
    logLevel: Option.fromNullable(snapshot.logLevel as LoggingLevel | undefined),
    subscriptions: new Set(snapshot.subscriptions),
    roots,
    rootsGeneration: 0,
    since,
    table: server.table(snapshot.phase, revision, capabilities)
  }
}

/**
 * Shared: what a session missed while no instance held its stream, told now that this one does
 * (each list once, each resource once; "all": every list it may hear of).
 */
const tell = (host: Host, session: Session, missed: ReadonlyArray<NotificationBus.Event> | "all") =>
  Effect.flatMap(Ref.get(session.state), (s) =>
    Effect.gen(function*() {
      if (s.phase !== "ready") return
      const { peer } = host
      const lists = new Set<string>(missed === "all" ? Object.keys(listChanged) : [])
      const uris = new Set<string>()
      if (missed !== "all") {
        for (const event of missed) {
          if (event._tag === "ListChanged") lists.add(event.kind)
          else uris.add(event.uri)
        }
      }
      for (const kind of lists) {
        const declared = (s.capabilities as Record<string, { listChanged?: boolean } | undefined>)[kind]
        if (declared?.listChanged === true) yield* Effect.ignore(peer.notify(session.client, listChanged[kind]))
      }
      if (s.capabilities.resources?.subscribe !== true || s.subscriptions.size === 0) return
      for (const uri of uris) {
        if (Array.from(s.subscriptions).some((subscribed) => Resource.covers(subscribed, uri))) {
          yield* Effect.ignore(peer.notify(session.client, "notifications/resources/updated", { uri }))
        }
      }
    }))

/** Changes → notifications, for every ready session. */
const fanOut = (host: Host, sessions: ReadonlyMap<Transport.ClientId, Session>, changes: Changes) =>
  Effect.forEach(
    sessions.values(),
    (session) =>
      Effect.flatMap(Ref.get(session.state), (s) =>
        Effect.gen(function*() {
          if (s.phase !== "ready") return
          // Shared: every instance hears the change, and the one holding the session's stream tells it.
          const shared = Shared.of(host.protocol)
          if (shared !== undefined && !shared.holdsStandalone(session.client)) return
          const { peer } = host
          for (const [kind, seq] of changes.lists) {
            const declared = (s.capabilities as Record<string, { listChanged?: boolean } | undefined>)[kind]
            if (seq > s.since && declared?.listChanged === true) {
              yield* Effect.ignore(peer.notify(session.client, listChanged[kind]))
            }
          }
          if (s.capabilities.resources?.subscribe === true && s.subscriptions.size > 0) {
            for (const [uri, seq] of changes.uris) {
              if (seq <= s.since) continue
              if (Array.from(s.subscriptions).some((subscribed) => Resource.covers(subscribed, uri))) {
                yield* Effect.ignore(peer.notify(session.client, "notifications/resources/updated", { uri }))
              }
            }
          }
        })),
    { discard: true }
  )

/** A log message of the server's, outside any request: to every ready session whose level admits it. */
const logTo = (host: Host, sessions: ReadonlyMap<Transport.ClientId, Session>, message: Logs.Message) =>
  Effect.forEach(
    sessions.values(),
    (session) =>
      Effect.flatMap(Ref.get(session.state), (s) => {
        if (s.phase !== "ready") return Effect.void
        // As a request's log: everything until the client sets a level.
        if (Option.isSome(s.logLevel) && !McpSchema.Logging.isAtLeast(message.level, s.logLevel.value)) {
          return Effect.void
        }
        // Shared: the instance holding the session's stream tells it.
        const shared = Shared.of(host.protocol)
        if (shared !== undefined && !shared.holdsStandalone(session.client)) return Effect.void
        return Effect.ignore(host.peer.notify(session.client, "notifications/message", message))
      }),
    { discard: true }
  )

/**
 * The client of a session is gone from the engine: its duration measured (`measured`: the session,
 * metrics on), and its tasks (those it owns, not a token's holder's), which can no longer be
 * reached, stopped, on the engine's runtime. A shared session may go on elsewhere: its replica
 * going is not its end, and its tasks end with it (`Shared.Era.end`).
 */
const disconnected = (server: Server, host: Host, client: Transport.ClientId, measured: Session | undefined) => {
  if (Shared.of(host.protocol) !== undefined) return
  // A session that was initialized, ended here.
  if (measured !== undefined && measured.current.phase !== "new") {
    const labels = [MetricLabel.make(Telemetry.attributes.protocolVersion, measured.current.revision)]
    const described = host.protocol.telemetry
    if (described !== undefined) {
      labels.push(MetricLabel.make(Telemetry.attributes.networkTransport, described.transport))
    }
    Telemetry.serverSessionDuration.unsafeUpdate((performance.now() - measured.opened) / 1000, labels)
  }
  host.fork(server.config.tasks.endOwner(ownerOf(host, client)))
}

/** An era on one engine: what the engine needs of it (how its requests and notifications are served). */
export interface OnEngine {
  readonly onRequest: (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    received: Transport.ReceiveContext | undefined
  ) => Peer.Handling<never>
  readonly onNotification: (client: Transport.ClientId, notification: JsonRpc.Notification) => Effect.Effect<void>
  readonly onDisconnect: (client: Transport.ClientId) => void
  /** The revision errors of `client` are rendered for. */
  readonly revision: (client: Transport.ClientId) => Effect.Effect<Revision.Revision>
  readonly batching: (client: Transport.ClientId) => Effect.Effect<boolean>
  /** Change notifications for the era's clients. */
  readonly fanOut: (changes: Changes) => Effect.Effect<void>
  /** A log message of the server's, outside any request, for the era's clients. */
  readonly log: (message: Logs.Message) => Effect.Effect<void>
  /** Tells the transport's shared sessions of this era, once the engine's host is set. */
  readonly attach: () => void
  /**
   * The state of `client`'s session, read synchronously, when a relay table may take its calls
   * (`RelayTable`): ready, serving tools, its client asked nothing of (no sampling, elicitation or
   * roots declared: a relayed call's asks could not reach it).
   */
  readonly relayable: (client: Transport.ClientId) => State | undefined
}

/**
 * The handshake era on one engine: a session per client, begun on its first message. Request
 * fibers are forked from the engine's runtime (the server's context), never from the request
 * that created a session.
 */
export const era = (server: Server, host: () => Host, metrics = false): OnEngine => {
  const { config, registry } = server
  const sessions = new Map<Transport.ClientId, Session>()
  const initialRevision = config.revisions[config.revisions.length - 1]
  const initial: State = {
    phase: "new",
    revision: initialRevision,
    clientInfo: Option.none(),
    clientCapabilities: {},
    capabilities: {},
    logLevel: Option.none(),
    subscriptions: noSubscriptions,
    roots: Option.none(),
    rootsGeneration: 0,
    since: 0,
    table: server.table("new", initialRevision, {})
  }
  let attached = false
  /** Once, on the first message: the transport's shared sessions are told of this era. */
  const attach = () => {
    if (attached) return
    attached = true
    Shared.of(host().protocol)?.attach({
      refresh: (client, snapshot) =>
        Effect.suspend(() => {
          const session = sessions.get(client)
          if (session === undefined) return Effect.void
          session.current = fromSnapshot(server, snapshot, session.current.since, session.current.roots)
          return Ref.set(session.state, session.current)
        }),
      end: (client) => void host().fork(server.config.tasks.endOwner(ownerOf(host(), client))),
      held: (client, missed) => Effect.flatMap(sessionOf(client), (session) => tell(host(), session, missed))
    })
  }
  const stateOf = (client: Transport.ClientId): Effect.Effect<State> => {
    const session = sessions.get(client)
    return session === undefined ? Effect.succeed(initial) : Ref.get(session.state)
  }

  /** The session of `client`, begun on its first message (from its record, when it began on another instance). */
  const sessionOf = (client: Transport.ClientId): Effect.Effect<Session> => {
    const session = sessions.get(client)
    if (session !== undefined) return Effect.succeed(session)
    attach()
    return Effect.flatMap(registry.version, (since) => {
      const adopted = Shared.of(host().protocol)?.adopt(client)
      const first = adopted === undefined ? { ...initial, since } : fromSnapshot(server, adopted, since)
      return Effect.map(Ref.make(first), (state) => {
        const begun = sessions.get(client) ?? { client, state, current: first, opened: performance.now() }
        sessions.set(client, begun)
        return begun
      })
    })
  }
  // Routed by the state now, read synchronously: a handler done at once leaves the request done
  // (an `Exit`), answered without a fiber of its own.
  const serveIn = (session: Session, context: HandshakeRequest) =>
    Dispatch.run(session.current.table, context.request, (context.client.attach(session, session.current), context))

  const onRequest = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    received: Transport.ReceiveContext | undefined
  ): Peer.Handling<never> => {
    const session = sessions.get(client)
    const context = makeRequest(request, server, host(), Serving.authOf(received))
    return {
      effect: session === undefined
        ? Effect.flatMap(sessionOf(client), (begun) => serveIn(begun, context))
        : serveIn(session, context),
      context: Serving.requestContext(context)
    }
  }

  const onNotification = (client: Transport.ClientId, notification: JsonRpc.Notification): Effect.Effect<void> => {
    switch (notification.method) {
      case "notifications/initialized":
        return Effect.flatMap(
          sessionOf(client),
          (session) =>
            persist(host(), session, (s): State =>
              s.phase === "initializing"
                ? { ...s, phase: "ready", table: server.table("ready", s.revision, s.capabilities) }
                : s).pipe(
                Effect.catchAll((error) => Effect.logWarning("effect-mcp: a session's state was not kept", error))
              )
        )
      case "notifications/roots/list_changed":
        return Effect.flatMap(sessionOf(client), (session) =>
          update(
            session,
            (s) => ({ ...s, roots: Option.none(), rootsGeneration: s.rootsGeneration + 1 })
          ))
      default:
        return Effect.void
    }
  }

  return {
    onRequest,
    onNotification,
    onDisconnect: (client) => {
      const session = sessions.get(client)
      sessions.delete(client)
      disconnected(server, host(), client, metrics ? session : undefined)
    },
    revision: (client) => Effect.map(stateOf(client), (s) => s.revision),
    // By the negotiated revision: a 2025-03-26 client may batch notifications/initialized with its
    // first requests (each item still goes through its phase's table; initialize is never batched).
    batching: (client) => Effect.map(stateOf(client), (s) => s.phase !== "new" && Revision.allowsBatching(s.revision)),
    fanOut: (changes) => fanOut(host(), sessions, changes),
    log: (message) => logTo(host(), sessions, message),
    attach,
    relayable: (client) => {
      const s = sessions.get(client)?.current
      if (s === undefined || s.phase !== "ready" || s.capabilities.tools === undefined) return undefined
      const asked = s.clientCapabilities
      return asked.sampling === undefined && asked.elicitation === undefined && asked.roots === undefined
        ? s
        : undefined
    }
  }
}
