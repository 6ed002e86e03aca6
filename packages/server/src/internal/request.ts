/**
 * The one `McpRequest` of every era (`Request`): what a handler sees of its request (its meta,
 * progress, logs, asks, cancellation), built from the message and three parts an era supplies:
 *
 * - its `Client`: what the request knows of its client (revision, capabilities, log level, who
 *   owns its tasks): a handshake session's state, or the request's own `_meta` (2026-07-28);
 * - its `Ask.Asker`: how its asks reach the client and come back: a server→client request
 *   (handshake), an input-required signal answered by a retry (2026-07-28), a task's input
 *   requests (a task);
 * - its `Sink`: where what it causes goes (its related notifications, its stream, a task's
 *   status), and what of it a task keeps once the request is answered.
 */
import type { AuthInfo, JsonRpc } from "@effect-mcp/core"
import { Meta, Revision } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as McpRequest from "../McpRequest.js"
import type * as Tool from "../Tool.js"
import * as Ask from "./ask.js"
import * as McpSchema from "./mcpSchema.js"
import * as Serving from "./serving.js"
import * as Tasks from "./tasks.js"

type ClientCapabilities = McpSchema.Capabilities.ClientCapabilities
type LoggingLevel = McpSchema.Base.LoggingLevel

/** What a request knows of its client: a handshake session's state, or its own `_meta`. */
export interface Client {
  readonly era: Revision.Era
  readonly revision: Revision.Revision
  readonly clientInfo: Option.Option<McpSchema.Base.Implementation>
  readonly clientCapabilities: ClientCapabilities
  /** The level at or above which `log` sends (the session's now, or the request's). */
  readonly logLevel: Effect.Effect<Option.Option<LoggingLevel>>
  /** Whether a log at `level` is sent, given the level now (none set: the era says). */
  readonly logs: (level: LoggingLevel, set: Option.Option<LoggingLevel>) => boolean
  /**
   * Who its tasks belong to when it carries no token: its session, or (stateless) its client's
   * address, else its connection, else `Holders.anyone` (nothing names the client).
   */
  readonly taskOwner: string
  /** The same client, but read from `meta` (a request's own `_meta` is what it knows: 2026-07-28). */
  readonly onMeta?: ((meta: McpSchema.Base.MetaObject) => Client) | undefined
}

/** Where what a request causes goes. */
export interface Sink {
  /** A notification related to the request (progress, a log): on its stream. */
  readonly notify: (method: string, params: unknown) => Effect.Effect<void>
  /** Ends the request's stream now, where it has one that may end (`McpRequest.closeSseStream`). */
  readonly closeStream?: Effect.Effect<void> | undefined
  /** `notifications/elicitation/complete`, where the client takes it. */
  readonly elicitationComplete?: ((elicitationId: string) => Effect.Effect<void>) | undefined
  /** A notification to the client related to no request (a task's status), where it has a session. */
  readonly notifySession?: ((method: string, params: object) => Effect.Effect<void>) | undefined
  /**
   * A task's, once the request is one: its progress is the task's status message (and, where the
   * task's requestor has a session, a progress notification there: see `Request.progress`).
   */
  readonly status?: ((message: string) => Effect.Effect<void>) | undefined
  /** The task's id, once the request is one. */
  readonly taskId?: string | undefined
  /** It sends no logs (a 2026-07-28 task's: the extension carries none). */
  readonly mute?: boolean | undefined
  /** What a task made of the request keeps once the request is answered (see `Request.forTask`). */
  readonly detached: Sink
}

/**
 * The message a task keeps of its request: its id and method (its params may be megabytes; its
 * `_meta` is the task's `Request.meta`).
 */
export const kept = (message: JsonRpc.Request): JsonRpc.Request => ({
  jsonrpc: "2.0",
  id: message.id,
  method: message.method
})

/**
 * The context of one request, in every era: `McpRequest`, and what the serving core reads. Made
 * before the request's fiber is forked (the fiber starts with it in its context).
 */
export class Request<
  K extends Client = Client,
  S extends Sink = Sink,
  A extends Ask.Asker = Ask.Asker
> implements McpRequest.Service {
  /** The tool of a `tools/call`, when its transport looked it up already: not looked up again. */
  tool: Tool.Tool | undefined = undefined

  constructor(
    readonly request: JsonRpc.Request,
    readonly client: K,
    readonly asker: A,
    readonly sink: S,
    readonly auth: Option.Option<AuthInfo.AuthInfo>,
    /** The request's `_meta`, read once by whoever made it. */
    readonly meta: McpSchema.Base.MetaObject | undefined = Meta.of(request.params)
  ) {}

  get id() {
    return this.request.id
  }
  get method() {
    return this.request.method
  }
  get era() {
    return this.client.era
  }
  get revision() {
    return this.client.revision
  }
  get features() {
    return Revision.features(this.client.revision)
  }
  get clientInfo() {
    return this.client.clientInfo
  }
  get clientCapabilities() {
    return this.client.clientCapabilities
  }
  get progressToken() {
    return Meta.getProgressToken(this.meta)
  }
  get logLevel() {
    return this.client.logLevel
  }
  get taskOwner() {
    return this.client.taskOwner
  }

  // Methods are getters returning functions, so that a handler may destructure the service.
  get progress(): McpRequest.Service["progress"] {
    return (progress, total, message) => {
      const status = this.sink.status
      const token = this.progressToken
      if (status !== undefined) {
        const set = status(message ?? (total !== undefined ? `${progress}/${total}` : `${progress}`))
        // 2025-11-25 keeps a task call's progress token valid for the task's life: the progress
        // also goes to the requestor's session, tagged with the task (2026-07-28 carries none).
        const session = this.sink.notifySession
        const taskId = this.sink.taskId
        return Option.isNone(token) || session === undefined || taskId === undefined ? set : Effect.zipRight(
          set,
          session("notifications/progress", {
            ...Serving.progressParams(token.value, progress, total, message, this.features),
            _meta: { [Meta.relatedTask]: { taskId } }
          })
        )
      }
      if (Option.isNone(token)) return Effect.void
      return this.sink.notify(
        "notifications/progress",
        Serving.progressParams(token.value, progress, total, message, this.features)
      )
    }
  }
  get log(): McpRequest.Service["log"] {
    return (level, data, logger) =>
      this.sink.mute === true ? Effect.void : Effect.flatMap(
        this.client.logLevel,
        (set) =>
          this.client.logs(level, set)
            ? this.sink.notify("notifications/message", { level, data, ...(logger !== undefined ? { logger } : {}) })
            : Effect.void
      )
  }
  get sample(): McpRequest.Service["sample"] {
    return (key, params, options) => Ask.ask(this.asker, Ask.sampling(key, params, options))
  }
  get elicit(): McpRequest.Service["elicit"] {
    return (key, params, options) => Ask.ask(this.asker, Ask.elicitation(key, params, this.features, options))
  }
  get roots(): McpRequest.Service["roots"] {
    return (key = "roots", options) => {
      const asked = Effect.map(
        Ask.ask<McpSchema.Roots.ListRootsResult>(this.asker, Ask.roots(key, options)),
        (result) => result.roots
      )
      const keep = this.asker.roots
      return keep === undefined ? asked : keep(asked)
    }
  }
  inputResponse(key: string): Option.Option<unknown> {
    const answer = this.asker.inputResponse
    return answer === undefined ? Option.none() : answer(key)
  }
  get requestState(): Option.Option<string> {
    return this.asker.requestState ?? Option.none()
  }
  get closeSseStream(): Effect.Effect<void> {
    return this.sink.closeStream ?? Effect.void
  }
  get elicitationComplete(): McpRequest.Service["elicitationComplete"] {
    return (elicitationId) => {
      const complete = this.sink.elicitationComplete
      return complete === undefined ? Effect.void : complete(elicitationId)
    }
  }
  get notifySession(): ((method: string, params: object) => Effect.Effect<void>) | undefined {
    return this.sink.notifySession
  }
  get carryRelated(): Ask.Asker["carryRelated"] {
    return this.asker.carryRelated
  }
  get carryLive(): Ask.Asker["carryLive"] {
    return this.asker.carryLive
  }

  /**
   * What a task made of this request keeps of it once the request is answered: the message goes
   * (its params may be megabytes the tool's schema dropped; the task's `McpRequest` keeps its id,
   * method and `_meta`), its asker keeps what it must (of a multi-round trip's answers, those the
   * run read), and its sink is the one that outlives the request. `bytes`: what that holds.
   */
  forTask(
    shared?: ClientCapabilities
  ): { readonly asker: Ask.Asker; readonly sink: Sink; readonly bytes: number } {
    const asker = this.asker.forTask === undefined ? { asker: this.asker, bytes: 0 } : this.asker.forTask(shared)
    return { asker: asker.asker, sink: this.sink.detached, bytes: Tasks.sizeOf(this.meta) + asker.bytes }
  }
}
