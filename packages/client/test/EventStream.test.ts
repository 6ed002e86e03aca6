/**
 * The session's own stream (the standalone GET) of the handshake era over Streamable HTTP, against
 * servers that do not simply offer it or answer 405, at the wire: a server of our own writing reads
 * the JSON-RPC text and counts the GETs.
 *
 * - A server that gave no session id is not sent that GET until a subscription asks; one that
 *   answers it 409 (the SDK v1's stateless example with a shared transport, its one stream taken)
 *   refuses the subscription at once, `NoEventStream` naming the 409.
 * - A server that never answers the GET (no headers, ever): the subscription waits
 *   `eventStreamTimeout` (10 seconds), then fails with `NoEventStream`.
 */
import { ClientError, McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as http from "node:http"
import type * as net from "node:net"

interface Seen {
  /** Each GET: whether a subscription had been asked for when it came, and its session id. */
  readonly gets: Array<{ readonly subscribing: boolean; readonly session: string | undefined }>
  subscribing: boolean
}

/**
 * A handshake-era server: `initialize` answered in JSON (with `sessionId` when given), every other
 * request `{}`, a notification 202; a GET answered `409`, or never (`hang`). `gotGet` is done at the
 * first GET.
 */
const server = (options: { readonly sessionId?: string; readonly get: "409" | "hang" }) =>
  Effect.gen(function*() {
    const seen: Seen = { gets: [], subscribing: false }
    const gotGet = yield* Deferred.make<void>()
    const httpServer = yield* Effect.acquireRelease(
      Effect.async<http.Server>((resume) => {
        const created = http.createServer((request, response) => {
          if (request.method === "GET") {
            const session = request.headers["mcp-session-id"]
            seen.gets.push({
              subscribing: seen.subscribing,
              session: typeof session === "string" ? session : undefined
            })
            Deferred.unsafeDone(gotGet, Exit.void)
            if (options.get === "hang") return
            response.writeHead(409, { "content-type": "application/json" })
            response.end(
              JSON.stringify({
                jsonrpc: "2.0",
                error: { code: -32000, message: "Conflict: Only one SSE stream is allowed per session" },
                id: null
              })
            )
            return
          }
          if (request.method !== "POST") {
            response.writeHead(200).end()
            return
          }
          let body = ""
          request.on("data", (chunk) => (body += chunk))
          request.on("end", () => {
            const message = JSON.parse(body) as {
              readonly id?: number | string
              readonly method: string
              readonly params?: { readonly protocolVersion?: string }
            }
            if (message.id === undefined) {
              response.writeHead(202).end()
              return
            }
            const result = message.method === "initialize"
              ? {
                protocolVersion: message.params?.protocolVersion,
                capabilities: { tools: { listChanged: true } },
                serverInfo: { name: "plain", version: "1.0.0" }
              }
              : {}
            response.writeHead(200, {
              "content-type": "application/json",
              ...(message.method === "initialize" && options.sessionId !== undefined
                ? { "mcp-session-id": options.sessionId }
                : {})
            })
            response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
          })
        })
        created.listen(0, "127.0.0.1", () => resume(Effect.succeed(created)))
      }),
      (created) =>
        Effect.async<void>((resume) => {
          created.closeAllConnections()
          created.close(() => resume(Effect.void))
        })
    )
    const url = `http://127.0.0.1:${(httpServer.address() as net.AddressInfo).port}/mcp`
    return { url, seen, gotGet: Deferred.await(gotGet) }
  })

const connect = (url: string) =>
  Layer.build(
    McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake" }).pipe(
      Layer.provide(McpClientTransport.layerHttp({ url }).pipe(Layer.provide(FetchHttpClient.layer)))
    )
  ).pipe(Effect.map(Context.get(McpClient.McpClient)))

describe("McpClient over HTTP: the session's own stream", () => {
  // Before: the GET was sent at initialize, without a session id, and a 409 was tried six times, a second apart,
  // before the subscription was told (about 6 seconds; here, on the test clock, never).
  it.scopedLive("no session id: no GET until a subscription; a 409 refuses it at once, naming the 409", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* server({ get: "409" })
      const client = yield* connect(url)
      // A round trip after the session is initialized: a GET sent with it would have come by now.
      yield* client.ping
      seen.subscribing = true
      const error = yield* Effect.flip(Effect.scoped(client.subscribe({ toolsListChanged: true })))
      assert.instanceOf(error, ClientError.NoEventStream)
      assert.strictEqual(
        error.message,
        "The server has no stream for notifications outside a request (its GET answered HTTP 409): " +
          "nothing it raises could arrive"
      )
      // One GET, asked for by the subscription.
      assert.deepStrictEqual(seen.gets, [{ subscribing: true, session: undefined }])
    }))

  // Before: the subscription waited on the GET's first answer, which never came: forever.
  it.scoped("a GET never answered: the subscription fails with NoEventStream once eventStreamTimeout has passed", () =>
    Effect.gen(function*() {
      const { gotGet, seen, url } = yield* server({ sessionId: "s-1", get: "hang" })
      const client = yield* connect(url)
      // With a session id, the GET is sent once the session is initialized.
      yield* gotGet
      const subscribing = yield* Effect.fork(Effect.scoped(client.subscribe({ toolsListChanged: true })))
      // Time moves a second at a time (the subscription's timer is set when it starts waiting) until it is done.
      let moved = 0
      while (subscribing.unsafePoll() === null && moved < 30) {
        yield* TestClock.adjust("1 second")
        yield* Effect.yieldNow()
        moved++
      }
      assert.isNotNull(subscribing.unsafePoll(), `the subscription still waited after ${moved} seconds`)
      const error = yield* Effect.flip(Fiber.join(subscribing))
      assert.instanceOf(error, ClientError.NoEventStream)
      assert.strictEqual(
        error.message,
        "The server has no stream for notifications outside a request (its GET had no answer within 10s): " +
          "nothing it raises could arrive"
      )
      assert.isAtLeast(moved, 10)
      assert.deepStrictEqual(seen.gets, [{ subscribing: false, session: "s-1" }])
    }))
})
