/**
 * Quotas where the HTTP platform gives no client address: fetch handlers
 * (`HttpLayerRouter.toWebHandler`: Deno, Bun, Cloudflare Workers, Next.js route handlers), whose
 * requests have no `remoteAddress`. At the wire, JSON text in and out through the web handler.
 *
 * - nothing names a client without a token, so none is a holder: the per-holder shares
 *   (sessions, listens, tasks) are off for them, only the global caps apply; before, every such
 *   client was one holder, "unknown", and a few clients filled a tenth of each cap for everyone
 *   (the 3rd distinct client's `initialize` got 503);
 * - a 2026-07-28 task is then kept under an owner of its own: one client's tasks do not fill
 *   `maxTasksPerOwner` for others, and the task is reached by whoever holds its unguessable id;
 * - said once in the log;
 * - `holderOf` names the client from the request (`CF-Connecting-IP`, say): shares per holder
 *   again, a holder's task is not another's (nor an unnamed client's), and nothing is said while
 *   it names every client;
 * - off Cloudflare Workers (here Node), `CF-Connecting-IP` is not read unless `holderOf` says so:
 *   a client may write it (on a Worker, where Cloudflare's edge sets it, it is the default holder:
 *   test/runtimes/Workerd.test.ts).
 */
import { HttpTransport, McpServer, TaskStore, Tool } from "@effect-mcp/server"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import { onTestFinished } from "vitest"

const V = "2026-07-28"
const TASKS = "io.modelcontextprotocol/tasks"
const ACCEPT = "application/json, text/event-stream"

/** A task that runs until the server stops. */
const Wait = Tool.make("wait", { task: "required" }, () => Effect.never)

interface Server {
  readonly handle: (request: Request) => Promise<Response>
  /** What the server logged, each message as text. */
  readonly logged: ReadonlyArray<string>
}

/**
 * The MCP endpoints as a web handler (no client address, as a fetch platform gives none): 20
 * sessions, 20 listens, 3 tasks an owner; `options` for the transport.
 */
const serve = (options: HttpTransport.Options = {}): Server => {
  const logged: Array<string> = []
  const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message))))
  const app = HttpTransport.layer({ maxSessions: 20, ...options }).pipe(
    Layer.provideMerge(McpServer.layer({
      serverInfo: { name: "no-address", version: "1.0.0" },
      revisions: ["2025-11-25", V],
      requestStateKey: Redacted.make("the requestState key of the no-address test, 32+ bytes"),
      tools: [Wait],
      maxSubscriptions: 20
    })),
    Layer.provide(TaskStore.layerMemory({ maxTasksPerOwner: 3 })),
    Layer.provide(logger)
  )
  const { dispose, handler } = HttpLayerRouter.toWebHandler(app, { disableLogger: true })
  onTestFinished(() => dispose())
  return { handle: (request) => handler(request), logged }
}

const url = "http://localhost/mcp"
let ids = 0

/** One 2026-07-28 request with `headers` (a holder's header, say): the response. */
const request = (
  server: Server,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal
) => {
  const named = method === "tools/call" ? params.name : params.taskId
  return server.handle(
    new Request(url, {
      method: "POST",
      headers: {
        host: "localhost",
        accept: ACCEPT,
        "content-type": "application/json",
        "mcp-protocol-version": V,
        "mcp-method": method,
        ...(typeof named === "string" ? { "mcp-name": named } : {}),
        ...headers
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++ids,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
            "io.modelcontextprotocol/clientInfo": { name: "some-client", version: "1.0.0" }
          }
        }
      }),
      ...(signal !== undefined ? { signal } : {})
    })
  )
}

/** A `wait` task: its id, or the error. */
const task = async (server: Server, headers: Record<string, string> = {}) => {
  const body = await (await request(server, "tools/call", { name: "wait", arguments: {} }, headers)).json()
  return body.result?.resultType === "task" ? { taskId: body.result.taskId as string } : { error: body.error }
}

const get = async (server: Server, taskId: string, headers: Record<string, string> = {}) =>
  (await request(server, "tasks/get", { taskId }, headers)).json()

/** `initialize` (2025-11-25) with `headers`: the status, and the error's message when refused. */
const open = async (server: Server, headers: Record<string, string> = {}) => {
  const response = await server.handle(
    new Request(url, {
      method: "POST",
      headers: { host: "localhost", accept: ACCEPT, "content-type": "application/json", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++ids,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "same", version: "1" } }
      })
    })
  )
  const body = await response.json()
  return { status: response.status, message: body.error?.message as string | undefined }
}

/** A listen held open (until the test ends): the status, and its first message when it is a stream. */
const listen = async (server: Server, headers: Record<string, string> = {}) => {
  const held = new AbortController()
  onTestFinished(() => held.abort())
  const response = await request(
    server,
    "subscriptions/listen",
    { notifications: { toolsListChanged: true } },
    headers,
    held.signal
  )
  if (response.status !== 200) return { status: response.status, first: await response.json() }
  // The first SSE event: its data line.
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ""
  while (!text.includes("\n\n")) {
    const { done, value } = await reader.read()
    if (done) break
    text += value
  }
  const data = text.split("\n").find((line) => line.startsWith("data:"))
  return { status: response.status, first: data === undefined ? undefined : JSON.parse(data.slice(5)) }
}

const unnamedWarning = (server: Server) => server.logged.filter((line) => line.includes("gives no client address"))

describe("HTTP with no client address (HttpLayerRouter.toWebHandler)", () => {
  it("no holder: five clients open sessions past a tenth of maxSessions, and listens past a tenth of maxSubscriptions; said once", async () => {
    const server = serve()
    // A tenth of 20 is 2: every client used to be one holder, "unknown".
    const sessions = []
    for (let i = 0; i < 5; i++) sessions.push(await open(server))
    expect(sessions.map((s) => s.status)).toEqual([200, 200, 200, 200, 200])
    const listens = []
    for (let i = 0; i < 3; i++) listens.push(await listen(server))
    expect(listens.map((l) => [l.status, l.first?.method])).toEqual(
      Array(3).fill([200, "notifications/subscriptions/acknowledged"])
    )
    expect(unnamedWarning(server)).toHaveLength(1)
    expect(unnamedWarning(server)[0]).toContain("set holderOf")
  })

  it("2026-07-28 tasks: one client's do not fill maxTasksPerOwner for the others; a task is reached by its id", async () => {
    const server = serve()
    const made = []
    for (let i = 0; i < 5; i++) made.push(await task(server))
    for (const t of made) expect(t).toHaveProperty("taskId")
    // Any request holding the id reaches the task (nothing else names its client); an id nobody
    // was given is unknown.
    const first = made[0] as { taskId: string }
    expect((await get(server, first.taskId)).result?.status).toBe("working")
    expect((await get(server, "not-a-task-anyone-was-given")).error?.code).toBe(-32602)
    expect(unnamedWarning(server)).toHaveLength(1)
  })

  it("off Workers CF-Connecting-IP names no one by default: listens of one client past its share, still said once", async () => {
    const server = serve()
    const a = { "cf-connecting-ip": "203.0.113.1" }
    // A tenth of 20 is 2: a third listen of one holder would be refused.
    const listens = []
    for (let i = 0; i < 3; i++) listens.push(await listen(server, a))
    listens.push(await listen(server, { "cf-connecting-ip": "203.0.113.2" }))
    expect(listens.map((l) => [l.status, l.first?.method])).toEqual(
      Array(4).fill([200, "notifications/subscriptions/acknowledged"])
    )
    expect(unnamedWarning(server)).toHaveLength(1)
  })

  it("holderOf names the client (CF-Connecting-IP): a share per holder again; a holder's task is neither another's nor an unnamed client's; said only once a client is not named", async () => {
    const server = serve({ holderOf: (exchange) => exchange.header("cf-connecting-ip") })
    const a = { "cf-connecting-ip": "203.0.113.1" }
    const b = { "cf-connecting-ip": "203.0.113.2" }
    expect([(await open(server, a)).status, (await open(server, a)).status]).toEqual([200, 200])
    const refused = await open(server, a)
    expect(refused.status).toBe(503)
    expect(refused.message).toContain("maxSessionsPerHolder")
    expect((await open(server, b)).status).toBe(200)
    // Tasks: 3 a holder.
    const mine = [await task(server, a), await task(server, a), await task(server, a)]
    for (const t of mine) expect(t).toHaveProperty("taskId")
    expect((await task(server, a)).error?.message).toMatch(/Too many tasks/)
    expect(await task(server, b)).toHaveProperty("taskId")
    const taskId = (mine[0] as { taskId: string }).taskId
    expect((await get(server, taskId, a)).result?.status).toBe("working")
    expect((await get(server, taskId, b)).error?.code).toBe(-32602)
    // Every client named so far: nothing said.
    expect(unnamedWarning(server)).toHaveLength(0)
    // A request the header does not name: no holder, and not the task's.
    expect((await get(server, taskId)).error?.code).toBe(-32602)
    expect(unnamedWarning(server)).toHaveLength(1)
  })
})
