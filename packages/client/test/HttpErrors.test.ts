/**
 * Our client against HTTP servers that are not MCP servers, or refuse it: the failure says what
 * the server answered, at once (not a timeout), and the legacy SSE fallback does not hide the
 * first refusal.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as http from "node:http"
import type * as net from "node:net"

/** A plain HTTP server answering every request with `status`, `type` and `body`, until the scope closes. */
const plainServer = (status: number, type: string, body: string) =>
  Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((_request, response) => {
        response.writeHead(status, { "content-type": type })
        response.end(body)
      })
      server.listen(0, "127.0.0.1", () => {
        resume(Effect.succeed(server))
      })
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`))

const connect = (url: string) =>
  Layer.build(
    // A probe that waited for its timeout (an hour) instead of the answer would never end: "at once" without a clock.
    McpClient.layer({ clientInfo: { name: "t", version: "1" }, probeTimeout: "1 hour" }).pipe(
      Layer.provide(McpClientTransport.layerHttp({ url }).pipe(Layer.provide(FetchHttpClient.layer)))
    )
  )

describe("McpClient over HTTP against a server that refuses it", () => {
  it.scopedLive("a plain 404: both the POST's and the legacy GET's answers, at once", () =>
    Effect.gen(function*() {
      const url = yield* plainServer(404, "text/html", "<h1>Not Found</h1>")
      const error = yield* Effect.flip(connect(url))
      assert.strictEqual(
        error.message,
        `initialize: GET ${url} answered HTTP 404 (after POST ${url} answered HTTP 404): <h1>Not Found</h1>`
      )
    }))

  it.scopedLive("a JSON body that is not JSON-RPC (an OAuth 401): the status and the body, at once", () =>
    Effect.gen(function*() {
      const url = yield* plainServer(401, "application/json", `{"error":"invalid_token"}`)
      const error = yield* Effect.flip(connect(url))
      // A refusal to authorize ends the probe: no era would do better.
      assert.strictEqual(error.message, `server/discover: POST ${url} answered HTTP 401: {"error":"invalid_token"}`)
    }))
})
