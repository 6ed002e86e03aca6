/**
 * The stateless era's parts of a `Request` (2026-07-28, `request.ts`): `StatelessClient`, what
 * the request's own `_meta` says of its client (revision, capabilities, client info, log level);
 * `Channel`, where what it causes goes; `Answers`, its asks, answered from the retry that carries
 * them or signalled as `input_required` (`stateless.ts` turns the signals into the result).
 * Nothing of it outlives the request, but what a task keeps (`Request.forTask`).
 */
import type { AuthInfo, JsonRpc, Revision, Transport } from "@effect-mcp/core"
import { Meta } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as McpRequest from "../McpRequest.js"
import type * as Ask from "./ask.js"
import type { Host } from "./handshake.js"
import * as Holders from "./holders.js"
import * as InputRequired from "./inputRequired.js"
import * as McpSchema from "./mcpSchema.js"
import type { Client, Sink } from "./request.js"
import { Request } from "./request.js"
import * as Tasks from "./tasks.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel

/**
 * Where what a stateless request causes goes (its `Sink`): a client of an engine (stdio, an
 * in-memory pair: `EngineChannel`), or the request's own channel (a 2026-07-28 HTTP POST: its
 * `Transport.Sink`).
 */
export interface Channel extends Sink {
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

/** A stateless request: one `Request` on its own `_meta` (`StatelessClient`), its channel, its answers. */
export type StatelessRequest = Request<StatelessClient, Channel, Answers>

/**
 * The context of one stateless request: `McpRequest`, read from the request's own `_meta`. Made
 * before the request's fiber is forked; the answers a retry carries are attached as its first step.
 */
export const make = (
  request: JsonRpc.Request,
  channel: Channel,
  revision: Revision.Revision,
  meta: McpSchema.Base.MetaObject,
  clientCapabilities: ClientCapabilities,
  level: Option.Option<LoggingLevel>,
  auth: Option.Option<AuthInfo.AuthInfo>,
  address: string | undefined,
  anonymous: boolean
): StatelessRequest =>
  new Request(
    request,
    new StatelessClient(revision, meta, clientCapabilities, level, address, anonymous, channel.connection),
    new Answers(revision, clientCapabilities),
    channel,
    auth,
    meta
  )

/** What a stateless request knows of its client: what its `_meta` says, and where it came from. */
export class StatelessClient implements Client {
  readonly era = "stateless" as const
  constructor(
    readonly revision: Revision.Revision,
    readonly meta: McpSchema.Base.MetaObject,
    readonly clientCapabilities: ClientCapabilities,
    readonly level: Option.Option<LoggingLevel>,
    /** Its client's address, when the transport knows it (`Transport.ReceiveContext.peer`). */
    readonly address: string | undefined,
    /** Nothing names its client, not even a connection (`Transport.ReceiveContext.anonymous`). */
    readonly anonymous: boolean,
    /**
     * Its connection, when that is what names its client (`Channel.connection`); never its channel,
     * which a task must not keep (an HTTP POST's holds its body).
     */
    readonly connection: string | undefined
  ) {}

  get clientInfo() {
    return Meta.getClientInfo(this.meta)
  }
  /** The same client, read from `meta` (the same `_meta`, shared: `TaskRuntime.sharedMeta`). */
  onMeta(meta: McpSchema.Base.MetaObject): StatelessClient {
    const capabilities = meta[Meta.clientCapabilities]
    return new StatelessClient(
      this.revision,
      meta,
      Predicate.isObject(capabilities) ? capabilities as ClientCapabilities : this.clientCapabilities,
      this.level,
      this.address,
      this.anonymous,
      this.connection
    )
  }
  get logLevel() {
    return Effect.succeed(this.level)
  }
  /** Only for requests that asked (`logLevel` in their `_meta`). */
  logs(level: LoggingLevel, set: Option.Option<LoggingLevel>): boolean {
    return Option.isSome(set) && McpSchema.Logging.isAtLeast(level, set.value)
  }
  get taskOwner() {
    // Without a token: the client's address, else its connection (stdio, an in-memory pair); never
    // the name it gives itself, which anyone may give. Task ids are unguessable: the owner keeps a
    // task from clients elsewhere that learnt its id, and is what its quota counts against. Where
    // nothing names the client (an HTTP platform that gives no address), its id is all there is:
    // whoever holds it reaches the task, and only the store's global bounds count it.
    const connection = this.connection
    return this.address !== undefined
      ? `peer:${this.address}`
      : this.anonymous || connection === undefined
      ? Holders.anyone
      : `connection:${connection}`
  }
}

const noAnswers: Readonly<Record<string, unknown>> = Object.freeze({})
const noKeys: ReadonlySet<string> = new Set()

/**
 * How a stateless request asks: the answer when this retry carries it, otherwise the handler
 * stops with an input-required signal (`stateless.ts` turns it into the result).
 */
export class Answers implements Ask.Asker {
  /**
   * Answers by key: earlier rounds' (from the sealed state) and, of the retry's own
   * `inputResponses`, only those to what the last round asked. (Replaced, never changed in place:
   * none shares one empty object.)
   */
  answers: Readonly<Record<string, unknown>> = noAnswers
  /** The keys of the answers this run read (none read: undefined): only those ride on in the sealed state. */
  private read: Set<string> | undefined = undefined
  userState: Option.Option<string> = Option.none()

  constructor(readonly revision: Revision.Revision, readonly clientCapabilities: ClientCapabilities) {}

  get client() {
    return Effect.succeed(this)
  }

  /** The keys of the answers this run read. */
  get consumed(): ReadonlySet<string> {
    return this.read ?? noKeys
  }
  private consume(key: string): void {
    ;(this.read ??= new Set()).add(key)
  }

  carry(ask: Ask.Ask): Effect.Effect<Ask.Answer, McpRequest.ClientRequestError> {
    const key = ask.key
    if (!Object.hasOwn(this.answers, key)) return InputRequired.signal({ [key]: ask.input })
    this.consume(key)
    return Effect.succeed({ value: this.answers[key], key })
  }

  get inputResponse() {
    return (key: string): Option.Option<unknown> => {
      if (!Object.hasOwn(this.answers, key)) return Option.none()
      this.consume(key)
      return Option.some(this.answers[key])
    }
  }
  get requestState(): Option.Option<string> {
    return this.userState
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

  /**
   * What a task keeps: of the answers this retry brought, those the run read, and the handler's
   * state; its client's capabilities `shared` with its client's other tasks when given (the same,
   * from the task's shared `_meta`: not a copy a task, about 0.1 KB).
   */
  forTask(shared?: ClientCapabilities) {
    const asker = new Answers(this.revision, shared ?? this.clientCapabilities)
    if (this.read !== undefined) {
      asker.answers = Object.fromEntries(Array.from(this.read, (key) => [key, this.answers[key]]))
      asker.read = new Set(this.read)
    }
    asker.userState = this.userState
    return {
      asker,
      bytes: Tasks.sizeOf(asker.answers) +
        Option.match(this.userState, { onNone: () => 0, onSome: (state) => state.length })
    }
  }
}
