// Probe (run with --expose-gc): a task whose handler returns MB megabytes (default 100) of text, in
// process (`McpServer` and `HttpTransport.toWebHandler` from packages/server/dist, 2026-07-28 and
// the tasks extension). The in-memory store keeps a record of at most `maxRecordBytes` (4 Mi): the
// task ends `failed` saying its result is too large, and what it returned is let go of. Prints the
// task's end, and the heap after GC before, while the result is made, and after.
import * as path from "node:path"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const { HttpTransport, McpServer, Tool } = await import(path.join(root, "packages/server/dist/index.js"))
const Effect = await import(path.join(root, "packages/server/node_modules/effect/dist/esm/Effect.js"))
const mb = Number(process.env.MB ?? 100)
const TASKS = "io.modelcontextprotocol/tasks"
const heap = async () => { for (let i = 0; i < 3; i++) { await new Promise((r) => setImmediate(r)); globalThis.gc() } return +(process.memoryUsage().heapUsed / 1048576).toFixed(1) }
let made
const Big = Tool.make("big", { task: "required" }, () => Effect.sync(() => { made = "x".repeat(mb * 1024 * 1024); return made }))
const web = HttpTransport.toWebHandler(McpServer.layer({ serverInfo: { name: "big", version: "1" }, revisions: ["2026-07-28"], tools: [Big] }), { holderOf: () => "probe" })
let id = 0
const post = async (method, params) => {
  const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "big", version: "1" } } } })
  const response = await web.handler(new Request("http://localhost/mcp", { method: "POST", body, headers: {
    "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": params.name ?? params.taskId } }))
  const text = await response.text()
  const sse = /^data: (.*)$/m.exec(text)
  return JSON.parse(sse ? sse[1] : text)
}
await post("tools/list", {})
const before = await heap()
const created = await post("tools/call", { name: "big" })
const taskId = created.result?.taskId
let got
for (;;) {
  got = await post("tasks/get", { taskId })
  if (got.result?.status !== "working") break
  await new Promise((r) => setTimeout(r, 100))
}
const whileHeld = made === undefined ? undefined : await heap()
made = undefined
const after = await heap()
console.log(JSON.stringify({ mb, created: created.result?.resultType ?? created.error, end: { status: got.result?.status, error: got.result?.error ?? got.error }, heapMiB: { before, whileTheToolStillHeldIt: whileHeld, after } }))
await web.dispose()
