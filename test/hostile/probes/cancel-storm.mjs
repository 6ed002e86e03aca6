// Probe: cancel storms on the gateway's raw lane over HTTP. `mcp gateway` over stdio in front of
// test/gateway/fixtures/lane-http.mjs; N calls of `hang` (MODE=hang: the POST never answered) or
// `ssehang` (an SSE stream that never ends and ignores a cancel), sent at once, each followed at
// once by its notifications/cancelled. Prints the gateway's heap after a full GC and its sockets
// (from /proc) before, at the peak and once settled, the upstream's open sockets, how many cancels
// and closed streams the upstream saw, and whether a call still answers after.
// N (default 2000)  MODE (hang|ssehang)  LIMIT_MS (default 60000)
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readlinkSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const n = Number(process.env.N ?? 2000)
const mode = process.env.MODE ?? "hang"
const limitMs = Number(process.env.LIMIT_MS ?? 60_000)
const sockets = (pid) => { let c = 0; try { for (const f of readdirSync(`/proc/${pid}/fd`)) { try { if (readlinkSync(`/proc/${pid}/fd/${f}`).startsWith("socket:")) c++ } catch {} } } catch {} return c }
const upstream = spawn(process.execPath, [path.join(root, "test/gateway/fixtures/lane-http.mjs")], { stdio: ["ignore", "pipe", "inherit"] })
let upPort, cancels = 0, closed = 0, posts = 0
const upWaiters = []
readline.createInterface({ input: upstream.stdout }).on("line", (l) => {
  const m = JSON.parse(l)
  if (typeof m === "string" && m.startsWith("port ")) upPort = Number(m.slice(5))
  else if (m.cancelled) cancels++
  else if (m.closed !== undefined) closed++
  else if (m.method === "tools/call") posts++
  for (const k of upWaiters.splice(0)) k()
})
while (upPort === undefined) await new Promise((r) => upWaiters.push(r))
const file = path.join(mkdtempSync(path.join(os.tmpdir(), "cancel-storm-")), "gateway.json")
writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${upPort}/mcp` } } }))
const child = spawn(process.execPath, ["--expose-gc", "--require", path.join(root, "test/hostile/fixtures/memory-on-signal.cjs"), path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file, "--timeout", "600"], {
  cwd: root, stdio: ["pipe", "pipe", "pipe"]
})
const memories = []
const waiters = new Set()
const wake = () => { for (const k of waiters) k() }
readline.createInterface({ input: child.stderr }).on("line", (l) => { if (l.startsWith("MEMORY ")) { memories.push(JSON.parse(l.slice(7))); wake() } else if (process.env.VERBOSE) console.error("gw:", l.slice(0, 300)) })
const seen = []
readline.createInterface({ input: child.stdout }).on("line", (line) => { seen.push(JSON.parse(line)); wake() })
const until = (check) => new Promise((res) => { const k = () => { const v = check(); if (v) { waiters.delete(k); res(v) } }; waiters.add(k); k() })
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
const answer = (id) => until(() => seen.find((m) => m.id === id && !("method" in m)))
const memory = async () => { const c = memories.length; child.kill("SIGUSR2"); const m = await until(() => memories[c]); return { heapMiB: +(m.heapUsed / 1048576).toFixed(1), rssMiB: +(m.rss / 1048576).toFixed(1), sockets: sockets(child.pid) } }
send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "storm", version: "1" } } })
await answer(0)
send({ jsonrpc: "2.0", method: "notifications/initialized" })
for (let id = 1;; id++) {
  send({ jsonrpc: "2.0", id, method: "tools/list" })
  if ((await answer(id)).result.tools.length > 0) break
  await until(() => seen.some((m) => m.method === "notifications/tools/list_changed"))
}
// Warm: one call and its cancel, so that the pool's first connections are there in the base.
send({ jsonrpc: "2.0", id: 50, method: "tools/call", params: { name: "up_add", arguments: { a: 1, b: 2 } } })
await answer(50)
const base = await memory()
const t0 = Date.now()
let peakSockets = 0
const sampler = setInterval(() => { peakSockets = Math.max(peakSockets, sockets(child.pid)) }, 50)
let batch = ""
for (let i = 0; i < n; i++) {
  batch += JSON.stringify({ jsonrpc: "2.0", id: 1000 + i, method: "tools/call", params: { name: `up_${mode}`, arguments: {} } }) + "\n"
  batch += JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1000 + i, reason: "storm" } }) + "\n"
}
child.stdin.write(batch)
// Every line read: a ping after them is answered (the gateway reads its input in order).
send({ jsonrpc: "2.0", id: 70, method: "ping" })
await answer(70)
const readMs = Date.now() - t0
// Settled: the gateway's sockets back to the base (polled: /proc has no event), or the limit.
let settledMs
while (Date.now() - t0 < limitMs) {
  await new Promise((r) => setTimeout(r, 250))
  if (sockets(child.pid) <= base.sockets) { settledMs = Date.now() - t0; break }
}
clearInterval(sampler)
const after = await memory()
// And once more, LATER_MS on (idle pool connections close, timers lapse).
await new Promise((r) => setTimeout(r, Number(process.env.LATER_MS ?? 10_000)))
const later = await memory()
send({ jsonrpc: "2.0", id: 60, method: "tools/call", params: { name: "up_add", arguments: { a: 2, b: 3 } } })
const check = await Promise.race([answer(60), new Promise((r) => setTimeout(() => r({ timeout: true }), 10_000))])
const answered = seen.filter((m) => m.id >= 1000 && m.id < 1000 + n).length
console.log(JSON.stringify({ mode, n, readMs, settledMs: settledMs ?? null, base, peakSockets, after, later, upstreamSockets: sockets(upstream.pid), upstreamPosts: posts, upstreamCancels: cancels, upstreamClosed: closed, answeredCancelled: answered, stillWorks: check.result?.structuredContent?.sum === 5 }))
child.kill(); upstream.kill()
process.exit(0)
