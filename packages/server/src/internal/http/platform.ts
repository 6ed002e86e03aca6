/**
 * The @effect/platform side of the MCP HTTP handler: exchanges from `HttpServerRequest`s, and
 * the routes of an `HttpLayerRouter`. Loaded only when a router mounts the endpoints, so that
 * serving stdio (or `node:http` directly) never loads @effect/platform's HTTP modules.
 */
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import type { McpServer } from "../../McpServer.js"
import type { Exchange } from "./exchange.js"
import type { Reply } from "./front.js"
import type { Handler, Options } from "./handler.js"
import * as internal from "./handler.js"

const encoder = new TextEncoder()

const toResponse = (reply: Reply): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...headers } = reply.headers
  return reply.body === undefined
    ? HttpServerResponse.empty({ status: reply.status, headers })
    : HttpServerResponse.text(reply.body, {
      status: reply.status,
      headers,
      ...(contentType !== undefined ? { contentType } : {})
    })
}

/** An exchange from an @effect/platform request, answered through `resume`. */
const fromPlatform = (
  request: HttpServerRequest.HttpServerRequest,
  runtime: Runtime.Runtime<never>,
  resume: (effect: Effect.Effect<HttpServerResponse.HttpServerResponse>) => void,
  closed: Array<() => void>
): Exchange => {
  const url = request.url
  const q = url.indexOf("?")
  return {
    method: request.method,
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? "" : url.slice(q + 1),
    header: (name) => request.headers[name],
    body: (maxBytes, done) => {
      const length = request.headers["content-length"]
      if (length !== undefined && Number(length) > maxBytes) return done({ _tag: "TooLarge" })
      // Counted while reading, and the excess drained: the platform's own limit would destroy the
      // connection and the client would never see the 413.
      let size = 0
      const chunks: Array<Uint8Array> = []
      Runtime.runFork(runtime)(
        request.stream.pipe(
          Stream.runForEach((chunk) =>
            Effect.sync(() => {
              size += chunk.length
              if (size <= maxBytes) chunks.push(chunk)
            })
          ),
          Effect.match({
            onFailure: () => done({ _tag: "Failed" }),
            onSuccess: () => {
              if (size > maxBytes) return done({ _tag: "TooLarge" })
              const bytes = new Uint8Array(size)
              let at = 0
              for (const chunk of chunks) {
                bytes.set(chunk, at)
                at += chunk.length
              }
              done({ _tag: "Text", text: new TextDecoder().decode(bytes) })
            }
          })
        )
      )
    },
    reply: (reply) => resume(Effect.succeed(toResponse(reply))),
    stream: (headers) => {
      const mailbox = Effect.runSync(Mailbox.make<string>())
      let ended = false
      const { "content-type": contentType, ...rest } = headers
      resume(Effect.succeed(HttpServerResponse.stream(
        Mailbox.toStream(mailbox).pipe(
          Stream.map((text) => encoder.encode(text)),
          Stream.ensuring(Effect.sync(() => {
            if (!ended) { for (const listener of closed) listener() }
            ended = true
          }))
        ),
        { headers: rest, ...(contentType !== undefined ? { contentType } : {}) }
      )))
      return {
        write: (text) => {
          if (!ended) mailbox.unsafeOffer(text)
        },
        end: () => {
          if (ended) return
          ended = true
          mailbox.unsafeDone(Exit.void)
        }
      }
    },
    onClose: (listener) => {
      closed.push(listener)
    }
  }
}

/** The handler as an @effect/platform route handler. */
export const toHttpApp = (
  handler: Handler
): Effect.Effect<
  (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse>
> =>
  Effect.map(
    Effect.runtime<never>(),
    (runtime) => (request) =>
      Effect.async<HttpServerResponse.HttpServerResponse>((resume) => {
        const closed: Array<() => void> = []
        let answered = false
        handler.handle(fromPlatform(request, runtime, (effect) => {
          answered = true
          resume(effect)
        }, closed))
        // Interrupted before the response: the client went away.
        return Effect.sync(() => {
          if (!answered) { for (const listener of closed) listener() }
        })
      })
  )

/** The MCP endpoints as routes of an `HttpLayerRouter`, every method. */
export const layer = (options: Options): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | McpServer> =>
  HttpLayerRouter.addAll(Effect.gen(function*() {
    const handler = yield* internal.make(options)
    const app = yield* toHttpApp(handler)
    return handler.paths.map((path) => HttpLayerRouter.route("*", path as `/${string}`, app))
  }))
