/**
 * The client side of Streamable HTTP, both eras, over @effect/platform's `HttpClient`.
 *
 * - Every frame is one POST (`Accept: application/json, text/event-stream`); its answer is JSON
 *   or an SSE stream whose events are delivered as they arrive; a 202 carries nothing.
 * - Handshake era: the `Mcp-Session-Id` the `initialize` answer sets is echoed on every later
 *   POST, with the negotiated `MCP-Protocol-Version`; the session is deleted when the layer ends.
 * - 2026-07-28 (a frame with a protocol version in its `_meta`): `MCP-Protocol-Version`,
 *   `Mcp-Method` and `Mcp-Name` mirror the body; a `notifications/cancelled` is not sent but
 *   closes the cancelled request's response stream (that is how this era cancels).
 * - An SSE answer that ends before the answer (2025-11-25 polling, a dropped connection) is
 *   resumed with GET and `Last-Event-ID` after the server's `retry`. Once the session is
 *   initialized, its standalone GET stream is opened (and reopened from its last event id);
 *   a 405 means the server has none. A server that gave no session id is sent that GET only once
 *   a subscription needs to know whether it has such a stream.
 * - A 404 for a session the server forgot (expired, restarted): the session's `initialize` is
 *   sent again (once, for every request that met the 404), and the request after it.
 * - `Mcp-Param-*` headers mirror the arguments a tool's `x-mcp-header` annotations name; a tool
 *   whose annotations break the rules is not offered (the client warns).
 * - Each request of the engine is sent with `Transport.Protocol.request`: what comes back on its
 *   POST (a JSON body, its stream's events, their resumption) goes to that request's own
 *   `Transport.Reply`, never matched by id here (the engine checks that an answer is its
 *   request's: `UnexpectedAnswer` otherwise). A request whose POST fails fails at once with a
 *   typed error of its own: `HttpError` (a status without a JSON-RPC answer, a redirect not
 *   followed), `ConnectionFailed`, `MessageTooLarge` (a body or event past `maxMessageSize`),
 *   `UnexpectedAnswer` (a stream that ended without its answer and could not be resumed).
 *
 * The parts: the session and its renewal (`http/session.ts`), the event streams and their
 * resumption (`http/events.ts`), the session's own stream (`http/standalone.ts`), the legacy
 * fallback (`http/fallback.ts`); here, one POST and its answer, and the protocol.
 */
import { HttpHeaders, type JsonRpc, type Schema as McpSchema, Telemetry, type Transport, Wire } from "@effect-mcp/core"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as ClientError from "../ClientError.js"
import type { HttpPost } from "../McpClientTransport.js"
import * as Exchange from "./exchange.js"
import * as Events from "./http/events.js"
import * as Fallback from "./http/fallback.js"
import * as Session from "./http/session.js"
import * as Standalone from "./http/standalone.js"

export interface Options {
  readonly url: string
  /** Headers sent on every request (authorization, say). */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Whether an `initialize` refused without a JSON-RPC error (400, 404, 405) falls back to the
   * legacy HTTP+SSE transport at the same URL (default true).
   */
  readonly legacyFallback?: boolean
  /**
   * The largest message read from the server, in bytes: a JSON body, one SSE event (default
   * 16 MiB). A larger one fails its request with `MessageTooLarge`, unread.
   */
  readonly maxMessageSize?: number
  /**
   * The deepest nesting of a message read from the server (default 128, `Wire.defaultMaxDepth`):
   * a deeper one is not JSON-RPC to us, so it is dropped and logged, never parsed further.
   */
  readonly maxDepth?: number
  /**
   * How long a subscription in the handshake era waits for the session's stream (its GET) to be
   * answered (default 10 seconds): past it, `subscribe` fails with `NoEventStream` (the GET is
   * still tried in the background).
   */
  readonly eventStreamTimeout?: Duration.DurationInput
}

type Failure = ClientError.TransportFailure

/** The server is the protocol's one client. */
const server = 0

/** Whether the session's own stream (the standalone GET) is open, or why not. */
export type EventStream = Standalone.EventStream

/** Where what comes back on one POST goes. */
interface Answering {
  /** One event of its stream: true once its request is over (nothing more to read for it). */
  readonly event: Events.Sink
  /** Its JSON body, as read. */
  readonly body: (text: string) => void
  /** Its request could not be answered: why. */
  readonly fail: (error: Failure) => Effect.Effect<void>
  /** Its request's own reply, if it has one: a stream that ends before the answer is resumed for it. */
  readonly reply: Transport.Reply<Failure> | undefined
}

/** What one POST needs of the transport. */
interface Context {
  readonly connection: Session.Connection
  readonly session: Session.Session
  readonly paramHeaders: ReadonlyMap<string, ReadonlyArray<HttpHeaders.ParamHeader>>
  readonly fallback: Fallback.Fallback | undefined
  /** A renewed session: its own stream started again. */
  readonly renewed: () => void
}

/** One POST of `message` and its answer, read, to `answering`; what goes wrong fails its request. */
const exchange = (
  context: Context,
  message: JsonRpc.Message,
  answering: Answering,
  renewed: boolean
): Effect.Effect<void, Failure> => {
  const { connection, session } = context
  const request = "id" in message && "method" in message ? message : undefined
  const method = "method" in message ? message.method : "a response"
  const isInitialize = request?.method === "initialize"
  if (isInitialize) session.initialize = request
  return Effect.suspend(() => {
    const headers = Session.postHeaders(connection, session, context.paramHeaders, message)
    return Effect.flatMap(
      Exchange.post(
        connection.client,
        HttpClientRequest.post(connection.url).pipe(
          HttpClientRequest.setHeaders(headers),
          HttpClientRequest.bodyText(Wire.encode(message), "application/json")
        ),
        method,
        connection.limit
      ),
      answered(context, message, answering, renewed, headers["mcp-session-id"])
    )
  })
}

/**
 * What came back on the POST of `message` (with session id `sessionId`), read: to `answering`; a
 * 404 renews the session and sends `message` again (once: `renewed`).
 */
const answered = (
  context: Context,
  message: JsonRpc.Message,
  answering: Answering,
  renewed: boolean,
  sessionId: string | undefined
) =>
({ body, headers: answered, response }: Exchange.Answer): Effect.Effect<void, Failure> => {
  const { connection, session } = context
  const request = "id" in message && "method" in message ? message : undefined
  const method = "method" in message ? message.method : "a response"
  const isInitialize = request?.method === "initialize"
  // The body, read whole up to the limit (a 404's is left unread by `post`: read it now).
  const text = () => body ?? Exchange.readText(response, connection.limit, method)
  // The server forgot the session (expired, restarted): a new one, and this again.
  if (response.status === 404 && sessionId !== undefined && !renewed && session.initialize !== undefined) {
    return Effect.zipRight(
      Effect.catchAll(Session.renew(connection, session, sessionId, context.renewed), (error) =>
        Effect.flatMap(
          Effect.orElseSucceed(Exchange.readText(response, 4096, method), () => ""),
          (body) => Effect.fail(Exchange.httpError(method, response, body, error.message))
        )),
      exchange(context, message, answering, true)
    )
  }
  if (isInitialize && context.fallback !== undefined && Fallback.statuses.has(response.status)) {
    const fallback = context.fallback
    return Effect.flatMap(
      Effect.orElseSucceed(text(), () => ""),
      (text) =>
        isJsonRpcError(text)
          ? Effect.sync(() => answering.body(text))
          : fallback.send(message, `POST ${connection.url} answered HTTP ${response.status}`)
    )
  }
  const given = answered["mcp-session-id"]
  if (isInitialize && given !== undefined) session.id = given
  const type = answered["content-type"] ?? ""
  const ok = response.status >= 200 && response.status < 300
  if (response.status === 202 || response.status === 204) return Effect.void
  if (ok && type.startsWith("text/event-stream")) {
    const at = Events.newProgress()
    return Effect.zipRight(
      Events.read(connection, response, at, method, answering.event),
      request === undefined || answering.reply === undefined
        ? Effect.void
        : Events.resume(connection, session, request, at, answering.reply)
    )
  }
  return Effect.flatMap(text(), (text) => {
    // An authorization challenge is the transport's to report (an `HttpError` with its
    // challenges), even with a JSON-RPC body (effect-mcp's resource servers send one).
    const challenged = response.status === 401 ||
      (response.status === 403 && answered["www-authenticate"] !== undefined)
    if (type.startsWith("application/json") && (ok || (!challenged && isJsonRpc(text)))) {
      return Effect.sync(() => answering.body(text))
    }
    // A status without a JSON-RPC answer (an OAuth 401, a gateway's page), or a 2xx that
    // is neither JSON nor an event stream.
    return Effect.fail(
      Exchange.httpError(
        method,
        response,
        text,
        ok ? `neither JSON nor an event stream (${type || "no content type"})` : undefined
      )
    )
  })
}

/**
 * Where what comes back on the POST of `message` goes: its request's own reply; anything else's
 * (a notification's, a response's) to the engine, as anything received.
 */
const answeringOf = (
  connection: Session.Connection,
  session: Session.Session,
  r: Transport.Receiver<Failure>,
  message: JsonRpc.Message,
  reply: Transport.Reply<Failure> | undefined
): Answering => {
  const request = "id" in message && "method" in message ? message : undefined
  if (reply === undefined) {
    return {
      reply,
      event: (inbound) => {
        r.receive(server, inbound)
        return false
      },
      // A notification's POST answered with a body: whatever it is, the engine reads it.
      body: (text) => {
        if (text.trim().length > 0) r.receive(server, Wire.decode(text, connection.decodeOptions))
      },
      // A notification's failure is only logged (nobody waits for it).
      fail: (error) =>
        request === undefined
          ? Effect.logWarning(`effect-mcp client: ${error.message}`)
          : Effect.sync(() => r.fail(server, request.id, error))
    }
  }
  // The revision an `initialize` answer negotiated is kept before the engine hears of it.
  const initialize = request?.method === "initialize"
  return {
    reply,
    event: (inbound) => {
      if (initialize) Session.remember(session, inbound)
      return reply.receive(inbound)
    },
    body: (text) => {
      const inbound = Wire.decode(text, connection.decodeOptions)
      if (initialize) Session.remember(session, inbound)
      reply.answer(inbound)
    },
    fail: (error) => Effect.sync(() => reply.fail(error))
  }
}

export const make = (options: Options, poster?: HttpPost): Effect.Effect<
  {
    readonly protocol: Transport.Protocol<Failure>
    readonly tools: (listed: ReadonlyArray<McpSchema.Tool.Tool>) => ReadonlyArray<McpSchema.Tool.Tool>
    readonly eventStream: Effect.Effect<EventStream>
  },
  never,
  HttpClient.HttpClient | Scope.Scope
> =>
  Effect.gen(function*() {
    // Without spans recorded, @effect/platform's span per request (and its headers) buys nothing.
    const client = (yield* Telemetry.enabled).spans
      ? yield* HttpClient.HttpClient
      : HttpClient.withTracerDisabledWhen(yield* HttpClient.HttpClient, () => true)
    const fork = Runtime.runFork(yield* Effect.runtime<never>())
    const receiver = yield* Deferred.make<Transport.Receiver<Failure>>()
    /** The receiver, once the engine runs (what `requestNow` needs at once). */
    let receiverNow: Transport.Receiver<Failure> | undefined
    const connection: Session.Connection = {
      client,
      url: options.url,
      headers: options.headers,
      limit: options.maxMessageSize ?? Exchange.defaultMaxMessageSize,
      decodeOptions: options.maxDepth === undefined ? undefined : { maxDepth: options.maxDepth }
    }
    const session = Session.make()
    /**
     * The POSTs of requests in flight, by request id: a cancel interrupts one (closing its stream,
     * the cancellation of 2026-07-28; a session's cancel is posted too).
     */
    const streams = new Map<
      JsonRpc.RequestId,
      { readonly fiber: Fiber.RuntimeFiber<void>; readonly stateless: boolean }
    >()
    /** The `Mcp-Param-*` headers of each tool listed so far (from `x-mcp-header` annotations). */
    const paramHeaders = new Map<string, ReadonlyArray<HttpHeaders.ParamHeader>>()
    /** What runs on the transport's runtime: interrupted when the transport ends. */
    const open = new Set<Fiber.RuntimeFiber<void>>()
    const track = (effect: Effect.Effect<void>) => {
      const fiber = fork(effect)
      open.add(fiber)
      fiber.addObserver(() => open.delete(fiber))
      return fiber
    }
    /** Runs the reading of a request's POST, kept under its id until it ends (a cancel interrupts it). */
    const follow = (id: JsonRpc.RequestId, effect: Effect.Effect<void>, stateless: boolean) => {
      const fiber = track(effect)
      streams.set(id, { fiber, stateless })
      fiber.addObserver(() => {
        if (streams.get(id)?.fiber === fiber) streams.delete(id)
      })
    }
    const scope = yield* Effect.scope
    let fallback: Fallback.Fallback | undefined
    const standalone = yield* Standalone.make({
      connection,
      session,
      receiver,
      run: (effect) => void track(effect),
      legacy: () => fallback?.current() !== undefined,
      timeout: options.eventStreamTimeout
    })
    fallback = options.legacyFallback === false ? undefined : Fallback.make({
      connection,
      maxDepth: options.maxDepth,
      scope,
      receiver,
      opened: standalone.is({ open: true }),
      run: (effect) => void track(effect)
    })
    const context: Context = { connection, session, paramHeaders, fallback, renewed: standalone.restart }

    const post = (message: JsonRpc.Message, reply?: Transport.Reply<Failure>): Effect.Effect<void> => {
      const request = "id" in message && "method" in message ? message : undefined
      const posted = Effect.flatMap(Deferred.await(receiver), (r) => {
        const answering = answeringOf(connection, session, r, message, reply)
        return Effect.catchAll(exchange(context, message, answering, false), answering.fail)
      })
      // Sent before anything else is: the session's first request must not overtake it. Once the
      // session is initialized, its standalone stream is opened (a server that gave no session id:
      // once a subscription asks for it).
      if ("method" in message && message.method === "notifications/initialized") {
        return Effect.zipRight(posted, Effect.sync(standalone.initialized))
      }
      return Effect.sync(() =>
        request === undefined
          ? void track(posted)
          : follow(request.id, posted, Session.statelessVersion(message) !== undefined)
      )
    }

    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Fiber.interruptAll(Array.from(open)),
        // Interruptible, or the timeout could not cut it short (a finalizer is not): a server that
        // does not answer the DELETE holds the client's closing 2 seconds, not for as long.
        session.id === undefined ? Effect.void : client.execute(
          HttpClientRequest.del(options.url).pipe(
            HttpClientRequest.setHeaders(Session.sessionHeaders(connection, session))
          )
        ).pipe(Effect.interruptible, Effect.timeout("2 seconds"), Effect.ignore)
      )
    )

    /** Learns each tool's parameter headers; a tool whose annotations break the rules is not offered. */
    const tools = (listed: ReadonlyArray<McpSchema.Tool.Tool>) =>
      listed.filter((tool) => {
        const found = HttpHeaders.paramHeaders(tool.inputSchema)
        if (found._tag === "Left") return false
        paramHeaders.set(tool.name, found.right)
        return true
      })

    const legacy = () => fallback?.current()
    const protocol: Mutable<Transport.Protocol<Failure>> = {
      telemetry: telemetryOf(options.url, () => session.id),
      run: (r) =>
        Effect.zipRight(
          Effect.zipRight(Effect.sync(() => receiverNow = r), Deferred.succeed(receiver, r)),
          Effect.never
        ),
      send: (_client, frame) =>
        Effect.suspend(() => {
          const fellBack = legacy()
          if (fellBack !== undefined) return fellBack.send(server, frame)
          if (Array.isArray(frame)) return Effect.forEach(frame, (message) => post(message), { discard: true })
          const message = frame as JsonRpc.Message
          if ("method" in message && message.method === "notifications/cancelled") {
            const cancelled = (message.params as { readonly requestId?: JsonRpc.RequestId } | undefined)?.requestId
            // A raw call's POST (`requestNow`) is let go too; the cancel is posted, unless the
            // POST never left (it waited for a connection): the server knows nothing to cancel.
            if (cancelled !== undefined && raw?.abort(cancelled) === false) return Effect.void
            const stream = cancelled === undefined ? undefined : streams.get(cancelled)
            if (stream !== undefined) {
              // Its POST is let go (its stream read no further); 2026-07-28: that is the cancellation.
              const closed = Effect.asVoid(Fiber.interruptFork(stream.fiber))
              if (stream.stateless) return closed
              return Effect.zipRight(closed, post(message))
            }
          }
          return post(message)
        }),
      // Each request on a POST of its own, what comes back on it to its reply.
      request: (_client, request, reply) =>
        Effect.suspend(() => {
          const fellBack = legacy()
          // HTTP+SSE: every answer comes on the one stream, matched by the engine by id.
          return fellBack !== undefined ? fellBack.send(server, request) : post(request, reply)
        })
    }
    const raw = poster && rawPosts({ context, poster, receiver: () => receiverNow, legacy, post, run: track, follow })
    if (raw !== undefined) protocol.requestNow = raw.requestNow
    return { protocol, tools, eventStream: standalone.now }
  })

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * Raw calls over the platform's POST (`HttpPost`), with no fiber: a handshake session's request
 * once the session is up, its `200 application/json` answer read whole (up to the limit) and
 * handed to its reply. A response that says the request was not served (401, 403, a redirect)
 * sends it again through the `HttpClient` (`post`), whose middleware (`McpAuth`) and redirects
 * apply; after a 401 or 403, every raw call goes that way. Any other response (an SSE stream, a
 * 404 for a session the server forgot, 413, 5xx) is read as the `HttpClient`'s would be
 * (`answered`), on a fiber.
 */
const rawPosts = (options: {
  readonly context: Context
  readonly poster: HttpPost
  readonly receiver: () => Transport.Receiver<Failure> | undefined
  readonly legacy: () => unknown
  readonly post: (message: JsonRpc.Message, reply: Transport.Reply<Failure>) => Effect.Effect<void>
  readonly run: (effect: Effect.Effect<void>) => unknown
  /** Runs the reading of a raw call's response, under its id: what a cancel interrupts. */
  readonly follow: (id: JsonRpc.RequestId, effect: Effect.Effect<void>, stateless: boolean) => void
}) => {
  const { context, poster } = options
  const { connection, session } = context
  /** How to abort each raw call's POST, by request id, until its response comes (true: it had left). */
  const inFlight = new Map<JsonRpc.RequestId, () => boolean | void>()
  /** Cleared by a 401 or 403: the `HttpClient`'s middleware is needed. */
  let direct = true
  const requestNow: NonNullable<Transport.Protocol<Failure>["requestNow"]> = (_client, request, reply) => {
    const r = options.receiver()
    if (
      !direct || r === undefined || session.initialize === undefined || request.method === "initialize" ||
      options.legacy() !== undefined || Session.statelessVersion(request) !== undefined
    ) return false
    const headers = Session.postHeaders(connection, session, context.paramHeaders, request)
    const method = request.method
    const id = request.id
    const abort = poster.post(connection.url, headers, Wire.encode(request), {
      response: (response) => {
        if (inFlight.get(id) !== abort) return response.discard()
        const status = response.status
        if (status === 200 && (response.header("content-type") ?? "").startsWith("application/json")) {
          // Still the call's until its body is read: a cancel meanwhile aborts the read.
          const mine = () => inFlight.get(id) === abort && inFlight.delete(id)
          return response.text(connection.limit, (text) => {
            if (!mine()) return
            if (text === undefined) reply.fail(new ClientError.MessageTooLarge({ method, limit: connection.limit }))
            else reply.answer(Wire.decode(text, connection.decodeOptions))
          }, (error) => {
            if (!mine()) return
            reply.fail(
              new ClientError.ConnectionFailed({ url: connection.url, reason: Exchange.reasonOf(error), cause: error })
            )
          })
        }
        inFlight.delete(id)
        // Not served: sent again, as the `HttpClient` sends.
        if (status === 401 || status === 403 || (status >= 300 && status < 400)) {
          if (status === 401 || status === 403) direct = false
          response.discard()
          return void options.run(options.post(request, reply))
        }
        const web = HttpClientRequest.post(connection.url).pipe(HttpClientRequest.setHeaders(headers))
        const answering = answeringOf(connection, session, r, request, reply)
        const read = HttpClientResponse.fromWeb(web, response.toWeb())
        // Read on a fiber kept under the call's id, as the full path's POST is: a cancel interrupts it.
        options.follow(
          id,
          Effect.catchAll(
            answered(context, request, answering, false, headers["mcp-session-id"])({
              response: read,
              headers: read.headers,
              body: undefined
            }),
            answering.fail
          ),
          false
        )
      },
      error: (error) => {
        if (inFlight.get(id) !== abort) return
        inFlight.delete(id)
        reply.fail(
          new ClientError.ConnectionFailed({ url: connection.url, reason: Exchange.reasonOf(error), cause: error })
        )
      }
    })
    inFlight.set(id, abort)
    return true
  }
  return {
    requestNow,
    /**
     * A raw call cancelled: its POST is let go (its answer, if any, read no further). False when
     * that POST never left; undefined when no raw POST of that id is in flight.
     */
    abort: (id: JsonRpc.RequestId): boolean | undefined => {
      const abort = inFlight.get(id)
      if (abort === undefined) return undefined
      inFlight.delete(id)
      // An abort that says nothing (a poster of before 0.3.0): it may have left.
      return abort() !== false
    }
  }
}

/** What telemetry says of a connection to `url`: TCP, HTTP, the server's host and port, the session. */
const telemetryOf = (url: string, sessionId: () => string | undefined): Transport.Protocol["telemetry"] => {
  let server: { readonly address: string; readonly port: number } | undefined
  try {
    const parsed = new URL(url)
    const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80
    server = { address: parsed.hostname.replace(/^\[|\]$/g, ""), port }
  } catch {
    server = undefined
  }
  return { transport: "tcp", protocol: "http", server, sessionId }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isMessage = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) && (u as { readonly jsonrpc?: unknown }).jsonrpc === "2.0"

/** Whether a body is JSON-RPC at all: a message or a batch of them. */
const isJsonRpc = (text: string): boolean => {
  const parsed = parseJson(text)
  return isMessage(Array.isArray(parsed) ? parsed[0] : parsed)
}

/** Whether a body is a JSON-RPC error (a modern server refusing the request, not a legacy one). */
const isJsonRpcError = (text: string): boolean => {
  const parsed = parseJson(text)
  return isMessage(parsed) && "error" in parsed
}
