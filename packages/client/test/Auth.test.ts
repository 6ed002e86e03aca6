/**
 * McpAuth's refusals, at the wire: a server that needs authorization the client cannot give fails
 * the request with a typed `AuthError` of its own (never a ConnectionFailed, never the 401 as a
 * JSON-RPC error), before anything is sent where it should not be.
 */
import { AuthorizationCode, ClientError, McpAuth, McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as http from "node:http"
import type * as net from "node:net"

/**
 * A resource server on 127.0.0.1 whose every POST is a 401 pointing at its metadata, which names
 * `authorizationServer` (a function of its own origin); it serves authorization server metadata
 * for its own origin too. What it was asked, by path.
 */
const protectedServer = (authorizationServer: (origin: string) => string, pkce = true) =>
  Effect.gen(function*() {
    const paths: Array<string> = []
    const server = yield* Effect.acquireRelease(
      Effect.async<http.Server>((resume) => {
        const server = http.createServer((request, response) => {
          const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
          paths.push(`${request.method} ${request.url}`)
          request.resume()
          const json = (status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) => {
            response.writeHead(status, { "content-type": "application/json", ...headers })
            response.end(JSON.stringify(body))
          }
          if (request.url === "/.well-known/oauth-protected-resource/mcp") {
            return json(200, { resource: `${origin}/mcp`, authorization_servers: [authorizationServer(origin)] })
          }
          if (request.url === "/.well-known/oauth-authorization-server") {
            return json(200, {
              issuer: origin,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              registration_endpoint: `${origin}/register`,
              response_types_supported: ["code"],
              ...(pkce ? { code_challenge_methods_supported: ["S256"] } : {})
            })
          }
          if (request.url === "/mcp") {
            return json(401, { error: "invalid_token" }, {
              "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`
            })
          }
          json(404, {})
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`, paths }
  })

const connect = (url: string, http: Layer.Layer<AuthorizationCode.AuthorizationCode> | undefined = undefined) =>
  Effect.flip(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake" }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url })),
        Layer.provide(McpAuth.layer({ clientName: "t" })),
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(http ?? Layer.empty)
      )
    ).pipe(Effect.map((context) => Context.get(context, McpClient.McpClient)))
  )

describe("McpAuth refuses, with a typed error", () => {
  it.scopedLive("an authorization server on plain HTTP (not loopback): refused before it is asked anything", () =>
    Effect.gen(function*() {
      const { paths, url } = yield* protectedServer(() => "http://auth.example.test")
      const error = yield* connect(url, AuthorizationCode.layerFollowRedirect("http://127.0.0.1:9/callback"))
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      const failed = error as ClientError.AuthorizationFailed
      assert.strictEqual(failed.step, "discovery")
      assert.include(failed.message, "https")
      // Its metadata was read; nothing went to the authorization server, nothing was registered.
      assert.deepStrictEqual(paths, ["POST /mcp", "GET /.well-known/oauth-protected-resource/mcp"])
    }))

  it.scopedLive("metadata without code_challenge_methods_supported (no PKCE): refused, nothing registered or asked", () =>
    Effect.gen(function*() {
      const { paths, url } = yield* protectedServer((origin) => origin, false)
      const error = yield* connect(url, AuthorizationCode.layerFollowRedirect("http://127.0.0.1:9/callback"))
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.include((error as ClientError.AuthorizationFailed).message, "S256")
      assert.notInclude(paths, "POST /register")
      assert.isUndefined(paths.find((p) => p.startsWith("GET /authorize")))
    }))

  it.scopedLive("no AuthorizationCode to send a user with: a configuration error saying so, nothing registered", () =>
    Effect.gen(function*() {
      const { paths, url } = yield* protectedServer((origin) => origin)
      const error = yield* connect(url)
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      const failed = error as ClientError.AuthorizationFailed
      assert.strictEqual(failed.step, "configuration")
      assert.include(failed.message, "AuthorizationCode")
      assert.notInclude(paths, "POST /register")
    }))
})
