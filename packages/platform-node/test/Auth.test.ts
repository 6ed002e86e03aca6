/**
 * The HTTP server as an OAuth 2.1 resource server, at the wire: an issuer served here (its
 * RFC 8414 metadata and its key set, as an authorization server publishes them), tokens signed by
 * its key (and hostile ones), the default JWT verifier finding the keys from the metadata.
 *
 * - the protected resource metadata at both well-known URLs; the 401 challenge; CORS;
 * - hostile tokens, each a 401 `invalid_token` that says nothing more: `alg: none`, an HMAC
 *   signed with the public key, a key that is not the issuer's, the wrong audience, expired, a
 *   future `nbf`, the wrong issuer, 64 KB; a token in the query; a malformed header (400);
 * - scopes: server-wide (403), a tool's own (403 naming every scope the call needs), listed anyway;
 * - `McpRequest.auth` in both eras;
 * - binding: another subject's token on a session (404, for POST, GET resumption and DELETE; the
 *   session lives on), a `requestState` of another subject (-32602), held-open streams (the GET
 *   stream, a 2026-07-28 listen, a legacy stream) ended when their token expires.
 */
import { AuthInfo, McpRequest, McpServer, Prompt, Revision, TokenVerifier, Tool } from "@effect-mcp/server"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as jose from "jose"
import * as http from "node:http"
import type * as net from "node:net"
import { NodeMcpServer } from "../src/index.js"
import { ACCEPT, freePort, rawRequest, SseReader, startServer as startHarness } from "./utils/http.js"

// ---------------------------------------------------------------------------- the issuer

interface Issuer {
  readonly url: string
  readonly key: jose.CryptoKey
  readonly publicJwk: jose.JWK
  /** Fetches of its key set so far. */
  readonly fetches: () => number
  readonly close: () => Promise<void>
}

const startIssuer = async (): Promise<Issuer> => {
  const { privateKey, publicKey } = await jose.generateKeyPair("RS256", { extractable: true })
  const publicJwk = { ...(await jose.exportJWK(publicKey)), kid: "issuer-key", alg: "RS256", use: "sig" }
  let fetches = 0
  let url = ""
  const server = http.createServer((request, response) => {
    if (request.url === "/.well-known/oauth-authorization-server") {
      response.writeHead(200, { "content-type": "application/json" })
      return response.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token` }))
    }
    if (request.url === "/jwks") {
      fetches++
      response.writeHead(200, { "content-type": "application/json" })
      return response.end(JSON.stringify({ keys: [publicJwk] }))
    }
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  return {
    url,
    key: privateKey,
    publicJwk,
    fetches: () => fetches,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

// ---------------------------------------------------------------------------- the server

const Whoami = Tool.make(
  "whoami",
  {
    success: Schema.Struct({
      subject: Schema.String,
      clientId: Schema.NullOr(Schema.String),
      scopes: Schema.Array(Schema.String)
    })
  },
  () =>
    Effect.map(McpRequest.auth, (auth) =>
      Option.match(auth, {
        onNone: () => ({ subject: "nobody", clientId: null, scopes: [] }),
        onSome: (holder) => ({
          subject: holder.subject,
          clientId: Option.getOrNull(holder.clientId),
          scopes: holder.scopes
        })
      }))
)

const Admin = Tool.make(
  "admin_echo",
  { parameters: Schema.Struct({ message: Schema.String }), scopes: ["mcp:admin"] },
  ({ message }) => Effect.succeed(message)
)

/** Asks for a name (2026-07-28: an input_required round with a sealed requestState). */
const Ask = Tool.make("ask", { failure: Schema.String }, () =>
  Effect.mapError(
    Effect.map(
      McpRequest.elicit("name", {
        message: "Who?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } }
      }),
      (answer) => `hello ${String(answer.content?.name)}`
    ),
    (error) => error.message
  ))

/** A prompt for admins, whose argument completes: its completions need its scopes too. */
const Secret = Prompt.make("secret", {
  arguments: Schema.Struct({ topic: Schema.String }),
  complete: { topic: () => Effect.succeed(["the launch codes"]) },
  scopes: ["mcp:admin"]
}, ({ topic }) => Effect.succeed(`about ${topic}`))

interface Server {
  readonly origin: string
  readonly url: string
  readonly resource: string
  readonly close: () => Promise<void>
  /** Runs an effect in the server's runtime (its `TestClock`'s, with `testClock`). */
  readonly run: <A>(effect: Effect.Effect<A>) => Promise<A>
}

const startServer = async (
  issuer: Issuer,
  options: {
    readonly hideUnauthorized?: boolean
    readonly verifier?: TokenVerifier.Service
    readonly audiences?: ReadonlyArray<string>
    readonly otherIssuers?: ReadonlyArray<string>
    /** The server (its verifier, its transport, its held-open streams) on a `TestClock`, set to the wall clock's time. */
    readonly testClock?: boolean
  } = {}
): Promise<Server> => {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const resource = `${origin}/mcp`
  const layer = NodeMcpServer.layerHttp({
    port,
    auth: {
      resource,
      authorizationServers: [issuer.url, ...(options.otherIssuers ?? [])],
      scopes: ["mcp:tools"],
      ...(options.verifier !== undefined ? { verifier: options.verifier } : {}),
      ...(options.audiences !== undefined ? { audiences: options.audiences } : {})
    }
  }).pipe(
    Layer.provideMerge(McpServer.layer({
      serverInfo: { name: "auth-test", version: "1.0.0" },
      revisions: [...Revision.handshake, "2026-07-28"],
      tools: [Whoami, Admin, Ask],
      prompts: [Secret],
      requestStateKey: Redacted.make("the requestState key of the auth test server, 32+ bytes"),
      ...(options.hideUnauthorized === true ? { hideUnauthorized: true } : {})
    }))
  )
  // The clock set before anything is built: setting it later would run every periodic sleep the
  // server started, once per period since 1970.
  const onWallTime = Layer.provideMerge(Layer.effectDiscard(TestClock.setTime(Date.now())), TestContext.TestContext)
  const runtime = options.testClock === true
    ? ManagedRuntime.make(Layer.provideMerge(layer, onWallTime))
    : ManagedRuntime.make(layer)
  await runtime.runPromise(Effect.void)
  return {
    origin,
    url: resource,
    resource,
    close: () => runtime.dispose(),
    run: (effect) => runtime.runPromise(effect)
  }
}

// ---------------------------------------------------------------------------- tokens

const now = () => Math.floor(Date.now() / 1000)

interface Mint {
  readonly claims?: Record<string, unknown>
  readonly key?: jose.CryptoKey | Uint8Array
  readonly alg?: string
  readonly lifetime?: number
}

const mint = (issuer: Issuer, server: Server, options: Mint = {}): Promise<string> =>
  new jose.SignJWT({
    iss: issuer.url,
    aud: server.resource,
    sub: "alice",
    client_id: "client-a",
    scope: "mcp:tools",
    iat: now(),
    exp: now() + (options.lifetime ?? 300),
    jti: crypto.randomUUID(),
    ...options.claims
  })
    .setProtectedHeader({ alg: options.alg ?? "RS256", kid: "issuer-key", typ: "at+jwt" })
    .sign(options.key ?? issuer.key)

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** An unsigned token (`alg: none`). */
const unsigned = (claims: Record<string, unknown>) => `${base64url({ alg: "none", typ: "JWT" })}.${base64url(claims)}.`

// ---------------------------------------------------------------------------- requests

const initialize = (id = 1) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "auth-wire", version: "1.0.0" } }
  })

const meta = (capabilities: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": { name: "auth-wire", version: "1.0.0" }
})

const statelessCall = (name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name, arguments: args, _meta: meta({ elicitation: { form: {} } }), ...extra }
  }),
  headers: {
    "content-type": "application/json",
    accept: ACCEPT,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": name
  }
})

const post = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: "POST", body, headers: { "content-type": "application/json", accept: ACCEPT, ...headers } })

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** Opens a handshake session with `token`: its id. */
const openSession = async (server: Server, token: string): Promise<string> => {
  const response = await post(server.url, initialize(), bearer(token))
  expect(response.status).toBe(200)
  await response.text()
  const id = response.headers.get("mcp-session-id")!
  const initialized = await post(
    server.url,
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    { ...bearer(token), "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }
  )
  expect(initialized.status).toBe(202)
  return id
}

const sessionCall = (server: Server, token: string, session: string, name: string, args = {}) =>
  post(
    server.url,
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } }),
    { ...bearer(token), "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
  )

/** A 401 `invalid_token` whose challenge and body say no more than that. */
const expectInvalidToken = async (response: Response | { status: number; headers: any; body: string }) => {
  const headers = response.headers as Headers | http.IncomingHttpHeaders
  const challenge = headers instanceof Headers ? headers.get("www-authenticate") : headers["www-authenticate"]
  const body = "body" in response && typeof response.body === "string"
    ? response.body
    : await (response as Response).text()
  expect(response.status).toBe(401)
  expect(challenge).toMatch(/^Bearer /)
  expect(challenge).toContain(`error="invalid_token"`)
  expect(challenge).not.toContain("error_description")
  const parsed = JSON.parse(body)
  expect(parsed).toEqual({ jsonrpc: "2.0", id: expect.anything(), error: { code: -32000, message: "Unauthorized" } })
}

// ---------------------------------------------------------------------------- the tests

describe("an HTTP server with authorization", () => {
  let issuer: Issuer
  let server: Server
  beforeAll(async () => {
    issuer = await startIssuer()
    server = await startServer(issuer)
  })
  afterAll(async () => {
    await server.close()
    await issuer.close()
  })

  it("serves its protected resource metadata at the path-inserted and at the root well-known URL", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = await fetch(`${server.origin}${path}`)
      expect(response.status).toBe(200)
      expect(response.headers.get("access-control-allow-origin")).toBe("*")
      expect(await response.json()).toEqual({
        resource: server.resource,
        authorization_servers: [issuer.url],
        scopes_supported: ["mcp:tools", "mcp:admin"],
        bearer_methods_supported: ["header"]
      })
    }
  })

  it("without a token: 401, a challenge naming the metadata and the scopes, a JSON-RPC body with the id", async () => {
    const response = await post(server.url, initialize(41), {})
    expect(response.status).toBe(401)
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`
    )
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 41,
      error: { code: -32000, message: "Unauthorized" }
    })
    // GET and DELETE too, and the legacy endpoints.
    for (
      const [method, path] of [["GET", "/mcp"], ["DELETE", "/mcp"], ["GET", "/sse"], ["POST", "/messages"]] as const
    ) {
      const other = await fetch(`${server.origin}${path}`, {
        method,
        headers: { accept: "text/event-stream, application/json", "content-type": "application/json" },
        ...(method === "POST" ? { body: "{}" } : {})
      })
      expect([method, path, other.status]).toEqual([method, path, 401])
      await other.text()
    }
  })

  it("a token in the query is never read: alone, 401 without error; beside the header, 400 invalid_request", async () => {
    const token = await mint(issuer, server)
    const alone = await post(`${server.url}?access_token=${token}`, initialize(), {})
    expect(alone.status).toBe(401)
    expect(alone.headers.get("www-authenticate")).not.toContain("error=")
    await alone.text()
    const both = await post(`${server.url}?access_token=${token}`, initialize(), bearer(token))
    expect(both.status).toBe(400)
    expect(both.headers.get("www-authenticate")).toContain(`error="invalid_request"`)
    expect((await both.json()).id).toBe(1)
  })

  it("a malformed Authorization header: 400 invalid_request; another scheme: 401 without error", async () => {
    for (const header of ["Bearer", "Bearer ", "Bearer a b", "Bearer ab\"cd"]) {
      const response = await post(server.url, initialize(), { authorization: header })
      expect([header, response.status]).toEqual([header, 400])
      expect(response.headers.get("www-authenticate")).toContain(`error="invalid_request"`)
      await response.text()
    }
    const basic = await post(server.url, initialize(), { authorization: "Basic YWxpY2U6c2VjcmV0" })
    expect(basic.status).toBe(401)
    expect(basic.headers.get("www-authenticate")).not.toContain("error=")
    await basic.text()
  })

  it("hostile tokens: each a 401 invalid_token, and nothing says why", async () => {
    const { privateKey: stranger } = await jose.generateKeyPair("RS256")
    const publicKeyBytes = new TextEncoder().encode(JSON.stringify(issuer.publicJwk))
    const hostile: Record<string, string> = {
      "alg: none": unsigned({
        iss: issuer.url,
        aud: server.resource,
        sub: "alice",
        scope: "mcp:tools",
        exp: now() + 300
      }),
      "HS256 keyed with the issuer's public key": await mint(issuer, server, { alg: "HS256", key: publicKeyBytes }),
      "a key that is not the issuer's": await mint(issuer, server, { key: stranger }),
      "the wrong audience": await mint(issuer, server, { claims: { aud: "http://127.0.0.1:1/mcp" } }),
      "no audience": await mint(issuer, server, { claims: { aud: undefined } }),
      "expired": await mint(issuer, server, { claims: { exp: now() - 120 } }),
      "a future nbf": await mint(issuer, server, { claims: { nbf: now() + 120 } }),
      "the wrong issuer": await mint(issuer, server, { claims: { iss: "http://127.0.0.1:1" } }),
      "no subject": await mint(issuer, server, { claims: { sub: undefined } }),
      "no expiry": await mint(issuer, server, { claims: { exp: undefined } }),
      "not a JWT": "abc.def.ghi"
    }
    for (const [name, token] of Object.entries(hostile)) {
      const response = await post(server.url, initialize(), bearer(token))
      expect([name, response.status]).toEqual([name, 401])
      await expectInvalidToken(response)
    }
    // 64 KB: refused unread (Node's header limit is raised with auth on, so this is ours to answer).
    const long = await rawRequest({
      port: Number(new URL(server.origin).port),
      method: "POST",
      path: "/mcp",
      headers: { ...bearer(`${"a".repeat(64 * 1024)}`), "content-type": "application/json", accept: ACCEPT },
      body: initialize()
    })
    await expectInvalidToken(long)
  })

  it("a valid token: McpRequest.auth in both eras", async () => {
    const token = await mint(issuer, server, { claims: { scope: "mcp:tools mcp:read" } })
    const expected = { subject: "alice", clientId: "client-a", scopes: ["mcp:tools", "mcp:read"] }
    const call = statelessCall("whoami")
    const stateless = await post(server.url, call.body, { ...call.headers, ...bearer(token) })
    expect(stateless.status).toBe(200)
    expect((await stateless.json()).result.structuredContent).toEqual(expected)
    const session = await openSession(server, token)
    const handshake = await sessionCall(server, token, session, "whoami")
    expect((await handshake.json()).result.structuredContent).toEqual(expected)
  })

  it("the server-wide scopes: a token without them is 403 insufficient_scope naming them", async () => {
    const token = await mint(issuer, server, { claims: { scope: "other" } })
    const response = await post(server.url, initialize(5), bearer(token))
    expect(response.status).toBe(403)
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", scope="mcp:tools", ` +
        `resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`
    )
    expect((await response.json()).id).toBe(5)
  })

  it("a tool's own scopes: 403 naming every scope the call needs; listed anyway; served with them", async () => {
    const plain = await mint(issuer, server)
    const call = statelessCall("admin_echo", { message: "hi" })
    const refused = await post(server.url, call.body, { ...call.headers, ...bearer(plain) })
    expect(refused.status).toBe(403)
    expect(refused.headers.get("www-authenticate")).toContain(`error="insufficient_scope", scope="mcp:tools mcp:admin"`)
    expect((await refused.json()).id).toBe(7)
    // In a session too.
    const session = await openSession(server, plain)
    const inSession = await sessionCall(server, plain, session, "admin_echo", { message: "hi" })
    expect(inSession.status).toBe(403)
    await inSession.text()
    const list = await post(
      server.url,
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} }),
      { ...bearer(plain), "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
    )
    expect((await list.json()).result.tools.map((t: { name: string }) => t.name)).toContain("admin_echo")
    const admin = await mint(issuer, server, { claims: { scope: "mcp:tools mcp:admin" } })
    const served = await post(server.url, call.body, { ...call.headers, ...bearer(admin) })
    expect(served.status).toBe(200)
    expect((await served.json()).result.content).toEqual([{ type: "text", text: "hi" }])
  })

  it("a session belongs to its subject: another's token is answered as if it did not exist, and it lives on", async () => {
    const alice = await mint(issuer, server)
    const mallory = await mint(issuer, server, { claims: { sub: "mallory", client_id: "client-m" } })
    const session = await openSession(server, alice)
    const stolen = await sessionCall(server, mallory, session, "whoami")
    expect(stolen.status).toBe(404)
    await stolen.text()
    const resumed = await fetch(server.url, {
      headers: {
        ...bearer(mallory),
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
        "last-event-id": "s0:1"
      }
    })
    expect(resumed.status).toBe(404)
    await resumed.text()
    const deleted = await fetch(server.url, {
      method: "DELETE",
      headers: { ...bearer(mallory), "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
    })
    expect(deleted.status).toBe(404)
    await deleted.text()
    // Alice, with a fresh token of hers, still has it.
    const fresh = await mint(issuer, server)
    const mine = await sessionCall(server, fresh, session, "whoami")
    expect(mine.status).toBe(200)
    expect((await mine.json()).result.structuredContent.subject).toBe("alice")
  })

  it("a requestState sealed for one subject is -32602 for another", async () => {
    const alice = await mint(issuer, server)
    const mallory = await mint(issuer, server, { claims: { sub: "mallory" } })
    const call = statelessCall("ask")
    const first = await post(server.url, call.body, { ...call.headers, ...bearer(alice) })
    const round = (await first.json()).result
    expect(round.resultType).toBe("input_required")
    const retry = (token: string) => {
      const again = statelessCall("ask", {}, {
        inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
        requestState: round.requestState
      })
      return post(server.url, again.body, { ...again.headers, ...bearer(token) })
    }
    const stolen = await retry(mallory)
    const refused = await stolen.json()
    expect(refused.error.code).toBe(-32602)
    const own = await retry(alice)
    expect((await own.json()).result.content).toEqual([{ type: "text", text: "hello Ada" }])
  })

  it("a legacy HTTP+SSE session: its stream needs a token, its messages the same subject's", async () => {
    const alice = await mint(issuer, server)
    const mallory = await mint(issuer, server, { claims: { sub: "mallory" } })
    const controller = new AbortController()
    const response = await fetch(`${server.origin}/sse`, {
      headers: { ...bearer(alice), accept: "text/event-stream" },
      signal: controller.signal
    })
    expect(response.status).toBe(200)
    const reader = new SseReader(response)
    const endpoint = await reader.next()
    const messages = new URL(endpoint!.data!, server.origin)
    const stolen = await post(messages.href, initialize(), bearer(mallory))
    expect(stolen.status).toBe(404)
    await stolen.text()
    const own = await post(messages.href, initialize(), bearer(alice))
    expect(own.status).toBe(202)
    await own.text()
    const answer = await reader.next()
    expect(JSON.parse(answer!.data!).result.serverInfo.name).toBe("auth-test")
    controller.abort()
    // Its stream's end when its token expires: below, on a server on a TestClock.
  })

  it("CORS: a preflight from an allowed origin is answered; responses expose the headers a browser needs", async () => {
    const origin = "http://localhost:5173"
    const preflight = await fetch(server.url, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version"
      }
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin)
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "authorization, content-type, mcp-protocol-version"
    )
    const refused = await post(server.url, initialize(), { origin })
    expect(refused.status).toBe(401)
    expect(refused.headers.get("access-control-allow-origin")).toBe(origin)
    expect(refused.headers.get("access-control-expose-headers")).toContain("www-authenticate")
    expect(refused.headers.get("access-control-expose-headers")).toContain("mcp-session-id")
    await refused.text()
    // A disallowed origin gets no preflight.
    const evil = await fetch(server.url, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" }
    })
    expect(evil.status).toBe(403)
    await evil.text()
  })

  it("the key set is fetched once and kept", async () => {
    const before = issuer.fetches()
    for (let i = 0; i < 5; i++) {
      const response = await post(server.url, initialize(), bearer(await mint(issuer, server)))
      expect(response.status).toBe(200)
      await response.text()
    }
    expect(issuer.fetches()).toBe(before)
  })
})

describe("hideUnauthorized, and a verifier of one's own", () => {
  it("lists leave out the tools the token lacks the scopes for; a custom verifier's answer is checked again", async () => {
    const issuer = await startIssuer()
    const resource = { url: "" }
    // Tokens `<audience>.<scopes>`: audience "ours" is this server's resource; `tools+admin` are
    // the scopes mcp:tools and mcp:admin.
    const verifier = TokenVerifier.make((token) =>
      Effect.sync(() => {
        const [audience, scopes] = token.split(".")
        return new AuthInfo.AuthInfo({
          subject: "alice",
          clientId: Option.none(),
          scopes: scopes.split("+").map((scope) => `mcp:${scope}`),
          expiresAt: Option.none(),
          audience: [audience === "ours" ? resource.url : audience],
          issuer: Option.none(),
          claims: {},
          token: Redacted.make(token)
        })
      })
    )
    const server = await startServer(issuer, { hideUnauthorized: true, verifier })
    resource.url = server.resource
    try {
      const names = async (token: string) => {
        const response = await post(
          server.url,
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }),
          { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list", ...bearer(token) }
        )
        return (await response.json()).result.tools.map((t: { name: string }) => t.name).sort()
      }
      expect(await names("ours.tools")).toEqual(["ask", "whoami"])
      expect(await names("ours.tools+admin")).toEqual(["admin_echo", "ask", "whoami"])
      // The audience is checked again whatever the verifier says.
      const wrongAudience = await post(server.url, initialize(), bearer("elsewhere.tools"))
      expect(wrongAudience.status).toBe(401)
      await wrongAudience.text()
    } finally {
      await server.close()
      await issuer.close()
    }
  })
})

describe("held-open streams end when their token expires, on the server's clock (a TestClock moved a minute on)", () => {
  let issuer: Issuer
  let server: Server
  beforeAll(async () => {
    issuer = await startIssuer()
    server = await startServer(issuer, { testClock: true })
  })
  afterAll(async () => {
    await server.close()
    await issuer.close()
  })
  /** A token that expires a minute from now on the server's clock. */
  const expiringInAMinute = async () => {
    const now = Math.floor((await server.run(Clock.currentTimeMillis)) / 1000)
    return mint(issuer, server, { claims: { iat: now, exp: now + 60 } })
  }

  it("the GET stream ends when its token expires", async () => {
    const token = await mint(issuer, server)
    const session = await openSession(server, token)
    const short = await expiringInAMinute()
    const response = await fetch(server.url, {
      headers: {
        ...bearer(short),
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25"
      }
    })
    expect(response.status).toBe(200)
    const reader = new SseReader(response)
    // Its stream is open: the server primed it. A minute on (past `exp`, whole seconds), it ends.
    expect((await reader.next()) !== undefined).toBe(true)
    await server.run(TestClock.adjust("61 seconds"))
    for (;;) {
      const event = await reader.next(5000)
      if (event === undefined) break
    }
    // The session is still there: the client authorizes again and goes on.
    const again = await sessionCall(server, token, session, "whoami")
    expect(again.status).toBe(200)
    await again.text()
  })

  it("a 2026-07-28 listen ends gracefully when its token expires", async () => {
    const short = await expiringInAMinute()
    const response = await post(
      server.url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: meta() }
      }),
      {
        ...bearer(short),
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen"
      }
    )
    expect(response.status).toBe(200)
    const reader = new SseReader(response)
    const messages: Array<any> = [JSON.parse((await reader.next())!.data!)]
    await server.run(TestClock.adjust("61 seconds"))
    for (;;) {
      const event = await reader.next(5000)
      if (event === undefined) break
      if (event.data !== undefined && event.data !== "") messages.push(JSON.parse(event.data))
    }
    expect(messages[0].method).toBe("notifications/subscriptions/acknowledged")
    const last = messages[messages.length - 1]
    expect(last).toMatchObject({ id: 9, result: { resultType: "complete" } })
  })

  it("a legacy HTTP+SSE stream ends (and its session with it) when the token it was opened with expires", async () => {
    const alice = await mint(issuer, server)
    const short = await expiringInAMinute()
    const expiring = await fetch(`${server.origin}/sse`, { headers: { ...bearer(short), accept: "text/event-stream" } })
    const events = new SseReader(expiring)
    const announced = await events.next()
    await server.run(TestClock.adjust("61 seconds"))
    while ((await events.next(5000)) !== undefined) {
      // keep-alives until the end
    }
    const after = await post(new URL(announced!.data!, server.origin).href, initialize(), bearer(alice))
    expect(after.status).toBe(404)
    await after.text()
  })
})

describe("scopes of completions, and holders of two issuers", () => {
  it("completion/complete of a scoped prompt needs its scopes", async () => {
    const issuer = await startIssuer()
    const server = await startServer(issuer)
    try {
      const complete = (token: string) =>
        post(
          server.url,
          JSON.stringify({
            jsonrpc: "2.0",
            id: 4,
            method: "completion/complete",
            params: {
              ref: { type: "ref/prompt", name: "secret" },
              argument: { name: "topic", value: "" },
              _meta: meta()
            }
          }),
          { "mcp-protocol-version": "2026-07-28", "mcp-method": "completion/complete", ...bearer(token) }
        )
      const refused = await complete(await mint(issuer, server))
      expect(refused.status).toBe(403)
      expect(refused.headers.get("www-authenticate")).toContain(`scope="mcp:tools mcp:admin"`)
      await refused.text()
      const served = await complete(await mint(issuer, server, { claims: { scope: "mcp:tools mcp:admin" } }))
      expect((await served.json()).result.completion.values).toEqual(["the launch codes"])
    } finally {
      await server.close()
      await issuer.close()
    }
  })

  it("a session is bound to the subject at its issuer: the same sub from another issuer is someone else", async () => {
    const first = await startIssuer()
    const second = await startIssuer()
    const server = await startServer(first, { otherIssuers: [second.url] })
    try {
      const session = await openSession(server, await mint(first, server))
      const sameSub = await new jose.SignJWT({
        iss: second.url,
        aud: server.resource,
        sub: "alice",
        scope: "mcp:tools",
        exp: now() + 300
      }).setProtectedHeader({ alg: "RS256", kid: "issuer-key" }).sign(second.key)
      const stolen = await sessionCall(server, sameSub, session, "whoami")
      expect(stolen.status).toBe(404)
      await stolen.text()
      const own = await sessionCall(server, await mint(first, server), session, "whoami")
      expect(own.status).toBe(200)
      await own.text()
    } finally {
      await server.close()
      await first.close()
      await second.close()
    }
  })
})

describe("audiences beside the resource", () => {
  it("a token naming one of auth.audiences is taken (Entra's v2.0 tokens); any other audience is not", async () => {
    const issuer = await startIssuer()
    const server = await startServer(issuer, { audiences: ["4b1c2d3e-0000-4000-8000-00000000c11e"] })
    try {
      const taken = await mint(issuer, server, { claims: { aud: "4b1c2d3e-0000-4000-8000-00000000c11e" } })
      const response = await post(server.url, initialize(), bearer(taken))
      expect(response.status).toBe(200)
      await response.text()
      const other = await mint(issuer, server, { claims: { aud: "5b1c2d3e-0000-4000-8000-00000000c11e" } })
      await expectInvalidToken(await post(server.url, initialize(), bearer(other)))
    } finally {
      await server.close()
      await issuer.close()
    }
  })
})

describe("RFC 7662 introspection, and an authorization server that cannot be reached", () => {
  it("introspects opaque tokens (client authenticated), keeps the answer, refuses inactive and foreign ones", async () => {
    const calls: Array<string> = []
    let url = ""
    const resource = { url: "" }
    const tokens: Record<string, Record<string, unknown>> = {
      "opaque-alice": { active: true, sub: "alice", client_id: "client-a", scope: "mcp:tools" },
      "opaque-foreign": { active: true, sub: "alice", scope: "mcp:tools", aud: "https://elsewhere.example/mcp" },
      "opaque-revoked": { active: false }
    }
    const as = http.createServer((request, response) => {
      if (request.url === "/.well-known/oauth-authorization-server") {
        response.writeHead(200, { "content-type": "application/json" })
        return response.end(JSON.stringify({ issuer: url, introspection_endpoint: `${url}/introspect` }))
      }
      let body = ""
      request.on("data", (chunk) => (body += chunk))
      request.on("end", () => {
        const token = new URLSearchParams(body).get("token") ?? ""
        calls.push(token)
        if (request.headers.authorization !== `Basic ${Buffer.from("rs:rssecret").toString("base64")}`) {
          response.writeHead(401).end()
          return
        }
        const known = tokens[token] ?? { active: false }
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify(
          known.active === true
            ? { aud: resource.url, iss: url, exp: now() + 300, ...known }
            : known
        ))
      })
    })
    await new Promise<void>((resolve) => as.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(as.address() as net.AddressInfo).port}`
    const issuer = { url } as Issuer
    // The verifier lives in a runtime of its own (it is scoped: its fetches run in its fibers).
    const verifiers = ManagedRuntime.make(
      TokenVerifier.layerIntrospection({ clientId: "rs", clientSecret: Redacted.make("rssecret") })
    )
    const verifier = await verifiers.runPromise(TokenVerifier.TokenVerifier)
    const server = await startServer(issuer, { verifier })
    resource.url = server.resource
    try {
      const call = statelessCall("whoami")
      for (let i = 0; i < 3; i++) {
        const response = await post(server.url, call.body, { ...call.headers, ...bearer("opaque-alice") })
        expect(response.status).toBe(200)
        expect((await response.json()).result.structuredContent).toEqual({
          subject: "alice",
          clientId: "client-a",
          scopes: ["mcp:tools"]
        })
      }
      // Asked once, then kept.
      expect(calls.filter((t) => t === "opaque-alice")).toHaveLength(1)
      for (const token of ["opaque-foreign", "opaque-revoked", "opaque-unknown"]) {
        const response = await post(server.url, call.body, { ...call.headers, ...bearer(token) })
        expect([token, response.status]).toEqual([token, 401])
        await expectInvalidToken(response)
      }
    } finally {
      await server.close()
      await verifiers.dispose()
      await new Promise<void>((resolve) => {
        as.close(() => resolve())
        as.closeAllConnections()
      })
    }
  })

  it("the issuer's metadata cannot be read: 503 with Retry-After, not a 401 (the client must not re-authorize)", async () => {
    const port = await freePort()
    const issuer = { url: `http://127.0.0.1:${port}` } as Issuer
    const server = await startServer(issuer)
    try {
      const token = await new jose.SignJWT({ iss: issuer.url, aud: server.resource, sub: "alice", exp: now() + 60 })
        .setProtectedHeader({ alg: "ES256" })
        .sign((await jose.generateKeyPair("ES256")).privateKey)
      const response = await post(server.url, initialize(3), bearer(token))
      expect(response.status).toBe(503)
      expect(response.headers.get("retry-after")).toBe("5")
      expect((await response.json()).id).toBe(3)
    } finally {
      await server.close()
    }
  })
})

describe("authorization on an @effect/platform router (HttpTransport.layer)", () => {
  it("the same metadata, challenge and verified call", async () => {
    const issuer = await startIssuer()
    const port = await freePort()
    const resource = `http://127.0.0.1:${port}/mcp`
    const h = await startHarness(
      "HttpLayerRouter.serve(HttpTransport.layer)",
      { auth: { resource, authorizationServers: [issuer.url] } },
      { port }
    )
    try {
      const metadata = await fetch(`${h.origin}/.well-known/oauth-protected-resource/mcp`)
      expect((await metadata.json()).resource).toBe(resource)
      const refused = await post(h.url, initialize(2), {})
      expect(refused.status).toBe(401)
      expect(refused.headers.get("www-authenticate")).toContain("resource_metadata=")
      expect((await refused.json()).id).toBe(2)
      const token = await mint(issuer, { resource } as Server)
      const served = await post(h.url, initialize(), bearer(token))
      expect(served.status).toBe(200)
      expect((await served.json()).result.serverInfo.name).toBe("http-test")
    } finally {
      await issuer.close()
    }
  })
})
