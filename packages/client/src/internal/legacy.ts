/**
 * The client side of the legacy HTTP+SSE transport (2024-11-05): a GET of the SSE endpoint
 * announces, in an `endpoint` event, the URL messages are POSTed to; everything the server sends
 * comes as `message` events on that one stream. A POST that fails answers its request with a
 * -32603 saying why; the stream's end ends the transport.
 */
import { JsonRpc, Transport, Wire } from "@effect-mcp/core"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type SseEvent, sseParser } from "./sse.js"

export interface Options {
  /** The SSE endpoint (`http://host/sse`). */
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Why this transport is tried (a Streamable HTTP POST that was refused): said with the error
   * when the SSE endpoint cannot be opened either, so that neither failure hides the other.
   */
  readonly tried?: string
}

/** The server is the protocol's one client. */
const server = 0

const transportError = (message: string, cause?: unknown) => new Transport.TransportError({ message, cause })

export const make = (options: Options): Effect.Effect<Transport.Protocol, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const fork = Runtime.runFork(yield* Effect.runtime<never>())
    const endpoint = yield* Deferred.make<string, Transport.TransportError>()
    /** Requests posted before the endpoint was known: answered with the error if it never is. */
    const waiting = new Set<JsonRpc.RequestId>()
    const answerError = (r: Transport.Receiver, id: JsonRpc.RequestId, why: string) =>
      r.receive(
        server,
        Wire.decode(Wire.encode({
          jsonrpc: "2.0",
          id,
          error: { code: JsonRpc.Code.InternalError, message: `HTTP transport: ${why}` }
        }))
      )
    const receiver = yield* Deferred.make<Transport.Receiver>()

    /** Answers request `id` with an error when its POST was refused (its answer will not come). */
    const refused = (id: JsonRpc.RequestId, why: string) =>
      Effect.map(Deferred.await(receiver), (r) => answerError(r, id, why))

    const stream = (r: Transport.Receiver) =>
      Effect.flatMap(
        client.execute(
          HttpClientRequest.get(options.url).pipe(
            HttpClientRequest.setHeaders({ ...options.headers, accept: "text/event-stream" })
          )
        ),
        (response) => {
          if (response.status !== 200) {
            return Effect.fail(transportError(`GET ${options.url} answered ${response.status}`))
          }
          const decoder = new TextDecoder()
          const events: Array<SseEvent> = []
          const parse = sseParser((event) => events.push(event), () => {})
          return response.stream.pipe(
            Stream.runForEach((bytes) =>
              Effect.sync(() => {
                parse(decoder.decode(bytes, { stream: true }))
                for (const event of events.splice(0)) {
                  if (event.event === "endpoint") {
                    Deferred.unsafeDone(endpoint, Effect.succeed(new URL(event.data, options.url).toString()))
                  } else if (event.event === "message" && event.data.trim().length > 0) {
                    r.receive(server, Wire.decode(event.data))
                  }
                }
              })
            ),
            Effect.mapError((cause) => transportError("the SSE stream failed", cause))
          )
        }
      ).pipe(
        Effect.catchTag("RequestError", (cause) => Effect.fail(transportError(`GET ${options.url} failed`, cause))),
        Effect.catchTag("ResponseError", (cause) => Effect.fail(transportError(`GET ${options.url} failed`, cause)))
      )

    const post = (frame: JsonRpc.Frame) => {
      const message = frame as JsonRpc.Message
      const id = !Array.isArray(frame) && "id" in message && "method" in message
        ? (message as JsonRpc.Request).id
        : undefined
      if (id !== undefined) waiting.add(id)
      const forget = Effect.sync(() => id !== undefined && waiting.delete(id))
      const sent = (url: string) =>
        client.execute(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders({ ...options.headers }),
            HttpClientRequest.bodyText(Wire.encode(frame), "application/json")
          )
        ).pipe(
          Effect.flatMap((response) =>
            response.status >= 200 && response.status < 300
              ? Effect.void
              : id === undefined
              ? Effect.void
              : refused(id, `${response.status} from ${url}`)
          ),
          Effect.catchAll((error) => id === undefined ? Effect.void : refused(id, error.message)),
          Effect.scoped
        )
      // No endpoint ever: the stream's end answered this request already.
      return Effect.matchEffect(Effect.ensuring(Deferred.await(endpoint), forget), {
        onFailure: () => Effect.void,
        onSuccess: sent
      })
    }

    return {
      run: (r) =>
        Effect.zipRight(
          Deferred.succeed(receiver, r),
          stream(r).pipe(
            // The endpoint never came: what waited for it is answered with why (posts stop waiting).
            Effect.tapError((error) =>
              Effect.sync(() => {
                const why = `${options.tried !== undefined ? `${options.tried}, and ` : ""}${error.message}`
                for (const id of waiting) answerError(r, id, why)
                waiting.clear()
                Deferred.unsafeDone(endpoint, Exit.fail(error))
              })
            ),
            Effect.ensuring(Effect.sync(() => r.disconnect(server)))
          )
        ),
      send: (_client, frame) => Effect.sync(() => void fork(post(frame)))
    } satisfies Transport.Protocol
  })
