/**
 * The official TypeScript SDK serving the `add` tool over sessionful Streamable HTTP on plain
 * `node:http`, the way its README and examples set it up: `@modelcontextprotocol/server` 2.4.0
 * for `McpServer`, `@modelcontextprotocol/node` 2.1.2 for `NodeStreamableHTTPServerTransport`,
 * the `Host` / `Origin` guards the node package recommends in front of a hand-wired server, and
 * a map from session id to transport: an `initialize` without a session id gets a new
 * `McpServer` and a new transport (registered under its id once the transport made one), any
 * other request is handed to the transport of its `Mcp-Session-Id`.
 *
 * The body is read and parsed here (as `express.json()` would) to tell an `initialize`, and
 * passed to the transport as its parsed body.
 *
 * `node dist/sdk-http-server.js --port N [--json]`: `--json` sets `enableJsonResponse: true`
 * (answers as `application/json`); without it the SDK's default applies (every POST request is
 * answered as an SSE stream that ends after the response).
 */
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport
} from "@modelcontextprotocol/node"
import { isInitializeRequest, McpServer } from "@modelcontextprotocol/server"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as z from "zod"
import { flag, port, ready } from "./control.js"

const enableJsonResponse = flag("json")

// The schemas are made once and shared by every session's server, so a session costs only the SDK's own state.
const inputSchema = z.object({ a: z.number(), b: z.number() })
const outputSchema = z.object({ sum: z.number() })

const newServer = () => {
  const server = new McpServer({ name: "sdk-add", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema, outputSchema },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } })
  )
  return server
}

const transports = new Map<string, NodeStreamableHTTPServerTransport>()

const validHost = localhostHostValidation()
const validOrigin = localhostOriginValidation()

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
  if (!validHost(request, response) || !validOrigin(request, response)) return
  const header = request.headers["mcp-session-id"]
  const sessionId = typeof header === "string" ? header : undefined
  const body = request.method === "POST" ? await readJson(request) : undefined
  let transport = sessionId === undefined ? undefined : transports.get(sessionId)
  if (transport === undefined) {
    if (sessionId !== undefined) return fail(response, 404, "Session not found")
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return fail(response, 400, "Bad Request: no valid session ID")
    }
    const created = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse,
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

createServer((request, response) => {
  handle(request, response).catch((error) => {
    if (!response.headersSent) fail(response, 500, String(error))
    else response.end()
  })
}).listen(port(), "127.0.0.1", ready)
