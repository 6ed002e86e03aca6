/**
 * The client side of the legacy HTTP+SSE transport (2024-11-05): a GET of the SSE endpoint
 * announces, in an `endpoint` event, the URL messages are POSTed to; everything the server sends
 * comes as `message` events on that one stream. The stream's end ends the transport.
 *
 * - An `endpoint` on another origin is refused (the configured headers, authorization among
 *   them, would go there): the stream ends, and what waits for an endpoint fails with why.
 * - A POST that fails fails its request at once (`Receiver.fail`): `HttpError`, `ConnectionFailed`.
 * - An event larger than `maxMessageSize` ends the stream (`MessageTooLarge` for what waits).
 */
import { type JsonRpc, Transport, Wire } from "@effect-mcp/core"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as ClientError from "../ClientError.js"
import * as Exchange from "./exchange.js"

export interface Options {
  /** The SSE endpoint (`http://host/sse`). */
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  /** The largest event read from the stream, in bytes (default 16 MiB). */
  readonly maxMessageSize?: number
  /**
   * The deepest nesting of a message read from the server (default 128, `Wire.defaultMaxDepth`):
   * a deeper one is not JSON-RPC to us, so it is dropped and logged, never parsed further.
   */
  readonly maxDepth?: number
  /**
   * Why this transport is tried (a Streamable HTTP POST that was refused): said with the error
   * when the SSE endpoint cannot be opened either, so that neither failure hides the other.
   */
  readonly tried?: string
}

type Failure = ClientError.TransportFailure

/** The server is the protocol's one client. */
const server = 0

const idOf = (frame: JsonRpc.Frame): JsonRpc.RequestId | undefined =>
  !Array.isArray(frame) && "id" in frame && "method" in frame ? frame.id : undefined

/** The endpoint an `endpoint` event names, if it is on the stream's own origin. */
const endpointOf = (url: string, data: string): Exit.Exit<string, Failure> => {
  const target = URL.canParse(data, url) ? new URL(data, url) : undefined
  if (target === undefined) {
    return Exit.fail(
      new ClientError.ConnectionFailed({ url: url, reason: `the endpoint event is not a URL: ${data}` })
    )
  }
  if (target.origin !== new URL(url).origin) {
    return Exit.fail(
      new ClientError.ConnectionFailed({
        url: url,
        reason: `the server's endpoint is on another origin, ${target.origin}, where this client sends nothing`
      })
    )
  }
  return Exit.succeed(target.href)
}

export const make = (
  options: Options
): Effect.Effect<Transport.Protocol<Failure>, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const fork = Runtime.runFork(yield* Effect.runtime<never>())
    const limit = options.maxMessageSize ?? Exchange.defaultMaxMessageSize
    const decodeOptions = options.maxDepth === undefined ? undefined : { maxDepth: options.maxDepth }
    const endpoint = yield* Deferred.make<string, Failure>()
    /** Requests sent and not yet posted: failed with the stream's error if the endpoint never comes. */
    const waiting = new Set<JsonRpc.RequestId>()
    const receiver = yield* Deferred.make<Transport.Receiver<Failure>>()

    const stream = (r: Transport.Receiver<Failure>): Effect.Effect<void, Failure> =>
      Effect.flatMap(
        Effect.mapError(
          Exchange.execute(
            client,
            HttpClientRequest.get(options.url).pipe(
              HttpClientRequest.setHeaders({ ...options.headers, accept: "text/event-stream" })
            ),
            "initialize"
          ),
          (error) =>
            error._tag === "ConnectionFailed" && options.tried !== undefined
              ? new ClientError.ConnectionFailed({ ...error, reason: `${error.reason}, after ${options.tried}` })
              : error
        ),
        (response) => {
          if (response.status !== 200) {
            return Effect.flatMap(
              Effect.orElseSucceed(Exchange.readText(response, 4096, "initialize"), () => ""),
              (body) =>
                Effect.fail(
                  Exchange.httpError(
                    "initialize",
                    response,
                    body,
                    options.tried === undefined ? undefined : `after ${options.tried}`
                  )
                )
            )
          }
          return Exchange.readEvents(response, {
            limit,
            method: "initialize",
            onRetry: () => {},
            onEvent: (event) => {
              if (event.event === "endpoint") {
                const found = endpointOf(options.url, event.data)
                Deferred.unsafeDone(endpoint, found)
                return Exit.isFailure(found) ? found : Effect.void
              }
              if (event.event === "message" && event.data.trim().length > 0) {
                r.receive(server, Wire.decode(event.data, decodeOptions))
              }
              return Effect.void
            }
          })
        }
      )

    const post = (frame: JsonRpc.Frame) => {
      const id = idOf(frame)
      const method = !Array.isArray(frame) && "method" in frame ? frame.method : "a response"
      const forget = Effect.sync(() => id !== undefined && waiting.delete(id))
      const fail = (error: Failure) =>
        id === undefined
          ? Effect.logWarning(`effect-mcp client: ${error.message}`)
          : Effect.map(Deferred.await(receiver), (r) => r.fail(server, id, error))
      const sent = (url: string) =>
        Exchange.execute(
          client,
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders({ ...options.headers }),
            HttpClientRequest.bodyText(Wire.encode(frame), "application/json")
          ),
          method
        ).pipe(
          Effect.flatMap((response) =>
            response.status >= 200 && response.status < 300
              ? Effect.void
              : Effect.flatMap(
                Effect.orElseSucceed(Exchange.readText(response, 4096, method), () => ""),
                (body) => Effect.fail(Exchange.httpError(method, response, body))
              )
          ),
          Effect.catchAll(fail)
        )
      // No endpoint ever: the stream's end failed this request already (a repeat is ignored).
      return Effect.matchEffect(Effect.ensuring(Deferred.await(endpoint), forget), {
        onFailure: fail,
        onSuccess: sent
      })
    }

    return {
      run: (r) =>
        Effect.zipRight(
          Deferred.succeed(receiver, r),
          stream(r).pipe(
            // The endpoint never came (or came wrong): what waited for it fails with why.
            Effect.tapError((error) =>
              Effect.sync(() => {
                for (const id of waiting) r.fail(server, id, error)
                waiting.clear()
                Deferred.unsafeDone(endpoint, Exit.fail(error))
              })
            ),
            Effect.mapError((error) => new Transport.TransportError({ message: error.message, cause: error })),
            Effect.ensuring(Effect.sync(() => {
              // Ended, however, before its endpoint: what waits for one would wait forever.
              const never = new ClientError.ConnectionFailed({
                url: options.url,
                reason: "the event stream ended before it named the endpoint to post to"
              })
              for (const id of waiting) r.fail(server, id, never)
              waiting.clear()
              Deferred.unsafeDone(endpoint, Exit.fail(never))
              r.disconnect(server)
            }))
          )
        ),
      send: (_client, frame) =>
        Effect.sync(() => {
          // Known at once to be waiting: the stream's failure fails it before the connection ends.
          const id = idOf(frame)
          if (id !== undefined) waiting.add(id)
          fork(post(frame))
        })
    } satisfies Transport.Protocol<Failure>
  })
