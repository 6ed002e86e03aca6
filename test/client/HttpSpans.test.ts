/**
 * Our client over Streamable HTTP with telemetry off (Effect's own tracer, nothing recorded):
 * @effect/platform's span per request is not made, so no trace context goes out with a request
 * (`traceparent`, `b3`): headers the server reads, for a span that is never recorded. The server
 * here is plain `node:http`, answering the handshake and a ping, and keeping every request's
 * headers.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as http from "node:http"
import type * as net from "node:net"

/** A handshake server on a free port, and the headers of every POST it took. */
const recording = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly seen: Array<http.IncomingHttpHeaders>; readonly server: http.Server }>(
    (resume) => {
      const seen: Array<http.IncomingHttpHeaders> = []
      const server = http.createServer((request, response) => {
        if (request.method !== "POST") return void response.writeHead(405).end()
        let body = ""
        request.on("data", (chunk) => (body += chunk))
        request.on("end", () => {
          seen.push(request.headers)
          const message = JSON.parse(body) as { readonly id?: number; readonly method: string }
          if (message.id === undefined) return void response.writeHead(202).end()
          const result = message.method === "initialize"
            ? { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "recording", version: "1.0.0" } }
            : {}
          response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
            .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as net.AddressInfo).port
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/mcp`, seen, server }))
      })
    }
  ),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("McpClient over Streamable HTTP, telemetry off", () => {
  it.scoped("sends no trace context (no span per request)", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* recording
      const client = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "t", version: "1.0.0" }, era: "handshake" }).pipe(
          Layer.provide(McpClientTransport.layerHttp({ url, legacyFallback: false })),
          Layer.provide(FetchHttpClient.layer)
        )
      ).pipe(Effect.map((context) => context.unsafeMap.get(McpClient.McpClient.key) as McpClient.Service))
      yield* client.ping
      assert.isAtLeast(seen.length, 3) // initialize, notifications/initialized, ping
      for (const headers of seen) {
        assert.isUndefined(headers["traceparent"])
        assert.isUndefined(headers["b3"])
      }
    }))
})
