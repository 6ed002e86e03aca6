/**
 * The official TypeScript SDK 1.x (`@modelcontextprotocol/sdk` 1.32.2, the line with
 * experimental server tasks) serving the tasks benchmark's tool over sessionful Streamable HTTP
 * (2025-11-25) on plain `node:http`, the way its `simpleStreamableHttp` example sets tasks up:
 * one `InMemoryTaskStore` and one `InMemoryTaskMessageQueue` shared by every session's
 * `McpServer` (the capability `tasks: { list, cancel, requests: { tools: { call } } }`), a map
 * from session id to `StreamableHTTPServerTransport` (DNS-rebinding protection on: `Host` must
 * be `127.0.0.1:<port>`, as ours checks it), and
 *
 * - `sleep` (`{ ms }`), registered with `server.experimental.tasks.registerToolTask`
 *   (`taskSupport: "optional"`): `createTask` makes the task (the client's ttl, else
 *   `--task-ttl`, poll interval 100 ms) and finishes it `ms` later with `storeTaskResult`
 *   (`"done"`), `getTask` / `getTaskResult` read the store;
 * - `sleep-plain`, the same work registered with `registerTool`: the plain call, the floor. (A
 *   plain call of the task tool is not one in this SDK: it creates a task and polls the store
 *   every poll interval until it ends.)
 *
 * The store sweeps each task one ttl after it ended (a timer per task), not after its creation.
 *
 * The floor of a working task's memory, its handler alone: control commands (`control.ts`)
 * `floor-start` → `floor N`, N (`--floor-fibers`, default 1,000) timers of an hour, what a task's
 * `createTask` sets (with none of the task around it), and `floor-stop` → `floored`, clearing them.
 *
 * `node dist/sdk-tasks-server.js --port N [--task-ttl ms]`
 */
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as z from "zod"
import { port, ready } from "./control.js"

const listen = port()
const at = process.argv.indexOf("--task-ttl")
const taskTtl = at > 0 ? Number(process.argv[at + 1]) : 60_000

const taskStore = new InMemoryTaskStore()
const taskMessageQueue = new InMemoryTaskMessageQueue()
const inputSchema = { ms: z.number() }
const done = { content: [{ type: "text" as const, text: "done" }] }

const newServer = () => {
  const server = new McpServer({ name: "sdk-tasks", version: "1.0.0" }, {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore,
    taskMessageQueue
  })
  server.experimental.tasks.registerToolTask("sleep", {
    description: "Sleeps for ms milliseconds, then answers done",
    inputSchema,
    execution: { taskSupport: "optional" }
  }, {
    createTask: async ({ ms }, { taskStore, taskRequestedTtl }) => {
      const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? taskTtl, pollInterval: 100 })
      setTimeout(() => {
        taskStore.storeTaskResult(task.taskId, "completed", done).catch((error) =>
          process.stderr.write(`sdk: ${String(error)}\n`)
        )
      }, ms)
      return { task }
    },
    getTask: async (_args, { taskId, taskStore }) => taskStore.getTask(taskId),
    getTaskResult: async (_args, { taskId, taskStore }) => taskStore.getTaskResult(taskId) as Promise<typeof done>
  })
  server.registerTool("sleep-plain", {
    description: "Sleeps for ms milliseconds, then answers done",
    inputSchema
  }, async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms))
    return done
  })
  return server
}

const transports = new Map<string, StreamableHTTPServerTransport>()

const readJson = (request: IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      try {
        resolve(chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8")))
      } catch (error) {
        reject(error)
      }
    })
    request.on("error", reject)
  })

const fail = (response: ServerResponse, status: number, message: string) => {
  response.writeHead(status, { "content-type": "application/json" }).end(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } })
  )
}

const handle = async (request: IncomingMessage, response: ServerResponse) => {
  const header = request.headers["mcp-session-id"]
  const sessionId = typeof header === "string" ? header : undefined
  const body = request.method === "POST" ? await readJson(request) : undefined
  let transport = sessionId === undefined ? undefined : transports.get(sessionId)
  if (transport === undefined) {
    if (sessionId !== undefined) return fail(response, 404, "Session not found")
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return fail(response, 400, "Bad Request: no valid session ID")
    }
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${listen}`],
      onsessioninitialized: (id) => {
        transports.set(id, created)
      }
    })
    created.onclose = () => {
      if (created.sessionId !== undefined) transports.delete(created.sessionId)
    }
    await newServer().connect(created)
    transport = created
  }
  await transport.handleRequest(request, response, body)
}

const floorAt = process.argv.indexOf("--floor-fibers")
const floorCount = floorAt > 0 ? Number(process.argv[floorAt + 1]) : 1_000
const floor: { timers: Array<NodeJS.Timeout> } = { timers: [] }
const floorCommands = {
  "floor-start": async () => {
    for (let i = 0; i < floorCount; i++) {
      floor.timers.push(setTimeout(() => {
        taskStore.getTask("none").catch(() => undefined)
      }, 3_600_000))
    }
    return `floor ${floor.timers.length}`
  },
  "floor-stop": async () => {
    for (const timer of floor.timers) clearTimeout(timer)
    floor.timers = []
    return "floored"
  }
}

createServer((request, response) => {
  handle(request, response).catch((error) => {
    if (!response.headersSent) fail(response, 500, String(error))
    else response.end()
  })
}).listen(listen, "127.0.0.1", () => ready(floorCommands))
