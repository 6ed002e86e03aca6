// Probe: task waiters (2025-11-25 `tasks/result`, which waits for a task to end), the demo over stdio
// (`apps/everything/dist/main.js stdio`, --expose-gc, count-preload.cjs). After each phase, the
// demo's heap after GC, its live fibers and pending timers:
// - base: TASKS tasks of `slow_compute` (an hour) working;
// - rounds: ROUNDS × BATCH `tasks/result` on those tasks (BATCH at once: stdio runs at most 100 requests at
//   a time and pauses its input beyond), each batch then cancelled (`notifications/cancelled`);
// - unknown: N `tasks/result` / `tasks/get` / `tasks/cancel` on ids that do not exist (each an error with its id);
// - cancel: BATCH `tasks/result` waiting, then every task cancelled (`tasks/cancel`): each waiter answered;
// - ttl: TASKS tasks with `task.ttl` 1 s, one `tasks/result` on each: each answered when the TTL ends.
// ROUNDS (default 100) BATCH (default 100) TASKS (default 100) N (default 10000)
import { spawn } from "node:child_process"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const rounds = Number(process.env.ROUNDS ?? 100)
const batch = Number(process.env.BATCH ?? 100)
const nTasks = Number(process.env.TASKS ?? 100)
const n = Number(process.env.N ?? 10_000)
const child = spawn(process.execPath, ["--expose-gc", "--require", path.join(here, "count-preload.cjs"), path.join(root, "apps/everything/dist/main.js"), "stdio"], {
  cwd: root, stdio: ["pipe", "pipe", "pipe"]
})
const t0 = Date.now()
const counts = []
const seen = new Map()
const waiters = new Set()
const wake = () => { for (const k of waiters) k() }
readline.createInterface({ input: child.stderr }).on("line", (l) => { if (l.startsWith("COUNTS ")) counts.push(JSON.parse(l.slice(7))); else if (process.env.VERBOSE) console.error("demo:", l.slice(0, 300)); wake() })
readline.createInterface({ input: child.stdout }).on("line", (line) => { const m = JSON.parse(line); if (m.id !== undefined && !("method" in m)) seen.set(m.id, m); wake() })
child.on("exit", (code, signal) => { console.error(`demo exited ${code ?? signal}`); process.exit(1) })
const until = (check) => new Promise((res) => { const k = () => { const v = check(); if (v) { waiters.delete(k); res(v) } }; waiters.add(k); k() })
const sample = async (phase) => {
  if (process.env.VERBOSE) console.error("phase", phase, Date.now() - t0)
  const c = counts.length
  child.kill("SIGUSR2")
  const m = await until(() => counts[c])
  return { phase, heapMiB: +(m.heapUsed / 1048576).toFixed(2), rssMiB: +(m.rss / 1048576).toFixed(1), fibers: m.fibers, timers: m.timers }
}
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
const answer = (id) => until(() => seen.get(id))
let next = 1
const request = (method, params) => { const id = next++; send({ jsonrpc: "2.0", id, method, params }); return id }
const call = async (method, params) => answer(request(method, params))

await call("initialize", { protocolVersion: "2025-11-25", capabilities: { tasks: { requests: {} } }, clientInfo: { name: "waiters", version: "1" } })
send({ jsonrpc: "2.0", method: "notifications/initialized" })
const create = async (ttl) => {
  const a = await call("tools/call", { name: "slow_compute", arguments: { seconds: 3600 }, task: ttl === undefined ? {} : { ttl } })
  if (a.result?.task?.taskId === undefined) throw new Error(JSON.stringify(a).slice(0, 300))
  return a.result.task.taskId
}
const ids = []
for (let i = 0; i < nTasks; i++) ids.push(await create())
const out = { rounds, batch, tasks: nTasks, n, samples: [] }
out.samples.push(await sample("base"))
// Waiters cancelled: does what they held go back to base?
let wrong = 0
for (let r = 0; r < rounds; r++) {
  const pending = []
  for (let i = 0; i < batch; i++) pending.push(request("tasks/result", { taskId: ids[i % ids.length] }))
  if (r === 0) out.samples.push(await sample("waiting"))
  for (const id of pending) send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "probe" } })
  // A cancelled request is not answered: a ping after them is answered once they were read.
  await call("ping", {})
  for (const id of pending) if (seen.has(id)) wrong++
}
out.answeredAfterCancel = wrong
out.samples.push(await sample("after cancelled waiters"))
// Unknown ids: each an error with its id, nothing kept.
let errors = 0, badIds = 0
for (let start = 0; start < n; start += 100) {
  const pending = []
  for (let i = start; i < Math.min(n, start + 100); i++) {
    const method = ["tasks/result", "tasks/get", "tasks/cancel"][i % 3]
    pending.push(request(method, { taskId: i % 2 === 0 ? `no-such-${i}` : "x".repeat(1000 + i) }))
  }
  for (const id of pending) { const a = await answer(id); if (a.error !== undefined) errors++; if (a.id !== id) badIds++ }
}
out.unknown = { errors, badIds }
out.samples.push(await sample("after unknown ids"))
// Cancelled while waited on: every waiter answered (the cancelled task), nothing left.
{
  const pending = []
  // One place left: stdio reads no request while 100 run (maxRequestsInFlight), and tasks/cancel is one.
  for (let i = 0; i < Math.min(batch, 99); i++) pending.push(request("tasks/result", { taskId: ids[i % ids.length] }))
  await call("ping", {})
  out.samples.push(await sample("waiting before cancel"))
  for (const taskId of ids) await call("tasks/cancel", { taskId })
  let answered = 0
  for (const id of pending) { const a = await answer(id); if (a.result !== undefined || a.error !== undefined) answered++ }
  out.cancel = { waiters: pending.length, answered, sample: JSON.stringify(seen.get(pending[0])).slice(0, 200) }
  out.samples.push(await sample("after cancel"))
}
// TTL ending while waited on.
{
  const short = []
  for (let i = 0; i < nTasks; i++) short.push(await create(1000))
  const pending = short.map((taskId) => request("tasks/result", { taskId }))
  let answered = 0
  for (const id of pending) { const a = await answer(id); if (a.result !== undefined || a.error !== undefined) answered++ }
  out.ttl = { waiters: pending.length, answered, sample: JSON.stringify(seen.get(pending[0])).slice(0, 200) }
  out.samples.push(await sample("after ttl"))
}
out.ms = Date.now() - t0
console.log(JSON.stringify(out))
child.removeAllListeners("exit")
child.kill()
process.exit(0)
