// Probe: 2025-11-25 sessions over HTTP (the demo, `http --port 0 --idle-timeout IDLE`) opened with
// tasks in flight and abandoned. Each of N sessions (CONC at once): initialize, a `slow_compute`
// task (an hour), a `tasks/result` waiting on it (its connection then destroyed), and `tasks/get`,
// `tasks/result`, `tasks/cancel` on the previous session's task (another session's id: each must
// be -32602 with its id). Then the sessions end: END=delete (DELETE /mcp, as a client leaving) or
// END=idle (nothing: the idle timeout ends them). The demo's heap after GC, live fibers and pending
// timers: before, with every session open, and after they ended.
// N (default 1000) CONC (default 20) END (default delete) IDLE (seconds, default 3)
import * as http from "node:http"
import { countedDemo } from "./counted-demo.mjs"
const n = Number(process.env.N ?? 1000)
const conc = Number(process.env.CONC ?? 20)
const end = process.env.END ?? "delete"
const idle = Number(process.env.IDLE ?? 3)
const { url, sample, stop } = await countedDemo(["--idle-timeout", String(idle), "--era", "handshake"])
const agent = new http.Agent({ keepAlive: true, maxSockets: conc * 2 })
/** A POST: status, session, the JSON-RPC message (JSON or the first SSE data event). `abort`: its request, to destroy it. */
const post = (body, session, { method = "POST", hold } = {}) => new Promise((resolve, reject) => {
  const text = body === undefined ? "" : JSON.stringify(body)
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, agent: hold ? undefined : agent, headers: {
    "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25",
    ...(session ? { "mcp-session-id": session } : {}) } }, (res) => {
    let data = ""
    if (hold) return resolve({ req, res })
    res.setEncoding("utf8").on("data", (c) => data += c).on("end", () => {
      const sse = /^data: (.*)$/m.exec(data)
      let message
      try { message = JSON.parse(sse ? sse[1] : data) } catch { message = data }
      resolve({ status: res.statusCode, session: res.headers["mcp-session-id"], message })
    })
  })
  req.on("error", (e) => hold ? resolve({ req, error: e }) : reject(e))
  // A held request is answered only when its task ends: it is taken as sent once written.
  req.end(text, hold ? () => resolve({ req }) : undefined)
})
const base = await sample("base")
const errors = {}
const bad = (why) => { errors[why] = (errors[why] ?? 0) + 1 }
const sessions = []
const held = []
let previous
let left = n
const worker = async () => {
  while (left-- > 0) {
    const init = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { tasks: { requests: {} } }, clientInfo: { name: "s", version: "1" } } })
    const session = init.session
    if (!session) { bad(`initialize ${init.status} ${JSON.stringify(init.message).slice(0, 200)}`); continue }
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)
    const created = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 3600 }, task: {} } }, session)
    const taskId = created.message?.result?.task?.taskId
    if (taskId === undefined) { bad(`create ${created.status} ${JSON.stringify(created.message).slice(0, 200)}`); continue }
    sessions.push(session)
    // A tasks/result left waiting: its connection destroyed later (a client gone mid-wait).
    held.push(await post({ jsonrpc: "2.0", id: 2, method: "tasks/result", params: { taskId } }, session, { hold: true }))
    if (previous !== undefined) {
      let id = 10
      for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
        const a = await post({ jsonrpc: "2.0", id, method, params: { taskId: previous } }, session)
        if (a.message?.id !== id || a.message?.error?.code !== -32602) bad(`other session's ${method}: ${JSON.stringify(a.message).slice(0, 200)}`)
        id++
      }
    }
    previous = taskId
  }
}
await Promise.all(Array.from({ length: conc }, worker))
const open = await sample("sessions open, tasks working, tasks/result waiting")
for (const h of held) h.req.destroy()
await new Promise((r) => setTimeout(r, 200))
const cut = await sample("waiting tasks/result connections cut")
if (end === "delete") {
  let i = 0
  await Promise.all(Array.from({ length: conc }, async () => { while (i < sessions.length) { const s = sessions[i++]; const r = await post(undefined, s, { method: "DELETE" }); if (r.status !== 200 && r.status !== 204) bad(`DELETE ${r.status}`) } }))
} else {
  await new Promise((r) => setTimeout(r, (idle + 16) * 1000))
}
agent.destroy()
await new Promise((r) => setTimeout(r, 500))
const after = await sample(`sessions ended (${end})`)
const again = await sample("again")
console.log(JSON.stringify({ n, conc, end, sessions: sessions.length, errors, samples: [base, open, cut, after, again], perSessionKiB: +((after.heapMiB - base.heapMiB) * 1024 / n).toFixed(3) }))
stop()
process.exit(0)
