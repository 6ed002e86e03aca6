// A hostile Streamable HTTP MCP server (2025-11-25) on 127.0.0.1 for client-hostile.mjs: CASE (argv[2]) says how
// it answers tools/call; prints `PORT n` once it listens. Bounded: at most 1 GiB a response, 60 s a stream.
import * as http from "node:http"

const kase = process.argv[2]
const N = Number(process.env.N ?? "1000000")
const json = (res, body, headers = {}) => { res.writeHead(200, { "content-type": "application/json", ...headers }); res.end(JSON.stringify(body)) }
/** Writes `chunks` with back-pressure until done, the client gone, or 60 s. */
const pump = (res, chunks) => new Promise((done) => {
  const end = Date.now() + 60_000
  let gone = false
  res.on("close", () => { gone = true; done() })
  const more = () => {
    for (;;) {
      if (gone || Date.now() > end) return done(res.end())
      const next = chunks.next()
      if (next.done) return done(res.end())
      if (!res.write(next.value)) return void res.once("drain", more)
    }
  }
  more()
})
const event = (m) => `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", ...m })}\n\n`
http.createServer((req, res) => {
  if (req.method !== "POST") { res.writeHead(req.method === "DELETE" ? 200 : 405); return res.end() }
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    const m = JSON.parse(Buffer.concat(chunks).toString())
    const id = m.id
    if (m.method === "initialize") return json(res, { jsonrpc: "2.0", id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {}, logging: {} }, serverInfo: { name: "hostile-http", version: "1" } } }, { "mcp-session-id": "s1" })
    if (id === undefined) { res.writeHead(202); return res.end() }
    if (m.method !== "tools/call") return json(res, { jsonrpc: "2.0", id, result: m.method === "tools/list" ? { tools: [{ name: "go", inputSchema: { type: "object" } }] } : {} })
    switch (kase) {
      case "http-big": // one 200 MB JSON body, no Content-Length
        res.writeHead(200, { "content-type": "application/json" })
        return pump(res, (function*() {
          yield `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`
          for (let i = 0; i < 200; i++) yield "x".repeat(1024 * 1024)
          yield `"}]}}`
        })())
      case "sse-endless": // an SSE event that never ends (no blank line)
        res.writeHead(200, { "content-type": "text/event-stream" })
        return pump(res, (function*() {
          yield "event: message\ndata: {\"pad\":\""
          for (let i = 0; i < 1024; i++) yield "x".repeat(1024 * 1024)
        })())
      case "sse-tiny": // an endless stream of tiny events (logs), never the answer
        res.writeHead(200, { "content-type": "text/event-stream" })
        return pump(res, (function*() {
          for (let i = 0; i < 1e9; i++) yield event({ method: "notifications/message", params: { level: "debug", data: i } })
        })())
      case "sse-notify": // N notifications on the call's stream, then the answer
        res.writeHead(200, { "content-type": "text/event-stream" })
        return pump(res, (function*() {
          for (let i = 0; i < N; i++) {
            yield i % 2 === 0
              ? event({ method: "notifications/message", params: { level: "info", data: `log ${i}` } })
              : event({ method: "notifications/tools/list_changed" })
          }
          yield event({ id, result: { content: [{ type: "text", text: `sent ${N}` }] } })
        })())
    }
  })
}).listen(0, "127.0.0.1", function() { console.log(`PORT ${this.address().port}`) })
