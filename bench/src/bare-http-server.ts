/**
 * The floor of the HTTP benchmarks: plain `node:http` and one JSON endpoint, nothing of MCP but
 * the answers' shape. The body is read, `JSON.parse`d and answered with a `JSON.stringify`d
 * JSON-RPC result: `tools/call` with the sum of its arguments, as the same JSON the MCP servers
 * of the benchmarks answer (byte for byte, our `add` tool's), anything else with `{}`
 * (`initialize` also gets a constant `Mcp-Session-Id` so the benchmark client treats every
 * server alike); a notification gets 202. No session map, no validation, no routing; headers
 * are not read, so the handshake-era and the 2026-07-28 requests are answered alike.
 *
 * `subscriptions/listen` is answered with an SSE stream held open: its first event is
 * `notifications/subscriptions/acknowledged`; the control command `addTool` (`control.ts`)
 * writes one `notifications/tools/list_changed` event to every open stream and answers
 * `added <n streams>` (`subscriptions` answers `subscriptions <n>`): the floor of the idle-listen
 * benchmark.
 *
 * `node dist/bare-http-server.js --port N`
 */
import { createServer, type ServerResponse } from "node:http"
import { port, ready } from "./control.js"

/** The open listen streams, with their subscription ids. */
const listens = new Map<ServerResponse, unknown>()

/** What a 2026-07-28 result carries in `_meta`: the server's identity (here, the bench's `add` server's). */
const statelessMeta = { "io.modelcontextprotocol/serverInfo": { name: "bench-add", version: "1.0.0" } }

const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    if (message.id === undefined) {
      response.writeHead(202).end()
      return
    }
    if (message.method === "subscriptions/listen") {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      response.write(event({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": message.id } }
      }))
      listens.set(response, message.id)
      response.on("close", () => listens.delete(response))
      return
    }
    let result: unknown = {}
    if (message.method === "tools/call") {
      // The JSON the MCP servers answer: the structured value, and its text; in the stateless
      // revision (2026-07-28, named in the request's `_meta`) also `resultType` and the server's
      // identity in `_meta`, as the revision has every result carry them.
      const structuredContent = { sum: message.params.arguments.a + message.params.arguments.b }
      const content = [{ type: "text", text: JSON.stringify(structuredContent) }]
      result = message.params._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28"
        ? { content, structuredContent, resultType: "complete", _meta: statelessMeta }
        : { content, structuredContent }
    } else if (message.method === "initialize") {
      result = {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "bare", version: "1.0.0" }
      }
    }
    const text = JSON.stringify({ jsonrpc: "2.0", id: message.id, result })
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text)
    }
    if (message.method === "initialize") headers["mcp-session-id"] = "bare"
    response.writeHead(200, headers).end(text)
  })
})

server.listen(port(), "127.0.0.1", () =>
  ready({
    addTool: async () => {
      for (const [response, id] of listens) {
        response.write(event({
          jsonrpc: "2.0",
          method: "notifications/tools/list_changed",
          params: { _meta: { "io.modelcontextprotocol/subscriptionId": id } }
        }))
      }
      return `added ${listens.size}`
    },
    subscriptions: async () => `subscriptions ${listens.size}`
  }))
