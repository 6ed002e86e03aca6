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
 * - A POST that fails (no connection, an HTTP error without a JSON-RPC body) answers its request
 *   with a -32603 error saying why, so the caller is never left waiting.
 */
import type { Transport } from "@effect-mcp/core"
import { HttpHeaders, JsonRpc, Meta, Wire } from "@effect-mcp/core"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

export interface Options {
  readonly url: string
  /** Headers sent on every request (authorization, say). */
  readonly headers?: Readonly<Record<string, string>>
}

/** The server is the protocol's one client. */
const server = 0

/** An SSE parser: calls `emit` with the data of each complete event. */
const sseParser = (emit: (data: string) => void) => {
  let buffer = ""
  let data: Array<string> = []
  const line = (text: string) => {
    if (text === "") {
      if (data.length > 0) emit(data.join("\n"))
      data = []
      return
    }
    if (text.startsWith(":")) return
    const colon = text.indexOf(":")
    const field = colon < 0 ? text : text.slice(0, colon)
    const value = colon < 0 ? "" : text.slice(colon + 1).replace(/^ /, "")
    if (field === "data") data.push(value)
  }
  return (chunk: string) => {
    buffer += chunk
    let newline = buffer.search(/\r\n|\r|\n/)
    while (newline >= 0) {
      const width = buffer.startsWith("\r\n", newline) ? 2 : 1
      line(buffer.slice(0, newline))
      buffer = buffer.slice(newline + width)
      newline = buffer.search(/\r\n|\r|\n/)
    }
  }
}

const failed = (id: JsonRpc.RequestId, message: string): JsonRpc.Frame => ({
  jsonrpc: "2.0",
  id,
  error: { code: JsonRpc.Code.InternalError, message: `HTTP transport: ${message}` }
})

export const make = (options: Options): Effect.Effect<Transport.Protocol, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const runtime = yield* Effect.runtime<never>()
    const fork = Runtime.runFork(runtime)
    const receiver = yield* Deferred.make<Transport.Receiver>()
    let sessionId: string | undefined
    let negotiated: string | undefined
    /** The POSTs of 2026-07-28 requests in flight, by request id: interrupting one closes its stream. */
    const streams = new Map<JsonRpc.RequestId, Fiber.RuntimeFiber<void>>()
    const open = new Set<Fiber.RuntimeFiber<void>>()

    const deliver = (text: string) =>
      Effect.map(Deferred.await(receiver), (r) => {
        if (text.trim().length > 0) r.receive(server, Wire.decode(text))
      })

    const headersOf = (message: JsonRpc.Message): Record<string, string> => {
      const headers: Record<string, string> = {
        accept: "application/json, text/event-stream",
        ...options.headers
      }
      const version = "method" in message ? Meta.of(message.params)?.[Meta.protocolVersion] : undefined
      if (typeof version === "string") {
        headers[HttpHeaders.protocolVersion] = version
        const request = message as JsonRpc.Request
        headers[HttpHeaders.method] = request.method
        const name = HttpHeaders.nameOf(request.method, request.params)
        if (name !== undefined) headers[HttpHeaders.name] = HttpHeaders.encodeValue(name)
      } else {
        if (sessionId !== undefined) headers["mcp-session-id"] = sessionId
        if (negotiated !== undefined) headers[HttpHeaders.protocolVersion] = negotiated
      }
      return headers
    }

    /** Reads an answer: JSON, or SSE events as they come. */
    const read = (response: HttpClientResponse.HttpClientResponse, isInitialize: boolean) => {
      const type = response.headers["content-type"] ?? ""
      if (type.startsWith("text/event-stream")) {
        const decoder = new TextDecoder()
        const events: Array<string> = []
        const parse = sseParser((data) => events.push(data))
        return response.stream.pipe(
          Stream.runForEach((bytes) =>
            Effect.suspend(() => {
              parse(decoder.decode(bytes, { stream: true }))
              const ready = events.splice(0)
              return Effect.forEach(ready, (data) => {
                if (isInitialize) remember(data)
                return deliver(data)
              }, { discard: true })
            })
          )
        )
      }
      return Effect.flatMap(response.text, (text) => {
        if (isInitialize) remember(text)
        return deliver(text)
      })
    }

    /** The revision an `initialize` answer negotiated (sent on every later POST). */
    const remember = (text: string) => {
      try {
        const version = JSON.parse(text)?.result?.protocolVersion
        if (typeof version === "string") negotiated = version
      } catch {
        // Not JSON: the engine reports it.
      }
    }

    const post = (message: JsonRpc.Message): Effect.Effect<void> => {
      const id = "id" in message && "method" in message ? (message as JsonRpc.Request).id : undefined
      const isInitialize = "method" in message && message.method === "initialize"
      const headers = headersOf(message)
      const exchange = client.execute(
        HttpClientRequest.post(options.url).pipe(
          HttpClientRequest.setHeaders(headers),
          HttpClientRequest.bodyText(Wire.encode(message), "application/json")
        )
      ).pipe(
        Effect.flatMap((response) => {
          const given = response.headers["mcp-session-id"]
          if (isInitialize && given !== undefined) sessionId = given
          const type = response.headers["content-type"] ?? ""
          if (response.status === 202 || response.status === 204) return Effect.void
          if (type.startsWith("application/json") || type.startsWith("text/event-stream")) {
            return read(response, isInitialize)
          }
          return id === undefined
            ? Effect.void
            : deliver(Wire.encode(failed(id, `${response.status} from ${options.url}`)))
        }),
        Effect.catchAll((error) => id === undefined ? Effect.void : deliver(Wire.encode(failed(id, error.message)))),
        Effect.scoped
      )
      return Effect.sync(() => {
        const fiber = fork(exchange)
        open.add(fiber)
        const stateless = id !== undefined && headers[HttpHeaders.method] !== undefined
        if (stateless) streams.set(id, fiber)
        fiber.addObserver(() => {
          open.delete(fiber)
          if (stateless && streams.get(id) === fiber) streams.delete(id)
        })
      })
    }

    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Fiber.interruptAll(Array.from(open)),
        sessionId === undefined ? Effect.void : client.execute(
          HttpClientRequest.del(options.url).pipe(
            HttpClientRequest.setHeaders({
              ...options.headers,
              "mcp-session-id": sessionId,
              ...(negotiated !== undefined ? { [HttpHeaders.protocolVersion]: negotiated } : {})
            })
          )
        ).pipe(Effect.scoped, Effect.timeout("2 seconds"), Effect.ignore)
      )
    )

    const protocol: Transport.Protocol = {
      run: (r) => Effect.zipRight(Deferred.succeed(receiver, r), Effect.never),
      send: (_client, frame) =>
        Effect.suspend(() => {
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
    return protocol
  })
