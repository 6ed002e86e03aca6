// Probe: HTTP clients that never read their answers (TCP receive window full), against
// `mcp gateway --port` in front of a loud HTTP upstream (TARGET=gateway, default: each slow call
// gets COUNT logs of SIZE bytes on its SSE stream) or the demo server over HTTP (TARGET=demo: each
// slow connection POSTs `echo` of SIZE bytes REPEAT times, pipelined, reading nothing). Meanwhile a
// good client calls every 200 ms. Prints the server's peak RSS/heap/arrayBuffers, how many slow
// connections were cut and when, what the good client got, and the memory after the slow ones went.
// SLOW (connections, default 6)  HEAP (MiB, default 256)  LIMIT_MS (default 60000)  PORT
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const target = process.env.TARGET ?? "gateway"
const slowCount = Number(process.env.SLOW ?? 6)
const limitMs = Number(process.env.LIMIT_MS ?? 60_000)
const freePort = () => new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => r(port)) }) })
const port = Number(process.env.PORT ?? await freePort())
const children = []
let upstream
if (target === "gateway") {
  const upPort = await freePort()
  upstream = spawn(process.execPath, [path.join(root, "test/gateway/fixtures/loud-http.mjs"), String(upPort)], {
    stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, COUNT: process.env.COUNT ?? "4000", SIZE: process.env.SIZE ?? "60000" }
  })
  children.push(upstream)
  var file = path.join(mkdtempSync(path.join(os.tmpdir(), "slow-reader-")), "gateway.json")
  writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${upPort}/mcp` } } }))
}
const nodeArgs = [`--max-old-space-size=${process.env.HEAP ?? 256}`, "--expose-gc", "--require", path.join(here, "mem-preload.cjs"), "--require", path.join(here, "../fixtures/memory-on-signal.cjs"), ...(process.env.NODE_EXTRA ?? "").split(" ").filter(Boolean)]
const args = target === "gateway"
  ? [path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file, "--port", String(port), "--timeout", "600"]
  : [path.join(root, "apps/everything/dist/main.js"), "http", "--port", String(port)]
const server = spawn(process.execPath, [...nodeArgs, ...args], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
children.push(server)
let peak = { rss: 0, heap: 0, ab: 0 }, mem = {}, cutLines = 0, gcd
const memWaiters = []
readline.createInterface({ input: server.stderr }).on("line", (l) => {
  const m = /rss=([\d.]+) heapUsed=([\d.]+).*arrayBuffers=([\d.]+)/.exec(l)
  if (m) {
    mem = { rss: +m[1], heap: +m[2], ab: +m[3] }
    peak = { rss: Math.max(peak.rss, mem.rss), heap: Math.max(peak.heap, mem.heap), ab: Math.max(peak.ab, mem.ab) }
    for (const k of memWaiters.splice(0)) k()
    return
  }
  if (l.startsWith("MEMORY ")) { const u = JSON.parse(l.slice(7)); gcd = { rss: +(u.rss / 1048576).toFixed(1), heap: +(u.heapUsed / 1048576).toFixed(1), ab: +(u.arrayBuffers / 1048576).toFixed(1) }; for (const k of memWaiters.splice(0)) k(); return }
  if (/maxBufferedBytes/.test(l)) cutLines++
  if (process.env.VERBOSE || /FATAL|heap out/i.test(l)) console.error("srv:", l)
})
const exited = new Promise((r) => server.on("exit", (c, s) => r(`${c}/${s}`)))
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const post = (body, session, opts = {}) => new Promise((resolve, reject) => {
  const text = JSON.stringify(body)
  const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent: opts.agent ?? agent, headers: {
    "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25",
    ...(session ? { "mcp-session-id": session } : {}), "content-length": Buffer.byteLength(text) } }, (res) => {
    if (opts.noRead) return resolve(res)
    let data = ""
    res.setEncoding("utf8").on("data", (c) => data += c).on("end", () => resolve({ status: res.statusCode, session: res.headers["mcp-session-id"], data }))
  })
  req.on("error", reject)
  req.end(text)
})
const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "slow", version: "1" } } }
const open = async (a) => {
  const r = await post(init, undefined, { agent: a })
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, r.session, { agent: a })
  return r.session
}
// Up: retry the first initialize until the server listens (an event: the connect succeeds).
for (let i = 0;; i++) { try { await open(agent); break } catch (e) { if (i > 200) throw e; await new Promise((r) => setTimeout(r, 100)) } }
// Gateway: the upstream's tools come once it is connected.
const callName = target === "gateway" ? "up_loud" : "echo"
if (target === "gateway") {
  const s = await open(agent)
  for (let i = 0; i < 200; i++) { const r = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, s); if (r.data.includes("up_loud")) break; await new Promise((r) => setTimeout(r, 100)) }
}
await new Promise((r) => memWaiters.push(r))
const base = { ...mem }
const t0 = Date.now()
// The slow ones: each on a socket of its own, reading nothing.
const slow = []
for (let i = 0; i < slowCount; i++) {
  const a = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const s = await open(a)
  const entry = { cutAt: undefined }
  slow.push(entry)
  const reqs = target === "gateway" ? 1 : Number(process.env.REPEAT ?? 8)
  for (let j = 0; j < reqs; j++) {
    const params = target === "gateway" ? { name: callName, arguments: {} } : { name: "echo", arguments: { message: "y".repeat(Number(process.env.SIZE ?? 3_000_000)) } }
    const text = JSON.stringify({ jsonrpc: "2.0", id: 10 + j, method: "tools/call", params })
    // Raw writes on one socket (pipelined), so nothing of ours reads.
    if (j === 0) {
      entry.socket = net.connect(port, "127.0.0.1")
      entry.socket.pause()
      entry.socket.on("close", () => entry.cutAt ??= Date.now() - t0)
      entry.socket.on("error", () => {})
    }
    entry.socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: ${s}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`)
  }
}
// The good client: its own session, one call every 200 ms, answers timed.
const good = { ok: 0, failed: 0, maxMs: 0 }
const goodAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const goodSession = await open(goodAgent)
let stop = false
const goodLoop = (async () => {
  while (!stop) {
    const t = Date.now()
    try {
      const r = await post({ jsonrpc: "2.0", id: 5, method: target === "gateway" ? "tools/list" : "tools/call", params: target === "gateway" ? {} : { name: "add", arguments: { a: 1, b: 2 } } }, goodSession, { agent: goodAgent })
      if (r.status === 200 && r.data.includes("result")) good.ok++
      else good.failed++
    } catch { good.failed++ }
    good.maxMs = Math.max(good.maxMs, Date.now() - t)
    await new Promise((r) => setTimeout(r, 200))
  }
})()
// A cut is the server's line for it (a paused socket shows no close).
const allCut = new Promise((r) => { const k = () => cutLines >= slowCount ? r() : setTimeout(k, 100); k() })
const why = await Promise.race([allCut.then(() => "all slow cut"), exited.then((e) => `server exited ${e}`), new Promise((r) => setTimeout(() => r("time limit"), limitMs))])
const atEnd = Date.now() - t0
for (const e of slow) e.socket.destroy()
stop = true
await goodLoop
// Memory once the slow ones are gone (a few reports, the last one kept).
for (let i = 0; i < 8; i++) await new Promise((r) => memWaiters.push(r))
// SNAP=1 (with NODE_EXTRA="--heapsnapshot-signal=SIGUSR1 --diagnostic-dir=DIR"): a heap snapshot first.
if (process.env.SNAP) server.kill("SIGUSR1")
server.kill("SIGUSR2")
while (gcd === undefined) await new Promise((r) => memWaiters.push(r))
console.log(JSON.stringify({ target, slow: slowCount, why, ms: atEnd, cutLines, good, base, peak, after: mem, afterGc: gcd }))
for (const c of children) c.kill()
process.exit(0)
