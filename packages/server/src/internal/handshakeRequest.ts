/**
 * A handshake session's state (plain data in a `Ref`) and the context of one of its requests:
 * `HandshakeRequest` is `McpRequest` for the handshake era (progress, logs and server→client asks
 * on the session's streams) and what the handshake's methods need (`initialize`, subscriptions).
 * The engine's part (dispatch tables, sessions by client, change notifications) is `handshake.ts`.
 */
import type { AuthInfo, JsonRpc } from "@effect-mcp/core"
import { Capabilities, McpError, Meta, Peer, Revision, Schema as McpSchema, Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as McpRequest from "../McpRequest.js"
import * as Ask from "./ask.js"
import type { Registry } from "./registry.js"
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

/**
 * The context of one request of a handshake session: `McpRequest` and what the handshake's
 * methods need. Made before the request's fiber is forked (the fiber starts with it in its
 * context); the session's state is attached as the fiber's first step.
 */
export class HandshakeRequest implements RequestContext {
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
    return (key, params, options) => Ask.ask(this.asker(this.request.id), Ask.sampling(key, params, options))
  }
  get elicit(): McpRequest.Service["elicit"] {
    return (key, params, options) =>
      Ask.ask(this.asker(this.request.id), Ask.elicitation(key, params, this.features, options))
  }
  get roots(): McpRequest.Service["roots"] {
    return (key = "roots", options) =>
      Effect.flatMap(Ref.get(this.session.state), (s) =>
        Option.isSome(s.roots)
          ? Effect.succeed(s.roots.value)
          : Ask.ask<McpSchema.Roots.ListRootsResult>(this.asker(this.request.id), Ask.roots(key, options))
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

  /** A task's ask carried on the stream of `related` (a waiting `tasks/result`), or the session's own. */
  carryRelated(
    ask: Ask.Ask,
    related: JsonRpc.RequestId | undefined
  ): Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> {
    // Checked against this session's client too: it may not be the task's (a token's holder).
    return Ask.carryChecked(this.asker(related), ask)
  }

  /**
   * A task's ask carried on the session's own stream, only if the client listens there now (stdio:
   * always; HTTP: its GET stream open, here or on the instance holding it): its answer, or none when
   * no stream could take it (nothing was sent, nothing kept).
   */
  carryLive(ask: Ask.Ask): Effect.Effect<Option.Option<Ask.Answer>, McpRequest.ClientRequestError> {
    const listening = this.host.protocol.listening
    return Effect.flatMap(
      listening === undefined ? Effect.succeed(true) : listening(this.session.client),
      (open) =>
        open
          ? Effect.catchIf(
            Effect.asSome(this.asker(undefined, true).carry(ask)),
            // The send itself failed (the stream closed since): nothing went.
            (error) => error._tag === "TransportClosed" && error.cause instanceof Transport.TransportError,
            () => Effect.succeedNone
          )
          : Effect.succeedNone
    )
  }

  /**
   * How a handshake session asks: a server→client request, checked against the session's state
   * when it asks. On the stream of request `related`; none, the session's own (`live`: only if
   * the client listens there now, see `Transport.SendContext`).
   */
  private asker(related: JsonRpc.RequestId | undefined, live = false): Ask.Asker {
    return {
      client: Ref.get(this.session.state),
      carry: (ask) => {
        const timeout = ask.options?.timeout
        return Effect.map(
          this.host.peer.request(this.session.client, ask.input.method, ask.params, {
            ...(related !== undefined ? { related } : {}),
            ...(live ? { live } : {}),
            ...(timeout !== undefined ? { timeout } : {})
          }),
          (value) => ({ value, key: undefined })
        )
      }
    }
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
