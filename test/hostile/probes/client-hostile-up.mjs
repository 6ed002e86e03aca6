// A hostile stdio MCP server (2025-11-25, JSON lines) for client-hostile.mjs: CASE (argv[2]) says how it
// answers tools/list and tools/call. Bounded: at most 1 GiB written, and it stops when its stdout closes.
import * as readline from "node:readline"

const kase = process.argv[2]
const N = Number(process.env.N ?? "1000000")
let closed = false
process.stdout.on("error", () => { closed = true; process.exit(0) })
const line = (m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n"
const send = (m) => process.stdout.write(line(m))
/** Writes `chunks` (a generator of strings) with back-pressure. */
const pump = (chunks) => new Promise((done) => {
  const more = () => {
    for (;;) {
      if (closed) return done()
      const next = chunks.next()
      if (next.done) return done()
      if (!process.stdout.write(next.value)) return void process.stdout.once("drain", more)
    }
  }
  more()
})
const tool = (name, description = name) => ({ name, description, inputSchema: { type: "object" } })
const answered = new Map() // our asks' answers by id
let asking
let lists = 0

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", async (text) => {
  const m = JSON.parse(text)
  if (m.method === undefined) {
    answered.set(m.id, m)
    return asking?.()
  }
  const id = m.id
  switch (m.method) {
    case "initialize":
      return send({ id, result: { protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true }, logging: {} }, serverInfo: { name: "hostile", version: "1" } } })
    case "tools/list": {
      lists++
      const cursor = Number(m.params?.cursor ?? "0")
      if (kase === "pages-endless") return send({ id, result: { tools: [tool(`t${cursor}`)], nextCursor: String(cursor + 1) } })
      if (kase === "pages-repeat") return send({ id, result: { tools: [tool(`t${cursor}`)], nextCursor: cursor === 0 ? "1" : "0" } })
      if (kase === "tools-100k") {
        // PAGES (default 100) pages of 1,000 tools.
        const tools = Array.from({ length: 1000 }, (_, i) => tool(`t${cursor * 1000 + i}`, `tool ${cursor * 1000 + i}`))
        return send({ id, result: { tools, ...(cursor < Number(process.env.PAGES ?? "100") - 1 ? { nextCursor: String(cursor + 1) } : {}) } })
      }
      if (kase === "tools-50mb") return send({ id, result: { tools: [tool("big", "d".repeat(50 * 1024 * 1024))] } })
      return send({ id, result: { tools: [tool("go"), tool("lists")] } })
    }
    case "tools/call":
      break
    default:
      return id === undefined ? undefined : send({ id, result: {} })
  }
  const done = (text) => send({ id, result: { content: [{ type: "text", text }] } })
  if (m.params?.name === "lists") return done(String(lists))
  const token = m.params?._meta?.progressToken
  switch (kase) {
    case "big": // one 200 MB line
      return pump((function*() {
        yield `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`
        for (let i = 0; i < 200; i++) yield "x".repeat(1024 * 1024)
        yield `"}]}}\n`
      })())
    case "endless": // a line that never ends (1 GiB at most)
      return pump((function*() {
        yield `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"pad":"`
        for (let i = 0; i < 1024; i++) yield "x".repeat(1024 * 1024)
      })())
    case "notify": // N notifications (logs, progress, list changes) while the call is in flight, then the answer
      await pump((function*() {
        for (let i = 0; i < N; i++) {
          yield i % 3 === 0
            ? line({ method: "notifications/message", params: { level: "info", data: `log ${i}` } })
            : i % 3 === 1
            ? line({ method: "notifications/progress", params: { progressToken: token ?? "none", progress: i } })
            : line({ method: "notifications/tools/list_changed" })
        }
      })())
      return done(`sent ${N}`)
    case "storm": // N list changes, then the answer
      await pump((function*() {
        for (let i = 0; i < N; i++) yield line({ method: "notifications/tools/list_changed" })
      })())
      return done(`sent ${N}, listed ${lists} times so far`)
    case "deep": { // an answer 10,000 levels deep
      const depth = 10_000
      return process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"deep"}],"deep":${"[".repeat(depth)}${"]".repeat(depth)}}}\n`)
    }
    case "ids": // unknown ids, answers to requests never made, the answer twice
      for (let i = 0; i < 1000; i++) send({ id: 100000 + i, result: { content: [] } })
      send({ id: "never-asked", error: { code: -32603, message: "to nothing" } })
      done("first")
      return done("second")
    case "asks": { // N asks of each kind at once; answered when every ask has its answer
      const kinds = ["sampling/createMessage", "elicitation/create", "roots/list"]
      const params = {
        "sampling/createMessage": { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 },
        "elicitation/create": { message: "?", requestedSchema: { type: "object", properties: {} } },
        "roots/list": {}
      }
      const total = N * kinds.length
      for (let i = 0; i < total; i++) send({ id: `ask-${i}`, method: kinds[i % 3], params: params[kinds[i % 3]] })
      await new Promise((resolve) => { asking = () => answered.size >= total && resolve(); asking() })
      const codes = {}
      for (const a of answered.values()) { const k = a.error ? `error ${a.error.code}` : "result"; codes[k] = (codes[k] ?? 0) + 1 }
      return done(JSON.stringify(codes))
    }
    default:
      return done("ok")
  }
})
