// Probe: many upstream HTTP sessions. PART=forget: `mcp gateway` over stdio in front of
// test/gateway/fixtures/lane-http.mjs, N rounds of `forget` (the upstream answers, then forgets its
// session: the next POST gets 404 and the gateway initializes again) and `add`, CONC at once.
// PART=downstream: `mcp gateway --port` and N downstream sessions opened (initialize +
// initialized) and abandoned, CONC at once. Prints the gateway's heap after a full GC and sockets
// before/after, the upstream's initializes, failures.
// N (default 500)  CONC (default 1 for forget, 50 for downstream)
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readlinkSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const part = process.env.PART ?? "forget"
const n = Number(process.env.N ?? 500)
const conc = Number(process.env.CONC ?? (part === "forget" ? 1 : 50))
const sockets = (pid) => { let c = 0; try { for (const f of readdirSync(`/proc/${pid}/fd`)) { try { if (readlinkSync(`/proc/${pid}/fd/${f}`).startsWith("socket:")) c++ } catch {} } } catch {} return c }
const freePort = () => new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => r(port)) }) })
const upstream = spawn(process.execPath, [path.join(root, "test/gateway/fixtures/lane-http.mjs")], { stdio: ["ignore", "pipe", "inherit"] })
let upPort, inits = 0, notFound = 0
const upWaiters = []
readline.createInterface({ input: upstream.stdout }).on("line", (l) => {
  const m = JSON.parse(l)
  if (typeof m === "string" && m.startsWith("port ")) upPort = Number(m.slice(5))
  else if (m.method === "initialize") inits++
  else if (m.status === 404) notFound++
  for (const k of upWaiters.splice(0)) k()
})
while (upPort === undefined) await new Promise((r) => upWaiters.push(r))
const file = path.join(mkdtempSync(path.join(os.tmpdir(), "many-sessions-")), "gateway.json")
writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${upPort}/mcp` } } }))
const port = await freePort()
const child = spawn(process.execPath, ["--expose-gc", "--require", path.join(root, "test/hostile/fixtures/memory-on-signal.cjs"), path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file, "--timeout", "600", ...(part === "downstream" ? ["--port", String(port)] : [])], {
  cwd: root, stdio: ["pipe", "pipe", "pipe"]
})
const memories = []
const waiters = new Set()
const wake = () => { for (const k of waiters) k() }
let serving = false
readline.createInterface({ input: child.stderr }).on("line", (l) => { if (l.startsWith("MEMORY ")) memories.push(JSON.parse(l.slice(7))); else if (process.env.VERBOSE) console.error("gw:", l.slice(0, 300)); if (l.includes("serving")) serving = true; wake() })
const seen = new Map()
readline.createInterface({ input: child.stdout }).on("line", (line) => { const m = JSON.parse(line); if (m.id !== undefined && !("method" in m)) seen.set(m.id, m); else seen.set(`n${seen.size}`, m); wake() })
const until = (check) => new Promise((res) => { const k = () => { const v = check(); if (v) { waiters.delete(k); res(v) } }; waiters.add(k); k() })
const memory = async () => { const c = memories.length; child.kill("SIGUSR2"); const m = await until(() => memories[c]); return { heapMiB: +(m.heapUsed / 1048576).toFixed(1), rssMiB: +(m.rss / 1048576).toFixed(1), sockets: sockets(child.pid) } }
const t0 = Date.now()
let failed = 0
const errors = {}
if (part === "forget") {
  const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
  const answer = (id) => until(() => seen.get(id))
  send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "f", version: "1" } } })
  await answer(0)
  send({ jsonrpc: "2.0", method: "notifications/initialized" })
  for (let id = 1;; id++) {
    send({ jsonrpc: "2.0", id, method: "tools/list" })
    if ((await answer(id)).result.tools.length > 0) break
    await until(() => [...seen.values()].some((m) => m.method === "notifications/tools/list_changed"))
  }
  var base = await memory()
  let next = 1000
  const worker = async () => {
    while (next < 1000 + 2 * n) {
      const id = next
      next += 2
      send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "up_forget", arguments: {} } })
      const a = await answer(id)
      send({ jsonrpc: "2.0", id: id + 1, method: "tools/call", params: { name: "up_add", arguments: { a: 1, b: 1 } } })
      const b = await answer(id + 1)
      if (a.error || b.error || b.result?.structuredContent?.sum !== 2) {
        failed++
        const why = JSON.stringify(a.error ?? b.error ?? b.result).slice(0, 200)
        errors[why] = (errors[why] ?? 0) + 1
      }
    }
  }
  await Promise.all(Array.from({ length: conc }, worker))
} else {
  await until(() => serving)
  var base = await memory()
  const post = (body, session) => new Promise((resolve, reject) => {
    const text = JSON.stringify(body)
    http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: {
      "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25",
      ...(session ? { "mcp-session-id": session } : {}) } }, (res) => {
      let data = ""
      res.setEncoding("utf8").on("data", (c) => data += c).on("end", () => resolve({ status: res.statusCode, session: res.headers["mcp-session-id"], data }))
    }).on("error", reject).end(text)
  })
  let left = n
  const worker = async () => {
    while (left-- > 0) {
      try {
        const r = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "d", version: "1" } } })
        if (!r.session) { failed++; const why = `${r.status} ${r.data.slice(0, 200)}`; errors[why] = (errors[why] ?? 0) + 1; continue }
        await post({ jsonrpc: "2.0", method: "notifications/initialized" }, r.session)
      } catch { failed++ }
    }
  }
  await Promise.all(Array.from({ length: conc }, worker))
}
const ms = Date.now() - t0
const after = await memory()
console.log(JSON.stringify({ part, n, conc, ms, failed, base, after, perSessionKiB: part === "downstream" ? +((after.heapMiB - base.heapMiB) * 1024 / n).toFixed(2) : undefined, upstreamInitializes: inits, upstream404: notFound, upstreamSockets: sockets(upstream.pid), errors }))
child.kill(); upstream.kill()
process.exit(0)
