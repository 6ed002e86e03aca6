/**
 * McpAuth's refusals, at the wire: a server that needs authorization the client cannot give fails
 * the request with a typed `AuthError` of its own (never a ConnectionFailed, never the 401 as a
 * JSON-RPC error), before anything is sent where it should not be.
 */
import { AuthorizationCode, ClientError, McpAuth, McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
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

/**
 * A resource server that is its own authorization server, on 127.0.0.1: every POST a 401 whose
 * challenge names `resourceMetadata` (default its own metadata URL), its metadata and the
 * authorization server's as `metadata` makes them (`origin` is its own), a registration endpoint
 * that registers anyone. What it was asked, by path.
 */
const hostileServer = (options: {
  readonly resourceMetadata?: (origin: string) => string
  readonly metadata?: (origin: string) => Record<string, unknown>
}) =>
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
            return json(200, { resource: `${origin}/mcp`, authorization_servers: [origin] })
          }
          if (request.url === "/.well-known/oauth-authorization-server") {
            return json(200, {
              issuer: origin,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              registration_endpoint: `${origin}/register`,
              response_types_supported: ["code"],
              code_challenge_methods_supported: ["S256"],
              ...options.metadata?.(origin)
            })
          }
          if (request.url === "/register") return json(201, { client_id: "registered" })
          if (request.url === "/mcp") {
            const metadata = options.resourceMetadata?.(origin) ?? `${origin}/.well-known/oauth-protected-resource/mcp`
            return json(401, { error: "invalid_token" }, {
              "www-authenticate": `Bearer resource_metadata="${metadata}"`
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

/**
 * A client of `url` whose HTTP requests are written down as they are attempted (`attempted`):
 * those to loopback hosts are sent, any other fails at once (this test has no network), so that
 * what matters is whether it was attempted at all. Its `AuthorizationCode` writes down where the
 * user would be sent (`sentTo`) and sends nobody. `hosts`: names sent to another address (as a
 * LAN host's name resolves to it), written down by name.
 */
const recordingClient = (url: string, auth: McpAuth.Options = {}, hosts: Readonly<Record<string, string>> = {}) => {
  const attempted: Array<string> = []
  const sentTo: Array<string> = []
  const recording = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.transform(client, (send, request) => {
        attempted.push(`${request.method} ${request.url}`)
        const target = new URL(request.url)
        const address = hosts[target.hostname]
        if (address !== undefined) {
          target.hostname = address
          return client.execute(HttpClientRequest.setUrl(request, target))
        }
        return target.hostname === "127.0.0.1" || target.hostname === "localhost"
          ? send
          : Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: "no network here" }))
      }))
  )
  const code = Layer.succeed(AuthorizationCode.AuthorizationCode, {
    redirectUri: "http://127.0.0.1:9/callback",
    acquire: (authorizationUrl) =>
      Effect.suspend(() => {
        sentTo.push(authorizationUrl.href)
        return Effect.fail(
          new ClientError.AuthorizationFailed({ step: "authorization", url: authorizationUrl.href, reason: "nobody" })
        )
      })
  })
  const error = Effect.flip(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake" }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url })),
        Layer.provide(McpAuth.layer({ clientName: "t", ...auth })),
        Layer.provide(recording),
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(code)
      )
    )
  )
  return { error, attempted, sentTo }
}

// Before: the authorization endpoint was handed to the user (printed; opened with `--open`) whatever its scheme and
// host; the registration endpoint and a challenge's resource_metadata were requested over plain HTTP to any host
// (only the token endpoint was held to https, by oauth4webapi, once the user had been and come back).
describe("McpAuth: every OAuth endpoint is https, or plain HTTP to a loopback host", () => {
  for (
    const endpoint of [
      "javascript:alert(document.cookie)//",
      "file:///etc/passwd",
      "data:text/html,<script>alert(1)</script>",
      "http://auth.example.test/authorize"
    ]
  ) {
    it.scopedLive(`an authorization_endpoint of ${endpoint.split(":")[0]}: (${endpoint}): nobody is sent there`, () =>
      Effect.gen(function*() {
        const { paths, url } = yield* hostileServer({ metadata: () => ({ authorization_endpoint: endpoint }) })
        const client = recordingClient(url)
        const error = yield* client.error
        assert.deepStrictEqual(client.sentTo, [])
        assert.instanceOf(error, ClientError.AuthorizationFailed)
        const failed = error as ClientError.AuthorizationFailed
        assert.strictEqual(failed.step, "authorization")
        assert.include(failed.reason, endpoint.startsWith("http:") ? "not on https" : "not an https URL")
        // Refused before registering with it.
        assert.notInclude(paths, "POST /register")
      }))
  }

  it.scopedLive("a registration_endpoint over plain HTTP to another host: never requested", () =>
    Effect.gen(function*() {
      const { url } = yield* hostileServer({
        metadata: () => ({ registration_endpoint: "http://register.example.test/register" })
      })
      const client = recordingClient(url)
      const error = yield* client.error
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.strictEqual((error as ClientError.AuthorizationFailed).step, "registration")
      assert.include((error as ClientError.AuthorizationFailed).reason, "not on https")
      assert.isUndefined(client.attempted.find((a) => a.includes("example.test")), client.attempted.join("\n"))
      assert.deepStrictEqual(client.sentTo, [])
    }))

  it.scopedLive("a challenge's resource_metadata over plain HTTP to another host: never requested", () =>
    Effect.gen(function*() {
      const { url } = yield* hostileServer({
        resourceMetadata: () => "http://metadata.example.test/.well-known/oauth-protected-resource/mcp"
      })
      const client = recordingClient(url)
      const error = yield* client.error
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.strictEqual((error as ClientError.AuthorizationFailed).step, "discovery")
      assert.include((error as ClientError.AuthorizationFailed).reason, "not on https")
      assert.isUndefined(client.attempted.find((a) => a.includes("example.test")), client.attempted.join("\n"))
    }))

  it.scopedLive("a token endpoint over plain HTTP to another host: refused before anything is registered or asked", () =>
    Effect.gen(function*() {
      const { paths, url } = yield* hostileServer({
        metadata: () => ({ token_endpoint: "http://token.example.test/token" })
      })
      const client = recordingClient(url)
      const error = yield* client.error
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.strictEqual((error as ClientError.AuthorizationFailed).step, "token")
      assert.notInclude(paths, "POST /register")
      assert.deepStrictEqual(client.sentTo, [])
      assert.isUndefined(client.attempted.find((a) => a.includes("example.test")))
    }))

  it.scopedLive("allowInsecure: plain HTTP to another host is followed; other schemes still never", () =>
    Effect.gen(function*() {
      const insecure = yield* hostileServer({
        metadata: () => ({ registration_endpoint: "http://register.example.test/register" })
      })
      const allowed = recordingClient(insecure.url, { allowInsecure: true })
      yield* allowed.error
      assert.include(allowed.attempted, "POST http://register.example.test/register")
      const scheme = yield* hostileServer({ metadata: () => ({ authorization_endpoint: "file:///etc/passwd" }) })
      const refused = recordingClient(scheme.url, { allowInsecure: true })
      const error = yield* refused.error
      assert.include((error as ClientError.AuthorizationFailed).reason, "not an https URL")
      assert.deepStrictEqual(refused.sentTo, [])
    }))
})

/**
 * An MCP server on a plain-HTTP host that is not a loopback host (a LAN host, `http://mcp.lan.test`,
 * reached on 127.0.0.1 through {@link recordingClient}'s `hosts`): every POST a 401 whose challenge
 * names `resourceMetadata` (default its own metadata URL, on its own origin), its metadata naming
 * `authorizationServer` (default a loopback one: this server's own port on 127.0.0.1), which
 * it serves too.
 */
const lanServer = (options: {
  readonly resourceMetadata?: (origin: string) => string
  readonly authorizationServer?: (origin: string, loopback: string) => string
}) =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.async<http.Server>((resume) => {
        const server = http.createServer((request, response) => {
          const port = (server.address() as net.AddressInfo).port
          const origin = `http://mcp.lan.test:${port}`
          const loopback = `http://127.0.0.1:${port}`
          request.resume()
          const json = (status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) => {
            response.writeHead(status, { "content-type": "application/json", ...headers })
            response.end(JSON.stringify(body))
          }
          const authorizationServer = options.authorizationServer?.(origin, loopback) ?? loopback
          if (request.url === "/.well-known/oauth-protected-resource/mcp") {
            return json(200, { resource: `${origin}/mcp`, authorization_servers: [authorizationServer] })
          }
          if (request.url === "/.well-known/oauth-authorization-server") {
            return json(200, {
              issuer: authorizationServer,
              authorization_endpoint: `${authorizationServer}/authorize`,
              token_endpoint: `${authorizationServer}/token`,
              registration_endpoint: `${authorizationServer}/register`,
              response_types_supported: ["code"],
              code_challenge_methods_supported: ["S256"]
            })
          }
          if (request.url === "/register") return json(201, { client_id: "registered" })
          if (request.url === "/mcp") {
            const metadata = options.resourceMetadata?.(origin) ?? `${origin}/.well-known/oauth-protected-resource/mcp`
            return json(401, { error: "invalid_token" }, {
              "www-authenticate": `Bearer resource_metadata="${metadata}"`
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
    const port = (server.address() as net.AddressInfo).port
    return { url: `http://mcp.lan.test:${port}/mcp`, origin: `http://mcp.lan.test:${port}`, port }
  })

// Before: the protected resource metadata of a plain-HTTP MCP server on a host that is not a loopback host was refused
// ("is not on https"), so such a server could not be authorized to at all without allowInsecure (and `mcp` had no
// such flag), although the bearer token is sent to that very origin anyway.
describe("McpAuth: a plain-HTTP MCP server's own protected resource metadata", () => {
  it.scopedLive("is read on the server's own origin, and the authorization goes on (a loopback authorization server)", () =>
    Effect.gen(function*() {
      const lan = yield* lanServer({})
      const client = recordingClient(lan.url, {}, { "mcp.lan.test": "127.0.0.1" })
      const error = yield* client.error
      // As far as the user, who is sent to the authorization server (and, here, comes back with nothing).
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.strictEqual((error as ClientError.AuthorizationFailed).step, "authorization", error.message)
      assert.strictEqual((error as ClientError.AuthorizationFailed).reason, "nobody")
      assert.include(client.attempted, `GET ${lan.origin}/.well-known/oauth-protected-resource/mcp`)
      assert.include(client.attempted, `POST http://127.0.0.1:${lan.port}/register`)
      assert.strictEqual(client.sentTo.length, 1)
      assert.isTrue(client.sentTo[0].startsWith(`http://127.0.0.1:${lan.port}/authorize?`), client.sentTo[0])
    }))

  it.scopedLive("on another plain-HTTP origin (a challenge naming it): never requested", () =>
    Effect.gen(function*() {
      const lan = yield* lanServer({
        resourceMetadata: () => "http://metadata.lan.test/.well-known/oauth-protected-resource/mcp"
      })
      const client = recordingClient(lan.url, {}, { "mcp.lan.test": "127.0.0.1" })
      const error = yield* client.error
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.strictEqual((error as ClientError.AuthorizationFailed).step, "discovery")
      assert.include((error as ClientError.AuthorizationFailed).reason, "not on https")
      assert.isUndefined(client.attempted.find((a) => a.includes("metadata.lan.test")), client.attempted.join("\n"))
    }))

  it.scopedLive("an authorization server on that same plain-HTTP origin: refused, unless allowInsecure", () =>
    Effect.gen(function*() {
      const lan = yield* lanServer({ authorizationServer: (origin) => origin })
      const refused = recordingClient(lan.url, {}, { "mcp.lan.test": "127.0.0.1" })
      const error = yield* refused.error
      assert.instanceOf(error, ClientError.AuthorizationFailed)
      assert.strictEqual((error as ClientError.AuthorizationFailed).step, "discovery")
      assert.strictEqual((error as ClientError.AuthorizationFailed).url, lan.origin)
      assert.include((error as ClientError.AuthorizationFailed).reason, "not on https")
      assert.notInclude(refused.attempted, `GET ${lan.origin}/.well-known/oauth-authorization-server`)
      assert.deepStrictEqual(refused.sentTo, [])

      const allowed = recordingClient(lan.url, { allowInsecure: true }, { "mcp.lan.test": "127.0.0.1" })
      yield* allowed.error
      assert.include(allowed.attempted, `POST ${lan.origin}/register`)
      assert.strictEqual(allowed.sentTo.length, 1)
      assert.isTrue(allowed.sentTo[0].startsWith(`${lan.origin}/authorize?`), allowed.sentTo[0])
    }))
})
