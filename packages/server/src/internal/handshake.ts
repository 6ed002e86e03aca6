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
import type { AuthInfo, JsonRpc } from "@effect-mcp/core"
import {
  Capabilities,
  Dispatch,
  McpError,
  Meta,
  Method,
  Peer,
  Revision,
  Schema as McpSchema,
  Telemetry,
  Transport
} from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as McpRequest from "../McpRequest.js"
import type * as NotificationBus from "../NotificationBus.js"
import * as Resource from "../Resource.js"
import * as Eager from "./eager.js"
import type { Changes, Registry } from "./registry.js"
import type { Config, RequestContext } from "./serving.js"
import * as Serving from "./serving.js"
import * as Shape from "./shape.js"
import * as Shared from "./sharedSessions.js"
import * as Tasks from "./tasks.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type ServerCapabilities = McpSchema.Capabilities.ServerCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel

export type Phase = "new" | "initializing" | "ready"

export interface State {
  readonly phase: Phase
  readonly revision: Revision.Revision
  readonly clientInfo: Option.Option<McpSchema.Base.Implementation>
  readonly clientCapabilities: ClientCapabilities
  readonly capabilities: ServerCapabilities
  readonly logLevel: Option.Option<LoggingLevel>
  readonly subscriptions: ReadonlySet<string>
  readonly roots: Option.Option<ReadonlyArray<McpSchema.Roots.Root>>
  /** Bumped by `notifications/roots/list_changed`: an answer asked for before it is not cached. */
  readonly rootsGeneration: number
  /** The registry's version when the session began: it hears of later changes only. */
  readonly since: number
  /** The dispatch table of this phase, revision and capabilities (built once per server). */
  readonly table: Table
}

export interface Session {
  readonly client: Transport.ClientId
  readonly state: Ref.Ref<State>
  /** The state now, read synchronously: kept with `state` by `update`, what a request is routed by. */
  current: State
  /** When it began (`performance.now()`), for `mcp.server.session.duration`. */
  readonly opened: number
}

/** Updates the state of a session (and what it reads synchronously). */
const update = (session: Session, f: (s: State) => State): Effect.Effect<void> =>
  Ref.update(session.state, (s) => session.current = f(s))

/** The part of a state other instances share (when the transport shares sessions). */
const snapshotOf = (s: State): Shared.Snapshot => ({
  phase: s.phase,
  revision: s.revision,
  clientInfo: Option.getOrUndefined(s.clientInfo) as Shared.Snapshot["clientInfo"],
  clientCapabilities: s.clientCapabilities as Shared.Snapshot["clientCapabilities"],
  capabilities: s.capabilities as Shared.Snapshot["capabilities"],
  logLevel: Option.getOrUndefined(s.logLevel),
  subscriptions: Array.from(s.subscriptions)
})

/** Updates the state of a session, and (shared) keeps what other instances see of it before going on. */
const persist = (host: Host, session: Session, f: (s: State) => State): Effect.Effect<void, McpError.McpError> => {
  const shared = Shared.of(host.protocol)
  if (shared === undefined) return update(session, f)
  return Effect.zipRight(
    update(session, f),
    Effect.suspend(() => shared.changed(session.client, snapshotOf(session.current)))
  )
}

type Table = Serving.Table<HandshakeRequest>
type Route = Dispatch.Route<McpError.McpError, never, HandshakeRequest>

// ---------------------------------------------------------------------------- the server's part

/** What a server shares between every engine it serves handshake sessions on. */
export interface Server {
  readonly registry: Registry
  readonly config: Config
  /** What one session may subscribe to (`resources/subscribe`): most URIs, most characters of them together. */
  readonly subscriptionLimits: { readonly maxUris: number; readonly maxLength: number }
  readonly table: (phase: Phase, revision: Revision.Revision, capabilities: ServerCapabilities) => Table
}

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
    initialize: (params, request) => request.initialize(params),
    "logging/setLevel": (params, request) =>
      Effect.as(persist(request.host, request.session, (s) => ({ ...s, logLevel: Option.some(params.level) })), {}),
    "resources/subscribe": (params, request) => Effect.as(request.subscribe(params.uri, true), {}),
    "resources/unsubscribe": (params, request) => Effect.as(request.subscribe(params.uri, false), {})
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

// ---------------------------------------------------------------------------- the per-request context

/** Who a session's tasks belong to (without a token): the session, on this engine or (shared) on any. */
const ownerOf = (host: Host, client: Transport.ClientId): string =>
  Shared.of(host.protocol)?.owner(client) ?? `session:${host.id}:${client}`

/** The engine an era runs on: where its asks and notifications go. */
export interface Host {
  readonly peer: Peer.Peer
  readonly protocol: Transport.Protocol
  /** Names this engine apart from every other (a session is its client id on one engine). */
  readonly id: string
  /**
   * Forks work of the engine's own (what an ended session leaves to do): on the server's runtime
   * (its logger, its tracer), in the engine's scope (closing it interrupts the work).
   */
  readonly fork: (effect: Effect.Effect<void>) => Fiber.RuntimeFiber<void>
}

/**
 * The context of one request of a handshake session: `McpRequest` and what the handshake's
 * methods need. Made before the request's fiber is forked (the fiber starts with it in its
 * context); the session's state is attached as the fiber's first step.
 */
class HandshakeRequest implements RequestContext {
  readonly era = "handshake" as const
  session!: Session
  /** The session's state when the request began. */
  snapshot!: State
  constructor(
    readonly request: JsonRpc.Request,
    readonly server: Server,
    readonly host: Host,
    readonly auth: Option.Option<AuthInfo.AuthInfo>
  ) {}

  attach(session: Session, snapshot: State): this {
    this.session = session
    this.snapshot = snapshot
    return this
  }

  get id() {
    return this.request.id
  }
  get method() {
    return this.request.method
  }
  get revision() {
    return this.snapshot.revision
  }
  get features() {
    return Revision.features(this.snapshot.revision)
  }
  get clientInfo() {
    return this.snapshot.clientInfo
  }
  get clientCapabilities() {
    return this.snapshot.clientCapabilities
  }
  get meta() {
    return Meta.of(this.request.params)
  }
  get progressToken() {
    return Meta.getProgressToken(this.meta)
  }
  get logLevel() {
    return Effect.map(Ref.get(this.session.state), (now) => now.logLevel)
  }
  get taskOwner() {
    return ownerOf(this.host, this.session.client)
  }

  forTask() {
    // The message goes (its params may be megabytes the tool's schema dropped): its id, method and
    // `_meta` stay, and the session it asks in.
    const meta = this.meta
    const request: JsonRpc.Request = {
      jsonrpc: "2.0",
      id: this.request.id,
      method: this.request.method,
      ...(meta !== undefined ? { params: { _meta: meta } } : {})
    }
    return {
      context: new HandshakeRequest(request, this.server, this.host, this.auth).attach(this.session, this.snapshot),
      bytes: Tasks.sizeOf(meta)
    }
  }

  // Methods are getters returning functions, so that a handler may destructure the service.
  get progress(): McpRequest.Service["progress"] {
    return (progress, total, message) => {
      const token = this.progressToken
      if (Option.isNone(token)) return Effect.void
      return this.notify(
        "notifications/progress",
        Serving.progressParams(token.value, progress, total, message, this.features)
      )
    }
  }
  get log(): McpRequest.Service["log"] {
    return (level, data, logger) =>
      Effect.flatMap(
        Ref.get(this.session.state),
        (now) =>
          Option.isSome(now.logLevel) && !McpSchema.Logging.isAtLeast(level, now.logLevel.value)
            ? Effect.void
            : this.notify("notifications/message", { level, data, ...(logger !== undefined ? { logger } : {}) })
      )
  }
  get sample(): McpRequest.Service["sample"] {
    return (_key, params, options) =>
      this.ask({ method: "sampling/createMessage", params }, "sampling", params, options, this.request.id)
  }
  get elicit(): McpRequest.Service["elicit"] {
    return (_key, params, options) => {
      const url = params.mode === "url"
      return this.ask(
        { method: "elicitation/create", params },
        url ? "elicitation.url" : "elicitation",
        Shape.elicitRequest(params, this.features),
        options,
        this.request.id
      )
    }
  }
  get roots(): McpRequest.Service["roots"] {
    return (_key, options) =>
      Effect.flatMap(Ref.get(this.session.state), (s) =>
        Option.isSome(s.roots)
          ? Effect.succeed(s.roots.value)
          : this.ask<McpSchema.Roots.ListRootsResult>({ method: "roots/list" }, "roots", {}, options, this.request.id)
            .pipe(
              Effect.map((result) => result.roots),
              Effect.tap((list) =>
                // Cache only when the client can tell us the list changed, and it did not change meanwhile.
                // Not when the session is shared: another instance may hear that they changed.
                update(this.session, (now) =>
                  now.clientCapabilities.roots?.listChanged === true && now.rootsGeneration === s.rootsGeneration &&
                    Shared.of(this.host.protocol) === undefined
                    ? { ...now, roots: Option.some(list) }
                    : now)
              )
            ))
  }
  inputResponse(_key: string): Option.Option<unknown> {
    return Option.none()
  }
  get requestState(): Option.Option<string> {
    return Option.none()
  }
  get closeSseStream(): Effect.Effect<void> {
    const close = this.host.protocol.closeStream
    return close === undefined ? Effect.void : close(this.session.client, this.request.id)
  }
  get elicitationComplete(): McpRequest.Service["elicitationComplete"] {
    return (elicitationId) =>
      this.features.urlElicitationRequiredError &&
        Capabilities.declares(this.snapshot.clientCapabilities, urlElicitation, this.snapshot.revision)
        ? Effect.ignore(
          this.host.peer.notify(this.session.client, "notifications/elicitation/complete", { elicitationId })
        )
        : Effect.void
  }

  private notify(method: string, params: unknown): Effect.Effect<void> {
    return Effect.ignore(this.host.peer.notify(this.session.client, method, params, { related: this.request.id }))
  }

  notifySession(method: string, params: object): Effect.Effect<void> {
    return Effect.ignore(this.host.peer.notify(this.session.client, method, params))
  }

  /** A task's ask, on the stream of `related` (a waiting `tasks/result`), or the session's own. */
  askRelated<A>(
    ask: Capabilities.Ask,
    capability: string,
    params: unknown,
    options: McpRequest.AskOptions | undefined,
    related: JsonRpc.RequestId | undefined
  ): Effect.Effect<A, McpRequest.ClientRequestError> {
    return this.ask(ask, capability, params, options, related)
  }

  /**
   * A task's ask on the session's own stream, only if the client listens there now (stdio: always;
   * HTTP: its GET stream open, here or on the instance holding it): its answer, or none when no
   * stream could take it (nothing was sent, nothing kept).
   */
  askLive<A>(
    ask: Capabilities.Ask,
    capability: string,
    params: unknown,
    options: McpRequest.AskOptions | undefined
  ): Effect.Effect<Option.Option<A>, McpRequest.ClientRequestError> {
    const listening = this.host.protocol.listening
    return Effect.flatMap(
      listening === undefined ? Effect.succeed(true) : listening(this.session.client),
      (open) =>
        open
          ? Effect.catchIf(
            Effect.asSome(this.ask<A>(ask, capability, params, options, undefined, true)),
            // The send itself failed (the stream closed since): nothing went.
            (error) => error._tag === "TransportClosed" && error.cause instanceof Transport.TransportError,
            () => Effect.succeedNone
          )
          : Effect.succeedNone
    )
  }

  /**
   * A server→client request, when the revision and the client's capabilities allow it; nothing is
   * sent otherwise. On the stream of request `related`; none, the session's own (`live`: only if
   * the client listens there now, see `Transport.SendContext`).
   */
  private ask<A>(
    ask: Capabilities.Ask,
    capability: string,
    params: unknown,
    options: McpRequest.AskOptions | undefined,
    related: JsonRpc.RequestId | undefined,
    live = false
  ): Effect.Effect<A, McpRequest.ClientRequestError> {
    return Effect.flatMap(Ref.get(this.session.state), (s): Effect.Effect<A, McpRequest.ClientRequestError> => {
      const f = Revision.features(s.revision)
      const method = ask.method
      const entry = Method.lookup(s.revision, method)
      if (
        entry === undefined || entry.decodeResult === undefined || !f.serverRequests ||
        !Capabilities.declares(s.clientCapabilities, ask, s.revision)
      ) {
        return Effect.fail(
          new McpError.MissingRequiredClientCapability({
            requiredCapabilities: Capabilities.required(ask),
            detail: `The client did not declare the ${capability} capability`
          })
        )
      }
      const decode = entry.decodeResult
      return Effect.flatMap(
        this.host.peer.request(this.session.client, method, params, {
          ...(related !== undefined ? { related } : {}),
          ...(live ? { live } : {}),
          ...(options?.timeout !== undefined ? { timeout: options.timeout } : {})
        }),
        (result) => {
          const decoded = decode(result)
          return decoded._tag === "Right"
            ? Effect.succeed(decoded.right as A)
            : Effect.fail(
              new McpError.InternalError({
                message: `The client's ${method} result is invalid: ${Method.describeError(decoded.left)}`
              })
            )
        }
      )
    })
  }

  /** `initialize`: negotiates the revision, records the client, answers with what the server serves. */
  initialize(params: McpSchema.Lifecycle.InitializeRequestParams) {
    const { config, registry, table } = this.server
    return Effect.flatMap(Ref.get(registry.entries), (entries) => {
      const revision = Revision.negotiate(params.protocolVersion, config.revisions)
      const f = Revision.features(revision)
      const capabilities = Serving.capabilities(entries, config, f)
      return Effect.as(
        persist(this.host, this.session, (s): State => ({
          ...s,
          phase: "initializing",
          revision,
          clientInfo: Option.some(params.clientInfo),
          clientCapabilities: params.capabilities,
          capabilities,
          table: table("initializing", revision, capabilities)
        })),
        {
          protocolVersion: revision,
          capabilities,
          serverInfo: Shape.implementation(config.serverInfo, f),
          ...(config.instructions !== undefined ? { instructions: config.instructions } : {})
        }
      )
    })
  }

  subscribe(uri: string, add: boolean): Effect.Effect<void, McpError.McpError> {
    const { maxLength, maxUris } = this.server.subscriptionLimits
    const held = this.session.current.subscriptions
    if (add && !held.has(uri)) {
      // What a session keeps for its lifetime, and what every update is checked against: bounded.
      if (held.size >= maxUris) {
        return Effect.fail(
          new McpError.InvalidParams({
            message: `Invalid params: this session holds ${held.size} resource subscriptions, the most ` +
              `maxSubscriptionUris allows; unsubscribe from one first`,
            data: { limit: "maxSubscriptionUris", max: maxUris }
          })
        )
      }
      let length = uri.length
      for (const subscribed of held) length += subscribed.length
      if (length > maxLength) {
        return Effect.fail(
          new McpError.InvalidParams({
            message: `Invalid params: this session's resource subscriptions would be longer than ` +
              `subscriptionMaxLength (${maxLength} characters)`,
            data: { limit: "subscriptionMaxLength", max: maxLength }
          })
        )
      }
    }
    return persist(this.host, this.session, (s) => {
      const subscriptions = new Set(s.subscriptions)
      if (add) subscriptions.add(uri)
      else subscriptions.delete(uri)
      return { ...s, subscriptions }
    })
  }
}

const urlElicitation: Capabilities.Ask = { method: "elicitation/create", params: { mode: "url" } }

// ---------------------------------------------------------------------------- serving an engine

const listChanged: Record<string, string> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed"
}

const noSubscriptions: ReadonlySet<string> = new Set()

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
  /** Tells the transport's shared sessions of this era, once the engine's host is set. */
  readonly attach: () => void
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
          session.current = fromSnapshot(snapshot, session.current.since, session.current.roots)
          return Ref.set(session.state, session.current)
        }),
      end: (client) => void host().fork(server.config.tasks.endOwner(ownerOf(host(), client))),
      held: (client, missed) => Effect.flatMap(sessionOf(client), (session) => tell(session, missed))
    })
  }
  const stateOf = (client: Transport.ClientId): Effect.Effect<State> => {
    const session = sessions.get(client)
    return session === undefined ? Effect.succeed(initial) : Ref.get(session.state)
  }

  /** A state from what another instance shared of it. */
  const fromSnapshot = (snapshot: Shared.Snapshot, since: number, roots: State["roots"] = Option.none()): State => {
    const revision = Revision.isRevision(snapshot.revision) ? snapshot.revision : initialRevision
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
  /** The session of `client`, begun on its first message (from its record, when it began on another instance). */
  const sessionOf = (client: Transport.ClientId): Effect.Effect<Session> => {
    const session = sessions.get(client)
    if (session !== undefined) return Effect.succeed(session)
    attach()
    return Effect.flatMap(registry.version, (since) => {
      const adopted = Shared.of(host().protocol)?.adopt(client)
      const first = adopted === undefined ? { ...initial, since } : fromSnapshot(adopted, since)
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
    Dispatch.run(session.current.table, context.request, context.attach(session, session.current))

  const onRequest = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    received: Transport.ReceiveContext | undefined
  ): Peer.Handling<never> => {
    const session = sessions.get(client)
    const context = new HandshakeRequest(request, server, host(), Serving.authOf(received))
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

  /**
   * Shared: what a session missed while no instance held its stream, told now that this one does
   * (each list once, each resource once; "all": every list it may hear of).
   */
  const tell = (session: Session, missed: ReadonlyArray<NotificationBus.Event> | "all") =>
    Effect.flatMap(Ref.get(session.state), (s) =>
      Effect.gen(function*() {
        if (s.phase !== "ready") return
        const { peer } = host()
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

  // Changes → notifications, for every ready session.
  const fanOut = (changes: Changes) =>
    Effect.forEach(
      sessions.values(),
      (session) =>
        Effect.flatMap(Ref.get(session.state), (s) =>
          Effect.gen(function*() {
            if (s.phase !== "ready") return
            // Shared: every instance hears the change, and the one holding the session's stream tells it.
            const shared = Shared.of(host().protocol)
            if (shared !== undefined && !shared.holdsStandalone(session.client)) return
            const { peer } = host()
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

  return {
    onRequest,
    onNotification,
    onDisconnect: (client) => {
      const session = sessions.get(client)
      sessions.delete(client)
      // A session that was initialized, ended here (a shared one's replica going is not its end).
      if (
        metrics && session !== undefined && session.current.phase !== "new" &&
        Shared.of(host().protocol) === undefined
      ) {
        const labels = [MetricLabel.make(Telemetry.attributes.protocolVersion, session.current.revision)]
        const described = host().protocol.telemetry
        if (described !== undefined) {
          labels.push(MetricLabel.make(Telemetry.attributes.networkTransport, described.transport))
        }
        Telemetry.serverSessionDuration.unsafeUpdate((performance.now() - session.opened) / 1000, labels)
      }
      // Its tasks (those it owns, not a token's holder's) can no longer be reached: they stop. A shared
      // session may go on elsewhere: its tasks end with it (`Shared.Era.end`).
      if (Shared.of(host().protocol) === undefined) {
        host().fork(server.config.tasks.endOwner(ownerOf(host(), client)))
      }
    },
    revision: (client) => Effect.map(stateOf(client), (s) => s.revision),
    // By the negotiated revision: a 2025-03-26 client may batch notifications/initialized with its
    // first requests (each item still goes through its phase's table; initialize is never batched).
    batching: (client) => Effect.map(stateOf(client), (s) => s.phase !== "new" && Revision.allowsBatching(s.revision)),
    fanOut,
    attach
  }
}
