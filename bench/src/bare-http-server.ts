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
import { answer, headersOf } from "./bare-answer.js"
import { port, ready } from "./control.js"

/** The open listen streams, with their subscription ids. */
const listens = new Map<ServerResponse, unknown>()

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
    const text = answer(message)
    response.writeHead(200, headersOf(message, text)).end(text)
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
