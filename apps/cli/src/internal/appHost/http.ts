/**
 * The host's two HTTP servers (node:http on 127.0.0.1), their requests handled by Effects run with the
 * host's runtime.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Http from "node:http"
import type * as Net from "node:net"

/** A handler of one request: it answers `response`, whatever happens. */
export type Handler = (request: Http.IncomingMessage, response: Http.ServerResponse) => Effect.Effect<void>

/**
 * A node:http server listening on 127.0.0.1:`port`, closed with the scope; it answers nothing until
 * `handle` gives it its handler (what it serves names its own origin, known once it listens).
 */
export const listen = (port: number) =>
  Effect.acquireRelease(
    Effect.async<Http.Server, unknown>((resume) => {
      const server = Http.createServer()
      server.once("error", (cause) => resume(Effect.fail(cause)))
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/** `server`'s requests handled by `handler`, each a fiber of the scope's `FiberSet` (interrupted when it closes). */
export const handle = (server: Http.Server, handler: Handler) =>
  Effect.map(FiberSet.makeRuntime<never>(), (run) => {
    server.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
      run(handler(request, response))
    })
  })

/** `http://127.0.0.1:<port>` of a listening server. */
export const originOf = (server: Http.Server) => `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`

/** The path of a request, without its query. */
export const pathOf = (request: Http.IncomingMessage) => (request.url ?? "/").split("?")[0]

/** An answer, never cached, its type never sniffed. */
export const send = (
  response: Http.ServerResponse,
  status: number,
  type: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {}
) =>
  Effect.sync(() => {
    response.writeHead(status, {
      "content-type": type,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...headers
    })
    response.end(body)
  })

export const json = (response: Http.ServerResponse, status: number, value: unknown) =>
  send(response, status, "application/json", JSON.stringify(value))

/**
 * A request's body, at most `max` bytes (else `undefined`, once the sender is done: the rest is read and
 * dropped, up to 16 times the bound, past which the connection is cut).
 */
export const readBody = (request: Http.IncomingMessage, max: number) =>
  Effect.async<string | undefined>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > 16 * max) request.destroy()
      else if (size <= max) chunks.push(chunk)
    })
    request.on("end", () => resume(Effect.succeed(size > max ? undefined : Buffer.concat(chunks).toString("utf8"))))
    // Cut (or failed) before its end: nothing to answer with (the first of these resumes wins).
    request.on("error", () => resume(Effect.succeed(undefined)))
    request.on("close", () => resume(Effect.succeed(undefined)))
  })

/** An error's message (or the value itself), for one line. */
export const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error
    ? String((error as { readonly message: unknown }).message)
    : String(error)
