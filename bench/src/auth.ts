/**
 * Authorized `tools/call add` over Streamable HTTP (2026-07-28, stateless: every call one POST,
 * so every call's token is verified): what a bearer JWT verified per request costs, ours and the
 * SDK's, against servers in child processes (the engine, rounds and ratios: `http-bench.ts`):
 *
 * - effect-mcp `NodeMcpServer.layerHttp`, 2026-07-28 only, without auth (`ours-http-server.ts`)
 *   and with `auth: { resource, authorizationServers: [issuer] }` and the default verifier,
 *   `TokenVerifier.jwt()` (`ours-auth-http-server.ts`): discovery of the issuer's metadata, then
 *   jose's remote key set, cached; a token verified once is taken again by its exact text until it
 *   expires (at most 5 minutes), with expiry and scopes checked on every request; and the same
 *   with `TokenVerifier.jwt({ cache: false })`, every request's signature checked;
 * - the official SDK's `createMcpHandler`, modern only, without auth
 *   (`sdk-stateless-http-server.ts`) and behind its `requireBearerAuth` gate with a
 *   `verifyAccessToken` on jose's `jwtVerify` + `createRemoteJWKSet`
 *   (`sdk-auth-stateless-http-server.ts`);
 * - bare `node:http` answering JSON-RPC with `JSON.parse` / `JSON.stringify`: the floor.
 *
 * This process generates a signing key with jose (RS256, or `BENCH_AUTH_ALG=ES256`), serves a
 * tiny authorization server on 127.0.0.1 (`/.well-known/oauth-authorization-server` naming its
 * `issuer` and `jwks_uri`, and the key set), and signs one access token (`iss`, `sub`, `aud` = the
 * resource, `exp` in 2 hours, `scope`, `client_id`), sent as `Authorization: Bearer …` on every
 * call to every server (the servers without auth ignore it), so all of them read the same bytes.
 * Before the benchmark, each server with auth is checked to refuse a call without the token and
 * with a token signed by another key (401) and to answer one with it; after it, the issuer's
 * counts show that the keys were fetched once per server process, not per request.
 *
 * The handshake era is not measured here: the engine's client sends no header of its own on
 * `initialize` (it takes extra headers only from the stateless envelope).
 *
 * Environment: BENCH_ROUNDS (3), BENCH_HTTP_MILLIS (1500), BENCH_HTTP_SERVERS (keys: ours,
 * ours-auth, ours-auth-uncached, sdk, sdk-auth, bare; default all), BENCH_AUTH_ALG (RS256), and those of
 * `http-bench.ts` (BENCH_PROFILE=<dir> for CPU profiles of the measured runs, taken in the servers).
 *
 * A benchmark, not a test.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { type Envelope, stateless } from "./envelope.js"
import { type Bench, run } from "./http-bench.js"
import { Connection, openSession } from "./http-driver.js"
import { BenchFailure, here, startHttpServer } from "./proc.js"

const algorithm = process.env.BENCH_AUTH_ALG ?? "RS256"
if (algorithm !== "RS256" && algorithm !== "ES256") {
  process.stderr.write(`BENCH_AUTH_ALG=${algorithm}: RS256 or ES256\n`)
  process.exit(2)
}

/** The servers' canonical resource URI: the audience of the token. */
const resource = "http://127.0.0.1/mcp"

interface Issuer {
  readonly url: string
  /** Requests served, by path. */
  readonly served: Map<string, number>
  readonly close: () => Promise<void>
}

/** An authorization server on 127.0.0.1 that publishes only its metadata (RFC 8414) and its key set. */
const startIssuer = (keys: ReadonlyArray<JWK>): Promise<Issuer> =>
  new Promise((resolve, reject) => {
    const served = new Map<string, number>()
    let url = ""
    const server = createServer((request, response) => {
      const path = request.url ?? "/"
      served.set(path, (served.get(path) ?? 0) + 1)
      const json = (body: unknown) => {
        const text = JSON.stringify(body)
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
          .end(text)
      }
      if (request.method !== "GET") return void response.writeHead(405).end()
      if (path === "/.well-known/oauth-authorization-server") {
        return json({
          issuer: url,
          authorization_endpoint: `${url}/authorize`,
          token_endpoint: `${url}/token`,
          jwks_uri: `${url}/jwks`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code"],
          code_challenge_methods_supported: ["S256"]
        })
      }
      if (path === "/jwks") return json({ keys })
      response.writeHead(404).end()
    })
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve({
        url,
        served,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** A key pair of `algorithm`, its public JWK named `kid`. */
const keyPair = async (kid: string) => {
  const { privateKey, publicKey } = await generateKeyPair(algorithm, { extractable: true })
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: algorithm, use: "sig" } }
}

/** An access token for `resource` from `issuer`, signed with `key`. */
const sign = (issuer: string, kid: string, key: CryptoKey) =>
  new SignJWT({ scope: "mcp:tools", client_id: "bench-client" })
    .setProtectedHeader({ alg: algorithm, kid, typ: "at+jwt" })
    .setIssuer(issuer)
    .setSubject("bench-user")
    .setAudience(resource)
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(key)

/** The stateless envelope with `Authorization: Bearer <token>` on every call (none for `undefined`). */
const withToken = (token: string | undefined): Envelope => ({
  ...stateless,
  addCallHeaders: stateless.addCallHeaders + (token === undefined ? "" : `Authorization: Bearer ${token}\r\n`)
})

/** One `tools/call add` with `token`: its status, and whether it is the right answer. */
const probe = async (port: number, token: string | undefined, id: number) => {
  const connection = await Connection.open({ port, path: "/mcp" })
  try {
    const envelope = withToken(token)
    const session = await openSession(connection, envelope)
    if (!("prefix" in session)) throw new BenchFailure("no session")
    const body = envelope.addCall(id)
    const response = await connection.request(`${session.prefix}Content-Length: ${body.length}\r\n\r\n${body}`)
    return { status: response.status, good: response.body.includes(`"sum":${id + 1}`) }
  } finally {
    connection.close()
  }
}

/** Fails unless the server refuses no token and a forged one (401) and answers the good one. */
const checkGate = async (name: string, file: string, args: ReadonlyArray<string>, token: string, forged: string) => {
  const { child, port } = await startHttpServer(file, args)
  try {
    const none = await probe(port, undefined, 1)
    const bad = await probe(port, forged, 2)
    const good = await probe(port, token, 3)
    if (none.status !== 401 || bad.status !== 401 || good.status !== 200 || !good.good) {
      throw new BenchFailure(
        `${name}: expected 401 without a token, 401 with a forged one, 200 with the token; got ${none.status}, ` +
          `${bad.status}, ${good.status}${good.good ? "" : " (wrong answer)"}\nstderr: ${child.stderr()}`
      )
    }
  } finally {
    await child.stop()
  }
}

const main = async () => {
  const kid = "bench-key-1"
  const key = await keyPair(kid)
  // Another key under the same `kid`, never published: a token it signs must be refused.
  const other = await keyPair(kid)
  const issuer = await startIssuer([key.jwk])
  try {
    const token = await sign(issuer.url, kid, key.privateKey)
    const forged = await sign(issuer.url, kid, other.privateKey)
    const authArgs = ["--issuer", issuer.url, "--resource", resource]
    const bench: Bench = {
      section: "auth",
      title: `HTTP tools/call add with a bearer ${algorithm} JWT on every call (2026-07-28, stateless)`,
      envelope: withToken(token),
      rounds: Number(process.env.BENCH_ROUNDS ?? 3),
      millis: Number(process.env.BENCH_HTTP_MILLIS ?? 1_500),
      servers: [
        {
          key: "ours",
          name: "effect-mcp layerHttp, no auth",
          file: here("./ours-http-server.js"),
          args: ["--mode", "layerHttp", "--revisions", "stateless"]
        },
        {
          key: "ours-auth",
          name: "effect-mcp layerHttp, auth (TokenVerifier.jwt)",
          file: here("./ours-auth-http-server.js"),
          args: ["--revisions", "stateless", ...authArgs]
        },
        {
          key: "ours-auth-uncached",
          name: "effect-mcp layerHttp, auth, every signature checked (cache: false)",
          file: here("./ours-auth-http-server.js"),
          args: ["--revisions", "stateless", "--no-cache", ...authArgs]
        },
        {
          key: "sdk",
          name: "SDK 2.4.0 createMcpHandler, no auth",
          file: here("./sdk-stateless-http-server.js"),
          args: []
        },
        {
          key: "sdk-auth",
          name: "SDK 2.4.0 createMcpHandler + requireBearerAuth",
          file: here("./sdk-auth-stateless-http-server.js"),
          args: authArgs
        },
        { key: "bare", name: "bare node:http + JSON.parse", file: here("./bare-http-server.js"), args: [] }
      ],
      pairs: [
        {
          a: "ours-auth",
          b: "ours",
          label: "ours auth / ours no auth",
          unit: "%",
          target: { threshold: 0.85, shown: "85%" }
        },
        { a: "ours-auth-uncached", b: "ours", label: "ours auth, no cache / ours no auth", unit: "%" },
        { a: "ours-auth", b: "sdk-auth", label: "ours auth / SDK auth", unit: "x" },
        { a: "ours-auth-uncached", b: "sdk-auth", label: "ours auth, no cache / SDK auth", unit: "x" },
        { a: "ours", b: "sdk", label: "ours / SDK (no auth)", unit: "x" },
        { a: "sdk-auth", b: "sdk", label: "SDK auth / SDK no auth", unit: "%" },
        { a: "ours-auth", b: "bare", label: "ours auth / bare", unit: "%" },
        { a: "ours", b: "bare", label: "ours no auth / bare", unit: "%" }
      ],
      notes: []
    }
    const wanted = process.env.BENCH_HTTP_SERVERS?.split(",")
    const withAuth = bench.servers.filter((server) =>
      server.key.endsWith("-auth") && (wanted === undefined || wanted.includes(server.key))
    )
    for (const server of withAuth) await checkGate(server.name, server.file, server.args, token, forged)
    const before = new Map(issuer.served)
    await run({
      ...bench,
      notes: [
        "Every server gets the same requests, the token included; those without auth ignore it. The SDK's " +
        "gate is requireBearerAuth (its fetch-host form) in front of handler.fetch, inside toNodeHandler."
      ]
    })
    const fetched = (path: string) => (issuer.served.get(path) ?? 0) - (before.get(path) ?? 0)
    process.stdout.write(
      `issuer during the benchmark: metadata ${fetched("/.well-known/oauth-authorization-server")}, ` +
        `key set ${fetched("/jwks")} fetches (${withAuth.length} server processes with auth)\n`
    )
  } finally {
    await issuer.close()
  }
}

main().catch((error) => {
  process.stderr.write(
    `AUTH BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
