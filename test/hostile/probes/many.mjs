// Probe: CALLS concurrent raw calls (or engine path: PATH_=engine) on one loud HTTP upstream
// (COUNT logs of SIZE bytes each), behind `mcp gateway` over stdio under a HEAP MiB heap, the
// downstream never reading until every upstream stream ended (or the gateway died).
import { spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const here = path.dirname(fileURLToPath(import.meta.url))
const port = Number(process.env.PORT ?? 44200)
const CALLS = Number(process.env.CALLS ?? 8)
const upstream = spawn(process.execPath, [path.join(root, "test/gateway/fixtures/loud-http.mjs"), String(port)], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, COUNT: process.env.COUNT ?? "300", SIZE: process.env.SIZE ?? "60000" }
})
let floods = 0
const allFlooded = new Promise((r) => readline.createInterface({ input: upstream.stdout }).on("line", () => { if (++floods === CALLS) r() }))
const file = path.join(mkdtempSync(path.join(os.tmpdir(), "dprobe-")), "gateway.json")
writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${port}/mcp` } } }))
const log = createWriteStream(process.env.LOG ?? path.join(os.tmpdir(), "probe-many.log"))
const child = spawn(process.execPath, [`--max-old-space-size=${process.env.HEAP ?? 64}`, "--require", path.join(here, "mem-preload.cjs"), path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file], {
  cwd: root, env: { ...process.env, EFFECT_MCP_DEBUG_RELAY_LANE: "1" }, stdio: ["pipe", "pipe", "pipe"]
})
let peakRss = 0, peakHeap = 0, lane = 0, fatal = ""
readline.createInterface({ input: child.stderr }).on("line", (l) => {
  const m = /rss=([\d.]+) heapUsed=([\d.]+)/.exec(l)
  if (m) { peakRss = Math.max(peakRss, +m[1]); peakHeap = Math.max(peakHeap, +m[2]); return void log.write(l + "\n") }
  if (/relay lane/.test(l)) lane++
  if (/heap|memory|FATAL/i.test(l)) fatal ||= l.slice(0, 160)
})
const seen = []
const waiters = new Set()
readline.createInterface({ input: child.stdout }).on("line", (line) => { seen.push(JSON.parse(line)); for (const k of waiters) k() })
const until = (check) => new Promise((res) => { const v = check(); if (v) return res(v); const k = () => { const v = check(); if (v) { waiters.delete(k); res(v) } }; waiters.add(k) })
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
const answer = (id) => until(() => seen.find((m) => m.id === id && !("method" in m)))
let exited = null
const exit = new Promise((r) => child.on("exit", (code, sig) => { exited = `${code}/${sig}`; r() }))
send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "p", version: "1" } } })
await answer(0)
send({ jsonrpc: "2.0", method: "notifications/initialized" })
for (let id = 1;; id++) {
  send({ jsonrpc: "2.0", id, method: "tools/list" })
  if ((await answer(id)).result.tools.length > 0) break
  await until(() => seen.some((m) => m.method === "notifications/tools/list_changed"))
}
child.stdout.pause()
const meta = process.env.PATH_ === "engine" ? (i) => ({ _meta: { progressToken: `p${i}` } }) : () => ({})
for (let i = 0; i < CALLS; i++) send({ jsonrpc: "2.0", id: 100 + i, method: "tools/call", params: { name: "up_loud", arguments: {}, ...meta(i) } })
await Promise.race([allFlooded, exit])
child.stdout.resume()
const answers = await Promise.race([Promise.all(Array.from({ length: CALLS }, (_, i) => answer(100 + i))), exit.then(() => [])])
console.log(JSON.stringify({ path: process.env.PATH_ ?? "lane", calls: CALLS, heap: process.env.HEAP ?? 64, exited, fatal, floods, lane, answered: answers.length, logs: seen.filter((m) => m.method === "notifications/message").length, peakRss, peakHeap }))
child.kill(); upstream.kill(); process.exit(0)
