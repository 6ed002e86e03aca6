/**
 * The client closing its handshake session over HTTP (a `DELETE` with its session id) against a
 * server that takes the `DELETE` and never answers it (issue 35, item 25: `mcp proxy` and every
 * `mcp` command against such a server never exited). The close is awaited for at most 20
 * seconds: a guard against a hang, not a measure (the client gives the `DELETE` 2 seconds).
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

/** A handshake server that answers everything but `DELETE`, which it reads and leaves unanswered. */
const silentOnDelete = Effect.gen(function*() {
  const deletes: Array<string | undefined> = []
  const server = yield* Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          if (request.method === "DELETE") return void deletes.push(request.headers["mcp-session-id"] as string)
          if (request.method === "GET") return void response.writeHead(405).end()
          const message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          if (message.id === undefined) return void response.writeHead(202).end()
          response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
          response.end(JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            result: message.method === "initialize"
              ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } }
              : { tools: [] }
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
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`, deletes }
})

describe("the client closing over HTTP", () => {
  it.scopedLive("a server that never answers the session's DELETE: the client closes all the same", () =>
    Effect.gen(function*() {
      const { deletes, url } = yield* silentOnDelete
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake" }).pipe(
          Layer.provide(McpClientTransport.layerHttp({ url })),
          Layer.provide(FetchHttpClient.layer)
        ),
        scope
      )
      assert.deepStrictEqual(yield* Context.get(context, McpClient.McpClient).listTools, [])
      // Closed in a fiber of its own (a finalizer cannot be interrupted), awaited at most 20 s.
      const closing = yield* Effect.forkDaemon(Scope.close(scope, Exit.void))
      const closed = yield* Effect.timeoutOption(Fiber.await(closing), "20 seconds")
      assert.isTrue(Option.isSome(closed), "the client did not close")
      assert.deepStrictEqual(deletes, ["s1"])
    }))
})
