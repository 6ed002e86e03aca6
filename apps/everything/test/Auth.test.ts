/**
 * The demo with authorization on, at the wire: `apps/everything/dist/main.js http` run as a
 * process with `--auth-issuer` and `--resource` (or `MCP_AUTH_ISSUER` and `MCP_RESOURCE`), an
 * issuer served here on 127.0.0.1 (its RFC 8414 metadata and its key set), tokens signed with its
 * RSA key (RS256, by node:crypto: the signer is not the verifier's library).
 *
 * - no token: 401 with the `Bearer` challenge naming the protected resource metadata, served too;
 * - a token for another audience: 401 `invalid_token`;
 * - `whoami`: the token's subject, client and scopes as structured content, in both eras;
 * - `admin_echo` without `mcp:admin`: 403 `insufficient_scope` naming it; with it: the message;
 * - the other tools need only a valid token;
 * - the flags: one without the other, or a URL that is none, refused in one line (exit 2);
 *   without them, nothing changes (no token needed, no `whoami`, no `admin_echo`);
 * - tokens of any `typ` by default; with `--token-type at+jwt`, RFC 9068 access tokens only.
 */
import { Services } from "@effect-mcp/test-support"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as crypto from "node:crypto"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const main = path.resolve(here, "../dist/main.js")
const ACCEPT = "application/json, text/event-stream"

// ---------------------------------------------------------------------------- the issuer

interface Issuer {
  readonly url: string
  /** Signs `claims` with the issuer's key, header `typ` as given (default `at+jwt`). */
  readonly sign: (claims: Record<string, unknown>, typ?: string) => string
  readonly close: () => Promise<void>
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const startIssuer = async (): Promise<Issuer> => {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
  const jwk = { ...publicKey.export({ format: "jwk" }), kid: "demo-issuer-key", alg: "RS256", use: "sig" }
  let url = ""
  const server = http.createServer((request, response) => {
    if (request.url === "/.well-known/oauth-authorization-server") {
      response.writeHead(200, { "content-type": "application/json" })
      return response.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token` }))
    }
    if (request.url === "/jwks") {
      response.writeHead(200, { "content-type": "application/json" })
      return response.end(JSON.stringify({ keys: [jwk] }))
    }
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  return {
    url,
    sign: (claims, typ = "at+jwt") => {
      const signed = `${base64url({ alg: "RS256", typ, kid: "demo-issuer-key" })}.${base64url(claims)}`
      return `${signed}.${crypto.sign("sha256", Buffer.from(signed), privateKey).toString("base64url")}`
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

const now = () => Math.floor(Date.now() / 1000)

/** A token of `issuer` for `resource`: alice's, of client-a, five minutes long, `claims` over those. */
const mint = (issuer: Issuer, resource: string, claims: Record<string, unknown> = {}, typ?: string) =>
  issuer.sign({
    iss: issuer.url,
    aud: resource,
    sub: "alice",
    client_id: "client-a",
    scope: "mcp:tools",
    iat: now(),
    exp: now() + 300,
    jti: crypto.randomUUID(),
    ...claims
  }, typ)

// ---------------------------------------------------------------------------- the demo

const freePort = () => Effect.runPromise(Services.freePort)

/** The environment of a child: this one's, without the variables the demo reads. */
const environment = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MCP_REQUEST_STATE_KEY: "the requestState key of the demo's auth test, 32+ bytes"
  }
  delete env.MCP_AUTH_ISSUER
  delete env.MCP_RESOURCE
  return { ...env, ...extra }
}

interface Demo {
  readonly origin: string
  readonly url: string
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** Runs the demo over HTTP on `port` with `args`, until it says where it listens. */
const startDemo = async (
  port: number,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = environment()
): Promise<Demo> => {
  const origin = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn(process.execPath, [main, "http", "--port", String(port), ...args], {
    env,
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start:\n${stderr}`)), 20_000)
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk
      if (stderr.includes(`${origin}/mcp (`)) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`the demo exited with ${code}:\n${stderr}`))
    })
  })
  return {
    origin,
    url: `${origin}/mcp`,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM")
      await exited
    }
  }
}

/** Runs the demo with `args` expecting a refusal: its exit code and its stderr. */
const refused = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = environment()) =>
  new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [main, ...args], { env, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    // Not refused: it serves, and is stopped.
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk))
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })

// ---------------------------------------------------------------------------- requests

const post = (url: string, body: unknown, headers: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers }
  })

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "demo-auth", version: "1.0.0" }
}

/** A 2026-07-28 `tools/call`, a POST of its own. */
const statelessCall = (url: string, name: string, args: Record<string, unknown>, headers: Record<string, string>) =>
  post(url, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args, _meta: meta } }, {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": name,
    ...headers
  })

const initialize = (id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "demo-auth", version: "1.0.0" } }
})

/** Opens a 2025-11-25 session: a request in it with `headers` (the token's, if any). */
const openSession = async (url: string, headers: Record<string, string>) => {
  const opened = await post(url, initialize(), headers)
  expect(opened.status).toBe(200)
  await opened.text()
  const session = {
    ...headers,
    "mcp-session-id": opened.headers.get("mcp-session-id")!,
    "mcp-protocol-version": "2025-11-25"
  }
  const initialized = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
  expect(initialized.status).toBe(202)
  return (id: number, method: string, params: Record<string, unknown> = {}) =>
    post(url, { jsonrpc: "2.0", id, method, params }, session)
}

const metadataPath = "/.well-known/oauth-protected-resource/mcp"

// ---------------------------------------------------------------------------- the tests

describe("the demo with --auth-issuer and --resource", () => {
  let issuer: Issuer
  let demo: Demo
  let resource: string
  beforeAll(async () => {
    issuer = await startIssuer()
    const port = await freePort()
    resource = `http://127.0.0.1:${port}/mcp`
    demo = await startDemo(port, ["--auth-issuer", issuer.url, "--resource", resource])
  }, 30_000)
  afterAll(async () => {
    await demo?.stop()
    await issuer?.close()
  })

  it("says on stderr whose tokens it takes, for which resource", () => {
    expect(demo.stderr()).toContain(`${demo.url} (dual), tokens of ${issuer.url} for ${resource}`)
  })

  it("serves the protected resource metadata: the resource, the issuer, the scope admin_echo declares", async () => {
    const response = await fetch(`${demo.origin}${metadataPath}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      resource,
      authorization_servers: [issuer.url],
      scopes_supported: ["mcp:admin"],
      bearer_methods_supported: ["header"]
    })
  })

  it("without a token: 401 with a Bearer challenge naming the metadata, in both eras, for every tool", async () => {
    const challenge = `Bearer resource_metadata="${demo.origin}${metadataPath}"`
    const opened = await post(demo.url, initialize(41), {})
    expect(opened.status).toBe(401)
    expect(opened.headers.get("www-authenticate")).toBe(challenge)
    expect(await opened.json()).toEqual({ jsonrpc: "2.0", id: 41, error: { code: -32000, message: "Unauthorized" } })
    for (const name of ["test_simple_text", "whoami", "add"]) {
      const call = await statelessCall(demo.url, name, {}, {})
      expect([name, call.status, call.headers.get("www-authenticate")]).toEqual([name, 401, challenge])
      await call.text()
    }
  })

  it("a token for another resource, or of another issuer: 401 invalid_token", async () => {
    for (
      const token of [
        mint(issuer, "http://127.0.0.1:1/mcp"),
        mint(issuer, resource, { iss: "http://127.0.0.1:1" })
      ]
    ) {
      const response = await post(demo.url, initialize(), bearer(token))
      expect(response.status).toBe(401)
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token", resource_metadata="/)
      await response.text()
    }
  })

  it("whoami: the token's subject, client and scopes as structured content, in both eras", async () => {
    const token = mint(issuer, resource, { scope: "mcp:tools mcp:read" })
    const expected = { subject: "alice", clientId: "client-a", scopes: ["mcp:tools", "mcp:read"] }
    const stateless = await statelessCall(demo.url, "whoami", {}, bearer(token))
    expect(stateless.status).toBe(200)
    const result = (await stateless.json()).result
    expect(result.structuredContent).toEqual(expected)
    expect(result.isError).toBeUndefined()
    const request = await openSession(demo.url, bearer(token))
    const handshake = await request(2, "tools/call", { name: "whoami", arguments: {} })
    expect((await handshake.json()).result.structuredContent).toEqual(expected)
    // Listed with an outputSchema; admin_echo listed too (a call without the scope is what is refused).
    const { tools } = (await (await request(3, "tools/list")).json()).result
    const whoami = tools.find((tool: { name: string }) => tool.name === "whoami")
    expect(whoami.outputSchema.required).toEqual(["subject", "clientId", "scopes"])
    expect(Object.keys(whoami.outputSchema.properties)).toEqual(["subject", "clientId", "scopes"])
    expect(tools.map((tool: { name: string }) => tool.name)).toContain("admin_echo")
    // A token naming no client, and no scope.
    const bare = mint(issuer, resource, { sub: "bob", client_id: undefined, scope: undefined })
    const anonymous = await statelessCall(demo.url, "whoami", {}, bearer(bare))
    expect((await anonymous.json()).result.structuredContent).toEqual({ subject: "bob", clientId: null, scopes: [] })
  })

  it("takes a JWT of typ JWT too (Keycloak, Auth0 and Entra issue them): --token-type is off by default", async () => {
    const call = await statelessCall(demo.url, "whoami", {}, bearer(mint(issuer, resource, {}, "JWT")))
    expect(call.status).toBe(200)
    expect((await call.json()).result.structuredContent.subject).toBe("alice")
  })

  it("the other tools need only a valid token", async () => {
    const token = mint(issuer, resource, { scope: undefined })
    const simple = await statelessCall(demo.url, "test_simple_text", {}, bearer(token))
    expect(simple.status).toBe(200)
    expect((await simple.json()).result.content).toEqual([
      { type: "text", text: "This is a simple text response for testing." }
    ])
    const request = await openSession(demo.url, bearer(token))
    const add = await request(2, "tools/call", { name: "add", arguments: { a: 1, b: 2 } })
    expect((await add.json()).result.structuredContent).toEqual({ sum: 3 })
  })

  it("admin_echo without mcp:admin: 403 insufficient_scope naming it, in both eras; with it: the message", async () => {
    const plain = mint(issuer, resource)
    const challenge = `Bearer error="insufficient_scope", scope="mcp:admin", ` +
      `resource_metadata="${demo.origin}${metadataPath}"`
    const stateless = await statelessCall(demo.url, "admin_echo", { message: "hi" }, bearer(plain))
    expect(stateless.status).toBe(403)
    expect(stateless.headers.get("www-authenticate")).toBe(challenge)
    expect((await stateless.json()).id).toBe(7)
    const request = await openSession(demo.url, bearer(plain))
    const inSession = await request(2, "tools/call", { name: "admin_echo", arguments: { message: "hi" } })
    expect(inSession.status).toBe(403)
    expect(inSession.headers.get("www-authenticate")).toBe(challenge)
    await inSession.text()
    const admin = mint(issuer, resource, { scope: "mcp:tools mcp:admin" })
    const served = await statelessCall(demo.url, "admin_echo", { message: "hi" }, bearer(admin))
    expect(served.status).toBe(200)
    expect((await served.json()).result.content).toEqual([{ type: "text", text: "hi" }])
  })
})

describe("the demo's authorization flags", () => {
  let issuer: Issuer
  beforeAll(async () => {
    issuer = await startIssuer()
  })
  afterAll(async () => {
    await issuer?.close()
  })

  // Eight demo processes started one after another: on a loaded machine that is over the default 30 s.
  it("one without the other, or a URL that is none: refused in one line with the usage, exit 2", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, NodeJS.ProcessEnv, string]> = [
      [
        ["--resource", "http://127.0.0.1:3000/mcp"],
        environment(),
        "--resource needs --auth-issuer (or MCP_AUTH_ISSUER)"
      ],
      [["--auth-issuer", issuer.url], environment(), "--auth-issuer needs --resource (or MCP_RESOURCE)"],
      [[], environment({ MCP_AUTH_ISSUER: issuer.url }), "MCP_AUTH_ISSUER needs --resource (or MCP_RESOURCE)"],
      [[], environment({ MCP_RESOURCE: "http://127.0.0.1:3000/mcp" }), "MCP_RESOURCE needs --auth-issuer"],
      [["--auth-issuer", issuer.url, "--resource", "mcp"], environment(), `--resource must be an absolute URL`],
      [
        ["--auth-issuer", "http://auth.example", "--resource", "http://127.0.0.1:3000/mcp"],
        environment(),
        "--auth-issuer must be https (http only on loopback)"
      ],
      [["--token-type", "at+jwt"], environment(), "--token-type needs --auth-issuer and --resource"],
      [
        ["--auth-issuer", issuer.url, "--resource", "http://127.0.0.1:3000/mcp", "--token-type", "at jwt"],
        environment(),
        `--token-type must be a JWT typ (at+jwt, say), not "at jwt"`
      ]
    ]
    for (const [args, env, said] of cases) {
      const { code, stderr } = await refused(["http", "--port", String(await freePort()), ...args], env)
      expect([args, code]).toEqual([args, 2])
      expect(stderr.split("\n")[0]).toContain(said)
      expect(stderr).toContain("usage: ")
    }
  }, 120_000)

  it("--token-type at+jwt: RFC 9068 access tokens only; typ JWT (or another) is 401 invalid_token", async () => {
    const port = await freePort()
    const resource = `http://127.0.0.1:${port}/mcp`
    const demo = await startDemo(port, ["--auth-issuer", issuer.url, "--resource", resource, "--token-type", "at+jwt"])
    try {
      expect(demo.stderr()).toContain(`tokens of ${issuer.url} for ${resource} (typ at+jwt only)`)
      for (const typ of ["JWT", "jwt", "JOSE"]) {
        const refused = await statelessCall(demo.url, "whoami", {}, bearer(mint(issuer, resource, {}, typ)))
        expect([typ, refused.status]).toEqual([typ, 401])
        expect(refused.headers.get("www-authenticate")).toContain(`error="invalid_token"`)
        await refused.text()
      }
      for (const typ of ["at+jwt", "application/at+jwt"]) {
        const taken = await statelessCall(demo.url, "whoami", {}, bearer(mint(issuer, resource, {}, typ)))
        expect([typ, taken.status]).toEqual([typ, 200])
        expect((await taken.json()).result.structuredContent.subject).toBe("alice")
      }
    } finally {
      await demo.stop()
    }
  }, 30_000)

  it("MCP_AUTH_ISSUER and MCP_RESOURCE: the same as the flags", async () => {
    const port = await freePort()
    const resource = `http://127.0.0.1:${port}/mcp`
    const demo = await startDemo(port, [], environment({ MCP_AUTH_ISSUER: issuer.url, MCP_RESOURCE: resource }))
    try {
      const none = await statelessCall(demo.url, "whoami", {}, {})
      expect(none.status).toBe(401)
      await none.text()
      const call = await statelessCall(demo.url, "whoami", {}, bearer(mint(issuer, resource)))
      expect((await call.json()).result.structuredContent).toEqual({
        subject: "alice",
        clientId: "client-a",
        scopes: ["mcp:tools"]
      })
    } finally {
      await demo.stop()
    }
  }, 30_000)

  it("without them nothing changes: no token needed, no whoami, no admin_echo, no metadata", async () => {
    const demo = await startDemo(await freePort(), [])
    try {
      const request = await openSession(demo.url, {})
      const { tools } = (await (await request(2, "tools/list")).json()).result
      const names = tools.map((tool: { name: string }) => tool.name)
      expect(names).toContain("test_simple_text")
      expect(names).not.toContain("whoami")
      expect(names).not.toContain("admin_echo")
      expect((await fetch(`${demo.origin}${metadataPath}`)).status).toBe(404)
    } finally {
      await demo.stop()
    }
  }, 30_000)
})
