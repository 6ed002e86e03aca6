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
 * - A request whose POST fails fails at once with a typed error of its own (`Receiver.fail`):
 *   `HttpError` (a status without a JSON-RPC answer, a redirect not followed), `ConnectionFailed`,
 *   `MessageTooLarge` (a body or event past `maxMessageSize`), `UnexpectedAnswer` (a JSON answer
 *   that is not this request's).
 */
import { HttpHeaders, type JsonRpc, Meta, type Schema as McpSchema, type Transport, Wire } from "@effect-mcp/core"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as ClientError from "../ClientError.js"
import * as Exchange from "./exchange.js"
import * as Legacy from "./legacy.js"

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

/** The statuses of a server that has no Streamable HTTP endpoint at the URL (the back-compat rule of 2025-03-26 and later). */
const legacyStatuses = new Set([400, 404, 405])

type Failure = ClientError.TransportFailure

/** The server is the protocol's one client. */
const server = 0

/** The revision a 2026-07-28 message names in its `_meta` (undefined: a handshake-era one). */
const statelessVersion = (message: JsonRpc.Message): string | undefined => {
  const version = "method" in message ? Meta.of(message.params)?.[Meta.protocolVersion] : undefined
  return typeof version === "string" ? version : undefined
}

const requestOf = (message: JsonRpc.Message): JsonRpc.Request | undefined =>
  "id" in message && "method" in message ? message : undefined

/** What a message is, said in an error: `id 7`, `a ping request`, `a notifications/x notification`. */
const describe = (message: JsonRpc.Message): string =>
  "method" in message
    ? "id" in message ? `a ${message.method} request` : `a ${message.method} notification`
    : `the answer to id ${JSON.stringify(message.id)}`

/** The handshake session, as this transport keeps it. */
interface Session {
  /** Its `Mcp-Session-Id`, once the `initialize` answer set one. */
  id: string | undefined
  /** The revision its `initialize` negotiated: sent as `MCP-Protocol-Version`. */
  negotiated: string | undefined
  /** The `initialize` it began with: sent again when the server forgets the session. */
  initialize: JsonRpc.Request | undefined
  renewals: number
  /** The renewal under way, of the session id that met a 404. */
  renewing: { readonly from: string; readonly done: Deferred.Deferred<void, Error> } | undefined
}

/** Where an SSE stream got to: what a resumption starts from. */
interface Progress {
  lastEventId: string | undefined
  retry: number
  answered: boolean
  /** Events read, over every resumption. */
  events: number
}

const newProgress = (): Progress => ({ lastEventId: undefined, retry: 1_000, answered: false, events: 0 })

/** The server's `retry`, kept within reason: no tighter than 100 ms, no longer than a minute. */
const retryOf = (millis: number) => Math.min(60_000, Math.max(100, millis))

/** Resumptions in a row that bring no event before a stream is given up. */
const maxStalls = 5

/** Whether the session's own stream (the standalone GET) is open, or why not. */
export type EventStream = { readonly open: true } | { readonly open: false; readonly reason: string }

export const make = (options: Options): Effect.Effect<
  {
    readonly protocol: Transport.Protocol<Failure>
    readonly tools: (listed: ReadonlyArray<McpSchema.Tool.Tool>) => ReadonlyArray<McpSchema.Tool.Tool>
    readonly eventStream: Effect.Effect<EventStream>
  },
  never,
  HttpClient.HttpClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const fork = Runtime.runFork(yield* Effect.runtime<never>())
    const receiver = yield* Deferred.make<Transport.Receiver<Failure>>()
    const limit = options.maxMessageSize ?? Exchange.defaultMaxMessageSize
    const decodeOptions = options.maxDepth === undefined ? undefined : { maxDepth: options.maxDepth }
    const session: Session = {
      id: undefined,
      negotiated: undefined,
      initialize: undefined,
      renewals: 0,
      renewing: undefined
    }
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
    const open = new Set<Fiber.RuntimeFiber<void>>()
    const scope = yield* Effect.scope
    /** The legacy HTTP+SSE transport this session fell back to, once it has. */
    let legacy: Transport.Protocol<Failure> | undefined
    /** Whether the session's standalone stream is open, or why not, as its last GET told (none yet: undefined). */
    const eventStream = yield* Ref.make<EventStream | undefined>(undefined)
    /** Done at the first thing the stream's GET told. */
    const streamKnown = yield* Deferred.make<void>()
    const streamIs = (outcome: EventStream) =>
      Effect.zipRight(Ref.set(eventStream, outcome), Effect.asVoid(Deferred.done(streamKnown, Exit.void)))
    /**
     * The standalone stream: started once the session is initialized, and at once then only when the
     * server gave a session id (a server without one may have a stream too, but such a GET is sent
     * only once a subscription asks: many answer it 400 or 409).
     */
    const standaloneIs = { initialized: false, wanted: false, started: false }

    const track = (fiber: Fiber.RuntimeFiber<void>) => {
      open.add(fiber)
      fiber.addObserver(() => open.delete(fiber))
    }

    /** The server has no Streamable HTTP endpoint: the URL as a legacy SSE endpoint, and `message` sent there. */
    const fallBack = (message: JsonRpc.Message, tried: string) =>
      Effect.gen(function*() {
        if (legacy === undefined) {
          const made = yield* Legacy.make({
            url: options.url,
            ...(options.headers ? { headers: options.headers } : {}),
            maxMessageSize: limit,
            ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
            tried
          }).pipe(Effect.provideService(HttpClient.HttpClient, client), Scope.extend(scope))
          legacy = made
          // HTTP+SSE: every server message comes on the one event stream.
          yield* streamIs({ open: true })
          const r = yield* Deferred.await(receiver)
          track(fork(Effect.ignore(Effect.scoped(made.run(r)))))
        }
        yield* Effect.mapError(
          legacy.send(server, message),
          (error) => new ClientError.ConnectionFailed({ url: options.url, reason: error.message, cause: error })
        )
      })

    /** Request `id` fails locally; a notification's failure is only logged (nobody waits for it). */
    const failed = (message: JsonRpc.Message, error: Failure) =>
      Effect.flatMap(Deferred.await(receiver), (r) => {
        const request = requestOf(message)
        if (request !== undefined) {
          r.fail(server, request.id, error)
          return Effect.void
        }
        return Effect.logWarning(`effect-mcp client: ${error.message}`)
      })

    /**
     * Delivers one message the server sent on a stream (events, the standalone GET): `related`, the
     * request whose stream it came on (its POST, or a resumption of it), if any.
     */
    const deliver = (text: string, related: JsonRpc.RequestId | undefined) =>
      Effect.map(Deferred.await(receiver), (r) => {
        if (text.trim().length === 0) return undefined
        const inbound = Wire.decode(text, decodeOptions)
        r.receive(server, inbound, related === undefined ? undefined : { related })
        return inbound
      })

    /**
     * The JSON answer to the POST of `message`: delivered when it is that request's answer (an
     * error the server could not tie to an id, `"id": null`, is given the request's); anything
     * else fails the request at once, naming both.
     */
    const answer = (message: JsonRpc.Message, text: string) =>
      Effect.flatMap(Deferred.await(receiver), (r) => {
        const request = requestOf(message)
        let inbound = Wire.decode(text, decodeOptions)
        if (request === undefined) {
          // A notification's POST answered with a body: whatever it is, the engine reads it.
          if (text.trim().length > 0) r.receive(server, inbound)
          return Effect.void
        }
        const unexpected = (received: string) =>
          failed(message, new ClientError.UnexpectedAnswer({ method: request.method, expected: request.id, received }))
        if (inbound._tag === "Invalid") return unexpected(`a body that is not JSON-RPC (${inbound.error.message})`)
        if (inbound._tag === "Batch") {
          const answers = inbound.items.some((item) =>
            item._tag === "Single" && !("method" in item.message) && item.message.id === request.id
          )
          if (!answers) return unexpected("a batch without its answer")
          r.receive(server, inbound)
          return Effect.void
        }
        const single = inbound.message
        if (!("method" in single) && "error" in single && (single.id === null || single.id === undefined)) {
          inbound = { _tag: "Single", message: { ...single, id: request.id } }
        } else if ("method" in single || single.id !== request.id) {
          return unexpected(describe(single))
        }
        r.receive(server, inbound)
        return Effect.void
      })

    const headersOf = (message: JsonRpc.Message): Record<string, string> => {
      const headers: Record<string, string> = {
        accept: "application/json, text/event-stream",
        ...options.headers
      }
      const version = statelessVersion(message)
      if (version !== undefined && "method" in message) {
        headers[HttpHeaders.protocolVersion] = version
        headers[HttpHeaders.method] = message.method
        const name = HttpHeaders.nameOf(message.method, message.params)
        if (name !== undefined) headers[HttpHeaders.name] = HttpHeaders.encodeValue(name)
        if (message.method === "tools/call" && name !== undefined) {
          const args = (message.params as { readonly arguments?: unknown }).arguments
          for (const spec of paramHeaders.get(name) ?? []) {
            const value = HttpHeaders.argumentOf(spec, args)
            if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
              headers[HttpHeaders.paramPrefix + spec.header.toLowerCase()] = HttpHeaders.encodeValue(value)
            }
          }
        }
      } else {
        if (session.id !== undefined) headers["mcp-session-id"] = session.id
        if (session.negotiated !== undefined) headers[HttpHeaders.protocolVersion] = session.negotiated
      }
      return headers
    }

    const sessionHeaders = (): Record<string, string> => ({
      ...options.headers,
      ...(session.id !== undefined ? { "mcp-session-id": session.id } : {}),
      ...(session.negotiated !== undefined ? { [HttpHeaders.protocolVersion]: session.negotiated } : {})
    })

    /** The revision an `initialize` answer negotiated (sent on every later POST). */
    const remember = (text: string) => {
      try {
        const version = JSON.parse(text)?.result?.protocolVersion
        if (typeof version === "string") session.negotiated = version
      } catch {
        // Not JSON: the request fails with why.
      }
    }

    /** Reads an SSE response to its end, delivering events as they come. */
    const readSse = (
      response: HttpClientResponse.HttpClientResponse,
      answers: JsonRpc.RequestId | undefined,
      at: Progress,
      method: string,
      isInitialize: boolean
    ) =>
      Exchange.readEvents(response, {
        limit,
        method,
        onRetry: (millis) => at.retry = retryOf(millis),
        // Its answer read: the rest of the stream is not this request's to wait for.
        done: () => answers !== undefined && at.answered,
        onEvent: (event) => {
          at.events++
          if (event.id !== undefined) at.lastEventId = event.id
          if (isInitialize) remember(event.data)
          return Effect.map(deliver(event.data, answers), (inbound) => {
            if (
              answers !== undefined && inbound?._tag === "Single" && !("method" in inbound.message) &&
              inbound.message.id === answers
            ) at.answered = true
          })
        }
      })

    /**
     * One GET of the session's stream, from `at.lastEventId` when there is one; its status
     * (`opened`: run when an event stream is answered, before it is read).
     */
    const get = (
      answers: JsonRpc.RequestId | undefined,
      at: Progress,
      method: string,
      opened: Effect.Effect<void> = Effect.void
    ) =>
      Exchange.execute(
        client,
        HttpClientRequest.get(options.url).pipe(
          HttpClientRequest.setHeaders({
            ...sessionHeaders(),
            accept: "text/event-stream",
            ...(at.lastEventId !== undefined ? { "last-event-id": at.lastEventId } : {})
          })
        ),
        method
      ).pipe(
        Effect.flatMap((response) =>
          response.status === 200 && (response.headers["content-type"] ?? "").startsWith("text/event-stream")
            ? Effect.as(
              Effect.zipRight(opened, readSse(response, answers, at, method, false)),
              200
            )
            : Effect.succeed(response.status)
        )
      )

    /**
     * A POST's stream ended before its answer (2025-11-25 polling, a dropped connection): resumed
     * with GET and `Last-Event-ID` after the server's `retry`, until the answer comes.
     */
    const resume = (request: JsonRpc.Request, at: Progress, stalls = 0): Effect.Effect<void, Failure> =>
      Effect.suspend(() => {
        if (at.answered) return Effect.void
        if (stalls >= maxStalls) {
          return Effect.fail(
            new ClientError.UnexpectedAnswer({
              method: request.method,
              expected: request.id,
              received: `an event stream resumed ${stalls} times without an event`
            })
          )
        }
        const before = at.events
        if (at.lastEventId === undefined) {
          return Effect.fail(
            new ClientError.UnexpectedAnswer({
              method: request.method,
              expected: request.id,
              received: "an event stream that ended without it"
            })
          )
        }
        return Effect.zipRight(
          Effect.sleep(at.retry),
          Effect.flatMap(get(request.id, at, request.method), (status) =>
            status === 200
              ? resume(request, at, at.events === before ? stalls + 1 : 0)
              : Effect.fail(
                new ClientError.UnexpectedAnswer({
                  method: request.method,
                  expected: request.id,
                  received: `HTTP ${status} when its event stream was resumed`
                })
              ))
        )
      })

    /** The session's standalone stream (server requests and notifications outside any request). */
    const standalone = Effect.suspend(() => {
      const at = newProgress()
      let failures = 0
      let seen = 0
      const loop: Effect.Effect<void> = Effect.flatMap(
        Effect.either(get(undefined, at, "the session's event stream", streamIs({ open: true }))),
        (result) => {
          // 405: the server has no such stream; 404: the session is gone.
          if (result._tag === "Right" && (result.right === 405 || result.right === 404)) {
            return streamIs({ open: false, reason: `its GET answered HTTP ${result.right}` })
          }
          if (result._tag === "Left") {
            return Effect.zipRight(
              Effect.logWarning(`effect-mcp client: ${result.left.message}`),
              ++failures > 5
                ? streamIs({ open: false, reason: `its GET failed: ${result.left.message}` })
                : Effect.zipRight(Effect.sleep(at.retry), loop)
            )
          }
          // A stream that brought something starts the count again; an empty one is a failure.
          failures = result.right === 200 && at.events > seen ? 0 : failures + 1
          seen = at.events
          // Another status (400, 409, a 200 that is not an event stream): not open now, said at once;
          // tried again after the server's retry, up to five times.
          const refused = result.right === 200
            ? Effect.void
            : streamIs({ open: false, reason: `its GET answered HTTP ${result.right}` })
          return Effect.zipRight(
            refused,
            failures > 5
              ? streamIs({ open: false, reason: `its GET answered HTTP ${result.right}, not an event stream` })
              : Effect.zipRight(Effect.sleep(at.retry), loop)
          )
        }
      )
      return loop
    })

    /** Starts the standalone stream, once: when the session is initialized and it is wanted. */
    const startStandalone = () => {
      if (standaloneIs.started || !standaloneIs.initialized || legacy !== undefined) return
      if (session.id === undefined && !standaloneIs.wanted) return
      standaloneIs.started = true
      track(fork(standalone))
    }

    const eventStreamTimeout = Duration.decode(options.eventStreamTimeout ?? "10 seconds")

    /** Whether the session's stream is open, or why not: its GET started if need be, its first answer awaited (bounded). */
    const eventStreamNow: Effect.Effect<EventStream> = Effect.suspend(() => {
      standaloneIs.wanted = true
      startStandalone()
      return Deferred.await(streamKnown).pipe(
        Effect.timeout(eventStreamTimeout),
        Effect.matchEffect({
          onFailure: () =>
            Effect.succeed<EventStream>({
              open: false,
              reason: `its GET had no answer within ${Duration.format(eventStreamTimeout)}`
            }),
          onSuccess: () =>
            Effect.map(
              Ref.get(eventStream),
              (known): EventStream => known ?? { open: false, reason: "its GET had no answer" }
            )
        })
      )
    })

    /** A new session in place of `expired` (the server answered 404): initialize again, once. */
    const renew = (expired: string): Effect.Effect<void, Error> =>
      Effect.suspend(() => {
        // Another request met the 404 first: its renewal is this one's too.
        if (session.renewing?.from === expired) return Deferred.await(session.renewing.done)
        if (session.id !== expired || session.initialize === undefined) return Effect.void
        const done = Deferred.unsafeMake<void, Error>(FiberId.none)
        session.renewing = { from: expired, done }
        session.id = undefined
        const again: JsonRpc.Request = { ...session.initialize, id: `effect-mcp-renew-${++session.renewals}` }
        // Headers read when sent: the new session's id once it is known.
        const send = (frame: JsonRpc.Message) =>
          Effect.suspend(() =>
            Exchange.execute(
              client,
              HttpClientRequest.post(options.url).pipe(
                HttpClientRequest.setHeaders(headersOf(frame)),
                HttpClientRequest.bodyText(Wire.encode(frame), "application/json")
              ),
              "initialize"
            )
          )
        const renewed = send(again).pipe(
          Effect.flatMap((response) => {
            const given = response.headers["mcp-session-id"]
            if (response.status !== 200 || given === undefined) {
              return Effect.fail(new Error(`initialize again: HTTP ${response.status}`))
            }
            session.id = given
            // The answer is ours, not the engine's: read and dropped.
            return Effect.asVoid(Exchange.readText(response, limit, "initialize"))
          }),
          Effect.zipRight(send({ jsonrpc: "2.0", method: "notifications/initialized" })),
          // A new session: its own stream (the one before ended with its session).
          Effect.zipRight(Effect.sync(() => track(fork(standalone)))),
          Effect.mapError((error) => new Error(`the session ended and could not be renewed: ${error.message}`))
        )
        return Effect.zipRight(Effect.intoDeferred(renewed, done), Deferred.await(done))
      })

    /** One POST of `message` and its answer, read; what goes wrong fails its request. */
    const exchangeOf = (message: JsonRpc.Message, renewed: boolean): Effect.Effect<void, Failure> => {
      const request = requestOf(message)
      const method = "method" in message ? message.method : "a response"
      const isInitialize = request?.method === "initialize"
      if (isInitialize) session.initialize = request
      return Effect.suspend(() => {
        const headers = headersOf(message)
        const sessionId = headers["mcp-session-id"]
        return Exchange.execute(
          client,
          HttpClientRequest.post(options.url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(Wire.encode(message), "application/json")
          ),
          method
        ).pipe(
          Effect.flatMap((response): Effect.Effect<void, Failure> => {
            // The server forgot the session (expired, restarted): a new one, and this again.
            if (response.status === 404 && sessionId !== undefined && !renewed && session.initialize !== undefined) {
              return Effect.zipRight(
                Effect.catchAll(renew(sessionId), (error) =>
                  Effect.flatMap(
                    Effect.orElseSucceed(Exchange.readText(response, 4096, method), () => ""),
                    (body) => Effect.fail(Exchange.httpError(method, response, body, error.message))
                  )),
                exchangeOf(message, true)
              )
            }
            if (isInitialize && legacyStatuses.has(response.status) && options.legacyFallback !== false) {
              return Effect.flatMap(
                Effect.orElseSucceed(Exchange.readText(response, limit, method), () => ""),
                (text) =>
                  isJsonRpcError(text)
                    ? answer(message, text)
                    : fallBack(message, `POST ${options.url} answered HTTP ${response.status}`)
              )
            }
            const given = response.headers["mcp-session-id"]
            if (isInitialize && given !== undefined) session.id = given
            const type = response.headers["content-type"] ?? ""
            const ok = response.status >= 200 && response.status < 300
            if (response.status === 202 || response.status === 204) return Effect.void
            if (ok && type.startsWith("text/event-stream")) {
              const at = newProgress()
              return Effect.zipRight(
                readSse(response, request?.id, at, method, isInitialize),
                request === undefined ? Effect.void : resume(request, at)
              )
            }
            return Effect.flatMap(Exchange.readText(response, limit, method), (text) => {
              // An authorization challenge is the transport's to report (an `HttpError` with its
              // challenges), even with a JSON-RPC body (effect-mcp's resource servers send one).
              const challenged = response.status === 401 ||
                (response.status === 403 && response.headers["www-authenticate"] !== undefined)
              if (type.startsWith("application/json") && (ok || (!challenged && isJsonRpc(text)))) {
                if (isInitialize) remember(text)
                return answer(message, text)
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
          })
        )
      })
    }

    const post = (message: JsonRpc.Message): Effect.Effect<void> => {
      const request = requestOf(message)
      const exchange = Effect.catchAll(exchangeOf(message, false), (error) => failed(message, error))
      // Once the session is initialized, its standalone stream is opened (a server that gave no
      // session id: once a subscription asks for it).
      const then = "method" in message && message.method === "notifications/initialized"
        ? Effect.zipRight(
          exchange,
          Effect.sync(() => {
            standaloneIs.initialized = true
            startStandalone()
          })
        )
        : exchange
      // Sent before anything else is: the session's first request must not overtake it.
      if ("method" in message && message.method === "notifications/initialized") return then
      return Effect.sync(() => {
        const fiber = fork(then)
        open.add(fiber)
        if (request !== undefined) {
          streams.set(request.id, { fiber, stateless: statelessVersion(message) !== undefined })
        }
        fiber.addObserver(() => {
          open.delete(fiber)
          if (request !== undefined && streams.get(request.id)?.fiber === fiber) streams.delete(request.id)
        })
      })
    }

    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Fiber.interruptAll(Array.from(open)),
        // Interruptible, or the timeout could not cut it short (a finalizer is not): a server that
        // does not answer the DELETE holds the client's closing 2 seconds, not for as long.
        session.id === undefined ? Effect.void : client.execute(
          HttpClientRequest.del(options.url).pipe(HttpClientRequest.setHeaders(sessionHeaders()))
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

    const protocol: Transport.Protocol<Failure> = {
      telemetry: telemetryOf(options.url, () => session.id),
      run: (r) => Effect.zipRight(Deferred.succeed(receiver, r), Effect.never),
      send: (_client, frame) =>
        Effect.suspend(() => {
          if (legacy !== undefined) return legacy.send(server, frame)
          if (Array.isArray(frame)) return Effect.forEach(frame, post, { discard: true })
          const message = frame as JsonRpc.Message
          if ("method" in message && message.method === "notifications/cancelled") {
            const cancelled = (message.params as { readonly requestId?: JsonRpc.RequestId } | undefined)?.requestId
            const stream = cancelled === undefined ? undefined : streams.get(cancelled)
            if (stream !== undefined) {
              // Its POST is let go (its stream read no further); 2026-07-28: that is the cancellation.
              const closed = Effect.asVoid(Fiber.interruptFork(stream.fiber))
              if (stream.stateless) return closed
              return Effect.zipRight(closed, post(message))
            }
          }
          return post(message)
        })
    }
    return { protocol, tools, eventStream: eventStreamNow }
  })

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
