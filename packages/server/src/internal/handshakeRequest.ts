/**
 * A handshake session's state (plain data in a `Ref`) and the handshake era's parts of a
 * `Request` (`request.ts`): `SessionPart`, what a request knows of its session's client and where
 * what it causes goes (the session's streams), with what the handshake's methods need
 * (`initialize`, subscriptions); `SessionAsker`, its asks as server→client requests.
 * The engine's part (dispatch tables, sessions by client, change notifications) is `handshake.ts`.
 */
import type { AuthInfo, JsonRpc } from "@effect-mcp/core"
import { Capabilities, McpError, Peer, Revision, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as McpRequest from "../McpRequest.js"
import * as Ask from "./ask.js"
import * as McpSchema from "./mcpSchema.js"
import type { Registry } from "./registry.js"
import type { Client, Sink } from "./request.js"
import { Request } from "./request.js"
import type { Config } from "./serving.js"
import * as Serving from "./serving.js"
import * as Shape from "./shape.js"
import * as Shared from "./sharedSessions.js"

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
export const update = (session: Session, f: (s: State) => State): Effect.Effect<void> =>
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
export const persist = (
  host: Host,
  session: Session,
  f: (s: State) => State
): Effect.Effect<void, McpError.McpError> => {
  const shared = Shared.of(host.protocol)
  if (shared === undefined) return update(session, f)
  return Effect.zipRight(
    update(session, f),
    Effect.suspend(() => shared.changed(session.client, snapshotOf(session.current)))
  )
}

export type Table = Serving.Table<HandshakeRequest>
// ---------------------------------------------------------------------------- the server's part

/** What a server shares between every engine it serves handshake sessions on. */
export interface Server {
  readonly registry: Registry
  readonly config: Config
  /** What one session may subscribe to (`resources/subscribe`): most URIs, most characters of them together. */
  readonly subscriptionLimits: { readonly maxUris: number; readonly maxLength: number }
  readonly table: (phase: Phase, revision: Revision.Revision, capabilities: ServerCapabilities) => Table
}

// ---------------------------------------------------------------------------- the per-request context

/** Who a session's tasks belong to (without a token): the session, on this engine or (shared) on any. */
export const ownerOf = (host: Host, client: Transport.ClientId): string =>
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

/** A handshake session's request: one `Request` on its session (`SessionPart`) and the session's asker. */
export type HandshakeRequest = Request<SessionPart, SessionPart, SessionAsker>

/**
 * The context of one request of a handshake session: made before the request's fiber is forked
 * (the fiber starts with it in its context); the session's state is attached as the fiber's first
 * step (`SessionPart.attach`).
 */
export const make = (
  request: JsonRpc.Request,
  server: Server,
  host: Host,
  auth: Option.Option<AuthInfo.AuthInfo>
): HandshakeRequest => {
  const part = new SessionPart(request.id, server, host)
  return new Request(request, part, new SessionAsker(part, request.id), part, auth)
}

/**
 * A request's part of its handshake session: what it knows of the client (the session's state
 * when it began; its log level now), where what it causes goes (the session's streams, related to
 * the request), and what the handshake's methods do to the session (`initialize`, subscriptions).
 */
export class SessionPart implements Client, Sink {
  readonly era = "handshake" as const
  session!: Session
  /** The session's state when the request began. */
  snapshot!: State
  constructor(
    readonly id: JsonRpc.RequestId,
    readonly server: Server,
    readonly host: Host
  ) {}

  attach(session: Session, snapshot: State): this {
    this.session = session
    this.snapshot = snapshot
    return this
  }

  get revision() {
    return this.snapshot.revision
  }
  get clientInfo() {
    return this.snapshot.clientInfo
  }
  get clientCapabilities() {
    return this.snapshot.clientCapabilities
  }
  get logLevel() {
    return Effect.map(Ref.get(this.session.state), (now) => now.logLevel)
  }
  /** A session's log: everything until the client sets a level. */
  logs(level: LoggingLevel, set: Option.Option<LoggingLevel>): boolean {
    return Option.isNone(set) || McpSchema.Logging.isAtLeast(level, set.value)
  }
  get taskOwner() {
    return ownerOf(this.host, this.session.client)
  }
  /** What a task keeps: the session itself (it outlives the request). */
  get detached(): this {
    return this
  }

  notify(method: string, params: unknown): Effect.Effect<void> {
    return Effect.ignore(this.host.peer.notify(this.session.client, method, params, { related: this.id }))
  }
  get closeStream(): Effect.Effect<void> {
    const close = this.host.protocol.closeStream
    return close === undefined ? Effect.void : close(this.session.client, this.id)
  }
  get elicitationComplete() {
    return (elicitationId: string): Effect.Effect<void> =>
      Revision.features(this.snapshot.revision).urlElicitationRequiredError &&
        Capabilities.declares(this.snapshot.clientCapabilities, urlElicitation, this.snapshot.revision)
        ? Effect.ignore(
          this.host.peer.notify(this.session.client, "notifications/elicitation/complete", { elicitationId })
        )
        : Effect.void
  }
  get notifySession() {
    return (method: string, params: object): Effect.Effect<void> =>
      Effect.ignore(this.host.peer.notify(this.session.client, method, params))
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
    const kept = persist(this.host, this.session, (s) => {
      const subscriptions = new Set(s.subscriptions)
      if (add) subscriptions.add(uri)
      else subscriptions.delete(uri)
      return { ...s, subscriptions }
    })
    const told = this.server.config.onResourceSubscribe
    return add && told !== undefined ? Effect.zipRight(kept, told(uri)) : kept
  }
}

const urlElicitation: Capabilities.Ask = { method: "elicitation/create", params: { mode: "url" } }

/**
 * How a handshake session asks: a server→client request, checked against the session's state
 * when it asks, on the stream of request `related` (none: the session's own; `live`: only if the
 * client listens there now, see `Transport.SendContext`). The client's roots are kept in the
 * session when the client can tell they changed.
 */
export class SessionAsker implements Ask.Asker {
  constructor(
    readonly part: SessionPart,
    readonly related: JsonRpc.RequestId | undefined,
    readonly live = false
  ) {}

  get client() {
    return Ref.get(this.part.session.state)
  }

  carry(ask: Ask.Ask): Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> {
    const { host, session } = this.part
    const timeout = ask.options?.timeout
    return Effect.map(
      host.peer.request(session.client, ask.input.method, ask.params, {
        ...(this.related !== undefined ? { related: this.related } : {}),
        ...(this.live ? { live: this.live } : {}),
        ...(timeout !== undefined ? { timeout } : {})
      }),
      (value) => ({ value, key: undefined })
    )
  }

  get roots() {
    const { host, session } = this.part
    return <E>(ask: Effect.Effect<ReadonlyArray<McpSchema.Roots.Root>, E>) =>
      Effect.flatMap(Ref.get(session.state), (s) =>
        Option.isSome(s.roots)
          ? Effect.succeed(s.roots.value)
          : Effect.tap(ask, (list) =>
            // Cache only when the client can tell us the list changed, and it did not change meanwhile.
            // Not when the session is shared: another instance may hear that they changed.
            update(session, (now) =>
              now.clientCapabilities.roots?.listChanged === true && now.rootsGeneration === s.rootsGeneration &&
                Shared.of(host.protocol) === undefined
                ? { ...now, roots: Option.some(list) }
                : now)))
  }

  /** A task's ask carried on the stream of `related` (a waiting `tasks/result`), or the session's own. */
  get carryRelated() {
    return (
      ask: Ask.Ask,
      related: JsonRpc.RequestId | undefined
    ): Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> =>
      // Checked against this session's client too: it may not be the task's (a token's holder).
      Ask.carryChecked(new SessionAsker(this.part, related), ask)
  }

  /**
   * A task's ask carried on the session's own stream, only if the client listens there now (stdio:
   * always; HTTP: its GET stream open, here or on the instance holding it): its answer, or none when
   * no stream could take it (nothing was sent, nothing kept).
   */
  get carryLive() {
    return (ask: Ask.Ask): Effect.Effect<Option.Option<Ask.Answer>, McpRequest.ClientRequestError> => {
      const { host, session } = this.part
      const listening = host.protocol.listening
      return Effect.flatMap(
        listening === undefined ? Effect.succeed(true) : listening(session.client),
        (open) =>
          open
            ? Effect.catchIf(
              Effect.asSome(new SessionAsker(this.part, undefined, true).carry(ask)),
              // The send itself failed (the stream closed since): nothing went.
              (error) => error._tag === "TransportClosed" && error.cause instanceof Transport.TransportError,
              () => Effect.succeedNone
            )
            : Effect.succeedNone
      )
    }
  }
}
