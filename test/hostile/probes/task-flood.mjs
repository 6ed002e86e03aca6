// Probe: 2026-07-28 (stateless) task floods against the demo over HTTP (`http --port 0`), each POST
// its own request, the client known by its address (127.0.0.x). After each phase the demo's heap
// after GC, live fibers and pending timers (count-preload.cjs):
// - owner: OWNER (default 1,100) `slow_compute` tasks (an hour) from 127.0.0.1: how many are taken, how
//   the rest are refused (each with its id?);
// - others: `tasks/get`, `tasks/cancel`, `tasks/update` from 127.0.0.2 on 127.0.0.1's ids (each -32602?);
// - asks: ASKS (default 500) `confirm_delete` tasks from 127.0.0.3 (each waits on its input request in the
//   store), then each cancelled: the fibers and waiters go?
// - failing: FAILS (default 200) `failing_job` and `protocol_error_job` tasks from 127.0.0.4, waited to their end;
// - cancel: 127.0.0.1's tasks cancelled: their fibers go (the records stay until their TTL).
import * as http from "node:http"
import { countedDemo } from "./counted-demo.mjs"
const owner = Number(process.env.OWNER ?? 1100)
const asks = Number(process.env.ASKS ?? 500)
const fails = Number(process.env.FAILS ?? 200)
const TASKS = "io.modelcontextprotocol/tasks"
const { url, sample, stop } = await countedDemo(["--era", "stateless"])
let ids = 0
const post = (method, params, from) => new Promise((resolve, reject) => {
  const id = ++ids
  const body = JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} }, elicitation: {} },
    "io.modelcontextprotocol/clientInfo": { name: "flood", version: "1" } } } })
  const name = params.name ?? params.taskId
  http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress: from, headers: {
    "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": Buffer.byteLength(body),
    "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) } }, (res) => {
    let data = ""
    res.setEncoding("utf8").on("data", (c) => data += c).on("end", () => {
      const sse = [...data.matchAll(/^data: (.*)$/mg)].map((m) => JSON.parse(m[1])).find((m) => m.id === id)
      let message
      try { message = sse ?? JSON.parse(data) } catch { message = data }
      resolve({ id, status: res.statusCode, message })
    })
  }).on("error", reject).end(body)
})
const tally = (answers, into = {}) => {
  for (const a of answers) {
    const m = a.message
    const key = m?.result?.resultType === "task" ? "task" : m?.error
      ? `${a.status} ${m.error.code} ${m.error.message.replace(/task: \S+/, "task: <id>").slice(0, 120)}${m.id === a.id ? "" : " (id missing)"}`
      : m?.result !== undefined ? `result ${m.result.resultType ?? ""} ${m.result.status ?? ""}` : String(m).slice(0, 120)
    into[key] = (into[key] ?? 0) + 1
  }
  return into
}
const inBatches = async (n, f, size = 50) => {
  const out = []
  for (let start = 0; start < n; start += size) out.push(...await Promise.all(Array.from({ length: Math.min(size, n - start) }, (_, i) => f(start + i))))
  return out
}
const out = { owner, asks, fails, samples: [await sample("base")] }
const created = await inBatches(owner, () => post("tools/call", { name: "slow_compute", arguments: { seconds: 3600 } }, "127.0.0.1"))
out.ownerFlood = tally(created)
const mine = created.filter((a) => a.message?.result?.resultType === "task").map((a) => a.message.result.taskId)
out.samples.push(await sample(`${mine.length} tasks of 127.0.0.1 working`))
const probes = await inBatches(Math.min(300, mine.length), (i) => post(["tasks/get", "tasks/cancel", "tasks/update"][i % 3], i % 3 === 2 ? { taskId: mine[i], inputResponses: {} } : { taskId: mine[i] }, "127.0.0.2"))
out.otherOwner = tally(probes)
const asked = await inBatches(asks, (i) => post("tools/call", { name: "confirm_delete", arguments: { filename: `f${i}` } }, "127.0.0.3"))
out.asks = tally(asked)
const askIds = asked.filter((a) => a.message?.result?.resultType === "task").map((a) => a.message.result.taskId)
// Each waits for its input request to be answered: once tasks/get says input_required.
const states = await inBatches(askIds.length, (i) => post("tasks/get", { taskId: askIds[i] }, "127.0.0.3"))
out.askStatus = states.reduce((m, a) => { const s = a.message?.result?.status ?? (a.message?.result ? `result ${a.message.result.resultType}` : JSON.stringify(a.message).slice(0, 80)); m[s] = (m[s] ?? 0) + 1; return m }, {})
out.samples.push(await sample(`${askIds.length} tasks of 127.0.0.3 waiting for input`))
const cancelled = await inBatches(askIds.length, (i) => post("tasks/cancel", { taskId: askIds[i] }, "127.0.0.3"))
out.askCancel = cancelled.reduce((m, a) => { const s = a.message?.result?.status ?? (a.message?.result ? `result ${a.message.result.resultType}` : JSON.stringify(a.message).slice(0, 80)); m[s] = (m[s] ?? 0) + 1; return m }, {})
out.samples.push(await sample("their tasks cancelled"))
const failing = await inBatches(fails, (i) => post("tools/call", { name: i % 2 ? "failing_job" : "protocol_error_job" }, "127.0.0.4"))
out.failing = tally(failing)
const failIds = failing.filter((a) => a.message?.result?.resultType === "task").map((a) => a.message.result.taskId)
const ends = {}
for (const taskId of failIds) {
  for (;;) {
    const a = await post("tasks/get", { taskId }, "127.0.0.4")
    const s = a.message?.result?.status
    if (s !== "working") { ends[s ?? JSON.stringify(a.message).slice(0, 80)] = (ends[s] ?? 0) + 1; break }
    await new Promise((r) => setTimeout(r, 200))
  }
}
out.failEnds = ends
out.samples.push(await sample("failing tasks ended"))
const cancelMine = await inBatches(mine.length, (i) => post("tasks/cancel", { taskId: mine[i] }, "127.0.0.1"))
out.cancelMine = cancelMine.reduce((m, a) => { const s = a.message?.result?.status ?? (a.message?.result ? `result ${a.message.result.resultType}` : JSON.stringify(a.message).slice(0, 80)); m[s] = (m[s] ?? 0) + 1; return m }, {})
out.samples.push(await sample("127.0.0.1's tasks cancelled"))
const after = await post("tools/call", { name: "slow_compute", arguments: { seconds: 1 } }, "127.0.0.1")
out.afterCancelCreate = tally([after])
console.log(JSON.stringify(out))
stop()
process.exit(0)
