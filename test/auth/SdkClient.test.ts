/**
 * The official SDK client (`@modelcontextprotocol/client` 2.4.0) authorizes against our resource
 * server (`HttpTransport` with `auth`, see ./support.ts) and a real authorization server
 * (oidc-provider), headlessly, as the SDK documents its interactive flow: a
 * `StreamableHTTPClientTransport` with an `OAuthClientProvider` meets the 401, reads our
 * protected resource metadata, registers, and sends the user to the authorization URL
 * (`redirectToAuthorization`: the headless browser signs in, consents, and lands on a redirect
 * URI of the test's own with the code); `connect` fails with `UnauthorizedError`;
 * `finishAuth(callback params)` redeems the code (PKCE, RFC 9207 `iss`); a new transport with the
 * same provider connects, lists the tools and calls `whoami`. In the handshake era (the SDK's
 * default) and pinned to 2026-07-28.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError
} from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as Auth from "./support.js"

/**
 * An `OAuthClientProvider` that keeps everything in memory, for one user at `browser`: the
 * redirect is the browser going through the authorization server's pages to `redirectUrl`.
 */
class HeadlessProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined
  saved: StoredOAuthTokens | undefined
  verifier: string | undefined
  discovery: OAuthDiscoveryState | undefined
  /** The `state` of every authorization asked for, in order. */
  readonly states: Array<string> = []
  constructor(readonly redirectUrl: string, readonly browser: Auth.Browser) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "sdk-oauth-test",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none"
    }
  }
  state() {
    const state = crypto.randomBytes(16).toString("base64url")
    this.states.push(state)
    return state
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(client: StoredOAuthClientInformation) {
    this.client = client
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(authorizationUrl: URL) {
    return Effect.runPromise(this.browser.onUrl(authorizationUrl.href))
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    if (this.verifier === undefined) throw new Error("no code verifier was saved")
    return this.verifier
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state
  }
  discoveryState() {
    return this.discovery
  }
}

/** The JWT access token's payload. */
const payloadOf = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8"))

// Authorization is the client's HTTP, the same on every Node: run where CI runs the suite first (Node
// 20), so that CI's other passes stay within its time.
describe.runIf(process.versions.node.startsWith("20."))("the official SDK client's OAuth against our server", () => {
  for (const era of ["handshake", "2026-07-28"] as const) {
    it.scopedLive(
      `${era}: 401, metadata, registration, the browser's redirect, finishAuth, reconnect, tools/list, whoami`,
      () =>
        Effect.gen(function*() {
          const fixture = yield* Auth.start()
          const browser = Auth.makeBrowser()
          // The redirect URI: where the browser lands with the code, as a desktop client's own listener would.
          const callbacks: Array<URLSearchParams> = []
          const callbackOrigin = yield* Auth.listen((request, response) => {
            callbacks.push(new URL(request.url ?? "/", "http://127.0.0.1").searchParams)
            response.writeHead(200, { "content-type": "text/plain" })
            response.end("authorized: this window may be closed")
          })
          const provider = new HeadlessProvider(`${callbackOrigin}/callback`, browser)
          const transportOf = () => new StreamableHTTPClientTransport(new URL(fixture.url), { authProvider: provider })
          const clientOf = () =>
            new Client(
              { name: "sdk-oauth-test", version: "1.0.0" },
              era === "handshake" ? {} : { versionNegotiation: { mode: { pin: "2026-07-28" } } }
            )

          // 1. The first connection: refused, the user sent to authorize, and UnauthorizedError.
          const first = clientOf()
          const firstTransport = transportOf()
          const refusal = yield* Effect.flip(Effect.tryPromise(() => first.connect(firstTransport)))
          const thrown = refusal.cause
          assert.isTrue(thrown instanceof UnauthorizedError, `expected UnauthorizedError, got ${String(thrown)}`)
          yield* Effect.promise(() => first.close())
          assert.isAbove(fixture.seen.refused.withoutToken, 0)
          assert.deepStrictEqual(fixture.seen.served, [])
          assert.strictEqual(fixture.seen.registrations, 1)
          assert.strictEqual(provider.discovery?.resourceMetadataUrl, fixture.metadataUrl)

          // What it asked for: a code, with PKCE (S256), for our resource, back to our redirect URI.
          assert.strictEqual(browser.opened.length, 1)
          const asked = new URL(browser.opened[0]!)
          assert.strictEqual(asked.origin, fixture.issuer)
          assert.strictEqual(asked.searchParams.get("response_type"), "code")
          assert.strictEqual(asked.searchParams.get("code_challenge_method"), "S256")
          assert.match(asked.searchParams.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/)
          assert.strictEqual(asked.searchParams.get("resource"), fixture.resource)
          assert.strictEqual(asked.searchParams.get("redirect_uri"), provider.redirectUrl)
          assert.include((asked.searchParams.get("scope") ?? "").split(" "), Auth.scope)
          assert.strictEqual(asked.searchParams.get("state"), provider.states.at(-1))

          // 2. The redirect back: the code, the issuer (RFC 9207), our state (the SDK leaves it to us).
          assert.strictEqual(callbacks.length, 1)
          const back = callbacks[0]!
          assert.isNotNull(back.get("code"))
          assert.strictEqual(back.get("iss"), fixture.issuer)
          assert.strictEqual(back.get("state"), provider.states.at(-1))
          yield* Effect.promise(() => firstTransport.finishAuth(back))
          assert.deepStrictEqual(fixture.seen.grants, { authorization_code: 1 })
          assert.isDefined(provider.saved)
          const accessToken = provider.saved!.access_token

          // 3. Connected again, with the token: the tools, and whoami.
          const client = clientOf()
          yield* Effect.acquireRelease(
            Effect.promise(() => client.connect(transportOf())),
            () => Effect.promise(() => client.close())
          )
          assert.strictEqual(client.getProtocolEra(), era === "handshake" ? "legacy" : "modern")
          if (era !== "handshake") assert.strictEqual(client.getNegotiatedProtocolVersion(), era)
          const tools = yield* Effect.promise(() => client.listTools())
          assert.deepStrictEqual(tools.tools.map((tool) => tool.name), ["whoami"])
          const result = yield* Effect.promise(() => client.callTool({ name: "whoami", arguments: {} }))
          assert.deepStrictEqual(result.content, [{ type: "text", text: Auth.whoamiAnswer }])

          // The server took that token, and only it: for our resource, from the issuer, for the user.
          assert.strictEqual(browser.opened.length, 1)
          assert.strictEqual(fixture.seen.authorizations, 1)
          assert.strictEqual(fixture.seen.refused.withBadToken, 0)
          assert.isAbove(fixture.seen.tokens.length, 0)
          for (const token of fixture.seen.tokens) {
            assert.strictEqual(token.aud, fixture.resource)
            assert.strictEqual(token.iss, fixture.issuer)
            assert.strictEqual(token.sub, "ada")
            assert.include(String(token.scope).split(" "), Auth.scope)
            assert.strictEqual(token.jti, payloadOf(accessToken).jti)
          }
          for (const served of fixture.seen.served) assert.strictEqual(served.audience, fixture.resource)
          assert.isTrue(fixture.seen.served.some((served) => served.method === "POST"))
          assert.deepStrictEqual(fixture.seen.errors, [])
        }),
      60_000
    )
  }
})
