// Probe: one 2025-11-25 session over HTTP (the demo, `http --port 0 --era handshake`), one task of
// `slow_compute` (an hour), then K `tasks/result` (or `tools/call` of `slow_compute` without a task:
// METHOD=call) each POSTed and its connection cut at once. In a handshake session a cut POST is not
// a cancel (its stream may be resumed): the request runs on. Are they bounded per session? The
// demo's heap after GC, live fibers, pending timers; the POSTs answered before their cut (refusals), by
// status and error, and how many without their id. ARGS: more flags for the demo.
// K (default 5000) METHOD (result|call)
import * as http from "node:http"
import { countedDemo } from "./counted-demo.mjs"
const k = Number(process.env.K ?? 5000)
const how = process.env.METHOD ?? "result"
const { url, sample, stop } = await countedDemo(["--era", "handshake", ...(process.env.ARGS ?? "").split(" ").filter(Boolean)])
const headers = (session) => ({ "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", ...(session ? { "mcp-session-id": session } : {}) })
const post = (body, session) => new Promise((resolve, reject) => {
  http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: headers(session) }, (res) => {
    let data = ""
    res.setEncoding("utf8").on("data", (c) => data += c).on("end", () => {
      const sse = /^data: (.*)$/m.exec(data)
      let message
      try { message = JSON.parse(sse ? sse[1] : data) } catch { message = data }
      resolve({ status: res.statusCode, session: res.headers["mcp-session-id"], message })
    })
  }).on("error", reject).end(JSON.stringify(body))
})
/** POSTed, and its connection cut once the request is written and the server had a turn to read it: nothing to wait on. */
const cut = (body, session) => new Promise((resolve) => {
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: headers(session) }, (res) => {
    // Answered before it was cut (a refusal): kept.
    let data = ""
    res.setEncoding("utf8").on("data", (c) => data += c).on("end", () => resolve({ status: res.statusCode, data }))
  })
  req.on("error", () => resolve(undefined))
  req.end(JSON.stringify(body), () => setTimeout(() => { req.destroy(); resolve(undefined) }, 5))
})
const init = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { tasks: { requests: {} } }, clientInfo: { name: "cut", version: "1" } } })
const session = init.session
await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)
const created = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 3600 }, task: {} } }, session)
const taskId = created.message.result.task.taskId
const base = await sample("base: one task")
const answered = {}
for (let start = 0; start < k; start += 50) {
  const batch = []
  for (let i = start; i < Math.min(k, start + 50); i++) {
    const id = 100 + i
    batch.push(cut(how === "call"
      ? { jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 3600 } } }
      : { jsonrpc: "2.0", id, method: "tasks/result", params: { taskId } }, session))
  }
  for (const r of await Promise.all(batch)) {
    if (r === undefined) continue
    let m
    try { m = JSON.parse(r.data) } catch { m = { error: { message: r.data.slice(0, 160) } } }
    const key = `${r.status} ${m.error?.code} ${m.error?.message}`
    answered[key] = (answered[key] ?? 0) + 1
    if (m.id !== undefined && m.id === null) answered.withoutId = (answered.withoutId ?? 0) + 1
  }
}
const after = await sample(`${k} cut`)
const ping = await post({ jsonrpc: "2.0", id: 99, method: "ping" }, session)
console.log(JSON.stringify({ k, method: how, samples: [base, after], perRequestKiB: +((after.heapMiB - base.heapMiB) * 1024 / k).toFixed(3), answeredBeforeCut: answered, ping: ping.message }))
stop()
process.exit(0)
