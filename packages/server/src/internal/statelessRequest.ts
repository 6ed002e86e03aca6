/**
 * The context of one stateless request (2026-07-28): its `McpRequest`, read from the request's
 * own `_meta` (revision, capabilities, client info, log level), and its asks, answered from the
 * retry that carries them or signalled as `input_required` (`stateless.ts` turns the signals into
 * the result). Nothing of it outlives the request, but what a task keeps (`forTask`).
 */
import type { AuthInfo, JsonRpc, Transport } from "@effect-mcp/core"
import { Meta, Revision, Schema as McpSchema } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as McpRequest from "../McpRequest.js"
import type * as Tool from "../Tool.js"
import * as Ask from "./ask.js"
import type { Host } from "./handshake.js"
import * as Holders from "./holders.js"
import * as InputRequired from "./inputRequired.js"
import type { RequestContext } from "./serving.js"
import * as Serving from "./serving.js"
import * as Tasks from "./tasks.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel

/**
 * Where what a stateless request causes goes: a client of an engine (stdio, an in-memory pair:
 * `EngineChannel`), or the request's own channel (a 2026-07-28 HTTP POST: its `Transport.Sink`).
 */
export interface Channel {
  /** A notification related to the request (progress, a log, a subscription's): on its stream. */
  readonly notify: (method: string, params: unknown) => Effect.Effect<void>
  /**
   * Holds the request open past the end of its fiber (`Peer.hold`): what answers it later, or
   * undefined when it is over.
   */
  readonly hold: (onCancel: () => void) => ((exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>) | undefined
  /**
   * What serves it (an engine, or a back end serving requests on channels of their own): its
   * subscriptions are closed when that ends.
   */
  readonly owner: object
  /**
   * Its client, when it has one that other requests share (an engine's): the subscriptions it holds
   * are counted against it. None for a request on a channel of its own (it holds one at most).
   */
  readonly client: Transport.ClientId | undefined
  /** Its connection, when that is what names its client (stdio, an in-memory pair): its tasks' owner. */
  readonly connection: string | undefined
  /**
   * What a task made of the request keeps once the request is answered: this channel where it
   * outlives the request (an engine's client), else one that sends nothing and holds nothing of
   * the request's (an HTTP POST's response, its body).
   */
  readonly detached: Channel
}

/** A request of a client of an engine: what it causes goes through the engine, to that client. */
export class EngineChannel implements Channel {
  constructor(readonly host: Host, readonly client: Transport.ClientId, readonly id: JsonRpc.RequestId) {}

  get owner(): object {
    return this.host
  }
  get connection(): string {
    return `${this.host.id}:${this.client}`
  }
  get detached(): Channel {
    return this
  }
  notify(method: string, params: unknown): Effect.Effect<void> {
    return Effect.ignore(this.host.peer.notify(this.client, method, params, { related: this.id }))
  }
  hold(onCancel: () => void) {
    return this.host.peer.hold(this.client, this.id, onCancel)
  }
}

/**
 * The context of one stateless request: `McpRequest`, read from the request's own `_meta`. Made
 * before the request's fiber is forked; the answers a retry carries are attached as its first step.
 */
export class StatelessRequest implements RequestContext {
  readonly era = "stateless" as const
  /**
   * Answers by key: earlier rounds' (from the sealed state) and, of the retry's own
   * `inputResponses`, only those to what the last round asked.
   */
  answers: Readonly<Record<string, unknown>> = {}
  /** The keys of the answers this run read: only those ride on in the sealed state. */
  readonly consumed = new Set<string>()
  userState: Option.Option<string> = Option.none()
  /** The tool of a `tools/call`, when its transport looked it up already (to check its headers). */
  tool: Tool.Tool | undefined = undefined

  constructor(
    readonly request: JsonRpc.Request,
    /** Where what it causes goes. */
    readonly channel: Channel,
    readonly revision: Revision.Revision,
    readonly meta: McpSchema.Base.MetaObject,
    readonly clientCapabilities: ClientCapabilities,
    readonly level: Option.Option<LoggingLevel>,
    readonly auth: Option.Option<AuthInfo.AuthInfo>,
    /** Its client's address, when the transport knows it (`Transport.ReceiveContext.peer`). */
    readonly address: string | undefined,
    /** Nothing names its client, not even a connection (`Transport.ReceiveContext.anonymous`). */
    readonly anonymous: boolean
  ) {}

  get id() {
    return this.request.id
  }
  get method() {
    return this.request.method
  }
  get features() {
    return Revision.features(this.revision)
  }
  get clientInfo() {
    return Meta.getClientInfo(this.meta)
  }
  get progressToken() {
    return Meta.getProgressToken(this.meta)
  }
  get logLevel() {
    return Effect.succeed(this.level)
  }
  get taskOwner() {
    // Without a token: the client's address, else its connection (stdio, an in-memory pair); never
    // the name it gives itself, which anyone may give. Task ids are unguessable: the owner keeps a
    // task from clients elsewhere that learnt its id, and is what its quota counts against. Where
    // nothing names the client (an HTTP platform that gives no address), its id is all there is:
    // whoever holds it reaches the task, and only the store's global bounds count it.
    const connection = this.channel.connection
    return this.address !== undefined
      ? `peer:${this.address}`
      : this.anonymous || connection === undefined
      ? Holders.anyone
      : `connection:${connection}`
  }

  forTask() {
    // The message goes (its params may be megabytes the tool's schema dropped): its id, method and
    // `_meta` stay, and of the answers this retry brought, those the run read.
    const request: JsonRpc.Request = {
      jsonrpc: "2.0",
      id: this.request.id,
      method: this.request.method,
      params: { _meta: this.meta }
    }
    const context = new StatelessRequest(
      request,
      this.channel.detached,
      this.revision,
      this.meta,
      this.clientCapabilities,
      this.level,
      this.auth,
      this.address,
      this.anonymous
    )
    context.answers = Object.fromEntries(Array.from(this.consumed).map((key) => [key, this.answers[key]]))
    for (const key of this.consumed) context.consumed.add(key)
    context.userState = this.userState
    return {
      context,
      bytes: Tasks.sizeOf(this.meta) + Tasks.sizeOf(context.answers) +
        Option.match(this.userState, { onNone: () => 0, onSome: (state) => state.length })
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
    // Only for requests that asked (`logLevel` in their `_meta`).
    return (level, data, logger) =>
      Option.isSome(this.level) && McpSchema.Logging.isAtLeast(level, this.level.value)
        ? this.notify("notifications/message", { level, data, ...(logger !== undefined ? { logger } : {}) })
        : Effect.void
  }
  get sample(): McpRequest.Service["sample"] {
    return (key, params) => Ask.ask(this.asker, Ask.sampling(key, params, undefined))
  }
  get elicit(): McpRequest.Service["elicit"] {
    return (key, params) => Ask.ask(this.asker, Ask.elicitation(key, params, this.features, undefined))
  }
  get roots(): McpRequest.Service["roots"] {
    return (key = "roots") =>
      Effect.map(
        Ask.ask<McpSchema.Roots.ListRootsResult>(this.asker, Ask.roots(key, undefined)),
        (result) => result.roots
      )
  }
  inputResponse(key: string): Option.Option<unknown> {
    if (!Object.hasOwn(this.answers, key)) return Option.none()
    this.consumed.add(key)
    return Option.some(this.answers[key])
  }

  /**
   * The answers this run read, but those it asks for again (what the next round's state carries:
   * never what nobody asked for, and never an answer its new question replaces).
   */
  kept(asked: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
    return Object.fromEntries(
      Array.from(this.consumed).filter((key) => !Object.hasOwn(asked, key)).map((key) => [key, this.answers[key]])
    )
  }
  get requestState(): Option.Option<string> {
    return this.userState
  }
  get closeSseStream(): Effect.Effect<void> {
    return Effect.void
  }
  get elicitationComplete(): McpRequest.Service["elicitationComplete"] {
    return () => Effect.void
  }

  private notify(method: string, params: unknown): Effect.Effect<void> {
    return this.channel.notify(method, params)
  }

  /**
   * How a stateless request asks: the answer when this retry carries it, otherwise the handler
   * stops with an input-required signal (`stateless.ts` turns it into the result).
   */
  private get asker(): Ask.Asker {
    return {
      client: Effect.succeed(this),
      carry: (ask) => {
        const key = ask.key
        if (!Object.hasOwn(this.answers, key)) return InputRequired.signal({ [key]: ask.input })
        this.consumed.add(key)
        return Effect.succeed({ value: this.answers[key], key })
      }
    }
  }
}
