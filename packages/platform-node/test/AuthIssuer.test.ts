/**
 * The resource server against an authorization server that is hostile or unhealthy, at the wire:
 * an issuer served here whose answers the test shapes (too large, endless, failing), the MCP
 * server verifying tokens of it.
 *
 * - every answer of the issuer is cut at 1 MiB as its bytes arrive: a key set, metadata, an
 *   introspection answer past it is a 503, and the issuer sees its connection dropped;
 * - the claims kept for a verified token are bounded: an introspection answer longer than an
 *   entry may be is not kept (the token is introspected again);
 * - a failing issuer is asked again only after a backoff (1 s, doubling, on the server's
 *   `TestClock`), not at every token;
 * - while the key set cannot be fetched again, the keys held still verify tokens, up to
 *   `maxStale`; past it, 503;
 * - keys that aged verify at once while they are fetched again behind: an issuer that hangs holds
 *   up no token its held keys verify (one fetch, in the verifier's own fiber);
 * - `type: "at+jwt"`: only RFC 9068 access tokens are taken.
 */
import { TokenVerifier } from "@effect-mcp/server"
import { describe, expect, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as jose from "jose"
import * as http from "node:http"
import type * as net from "node:net"
import { onTestFinished } from "vitest"
import { ACCEPT, freePort, type Harness, startServer } from "./utils/http.js"

// ---------------------------------------------------------------------------- the issuer

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void

interface Issuer {
  readonly url: string
  readonly key: jose.CryptoKey
  readonly jwk: jose.JWK
  /** What each path answers: set by the test. */
  readonly on: Record<"metadata" | "jwks" | "introspect", Handler>
  /** Requests so far, by path. */
  readonly count: Record<"metadata" | "oidc" | "jwks" | "introspect", number>
  /** Resolves with whether the response ended before its connection closed, for the next request of `path`. */
  readonly nextClose: (path: "jwks" | "metadata" | "introspect") => Promise<{ readonly finished: boolean }>
  readonly close: () => Promise<void>
}

const json = (response: http.ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

const startIssuer = async (): Promise<Issuer> => {
  const { privateKey, publicKey } = await jose.generateKeyPair("RS256", { extractable: true })
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: "issuer-key", alg: "RS256", use: "sig" }
  let url = ""
  const count = { metadata: 0, oidc: 0, jwks: 0, introspect: 0 }
  const waiting: Record<string, Array<(closed: { readonly finished: boolean }) => void>> = {
    jwks: [],
    metadata: [],
    introspect: []
  }
  const on: Issuer["on"] = {
    metadata: (_, response) =>
      json(response, 200, { issuer: url, jwks_uri: `${url}/jwks`, introspection_endpoint: `${url}/introspect` }),
    jwks: (_, response) => json(response, 200, { keys: [jwk] }),
    introspect: (_, response) => json(response, 200, { active: false })
  }
  const server = http.createServer((request, response) => {
    const path = request.url === "/.well-known/oauth-authorization-server"
      ? "metadata"
      : request.url === "/.well-known/openid-configuration"
      ? "oidc"
      : request.url === "/jwks"
      ? "jwks"
      : request.url === "/introspect"
      ? "introspect"
      : undefined
    if (path === undefined) return void response.writeHead(404).end()
    count[path]++
    if (path === "oidc") return void response.writeHead(404).end()
    const watchers = waiting[path].splice(0)
    response.once("close", () => {
      for (const resolve of watchers) resolve({ finished: response.writableFinished })
    })
    on[path](request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  return {
    url,
    key: privateKey,
    jwk,
    on,
    count,
    nextClose: (path) => new Promise((resolve) => waiting[path].push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** `size` bytes of JSON text: `{"keys":[…],"padding":"xxx…"}` (or `fields` in place of keys), sent in 64 KiB writes. */
const padded = (fields: Record<string, unknown>, size: number): ReadonlyArray<Buffer> => {
  const head = JSON.stringify(fields).slice(0, -1) + `,"padding":"`
  const tail = `"}`
  const text = head + "x".repeat(Math.max(0, size - head.length - tail.length)) + tail
  const chunks: Array<Buffer> = []
  for (let at = 0; at < text.length; at += 65_536) chunks.push(Buffer.from(text.slice(at, at + 65_536)))
  return chunks
}

/** Writes `chunks` (no Content-Length: chunked), then ends unless `hold`. */
const stream = (response: http.ServerResponse, chunks: ReadonlyArray<Buffer>, hold = false) => {
  response.writeHead(200, { "content-type": "application/json" })
  const next = (i: number): void => {
    if (response.destroyed) return
    if (i === chunks.length) return void (hold ? undefined : response.end())
    if (response.write(chunks[i])) next(i + 1)
    else response.once("drain", () => next(i + 1))
  }
  next(0)
}

// ---------------------------------------------------------------------------- the server

const start = async (issuer: Issuer, verifier?: TokenVerifier.Service): Promise<Harness> => {
  const port = await freePort()
  return startServer("NodeMcpServer.layerHttp", {
    auth: {
      resource: `http://127.0.0.1:${port}/mcp`,
      authorizationServers: [issuer.url],
      ...(verifier === undefined ? {} : { verifier })
    }
  }, { port })
}

const now = () => Math.floor(Date.now() / 1000)

/** A token of `issuer` for `h`'s resource, signed with `key` (the issuer's by default), a fresh `jti` each. */
const mint = (
  issuer: Issuer,
  h: Harness,
  options: { readonly key?: jose.CryptoKey; readonly kid?: string; readonly typ?: string } = {}
) =>
  new jose.SignJWT({
    iss: issuer.url,
    aud: h.url,
    sub: "alice",
    scope: "mcp:tools",
    exp: now() + 300,
    jti: crypto.randomUUID()
  })
    .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "issuer-key", typ: options.typ ?? "at+jwt" })
    .sign(options.key ?? issuer.key)

/** A key that is not the issuer's (made once: RSA keys are slow to make). */
const foreignKey = jose.generateKeyPair("RS256").then((pair) => pair.privateKey)

/** A token signed with a key that is not the issuer's, naming a key the issuer does not have. */
const forged = async (issuer: Issuer, h: Harness) =>
  mint(issuer, h, { key: await foreignKey, kid: crypto.randomUUID() })

let ids = 0
/** `initialize` with `token`: the status (200 when the token was taken), the body read. */
const initialize = async (h: Harness, token: string): Promise<number> => {
  const response = await fetch(h.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++ids,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "issuer-test", version: "1" } }
    })
  })
  await response.text()
  return response.status
}

/** The statuses of `n` requests to `h`, one after the other, each with its own token. */
const statuses = async (h: Harness, n: number, token: () => Promise<string>): Promise<Array<number>> => {
  const out: Array<number> = []
  for (let i = 0; i < n; i++) out.push(await initialize(h, await token()))
  return out
}

/** A verifier made by `layer`, in a runtime of its own (a verifier is scoped), closed when the test ends. */
const built = async (layer: Layer.Layer<TokenVerifier.TokenVerifier>): Promise<TokenVerifier.Service> => {
  const runtime = ManagedRuntime.make(layer)
  onTestFinished(() => runtime.dispose())
  return runtime.runPromise(TokenVerifier.TokenVerifier)
}

const introspector = (options: Partial<TokenVerifier.IntrospectionOptions> = {}) =>
  built(TokenVerifier.layerIntrospection({ clientId: "rs", clientSecret: Redacted.make("secret"), ...options }))

// ---------------------------------------------------------------------------- answers past 1 MiB

describe("answers of the issuer are cut at 1 MiB as they arrive", () => {
  it("a key set that passes 1 MiB and never ends: 503 at once, the issuer's connection dropped", async () => {
    const issuer = await startIssuer()
    try {
      // A minute to answer: only the bound, not the timeout, can end this fetch.
      const h = await start(issuer, await built(TokenVerifier.layerJwt({ timeout: "60 seconds" })))
      issuer.on.jwks = (_, response) => stream(response, padded({ keys: [issuer.jwk] }, 3 * 512 * 1024), true)
      const closed = issuer.nextClose("jwks")
      expect(await initialize(h, await mint(issuer, h))).toBe(503)
      expect(await closed).toEqual({ finished: false })
    } finally {
      await issuer.close()
    }
  }, 20_000)

  it("a valid key set of 3 MiB: refused (503), not read whole", async () => {
    const issuer = await startIssuer()
    try {
      const h = await start(issuer)
      issuer.on.jwks = (_, response) => stream(response, padded({ keys: [issuer.jwk] }, 3 * 1024 * 1024))
      expect(await initialize(h, await mint(issuer, h))).toBe(503)
    } finally {
      await issuer.close()
    }
  })

  it("metadata of 3 MiB: refused (503)", async () => {
    const issuer = await startIssuer()
    try {
      const h = await start(issuer)
      issuer.on.metadata = (_, response) =>
        stream(response, padded({ issuer: issuer.url, jwks_uri: `${issuer.url}/jwks` }, 3 * 1024 * 1024))
      expect(await initialize(h, await mint(issuer, h))).toBe(503)
      expect(issuer.count.jwks).toBe(0)
    } finally {
      await issuer.close()
    }
  })

  it("an introspection answer of 3 MiB: refused (503); one of 200 KB: taken, but not kept as the token's claims", async () => {
    const issuer = await startIssuer()
    try {
      const h = await start(issuer, await introspector())
      const claims = (token: string) => ({
        active: true,
        sub: "alice",
        aud: h.url,
        iss: issuer.url,
        exp: now() + 300,
        token
      })
      issuer.on.introspect = (_, response) => stream(response, padded(claims("big"), 3 * 1024 * 1024))
      expect(await initialize(h, "opaque-big")).toBe(503)
      // 200 KB: within what is read, past what one kept entry may hold (64 Ki characters).
      issuer.on.introspect = (_, response) => stream(response, padded(claims("long"), 200 * 1024))
      expect(await initialize(h, "opaque-long")).toBe(200)
      expect(await initialize(h, "opaque-long")).toBe(200)
      const asked = issuer.count.introspect
      // A short answer is kept: asked once for two requests.
      issuer.on.introspect = (_, response) => json(response, 200, claims("short"))
      expect(await initialize(h, "opaque-short")).toBe(200)
      expect(await initialize(h, "opaque-short")).toBe(200)
      expect(issuer.count.introspect).toBe(asked + 1)
      // The long one was asked for at each of its two requests.
      expect(asked).toBe(3)
    } finally {
      await issuer.close()
    }
  })
})

// ---------------------------------------------------------------------------- an unhealthy issuer

/**
 * A verifier on a `TestClock` of its own (the server runs on real time: only the verifier's
 * backoff and key ages move with `adjust`), and the server using it.
 */
const clocked = async (issuer: Issuer, options: TokenVerifier.JwtOptions = {}) => {
  const runtime = ManagedRuntime.make(Layer.provideMerge(TokenVerifier.layerJwt(options), TestContext.TestContext))
  onTestFinished(() => runtime.dispose())
  const verifier = await runtime.runPromise(TokenVerifier.TokenVerifier)
  const h = await start(issuer, verifier)
  return { h, adjust: (duration: Duration.DurationInput) => runtime.runPromise(TestClock.adjust(duration)) }
}

describe("an issuer that fails is asked again only after a backoff", () => {
  it("a key set answering 500: fetched once, then not until 1 s, then 2 s, have passed; every token 503 meanwhile", async () => {
    const issuer = await startIssuer()
    try {
      const { adjust, h } = await clocked(issuer)
      issuer.on.jwks = (_, response) => json(response, 500, { error: "down" })
      expect(await statuses(h, 20, () => forged(issuer, h))).toEqual(Array(20).fill(503))
      expect(issuer.count.jwks).toBe(1)
      await adjust("999 millis")
      expect(await statuses(h, 5, () => mint(issuer, h))).toEqual(Array(5).fill(503))
      expect(issuer.count.jwks).toBe(1)
      await adjust("1 millis")
      expect(await statuses(h, 5, () => forged(issuer, h))).toEqual(Array(5).fill(503))
      expect(issuer.count.jwks).toBe(2)
      // Twice as long now.
      await adjust("1 second")
      expect(await statuses(h, 5, () => forged(issuer, h))).toEqual(Array(5).fill(503))
      expect(issuer.count.jwks).toBe(2)
      // Back up: the next fetch, once the wait passed, serves.
      issuer.on.jwks = (_, response) => json(response, 200, { keys: [issuer.jwk] })
      await adjust("1 second")
      expect(await statuses(h, 3, () => mint(issuer, h))).toEqual([200, 200, 200])
      expect(issuer.count.jwks).toBe(3)
      // The metadata was read once.
      expect(issuer.count.metadata).toBe(1)
    } finally {
      await issuer.close()
    }
  })

  it("metadata answering 500: asked once (RFC 8414, then OpenID Connect), not at every token", async () => {
    const issuer = await startIssuer()
    try {
      const { adjust, h } = await clocked(issuer)
      issuer.on.metadata = (_, response) => json(response, 500, { error: "down" })
      expect(await statuses(h, 20, () => mint(issuer, h))).toEqual(Array(20).fill(503))
      expect([issuer.count.metadata, issuer.count.oidc, issuer.count.jwks]).toEqual([1, 1, 0])
      await adjust("1 second")
      expect(await statuses(h, 5, () => mint(issuer, h))).toEqual(Array(5).fill(503))
      expect([issuer.count.metadata, issuer.count.oidc]).toEqual([2, 2])
    } finally {
      await issuer.close()
    }
  })

  it("a key set that goes down: the keys held still verify tokens after they aged, up to maxStale; then 503", async () => {
    const issuer = await startIssuer()
    try {
      const { adjust, h } = await clocked(issuer)
      expect(await statuses(h, 2, () => mint(issuer, h))).toEqual([200, 200])
      expect(issuer.count.jwks).toBe(1)
      issuer.on.jwks = (_, response) => json(response, 500, { error: "down" })
      // Past the keys' age (10 minutes): fetched again, which fails; the held keys serve.
      await adjust("11 minutes")
      expect(await statuses(h, 20, () => mint(issuer, h))).toEqual(Array(20).fill(200))
      expect(issuer.count.jwks).toBe(2)
      // An hour on: still served; a token the held keys do not verify is still refused (401).
      await adjust("1 hour")
      expect(await statuses(h, 3, () => mint(issuer, h))).toEqual([200, 200, 200])
      expect(await initialize(h, await mint(issuer, h, { key: await foreignKey }))).toBe(401)
      // Past maxStale (6 hours from their fetch): no more.
      await adjust("5 hours")
      expect(await statuses(h, 3, () => mint(issuer, h))).toEqual([503, 503, 503])
      // The issuer is back: once the backoff passes, served again.
      issuer.on.jwks = (_, response) => json(response, 200, { keys: [issuer.jwk] })
      await adjust("1 minute")
      expect(await statuses(h, 2, () => mint(issuer, h))).toEqual([200, 200])
    } finally {
      await issuer.close()
    }
  })

  it("a key set that stops answering once the keys aged: tokens the held keys verify are served at once, one fetch hangs behind; a rotated key waits for that fetch", async () => {
    const issuer = await startIssuer()
    try {
      // Five minutes for a fetch (past the test's own timeout): a verification that waited for the
      // hanging fetch could not end in this test (each did before, for the whole timeout).
      const { adjust, h } = await clocked(issuer, { timeout: "5 minutes" })
      expect(await initialize(h, await mint(issuer, h))).toBe(200)
      expect(issuer.count.jwks).toBe(1)
      const hanging: Array<http.ServerResponse> = []
      const asked = new Promise<void>((resolve) => {
        issuer.on.jwks = (_, response) => {
          hanging.push(response)
          resolve()
        }
      })
      // Past the keys' age (10 minutes): they are fetched again, and that fetch never answers.
      await adjust("11 minutes")
      const tokens = await Promise.all(Array.from({ length: 5 }, () => mint(issuer, h)))
      expect(await Promise.all(tokens.map((token) => initialize(h, token)))).toEqual(Array(5).fill(200))
      expect(await statuses(h, 5, () => mint(issuer, h))).toEqual(Array(5).fill(200))
      // One fetch for them all, still under way.
      await asked
      expect(issuer.count.jwks).toBe(2)
      expect(hanging.map((response) => response.writableEnded)).toEqual([false])
      // The issuer rotates: a token of its new key waits for the fetch under way (no other is made),
      // which answers with both keys.
      const { privateKey, publicKey } = await jose.generateKeyPair("RS256", { extractable: true })
      const rotated = { ...(await jose.exportJWK(publicKey)), kid: "rotated-key", alg: "RS256", use: "sig" }
      const status = initialize(h, await mint(issuer, h, { key: privateKey, kid: "rotated-key" }))
      json(hanging[0], 200, { keys: [issuer.jwk, rotated] })
      expect(await status).toBe(200)
      expect(issuer.count.jwks).toBe(2)
    } finally {
      await issuer.close()
    }
  })

  it("keys fetched again at every token (cacheMaxAge 0) and a key set down: the held keys verify every valid token", async () => {
    const issuer = await startIssuer()
    try {
      const { h } = await clocked(issuer, { cacheMaxAge: 0 })
      expect(await initialize(h, await mint(issuer, h))).toBe(200)
      issuer.on.jwks = (_, response) => json(response, 500, { error: "down" })
      expect(await statuses(h, 50, () => mint(issuer, h))).toEqual(Array(50).fill(200))
      // Tried again once; then the backoff holds (the clock does not move).
      expect(issuer.count.jwks).toBe(2)
    } finally {
      await issuer.close()
    }
  })
})

// ---------------------------------------------------------------------------- RFC 9068 only

describe("type: at+jwt", () => {
  it("takes access tokens of RFC 9068 (at+jwt, application/at+jwt), refuses typ JWT and none (401)", async () => {
    const issuer = await startIssuer()
    try {
      const h = await start(issuer, await built(TokenVerifier.layerJwt({ type: "at+jwt" })))
      expect(await initialize(h, await mint(issuer, h, { typ: "at+jwt" }))).toBe(200)
      expect(await initialize(h, await mint(issuer, h, { typ: "application/at+jwt" }))).toBe(200)
      expect(await initialize(h, await mint(issuer, h, { typ: "JWT" }))).toBe(401)
      const untyped = await new jose.SignJWT({ iss: issuer.url, aud: h.url, sub: "alice", exp: now() + 60 })
        .setProtectedHeader({ alg: "RS256", kid: "issuer-key" })
        .sign(issuer.key)
      expect(await initialize(h, untyped)).toBe(401)
    } finally {
      await issuer.close()
    }
  })
})
