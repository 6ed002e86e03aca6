/**
 * Streamable HTTP for the stateless era (2026-07-28): POST only, every request its own POST, served
 * on it (its sink, `Peer.Requests`) for exactly as long as its response is open: no engine, no
 * client id, no matching of answers by id. No session, no event ids, no resumption:
 * `Mcp-Session-Id` and `Last-Event-ID` are ignored.
 *
 * - The headers are checked against the body first (SEP-2243): `MCP-Protocol-Version` equals the
 *   `_meta` version, `Mcp-Method` the method, `Mcp-Name` the name or URI, each `Mcp-Param-*` the
 *   tool argument its `x-mcp-header` names; values `=?base64?…?=` decoded. Any disagreement, a
 *   missing header, a broken value: 400 with -32020, and nothing runs.
 * - A response is plain JSON, or an SSE stream scoped to the request when something related to it
 *   (progress, a log, a subscription's acknowledgement) comes first; its end is the response.
 * - A closed response is a cancellation: the request's fiber is interrupted, nothing more is sent.
 * - The status follows the answer: 404 for -32601, 400 for the errors of a bad request (-32700,
 *   -32600, -32602, -32020, -32021, -32022), 503 for a listen refused as too many are open
 *   (-32000), 200 otherwise.
 * - Keep-alive comments on open streams, and the maximum duration of a request: one sweep of the
 *   handler for every POST. On a Worker, a listen also has a keep-alive of its own, started while
 *   its own request is served (`Config.ownKeepAlive`): the sweep's timer belongs to the request
 *   that built the server and is gone with it, and a listen with no timer of its own pending is
 *   cancelled by workerd as hung ("your Worker's code had hung and would never generate a
 *   response"). What another request sends on it (a list changed by a tool call) reaches it: a
 *   promise resolved from another request continues in the request that made it, while it lives.
 */
import type { AuthInfo } from "@effect-mcp/core"
import type { Peer } from "@effect-mcp/core"
import { HttpHeaders, JsonRpc, McpError, Meta, Transport, Wire } from "@effect-mcp/core"
import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import type * as McpServer from "../../McpServer.js"
import type * as Tool from "../../Tool.js"
import * as Holders from "../holders.js"
import * as Server from "../server.js"
import * as Era from "../stateless.js"
import type { Channel } from "../statelessRequest.js"
import type { Auth } from "./auth.js"
import type { Exchange, Stream } from "./exchange.js"
import * as Front from "./front.js"
import type { InFlightTally } from "./inFlight.js"

type RequestId = JsonRpc.RequestId

export interface Config {
  readonly server: McpServer.Service
  readonly maxBodyBytes: number
  readonly maxDepth: number
  readonly clock: Clock.Clock
  /** Requests (but listens) in flight longer than this are interrupted (undefined: no limit). */
  readonly maxRequestMillis: number | undefined
  readonly acceptVerdicts: Front.AcceptVerdicts
  /** Authorization, when on. */
  readonly auth: Auth | undefined
  /** The address of an exchange's client (as the trusted proxies forward it), for its quotas. */
  readonly peerOf: (exchange: Exchange) => string | undefined
  /** The handler's requests in flight, per holder and in total (a listen is not counted: its own caps bound it). */
  readonly inFlight: InFlightTally
  /**
   * Each listen keeps itself alive (a Worker): a fiber of `fork`, forked while its request is
   * served so that its timers are that request's, writes a keep-alive comment `every`
   * milliseconds until the listen ends. Undefined: the sweep does it.
   */
  readonly ownKeepAlive:
    | {
      readonly every: number
      readonly fork: (effect: Effect.Effect<void>) => Fiber.RuntimeFiber<void>
    }
    | undefined
}

const keepAliveComment = Front.sseComment("keep-alive")

const badRequest = new Set<number>([-32700, -32600, -32602, -32020, -32021, -32022])

/**
 * The HTTP status of a JSON answer. A listen refused because too many are open (-32000: the
 * server's `maxSubscriptions`) is 503: the client may try again later.
 */
const statusOf = (frame: JsonRpc.Frame, listen: boolean): number => {
  const error = (frame as { readonly error?: { readonly code?: unknown } }).error
  if (error === undefined || typeof error.code !== "number") return 200
  if (listen && error.code === -32000) return 503
  return error.code === -32601 ? 404 : badRequest.has(error.code) ? 400 : 200
}

const failure = (status: number, id: RequestId | null, error: McpError.McpError | JsonRpc.ErrorObject): Front.Reply =>
  Front.body(
    status,
    Wire.encode({ jsonrpc: "2.0", id, error: "toWire" in error ? error.toWire("2026-07-28") : error })
  )

const mismatch = (id: RequestId, message: string): Front.Reply =>
  failure(400, id, new McpError.HeaderMismatch({ message: `Header mismatch: ${message}` }))

// ---------------------------------------------------------------------------- headers against the body

/** The parameter headers of a tool, derived once per tool (invalid annotations: none checked). */
const paramHeadersOf = new WeakMap<Tool.Tool, ReadonlyArray<HttpHeaders.ParamHeader>>()
const paramHeaders = (tool: Tool.Tool): ReadonlyArray<HttpHeaders.ParamHeader> => {
  let found = paramHeadersOf.get(tool)
  if (found === undefined) {
    const derived = HttpHeaders.paramHeaders(tool.definition.inputSchema)
    found = derived._tag === "Right" ? derived.right : []
    paramHeadersOf.set(tool, found)
  }
  return found
}

/** One standard header against the body value it mirrors: why they disagree, or undefined. */
const disagreement = (exchange: Exchange, name: string, display: string, body: string): string | undefined => {
  const raw = exchange.header(name)
  if (raw === undefined) return `${display} is required (${JSON.stringify(body)})`
  const value = HttpHeaders.decodeValue(raw)
  if (value._tag === "Left") return `${display} is invalid: ${value.left}`
  return value.right === body ? undefined : `${display} ${JSON.stringify(value.right)} is not ${JSON.stringify(body)}`
}

/** The headers of a 2026-07-28 request checked against its body: the reply when they disagree. */
const checkHeaders = (
  exchange: Exchange,
  request: JsonRpc.Request,
  version: string,
  name: string | undefined,
  tool: Tool.Tool | undefined
): Front.Reply | undefined => {
  const wrong = disagreement(exchange, HttpHeaders.protocolVersion, "MCP-Protocol-Version", version) ??
    disagreement(exchange, HttpHeaders.method, "Mcp-Method", request.method)
  if (wrong !== undefined) return mismatch(request.id, wrong)
  if (name !== undefined) {
    const wrongName = disagreement(exchange, HttpHeaders.name, "Mcp-Name", name)
    if (wrongName !== undefined) return mismatch(request.id, wrongName)
  }
  if (tool === undefined) return undefined
  const args = (request.params as { readonly arguments?: unknown }).arguments
  for (const spec of paramHeaders(tool)) {
    const display = `Mcp-Param-${spec.header}`
    const body = HttpHeaders.argumentOf(spec, args)
    const raw = exchange.header(HttpHeaders.paramPrefix + spec.header.toLowerCase())
    if (raw === undefined) {
      if (body !== undefined) return mismatch(request.id, `${display} is required (argument ${spec.path.join(".")})`)
      continue
    }
    const value = HttpHeaders.decodeValue(raw)
    if (value._tag === "Left") return mismatch(request.id, `${display} is invalid: ${value.left}`)
    if (body === undefined) {
      return mismatch(request.id, `${display} is sent, but argument ${spec.path.join(".")} is not`)
    }
    if (!HttpHeaders.matches(spec.type, value.right, body)) {
      return mismatch(request.id, `${display} ${JSON.stringify(value.right)} is not ${JSON.stringify(body)}`)
    }
  }
  return undefined
}

/** The reply to a POST whose `Accept` or `Content-Type` will not do, before its body is read. */
export const refuse = (config: Config, exchange: Exchange): Front.Reply | undefined =>
  Front.refusePost(config.acceptVerdicts, exchange.header("accept"), exchange.header("content-type"))

// ---------------------------------------------------------------------------- one POST

/**
 * One request's POST, and its sink (`Transport.Sink`) and channel (`Channel`): everything the
 * request causes goes on its response, JSON until something related comes first, then SSE.
 */
class Post implements Transport.Sink, Channel {
  mode: "waiting" | "sse" | "done" = "waiting"
  stream: Stream | undefined = undefined
  /** The request being served on it (none: answered at once, or not started yet). */
  served: Peer.Served | undefined = undefined
  /** A request on a channel of its own has no client shared with others. */
  readonly client = undefined
  readonly connection = undefined

  /** When it was opened (`open`: a request answered at once never is). */
  startedAt = 0
  /** Counted in flight (`Config.inFlight`, a listen never is), and for whom. */
  counted = false
  holder: string | undefined = undefined
  /** What stops its own keep-alive (a listen on a Worker), while it runs. */
  keepAlive: (() => void) | undefined = undefined

  constructor(
    readonly posts: Posts,
    readonly id: RequestId,
    readonly exchange: Exchange,
    /** A `subscriptions/listen`: held open, never over the maximum duration. */
    readonly listen: boolean
  ) {}

  /** Its subscriptions are the back end's: closed when it ends. */
  get owner(): object {
    return this.posts
  }

  /** A task made of it keeps nothing of the POST: what it sends once the response ended is lost, as it would be. */
  get detached(): Channel {
    return this.posts.detached
  }

  notify(method: string, params: unknown): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.mode !== "done") this.write(JsonRpc.notification(method, params))
      return Effect.void
    })
  }

  hold(onCancel: () => void) {
    return this.served?.hold(onCancel)
  }

  answer(response: JsonRpc.Response): Effect.Effect<void> {
    return Effect.sync(() => this.last(response))
  }

  /** The request was interrupted by the server: the response ends without an answer (JSON: an error with its id). */
  unanswered(): void {
    this.abandon(
      failure(503, this.id, { code: JsonRpc.Code.InternalError, message: "The request was not answered" })
    )
  }

  write(frame: JsonRpc.Frame): void {
    if (this.mode === "waiting") {
      this.mode = "sse"
      this.stream = this.exchange.stream(Front.sseHeaders)
    }
    this.stream!.write(Front.sse({ data: Wire.encode(frame) }))
  }

  /** The answer: the JSON body, or the stream's last event; the response ends. */
  last(frame: JsonRpc.Frame): void {
    if (this.mode === "done") return
    if (this.mode === "waiting") this.exchange.reply(Front.body(statusOf(frame, this.listen), Wire.encode(frame)))
    else {
      this.stream!.write(Front.sse({ data: Wire.encode(frame) }))
      this.stream!.end()
    }
    this.done()
  }

  /** The response ends without an answer (the request was interrupted by the server). */
  abandon(reply: Front.Reply): void {
    if (this.mode === "done") return
    if (this.mode === "waiting") this.exchange.reply(reply)
    else this.stream!.end()
    this.done()
  }

  done(): void {
    this.mode = "done"
    this.stream = undefined
    this.posts.forget(this)
    if (this.keepAlive !== undefined) {
      this.keepAlive()
      this.keepAlive = undefined
    }
  }
}

/**
 * Answers on its own response a request whose answer is there already (its handling an `Exit`): a
 * result, or a protocol error rendered for the request's revision (that its `_meta` names as
 * `version`); recorded (its span and
 * histogram sample, when they are on) by `record`, with no fiber. Anything else (a fiber to run, a
 * defect to log) is served on its POST: false.
 */
const answerAtOnce = (
  post: Post,
  request: JsonRpc.Request,
  preparation: Era.Preparation,
  version: unknown,
  record: NonNullable<Era.Direct["answeredAtOnce"]>
): boolean => {
  const effect = preparation.effect
  if (!Exit.isExit(effect)) return false
  const revision = Era.revisionOfVersion(version)
  let response: JsonRpc.Response
  if (Exit.isSuccess(effect)) response = JsonRpc.success(request.id, effect.value)
  else {
    const error = Cause.failureOption(effect.cause)
    if (error._tag === "None" || !McpError.isMcpError(error.value)) return false
    response = JsonRpc.failure(request.id, error.value.toWire(revision))
  }
  record(request, response, revision)
  post.last(response)
  return true
}

/**
 * A listen's own keep-alive (`Config.ownKeepAlive`): forked now, while its request is served, so
 * that the timers it sleeps on are that request's (on a Worker, what keeps the request alive);
 * stopped when the listen ends (from any request: a timer another request clears is left to die
 * with its own).
 */
const keepItAlive = (post: Post, own: NonNullable<Config["ownKeepAlive"]>): void => {
  const fiber = own.fork(Effect.forever(Effect.zipRight(
    Effect.sleep(own.every),
    Effect.sync(() => {
      if (post.mode === "sse") post.stream!.write(keepAliveComment)
    })
  )))
  post.keepAlive = () => fiber.unsafeInterruptAsFork(FiberId.none)
}

/**
 * A closed response is a cancellation: the request is interrupted, nothing more is sent. Made
 * apart from `receive`, so that the listener (kept as long as the response is open: a listen's
 * for hours) holds the POST alone, not `receive`'s scope (the request prepared, its effects).
 */
const cancelOnClose = (post: Post) => () => {
  if (post.mode === "done") return
  post.done()
  post.served?.interrupt()
}

// ---------------------------------------------------------------------------- every POST

/**
 * Every open stateless POST of one handler. No engine: each request is prepared here
 * (`Era.prepare`) and answered at once on its own response, or served on its POST
 * (`Peer.Requests`), which is its sink.
 */
export class Posts {
  private readonly open = new Set<Post>()
  /** The channel of a task made of a request once its POST is done (see `Channel.detached`). */
  readonly detached: Channel = {
    notify: () => Effect.void,
    hold: () => undefined,
    owner: this,
    client: undefined,
    connection: undefined,
    get detached() {
      return this
    }
  }
  /** Shutting down: what comes now is refused. */
  private closing = false

  private constructor(readonly config: Config, readonly direct: Era.Direct) {}

  /** The stateless back end of a handler, on the caller's runtime (the server's context added). */
  static make(config: Config): Effect.Effect<Posts> {
    const direct = Server.direct(config.server, { transport: "tcp", protocol: "http" })
    if (direct === undefined) {
      return Effect.dieMessage("effect-mcp: the stateless HTTP back end serves a server made by McpServer.make")
    }
    return Effect.map(direct, (direct) => new Posts(config, direct))
  }

  forget(post: Post): void {
    if (!this.open.delete(post) || !post.counted) return
    post.counted = false
    this.config.inFlight.add(post.holder, -1)
  }

  /** Serves one POST. */
  post(exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void {
    const refused = refuse(this.config, exchange)
    if (refused !== undefined) return exchange.reply(refused)
    Front.readInbound(exchange, this.config, (inbound) => this.receive(exchange, inbound, auth))
  }

  /** Serves one POST whose body was read and decoded. */
  receive(exchange: Exchange, inbound: Wire.Inbound, auth: AuthInfo.AuthInfo | undefined): void {
    if (inbound._tag === "Invalid") return exchange.reply(failure(400, inbound.id, inbound.error))
    if (inbound._tag === "Batch") {
      return exchange.reply(
        failure(400, null, {
          code: -32600,
          message: "Invalid Request: 2026-07-28 has no batches, one message per POST"
        })
      )
    }
    const message = inbound.message
    if (!("method" in message)) {
      return exchange.reply(
        failure(400, message.id, {
          code: -32600,
          message: "Invalid Request: a 2026-07-28 client sends no responses"
        })
      )
    }
    // A notification has nothing to do here (a closed stream is how a request is cancelled).
    if (!("id" in message)) return exchange.reply(Front.empty(202))
    const request = message as JsonRpc.Request
    if (this.closing) return exchange.reply(shuttingDown(request.id))
    const stepUp = this.config.auth?.stepUp([request], auth)
    if (stepUp !== undefined) return exchange.reply(stepUp)
    // Only a request of this era has headers to mirror its body; the ladder tells the others
    // what is wrong with them (no _meta: -32602; initialize: the revisions served).
    const meta = Meta.of(request.params)
    const version = meta?.[Meta.protocolVersion]
    // A `tools/call`'s tool, looked up once: its headers are checked against it, and it is called.
    let tool: Tool.Tool | undefined
    if (typeof version === "string") {
      const name = HttpHeaders.nameOf(request.method, request.params)
      if (request.method === "tools/call" && name !== undefined) tool = Server.unsafeTool(this.config.server, name)
      const denied = checkHeaders(exchange, request, version, name, tool)
      if (denied !== undefined) return exchange.reply(denied)
    }
    // Who sent it: its token's holder, else its address (for its quotas, and its tasks' owner);
    // with neither, nothing (a POST is no connection to bind to).
    const peer = this.config.peerOf(exchange)
    const received: Transport.ReceiveContext = { auth, peer, anonymous: peer === undefined }
    const post = new Post(this, request.id, exchange, request.method === "subscriptions/listen")
    const { direct } = this
    const preparation = Era.prepare(direct.server, post, request, meta, received, tool)
    const record = direct.answeredAtOnce
    if (record !== undefined && answerAtOnce(post, request, preparation, version, record)) return
    if (!post.listen) {
      // Within the handler's bounds on requests in flight (a request held open ties a fiber and
      // its response): past one it is refused, 429 with its id, nothing of it run.
      const holder = Holders.holderOf(auth, peer)
      const tooMany = this.config.inFlight.refusal(holder, 1, request.id)
      if (tooMany !== undefined) return exchange.reply(tooMany)
      post.counted = true
      post.holder = holder
      this.config.inFlight.add(holder, 1)
    }
    post.startedAt = this.config.clock.unsafeCurrentTimeMillis()
    this.open.add(post)
    if (post.listen && this.config.ownKeepAlive !== undefined) keepItAlive(post, this.config.ownKeepAlive)
    exchange.onClose(cancelOnClose(post))
    direct.requests.serve(request, post, (served) => {
      post.served = served
      return Era.handlingOf(preparation)
    })
  }

  /** Keep-alive comments on open streams; requests over the maximum duration are interrupted. */
  get sweep(): Effect.Effect<void> {
    return Effect.sync(() => {
      const now = this.config.clock.unsafeCurrentTimeMillis()
      const max = this.config.maxRequestMillis
      for (const post of Array.from(this.open)) {
        if (max !== undefined && !post.listen && now - post.startedAt > max) {
          post.last({
            jsonrpc: "2.0",
            id: post.id,
            error: { code: JsonRpc.Code.InternalError, message: "Request exceeded the server's maximum duration" }
          })
          post.served?.interrupt()
        } else if (post.mode === "sse" && post.keepAlive === undefined) post.stream!.write(keepAliveComment)
      }
    })
  }

  /**
   * The back end ends (the server is shutting down): what comes now is refused; its subscriptions
   * are answered gracefully while their streams are open; every other response still open ends,
   * a JSON one with an error carrying its request's id; then the requests in flight are interrupted
   * (nothing more is sent for them).
   */
  get endAll(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.closing = true
      return Effect.zipRight(
        Effect.zipRight(
          this.direct.server.subscriptions.closeOwned(this),
          Effect.sync(() => {
            for (const post of Array.from(this.open)) post.abandon(shuttingDown(post.id))
          })
        ),
        this.direct.requests.interruptAll
      )
    })
  }
}

const shuttingDown = (id: RequestId) =>
  failure(503, id, { code: JsonRpc.Code.InternalError, message: "The server is shutting down" })

/**
 * Which back end a dual-era POST with no era in its headers goes to: is this decoded body one
 * request of the stateless era (a protocol version in its `_meta`, even one this server does not
 * serve: the stateless era tells it which it does)? Only a body: a batch, or a request without
 * one, goes to the handshake back end. (Inside an engine, `isStatelessRequest` routes a request.)
 */
export const isStatelessBody = (inbound: Wire.Inbound): boolean => {
  if (inbound._tag !== "Single" || !("method" in inbound.message)) return false
  const version = Meta.of((inbound.message as JsonRpc.Request).params)?.[Meta.protocolVersion]
  return typeof version === "string"
}
