/**
 * `McpAuth` against a real authorization server (oidc-provider) and a resource server that
 * verifies its JWT access tokens, in front of an effect-mcp server (see ./support.ts): our client,
 * over `McpClientTransport.layerHttp` on `FetchHttpClient`, with `NodeOAuth.layerLoopback` and a
 * headless browser that signs in and consents. Dynamic registration, PKCE, `resource`, the RFC
 * 9207 `iss`, refresh (before expiry and after a 401), one authorization for requests at once, and
 * metadata naming another resource refused; and the legacy HTTP+SSE transport (2024-11-05), over
 * `McpClientTransport.layerSse`.
 */
import { ClientError, McpAuth, McpClient, McpClientTransport } from "@effect-mcp/client"
import { type NodeMcpServer, NodeOAuth } from "@effect-mcp/platform-node"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as Auth from "./support.js"

/** The authorized HTTP client: McpAuth over fetch, the code through the loopback listener and `browser`. */
const authorized = (
  onUrl: (url: string) => Effect.Effect<void>,
  options: McpAuth.Options = {}
): Layer.Layer<HttpClient.HttpClient, NodeMcpServer.ListenError> =>
  McpAuth.layer({ clientName: "oauth-test", ...options }).pipe(
    Layer.provide(NodeOAuth.layerLoopback({ onUrl, timeout: "20 seconds" })),
    Layer.provide(FetchHttpClient.layer)
  )

/** A client in `era` over `transport` on `http`, for the scope. */
const connectOver = <E>(
  transport: Layer.Layer<McpClientTransport.McpClientTransport, never, HttpClient.HttpClient>,
  era: "handshake" | "stateless",
  http: Layer.Layer<HttpClient.HttpClient, E>
) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "oauth-test", version: "1.0.0" }, era }).pipe(
        Layer.provide(transport),
        Layer.provide(http)
      )
    ),
    (context) => Effect.runSync(Effect.provide(McpClient.McpClient, context))
  )

/** A client of the MCP endpoint `url` in `era` over `http`, for the scope. */
const connect = <E>(url: string, era: "handshake" | "stateless", http: Layer.Layer<HttpClient.HttpClient, E>) =>
  connectOver(McpClientTransport.layerHttp({ url }), era, http)

/** A client of the legacy SSE endpoint `url` (2024-11-05) over `http`, for the scope. */
const connectSse = <E>(url: string, http: Layer.Layer<HttpClient.HttpClient, E>) =>
  connectOver(McpClientTransport.layerSse({ url }), "handshake", http)

/** What the resource server answers a request of ours: its status and its challenge. */
const challengeOf = (url: string, method: "GET" | "POST", authorization?: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method,
      headers: {
        accept: method === "GET" ? "text/event-stream" : "application/json, text/event-stream",
        ...(authorization === undefined ? {} : { authorization }),
        ...(method === "POST" ? { "content-type": "application/json" } : {})
      },
      ...(method === "POST" ? { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) } : {})
    })
    await response.text()
    return { status: response.status, challenge: response.headers.get("www-authenticate") }
  })

const whoami = (client: McpClient.Service) =>
  Effect.map(client.callTool("whoami"), (result) => {
    assert.deepStrictEqual(result.content, [{ type: "text", text: Auth.whoamiAnswer }])
  })

/** The access tokens the resource server took: all for it, from the issuer, for the user, with the scope. */
const assertTokens = (fixture: Auth.Fixture) => {
  assert.isAbove(fixture.seen.tokens.length, 0)
  for (const token of fixture.seen.tokens) {
    assert.strictEqual(token.aud, fixture.resource)
    assert.strictEqual(token.iss, fixture.issuer)
    assert.strictEqual(token.sub, "ada")
    assert.include(String(token.scope).split(" "), Auth.scope)
  }
  assert.deepStrictEqual(fixture.seen.errors, [])
}

/**
 * The code grant gave a refresh token: `offline_access` was asked for and granted. (oidc-provider,
 * as OpenID Connect Core §11 has it, drops `offline_access` from a request without
 * `prompt=consent`.)
 */
const assertRefreshable = (fixture: Auth.Fixture) =>
  assert.strictEqual(
    fixture.seen.refreshTokens,
    1,
    "no refresh token was issued: offline_access was dropped (an OpenID provider keeps it only with prompt=consent)"
  )

/**
 * The test's clock set to the wall clock's time: the tokens are stamped on the wall clock by the
 * authorization server, and read on this `TestClock` by the client and the resource server.
 */
const onWallTime = TestClock.setTime(Date.now())

/**
 * Past the expiry of the access token the resource server last saw, on the `TestClock` (the
 * client's `McpAuth` and the resource server read it; the authorization server, the wall clock).
 */
const pastExpiry = (fixture: Auth.Fixture) => TestClock.setTime(fixture.seen.tokens.at(-1)!.exp! * 1000 + 1000)

// Authorization is the client's HTTP, the same on every Node: run where CI runs the suite first (Node
// 20), so that CI's other passes stay within its time.
describe.runIf(process.versions.node.startsWith("20."))("McpAuth against oidc-provider", () => {
  for (const era of ["handshake", "stateless"] as const) {
    it.scopedLive(
      `${era}: a 401 without McpAuth; with it, registration, PKCE, resource, iss, and the call`,
      () =>
        Effect.gen(function*() {
          const fixture = yield* Auth.start()

          // Without McpAuth: the server's challenge, as an HttpError.
          const refused = yield* Effect.flip(connect(fixture.url, era, FetchHttpClient.layer))
          if (refused._tag !== "HttpError") return assert.fail(`expected an HttpError, got ${refused._tag}`)
          assert.strictEqual(refused.status, 401)
          assert.strictEqual(refused.challenges[0]?.params.resource_metadata, fixture.metadataUrl)

          const browser = Auth.makeBrowser()
          const client = yield* connect(fixture.url, era, authorized(browser.onUrl))
          yield* whoami(client)
          yield* whoami(client)

          // One authorization, as the spec has it.
          assert.strictEqual(browser.opened.length, 1)
          const asked = new URL(browser.opened[0]).searchParams
          assert.strictEqual(asked.get("response_type"), "code")
          assert.strictEqual(asked.get("code_challenge_method"), "S256")
          assert.match(asked.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/)
          assert.strictEqual(asked.get("resource"), fixture.resource)
          assert.sameMembers((asked.get("scope") ?? "").split(" "), [Auth.scope, "offline_access"])
          assert.match(asked.get("redirect_uri") ?? "", /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
          assert.isNotNull(asked.get("state"))
          // The redirect back carried the code and the issuer (RFC 9207).
          assert.strictEqual(browser.delivered.length, 1)
          const back = new URL(browser.delivered[0]).searchParams
          assert.isNotNull(back.get("code"))
          assert.strictEqual(back.get("iss"), fixture.issuer)
          assert.strictEqual(back.get("state"), asked.get("state"))

          assert.strictEqual(fixture.seen.registrations, 1)
          assert.strictEqual(fixture.seen.authorizations, 1)
          assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1 })
          assert.strictEqual(fixture.seen.refused.withBadToken, 0)
          assertTokens(fixture)
        }),
      60_000
    )
  }

  it.scopedLive(
    "legacy HTTP+SSE: the same 401 on its two endpoints; with McpAuth, one authorization, the token on the GET and every POST",
    () =>
      Effect.gen(function*() {
        const fixture = yield* Auth.start()

        // Without a token, or with a bad one: the legacy endpoints challenge as the MCP endpoint does.
        for (const authorization of [undefined, "Bearer not-a-token"]) {
          const expected = yield* challengeOf(fixture.url, "POST", authorization)
          assert.strictEqual(expected.status, 401)
          assert.include(expected.challenge ?? "", `resource_metadata="${fixture.metadataUrl}"`)
          assert.deepStrictEqual(yield* challengeOf(fixture.sseUrl, "GET", authorization), expected)
          assert.deepStrictEqual(
            yield* challengeOf(`${fixture.messagesUrl}?sessionId=any`, "POST", authorization),
            expected
          )
        }
        assert.deepStrictEqual(fixture.seen.refused, { withoutToken: 3, withBadToken: 3 })

        // Without McpAuth: the challenge to the GET of the stream, as an HttpError.
        const refused = yield* Effect.flip(connectSse(fixture.sseUrl, FetchHttpClient.layer))
        if (refused._tag !== "HttpError") return assert.fail(`expected an HttpError, got ${refused._tag}`)
        assert.strictEqual(refused.status, 401)
        assert.strictEqual(refused.challenges[0]?.params.resource_metadata, fixture.metadataUrl)
        assert.deepStrictEqual(fixture.seen.refused, { withoutToken: 4, withBadToken: 3 })
        assert.deepStrictEqual(fixture.seen.served, [])

        const browser = Auth.makeBrowser()
        const client = yield* connectSse(fixture.sseUrl, authorized(browser.onUrl))
        yield* whoami(client)
        yield* whoami(client)

        // One authorization, for the resource covering both endpoints; only the first GET refused.
        assert.strictEqual(browser.opened.length, 1)
        assert.strictEqual(new URL(browser.opened[0]).searchParams.get("resource"), fixture.resource)
        assert.strictEqual(fixture.seen.registrations, 1)
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1 })
        assert.deepStrictEqual(fixture.seen.refused, { withoutToken: 5, withBadToken: 3 })
        // The token on the GET of the stream, then on every POST: initialize, initialized, two calls.
        const messages = new URL(fixture.messagesUrl).pathname
        assert.deepStrictEqual(fixture.seen.served, [
          { method: "GET", path: new URL(fixture.sseUrl).pathname, audience: fixture.resource },
          ...Array.from({ length: 4 }, () => ({ method: "POST", path: messages, audience: fixture.resource }))
        ])
        assertTokens(fixture)
      }),
    60_000
  )

  it.scoped(
    "refresh before expiry: after the token expired, 5 calls at once, one refresh, no new authorization",
    () =>
      Effect.gen(function*() {
        yield* onWallTime
        const fixture = yield* Auth.start({ accessTokenTtl: 60, refreshedTokenTtl: 300 })
        const browser = Auth.makeBrowser()
        // No margin: the token is refreshed once it has expired, before it is sent.
        const client = yield* connect(fixture.url, "handshake", authorized(browser.onUrl, { refreshMargin: 0 }))
        yield* whoami(client)
        assertRefreshable(fixture)
        const first = fixture.seen.tokens.at(-1)!
        yield* pastExpiry(fixture)
        yield* Effect.all(Array.from({ length: 5 }, () => whoami(client)), { concurrency: "unbounded" })

        // Refreshed before it was sent: the resource server never saw the expired token.
        assert.strictEqual(fixture.seen.refused.withBadToken, 0)
        assert.strictEqual(browser.opened.length, 1)
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1, refresh_token: 1 })
        assert.notStrictEqual(fixture.seen.tokens.at(-1)!.jti, first.jti)
        assertTokens(fixture)
      }),
    60_000
  )

  it.scoped(
    "refresh after a 401: an expired token refused, 5 calls at once, one refresh, no new authorization",
    () =>
      Effect.gen(function*() {
        yield* onWallTime
        const fixture = yield* Auth.start({ accessTokenTtl: 60, refreshedTokenTtl: 300 })
        const browser = Auth.makeBrowser()
        // A margin that never refreshes early: the expired token is sent, and refused.
        const client = yield* connect(
          fixture.url,
          "stateless",
          authorized(browser.onUrl, { refreshMargin: -3_600_000 })
        )
        yield* whoami(client)
        assertRefreshable(fixture)
        const first = fixture.seen.tokens.at(-1)!
        yield* pastExpiry(fixture)
        yield* Effect.all(Array.from({ length: 5 }, () => whoami(client)), { concurrency: "unbounded" })

        assert.isAbove(fixture.seen.refused.withBadToken, 0)
        assert.strictEqual(browser.opened.length, 1)
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1, refresh_token: 1 })
        assert.notStrictEqual(fixture.seen.tokens.at(-1)!.jti, first.jti)
        assertTokens(fixture)
      }),
    60_000
  )

  it.scopedLive(
    "5 clients connecting at once through one McpAuth: every first request refused, one authorization",
    () =>
      Effect.gen(function*() {
        const fixture = yield* Auth.start()
        const browser = Auth.makeBrowser()
        // The user signs in only once all five were refused: they are all waiting for this authorization.
        const onUrl = (url: string) => Effect.zipRight(fixture.refusedWithoutToken(5), browser.onUrl(url))
        const http = yield* Layer.build(authorized(onUrl))
        const clients = yield* Effect.all(
          Array.from({ length: 5 }, () => connect(fixture.url, "stateless", Layer.succeedContext(http))),
          { concurrency: "unbounded" }
        )
        yield* Effect.all(clients.map(whoami), { concurrency: "unbounded" })

        assert.strictEqual(fixture.seen.refused.withoutToken, 5)
        assert.strictEqual(browser.opened.length, 1)
        assert.strictEqual(fixture.seen.registrations, 1)
        assert.strictEqual(fixture.seen.authorizations, 1)
        assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1 })
        assertTokens(fixture)
      }),
    60_000
  )

  it.scopedLive(
    "metadata naming another resource: ResourceMismatch, before any registration or authorization",
    () =>
      Effect.gen(function*() {
        // The authorization server would issue tokens for `/other`, and the resource server take them.
        const fixture = yield* Auth.start({ advertise: (origin) => `${origin}/other` })
        const browser = Auth.makeBrowser()
        const error = yield* Effect.flip(connect(fixture.url, "stateless", authorized(browser.onUrl)))
        // A typed failure of authorization, not a connection failure.
        if (!(error instanceof ClientError.ResourceMismatch)) {
          return assert.fail(`expected ResourceMismatch, got ${error._tag}: ${error.message}`)
        }
        assert.strictEqual(error.resource, fixture.resource)
        assert.strictEqual(error.url, fixture.url)
        assert.strictEqual(browser.opened.length, 0)
        assert.strictEqual(fixture.seen.registrations, 0)
        assert.deepStrictEqual(fixture.seen.grants, {})
        assert.deepStrictEqual(fixture.seen.tokens, [])
      }),
    60_000
  )
})
