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
 *   a 405 means the server has none.
 * - A 404 for a session the server forgot (expired, restarted): the session's `initialize` is
 *   sent again (once, for every request that met the 404), and the request after it.
 * - `Mcp-Param-*` headers mirror the arguments a tool's `x-mcp-header` annotations name; a tool
 *   whose annotations break the rules is not offered (the client warns).
 * - A POST that fails (no connection, an HTTP error without a JSON-RPC body) answers its request
 *   with a -32603 error saying why, so the caller is never left waiting.
 */
import type { Transport } from "@effect-mcp/core"
import { HttpHeaders, JsonRpc, Meta, type Schema as McpSchema, Wire } from "@effect-mcp/core"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Legacy from "./legacy.js"
import { type SseEvent, sseParser } from "./sse.js"

export interface Options {
  readonly url: string
  /** Headers sent on every request (authorization, say). */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Whether an `initialize` refused without a JSON-RPC error (400, 404, 405) falls back to the
   * legacy HTTP+SSE transport at the same URL (default true).
   */
  readonly legacyFallback?: boolean
}

/** The statuses of a server that has no Streamable HTTP endpoint at the URL (the back-compat rule of 2025-03-26 and later). */
const legacyStatuses = new Set([400, 404, 405])

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

const excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat
}

/** The server is the protocol's one client. */
const server = 0

/** The revision a 2026-07-28 message names in its `_meta` (undefined: a handshake-era one). */
const statelessVersion = (message: JsonRpc.Message): string | undefined => {
  const version = "method" in message ? Meta.of(message.params)?.[Meta.protocolVersion] : undefined
  return typeof version === "string" ? version : undefined
}

const failed = (id: JsonRpc.RequestId, message: string): JsonRpc.Frame => ({
  jsonrpc: "2.0",
  id,
  error: { code: JsonRpc.Code.InternalError, message: `HTTP transport: ${message}` }
})

export const make = (options: Options): Effect.Effect<
  {
    readonly protocol: Transport.Protocol
    readonly tools: (listed: ReadonlyArray<McpSchema.Tool.Tool>) => ReadonlyArray<McpSchema.Tool.Tool>
  },
  never,
  HttpClient.HttpClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const runtime = yield* Effect.runtime<never>()
    const fork = Runtime.runFork(runtime)
    const receiver = yield* Deferred.make<Transport.Receiver>()
    let sessionId: string | undefined
    let negotiated: string | undefined
    /** The POSTs of 2026-07-28 requests in flight, by request id: interrupting one closes its stream. */
    const streams = new Map<JsonRpc.RequestId, Fiber.RuntimeFiber<void>>()
    /** The `Mcp-Param-*` headers of each tool listed so far (from `x-mcp-header` annotations). */
    const paramHeaders = new Map<string, ReadonlyArray<HttpHeaders.ParamHeader>>()
    const open = new Set<Fiber.RuntimeFiber<void>>()
    const scope = yield* Effect.scope
    /** The legacy HTTP+SSE transport this session fell back to, once it has. */
    let legacy: Transport.Protocol | undefined

    /** The server has no Streamable HTTP endpoint: the URL as a legacy SSE endpoint, and `message` sent there. */
    const fallBack = (message: JsonRpc.Message, tried: string) =>
      Effect.gen(function*() {
        if (legacy === undefined) {
          const made = yield* Legacy.make({
            url: options.url,
            ...(options.headers ? { headers: options.headers } : {}),
            tried
          }).pipe(
            Effect.provideService(HttpClient.HttpClient, client),
            Scope.extend(scope)
          )
          legacy = made
          const r = yield* Deferred.await(receiver)
          track(fork(Effect.ignore(Effect.scoped(made.run(r)))))
        }
        yield* legacy.send(server, message)
      })

    /**
     * Delivers one message; true when it is the answer to request `answers`. A JSON answer to one
     * POST is its request's (`owner`): an error the server could not tie to an id (`"id": null`,
     * say a 400 before it parsed the body) is given the request's, on the message decoded once.
     */
    const deliver = (text: string, answers?: JsonRpc.RequestId, owner?: JsonRpc.RequestId) =>
      Effect.map(Deferred.await(receiver), (r) => {
        if (text.trim().length === 0) return false
        let inbound = Wire.decode(text)
        if (
          owner !== undefined && inbound._tag === "Single" && "error" in inbound.message &&
          (inbound.message.id === null || inbound.message.id === undefined)
        ) {
          inbound = { _tag: "Single", message: { ...inbound.message, id: owner } }
        }
        r.receive(server, inbound)
        return answers !== undefined && inbound._tag === "Single" && !("method" in inbound.message) &&
          (inbound.message as { readonly id?: unknown }).id === answers
      })

    const headersOf = (message: JsonRpc.Message): Record<string, string> => {
      const headers: Record<string, string> = {
        accept: "application/json, text/event-stream",
        ...options.headers
      }
      const version = statelessVersion(message)
      if (version !== undefined) {
        headers[HttpHeaders.protocolVersion] = version
        const request = message as JsonRpc.Request
        headers[HttpHeaders.method] = request.method
        const name = HttpHeaders.nameOf(request.method, request.params)
        if (name !== undefined) headers[HttpHeaders.name] = HttpHeaders.encodeValue(name)
        if (request.method === "tools/call" && name !== undefined) {
          const args = (request.params as { readonly arguments?: unknown }).arguments
          for (const spec of paramHeaders.get(name) ?? []) {
            const value = HttpHeaders.argumentOf(spec, args)
            if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
              headers[HttpHeaders.paramPrefix + spec.header.toLowerCase()] = HttpHeaders.encodeValue(value)
            }
          }
        }
      } else {
        if (sessionId !== undefined) headers["mcp-session-id"] = sessionId
        if (negotiated !== undefined) headers[HttpHeaders.protocolVersion] = negotiated
      }
      return headers
    }

    /** Where an SSE stream got to: what a resumption starts from. */
    interface Progress {
      lastEventId: string | undefined
      retry: number
      answered: boolean
    }

    /** Reads an SSE response to its end, delivering events as they come. */
    const readSse = (
      response: HttpClientResponse.HttpClientResponse,
      answers: JsonRpc.RequestId | undefined,
      at: Progress,
      isInitialize: boolean
    ) => {
      const decoder = new TextDecoder()
      const events: Array<SseEvent> = []
      const parse = sseParser((event) => events.push(event), (millis) => at.retry = millis)
      return response.stream.pipe(
        Stream.runForEach((bytes) =>
          Effect.suspend(() => {
            parse(decoder.decode(bytes, { stream: true }))
            return Effect.forEach(events.splice(0), (event) => {
              if (event.id !== undefined) at.lastEventId = event.id
              if (isInitialize) remember(event.data)
              return Effect.map(deliver(event.data, answers), (answered) => {
                if (answered) at.answered = true
              })
            }, { discard: true })
          })
        )
      )
    }

    const sessionHeaders = (): Record<string, string> => ({
      ...options.headers,
      ...(sessionId !== undefined ? { "mcp-session-id": sessionId } : {}),
      ...(negotiated !== undefined ? { [HttpHeaders.protocolVersion]: negotiated } : {})
    })

    /** One GET of the session's stream, from `at.lastEventId` when there is one; its status. */
    const get = (answers: JsonRpc.RequestId | undefined, at: Progress) =>
      client.execute(
        HttpClientRequest.get(options.url).pipe(
          HttpClientRequest.setHeaders({
            ...sessionHeaders(),
            accept: "text/event-stream",
            ...(at.lastEventId !== undefined ? { "last-event-id": at.lastEventId } : {})
          })
        )
      ).pipe(
        Effect.flatMap((response) =>
          response.status === 200 && (response.headers["content-type"] ?? "").startsWith("text/event-stream")
            ? Effect.as(readSse(response, answers, at, false), 200)
            : Effect.succeed(response.status)
        ),
        Effect.scoped
      )

    /**
     * A POST's stream ended before its answer (2025-11-25 polling, a dropped connection): resumed
     * with GET and `Last-Event-ID` after the server's `retry`, until the answer comes.
     */
    const resume = (answers: JsonRpc.RequestId, at: Progress): Effect.Effect<void, unknown> =>
      Effect.suspend(() => {
        if (at.answered) return Effect.void
        if (at.lastEventId === undefined) {
          return Effect.asVoid(deliver(Wire.encode(failed(answers, "the stream ended before the answer"))))
        }
        return Effect.zipRight(
          Effect.sleep(at.retry),
          Effect.flatMap(get(answers, at), (status) =>
            status === 200
              ? resume(answers, at)
              : Effect.asVoid(deliver(Wire.encode(failed(answers, `${status} resuming the stream`)))))
        )
      })

    /** The session's standalone stream (server requests and notifications outside any request). */
    const standalone = Effect.suspend(() => {
      const at: Progress = { lastEventId: undefined, retry: 1_000, answered: false }
      let failures = 0
      const loop: Effect.Effect<void> = Effect.flatMap(
        Effect.either(get(undefined, at)),
        (result) => {
          // 405: the server has no such stream; 404: the session is gone.
          if (result._tag === "Right" && (result.right === 405 || result.right === 404)) return Effect.void
          failures = result._tag === "Right" && result.right === 200 ? 0 : failures + 1
          return failures > 5 ? Effect.void : Effect.zipRight(Effect.sleep(at.retry), loop)
        }
      )
      return loop
    })

    /** The revision an `initialize` answer negotiated (sent on every later POST). */
    const remember = (text: string) => {
      try {
        const version = JSON.parse(text)?.result?.protocolVersion
        if (typeof version === "string") negotiated = version
      } catch {
        // Not JSON: the engine reports it.
      }
    }

    /** The `initialize` this session began with: sent again when the server forgot the session. */
    let initialize: JsonRpc.Request | undefined
    let renewals = 0
    let renewing: { readonly from: string; readonly done: Deferred.Deferred<void, Error> } | undefined

    /** A new session in place of `expired` (the server answered 404): initialize again, once. */
    const renew = (expired: string): Effect.Effect<void, Error> =>
      Effect.suspend(() => {
        // Another request met the 404 first: its renewal is this one's too.
        if (renewing?.from === expired) return Deferred.await(renewing.done)
        if (sessionId !== expired) return Effect.void
        const done = Deferred.unsafeMake<void, Error>(FiberId.none)
        renewing = { from: expired, done }
        sessionId = undefined
        const again = { ...initialize!, id: `effect-mcp-renew-${++renewals}` }
        // Headers read when sent: the new session's id once it is known.
        const send = (frame: JsonRpc.Message) =>
          Effect.suspend(() =>
            client.execute(
              HttpClientRequest.post(options.url).pipe(
                HttpClientRequest.setHeaders(headersOf(frame)),
                HttpClientRequest.bodyText(Wire.encode(frame), "application/json")
              )
            )
          )
        const renewed = send(again).pipe(
          Effect.flatMap((response) => {
            const given = response.headers["mcp-session-id"]
            if (response.status !== 200 || given === undefined) {
              return Effect.fail(new Error(`initialize again: ${response.status}`))
            }
            sessionId = given
            // The answer is ours, not the engine's: read and dropped.
            return Effect.asVoid(response.text)
          }),
          Effect.zipRight(send({ jsonrpc: "2.0", method: "notifications/initialized" })),
          Effect.zipRight(Effect.sync(() => track(fork(standalone)))),
          Effect.scoped,
          Effect.mapError((error) => new Error(`the session ended and could not be renewed: ${error.message}`))
        )
        return Effect.zipRight(Effect.intoDeferred(renewed, done), Deferred.await(done))
      })

    const exchangeOf = (message: JsonRpc.Message, renewed: boolean): Effect.Effect<void> => {
      const id = "id" in message && "method" in message ? (message as JsonRpc.Request).id : undefined
      const isInitialize = "method" in message && message.method === "initialize"
      if (isInitialize) initialize = message as JsonRpc.Request
      return Effect.suspend(() => {
        const headers = headersOf(message)
        const session = headers["mcp-session-id"]
        return client.execute(
          HttpClientRequest.post(options.url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(Wire.encode(message), "application/json")
          )
        ).pipe(
          Effect.flatMap((response): Effect.Effect<void, unknown> => {
            // The server forgot the session (expired, restarted): a new one, and this again.
            if (response.status === 404 && session !== undefined && !renewed && initialize !== undefined) {
              return Effect.zipRight(renew(session), exchangeOf(message, true))
            }
            if (isInitialize && legacyStatuses.has(response.status) && options.legacyFallback !== false) {
              return Effect.flatMap(
                Effect.orElseSucceed(response.text, () => ""),
                (text) =>
                  isJsonRpcError(text)
                    ? deliver(text, undefined, id)
                    : fallBack(message, `POST ${options.url} answered ${response.status}`)
              )
            }
            const given = response.headers["mcp-session-id"]
            if (isInitialize && given !== undefined) sessionId = given
            const type = response.headers["content-type"] ?? ""
            if (response.status === 202 || response.status === 204) return Effect.void
            if (type.startsWith("text/event-stream")) {
              const at: Progress = { lastEventId: undefined, retry: 1_000, answered: false }
              return Effect.zipRight(
                readSse(response, id, at, isInitialize),
                id === undefined ? Effect.void : resume(id, at)
              )
            }
            if (type.startsWith("application/json")) {
              return Effect.flatMap(response.text, (text) => {
                if (isInitialize) remember(text)
                // An error status whose JSON body is not JSON-RPC (an OAuth 401, a gateway's page):
                // the request's answer, said with the status, rather than a frame the engine drops.
                // (Checked on errors only: a 2xx body is parsed once, by the engine.)
                if (id !== undefined && (response.status < 200 || response.status >= 300) && !isJsonRpc(text)) {
                  return deliver(Wire.encode(failed(id, `${response.status} from ${options.url}: ${excerpt(text)}`)))
                }
                return deliver(text, undefined, id)
              })
            }
            return id === undefined
              ? Effect.void
              : deliver(Wire.encode(failed(id, `${response.status} from ${options.url}`)))
          }),
          Effect.catchAll((error) =>
            id === undefined
              ? Effect.void
              : deliver(Wire.encode(failed(id, String((error as Error).message ?? error))))
          ),
          Effect.scoped,
          Effect.asVoid
        )
      })
    }

    const post = (message: JsonRpc.Message): Effect.Effect<void> => {
      const id = "id" in message && "method" in message ? (message as JsonRpc.Request).id : undefined
      const exchange = exchangeOf(message, false)
      // Once the session is initialized, its standalone stream is opened.
      const then = "method" in message && message.method === "notifications/initialized" && sessionId !== undefined
        ? Effect.zipRight(exchange, Effect.sync(() => track(fork(standalone))))
        : exchange
      return Effect.sync(() => {
        const fiber = fork(then)
        open.add(fiber)
        const stateless = id !== undefined && statelessVersion(message) !== undefined
        if (stateless) streams.set(id, fiber)
        fiber.addObserver(() => {
          open.delete(fiber)
          if (stateless && streams.get(id) === fiber) streams.delete(id)
        })
      })
    }

    const track = (fiber: Fiber.RuntimeFiber<void>) => {
      open.add(fiber)
      fiber.addObserver(() => open.delete(fiber))
    }

    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Fiber.interruptAll(Array.from(open)),
        sessionId === undefined ? Effect.void : client.execute(
          HttpClientRequest.del(options.url).pipe(
            HttpClientRequest.setHeaders(sessionHeaders())
          )
        ).pipe(Effect.scoped, Effect.timeout("2 seconds"), Effect.ignore)
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

    const protocol: Transport.Protocol = {
      run: (r) => Effect.zipRight(Deferred.succeed(receiver, r), Effect.never),
      send: (_client, frame) =>
        Effect.suspend(() => {
          if (legacy !== undefined) return legacy.send(server, frame)
          if (Array.isArray(frame)) return Effect.forEach(frame, post, { discard: true })
          const message = frame as JsonRpc.Message
          if ("method" in message && message.method === "notifications/cancelled") {
            const cancelled = (message.params as { readonly requestId?: JsonRpc.RequestId } | undefined)?.requestId
            const stream = cancelled === undefined ? undefined : streams.get(cancelled)
            // 2026-07-28: a closed response stream is the cancellation.
            if (stream !== undefined) return Effect.asVoid(Fiber.interruptFork(stream))
          }
          return post(message)
        })
    }
    return { protocol, tools }
  })
