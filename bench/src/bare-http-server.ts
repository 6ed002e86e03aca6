/**
 * The floor of the HTTP benchmark: plain `node:http` and one JSON endpoint, nothing of MCP but
 * the answers' shape. The body is read, `JSON.parse`d and answered with a `JSON.stringify`d
 * JSON-RPC result: `tools/call` with the sum of its arguments, anything else with `{}`
 * (`initialize` also gets a constant `Mcp-Session-Id` so the benchmark client treats every
 * server alike); a notification gets 202. No session map, no validation, no routing.
 *
 * `node dist/bare-http-server.js --port N`
 */
import { createServer } from "node:http"
import { port, ready } from "./control.js"

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    if (message.id === undefined) {
      response.writeHead(202).end()
      return
    }
    let result: unknown = {}
    if (message.method === "tools/call") {
      const sum = message.params.arguments.a + message.params.arguments.b
      result = { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } }
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

server.listen(port(), "127.0.0.1", ready)
