/**
 * The client letting go over HTTP, in a handshake session, of what a server no longer answers
 * (issue 35, item 25: `mcp proxy` and every `mcp` command against such a server did not exit, or
 * a minute later): the session's `DELETE` at close, and the `resources/unsubscribe` of a
 * subscription ended. Each is awaited for at most 20 seconds: a guard against a hang, not a
 * measure (the client gives each 2 seconds).
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as http from "node:http"
import type * as net from "node:net"

/**
 * A handshake server that answers everything but `DELETE` and `resources/unsubscribe`, which it
 * reads and leaves unanswered (kept in `unanswered`); the session's GET stream is held open.
 */
const silentOnLettingGo = Effect.gen(function*() {
  const unanswered: Array<string> = []
  const server = yield* Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          if (request.method === "DELETE") return void unanswered.push(`DELETE ${request.headers["mcp-session-id"]}`)
          // The session's own stream, open (and silent): what the server raises could arrive.
          if (request.method === "GET") {
            return void response.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders()
          }
          const message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          if (message.id === undefined) return void response.writeHead(202).end()
          if (message.method === "resources/unsubscribe") {
            return void unanswered.push(`unsubscribe ${message.params.uri}`)
          }
          response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
          response.end(JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            result: message.method === "initialize"
              ? {
                protocolVersion: "2025-11-25",
                capabilities: { tools: {}, resources: { subscribe: true } },
                serverInfo: { name: "s", version: "1" }
              }
              : message.method === "tools/list"
              ? { tools: [] }
              : {}
          }))
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`, unanswered }
})

/** The client of `url`, in a scope of its own. */
const clientOf = (url: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake" }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url })),
        Layer.provide(FetchHttpClient.layer)
      ),
      scope
    )
    return { client: Context.get(context, McpClient.McpClient), scope }
  })

/** Closes `scope` in a fiber of its own (a finalizer cannot be interrupted), awaited at most 20 s: did it? */
const closes = (scope: Scope.CloseableScope) =>
  Effect.gen(function*() {
    const closing = yield* Effect.forkDaemon(Scope.close(scope, Exit.void))
    return Option.isSome(yield* Effect.timeoutOption(Fiber.await(closing), "20 seconds"))
  })

describe("the client letting go over HTTP", () => {
  it.scopedLive("a server that never answers the session's DELETE: the client closes all the same", () =>
    Effect.gen(function*() {
      const { unanswered, url } = yield* silentOnLettingGo
      const { client, scope } = yield* clientOf(url)
      assert.deepStrictEqual(yield* client.listTools, [])
      assert.isTrue(yield* closes(scope), "the client did not close")
      assert.deepStrictEqual(unanswered, ["DELETE s1"])
    }))

  it.scopedLive("a server that never answers resources/unsubscribe: the subscription ends all the same", () =>
    Effect.gen(function*() {
      const { unanswered, url } = yield* silentOnLettingGo
      const { client } = yield* clientOf(url)
      const scope = yield* Scope.make()
      const subscription = yield* Scope.extend(client.subscribe({ resourceSubscriptions: ["test://a"] }), scope)
      assert.deepStrictEqual(subscription.acknowledged.resourceSubscriptions, ["test://a"])
      // Before: a minute, the request's timeout.
      assert.isTrue(yield* closes(scope), "the subscription did not end")
      assert.deepStrictEqual(unanswered, ["unsubscribe test://a"])
    }))
})
