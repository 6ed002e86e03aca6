/**
 * Quotas no client can squat, at the wire, on both ways of serving HTTP (`node:http` directly,
 * and an @effect/platform router): each counts against the request's holder, the token's holder
 * where there is a token, else the client's address, never the name a client gives itself.
 *
 * - 2026-07-28 without a token: a task belongs to its client's address. Another client, under the
 *   very same `clientInfo` name, neither reads it nor is locked out by the first one's tasks; one
 *   client under another name is still itself;
 * - `X-Forwarded-For` tells clients apart only with `trustedProxies`; otherwise a client naming
 *   another address in it is still the address it comes from;
 * - with tokens: one subject holds at most its share (a tenth by default) of the sessions and of
 *   the 2026-07-28 listens; another subject is still served.
 */
import { AuthInfo, McpServer, TaskStore, TokenVerifier, Tool } from "@effect-mcp/server"
import { HttpTransport } from "@effect-mcp/server"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as http from "node:http"
import { onTestFinished } from "vitest"
import * as NodeMcpServer from "../src/NodeMcpServer.js"
import { ACCEPT, freePort, SseReader } from "./utils/http.js"

const V = "2026-07-28"
const TASKS = "io.modelcontextprotocol/tasks"

/** A task that runs until the server stops. */
const Wait = Tool.make("wait", { task: "required" }, () => Effect.never)

const paths = ["NodeMcpServer.layerHttp", "HttpLayerRouter.serve(HttpTransport.layer)"] as const

interface Server {
  readonly url: string
  /** What the server logged, each message as text. */
  readonly logged: ReadonlyArray<string>
}

/**
 * A server on `path` (on `port`) with `options` and `server` options, tasks kept at most 3 per
 * owner; stopped when the test ends.
 */
const serve = async (
  path: typeof paths[number],
  port: number,
  options: Omit<NodeMcpServer.HttpOptions, "port">,
  server: Partial<McpServer.Options<never>>
): Promise<Server> => {
  const transport: Layer.Layer<never, unknown, McpServer.McpServer> = path === "NodeMcpServer.layerHttp"
    ? NodeMcpServer.layerHttp({ port, ...options })
    : HttpLayerRouter.serve(HttpTransport.layer(options), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(NodeHttpServer.layer(http.createServer, { port, host: "127.0.0.1" }))
    )
  const layer = transport.pipe(
    Layer.provideMerge(McpServer.layer({
      serverInfo: { name: "quotas", version: "1.0.0" },
      revisions: ["2025-11-25", V],
      requestStateKey: Redacted.make("the requestState key of the quotas test, 32+ bytes"),
      tools: [Wait],
      ...server
    })),
    Layer.provide(TaskStore.layerMemory({ maxTasksPerOwner: 3 }))
  )
  const logged: Array<string> = []
  const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message))))
  const runtime = ManagedRuntime.make(Layer.provide(layer, logger))
  await runtime.runPromise(Effect.void)
  onTestFinished(() => runtime.dispose())
  return { url: `http://127.0.0.1:${port}/mcp`, logged }
}

/** A server without authorization. */
const start = async (path: typeof paths[number], options: Omit<NodeMcpServer.HttpOptions, "port"> = {}) =>
  serve(path, await freePort(), options, {})

let ids = 0

/** One 2026-07-28 request from client `name` with `headers`: the response. */
const request = (
  server: Server,
  method: string,
  params: Record<string, unknown>,
  options: { readonly name?: string; readonly headers?: Record<string, string>; readonly signal?: AbortSignal } = {}
) => {
  const headers: Record<string, string> = {
    accept: ACCEPT,
    "content-type": "application/json",
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...options.headers
  }
  const named = method === "tools/call" ? params.name : params.taskId
  if (typeof named === "string") headers["mcp-name"] = named
  return fetch(server.url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++ids,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
          "io.modelcontextprotocol/clientInfo": { name: options.name ?? "popular-client", version: "1.0.0" }
        }
      }
    }),
    ...(options.signal !== undefined ? { signal: options.signal } : {})
  })
}

/** A `wait` task of client `name` (from `forwardedFor` when given): its id, or the error. */
const task = async (server: Server, name: string, forwardedFor?: string) => {
  const response = await request(server, "tools/call", { name: "wait", arguments: {} }, {
    name,
    ...(forwardedFor !== undefined ? { headers: { "x-forwarded-for": forwardedFor } } : {})
  })
  const body = await response.json()
  return body.result?.resultType === "task" ? { taskId: body.result.taskId as string } : { error: body.error }
}

const get = async (server: Server, taskId: string, name: string, forwardedFor: string) => {
  const response = await request(server, "tasks/get", { taskId }, {
    name,
    headers: { "x-forwarded-for": forwardedFor }
  })
  return response.json()
}

// ---------------------------------------------------------------------------- tokens

/** A verifier of one's own: the token's text is its subject. */
const verifier = (resource: { url: string }) =>
  TokenVerifier.make((token) =>
    Effect.sync(() =>
      new AuthInfo.AuthInfo({
        subject: token,
        clientId: Option.none(),
        scopes: [],
        expiresAt: Option.none(),
        audience: [resource.url],
        issuer: Option.none(),
        claims: {},
        token: Redacted.make(token)
      })
    )
  )

/** A server with authorization on, whose tokens are their subjects. */
const withTokens = async (
  path: typeof paths[number],
  options: Omit<NodeMcpServer.HttpOptions, "port" | "auth">,
  server: Partial<McpServer.Options<never>>
) => {
  const port = await freePort()
  const resource = { url: `http://127.0.0.1:${port}/mcp` }
  return serve(path, port, {
    ...options,
    auth: { resource: resource.url, authorizationServers: ["https://issuer.example"], verifier: verifier(resource) }
  }, server)
}

/** `initialize` with the token of `subject`: the status, and the session id when one was made. */
const open = async (server: Server, subject: string) => {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { accept: ACCEPT, "content-type": "application/json", authorization: `Bearer ${subject}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++ids,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "same-name", version: "1" } }
    })
  })
  const body = await response.json()
  return { status: response.status, session: response.headers.get("mcp-session-id"), body }
}

// ---------------------------------------------------------------------------- the tests

for (const path of paths) {
  describe(`quotas per holder [${path}]`, () => {
    it("2026-07-28 without a token: tasks are the address's, not the name's; another address under the same name neither reads them nor is locked out", async () => {
      const server = await start(path, { trustedProxies: 1 })
      const a = "203.0.113.1"
      const b = "203.0.113.2"
      const mine = [await task(server, "popular-client", a), await task(server, "popular-client", a)]
      mine.push(await task(server, "popular-client", a))
      for (const t of mine) expect(t).toHaveProperty("taskId")
      // Its share (maxTasksPerOwner 3) is full: under this name or any other.
      for (const name of ["popular-client", "fresh-name"]) {
        const refused = await task(server, name, a)
        expect(refused).toHaveProperty("error")
        expect((refused as { error: { message: string } }).error.message).toMatch(/Too many tasks/)
      }
      // Another client, calling itself popular-client too: not locked out, and cannot read the first one's.
      const theirs = await task(server, "popular-client", b)
      expect(theirs).toHaveProperty("taskId")
      const foreign = await get(server, (mine[0] as { taskId: string }).taskId, "popular-client", b)
      expect(foreign.error?.code).toBe(-32602)
      const own = await get(server, (mine[0] as { taskId: string }).taskId, "any-name", a)
      expect(own.result?.status).toBe("working")
    })

    it("X-Forwarded-For is not read without trustedProxies: a client naming other addresses in it is still its own", async () => {
      const server = await start(path)
      for (let i = 0; i < 3; i++) expect(await task(server, `name-${i}`, `198.51.100.${i}`)).toHaveProperty("taskId")
      const refused = await task(server, "name-9", "198.51.100.9")
      expect((refused as { error: { message: string } }).error.message).toMatch(/Too many tasks/)
      // Said once: a proxy forwards addresses that nobody reads (trustedProxies is 0).
      expect(server.logged.filter((line) => line.includes("X-Forwarded-For")).length).toBe(1)
      expect(server.logged.find((line) => line.includes("X-Forwarded-For"))).toContain("set trustedProxies")
    })

    it("with tokens: one subject holds at most its share of the sessions (a tenth); another subject is served", async () => {
      const server = await withTokens(path, { maxSessions: 20 }, {})
      const first = [await open(server, "alice"), await open(server, "alice")]
      expect(first.map((o) => o.status)).toEqual([200, 200])
      const refused = await open(server, "alice")
      expect(refused.status).toBe(503)
      expect(refused.session).toBeNull()
      expect(refused.body.error.message).toContain("maxSessionsPerHolder")
      expect((await open(server, "bob")).status).toBe(200)
      // One of alice's ends: her share has room again.
      const ended = await fetch(server.url, {
        method: "DELETE",
        headers: {
          authorization: "Bearer alice",
          "mcp-session-id": first[0].session!,
          "mcp-protocol-version": "2025-11-25"
        }
      })
      expect(ended.status).toBe(200)
      expect((await open(server, "alice")).status).toBe(200)
    })

    it("with tokens: one subject holds at most its share of the 2026-07-28 listens; another subject's is acknowledged", async () => {
      const server = await withTokens(path, {}, { maxSubscriptions: 10 })
      const listen = (subject: string, signal: AbortSignal) =>
        request(server, "subscriptions/listen", { notifications: { toolsListChanged: true } }, {
          headers: { authorization: `Bearer ${subject}` },
          signal
        })
      const held = new AbortController()
      onTestFinished(() => held.abort())
      const first = await listen("alice", held.signal)
      expect(first.status).toBe(200)
      expect((await new SseReader(first).message()).method).toBe("notifications/subscriptions/acknowledged")
      const refused = await listen("alice", held.signal)
      expect(refused.status).toBe(503)
      const body = await refused.json()
      expect(body.error).toMatchObject({ code: -32000, data: { limit: "maxSubscriptionsPerHolder", max: 1 } })
      const bob = await listen("bob", held.signal)
      expect(bob.status).toBe(200)
      expect((await new SseReader(bob).message()).method).toBe("notifications/subscriptions/acknowledged")
    })
  })
}
