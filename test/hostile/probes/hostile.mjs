// Drives `mcp gateway` (64 MiB heap, stdio) in front of hostile-up.mjs: each tool on the raw lane, then a ping; prints answers and memory.
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const here = path.dirname(fileURLToPath(import.meta.url))
const file = path.join(mkdtempSync(path.join(os.tmpdir(), "dprobe-")), "gateway.json")
writeFileSync(file, JSON.stringify({ mcpServers: { h: { command: process.execPath, args: [path.join(here, "hostile-up.mjs")] } } }))
const child = spawn(process.execPath, ["--max-old-space-size=64", "--require", path.join(here, "mem-preload.cjs"), path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file], { cwd: root, env: { ...process.env, EFFECT_MCP_DEBUG_RELAY_LANE: "1" }, stdio: ["pipe", "pipe", "pipe"] })
let peakRss = 0, peakHeap = 0, lane = [], other = []
readline.createInterface({ input: child.stderr }).on("line", (l) => {
  const m = /rss=([\d.]+) heapUsed=([\d.]+)/.exec(l)
  if (m) { peakRss = Math.max(peakRss, +m[1]); peakHeap = Math.max(peakHeap, +m[2]); return }
  const r = /relay lane: tools\/call (\S+)/.exec(l); if (r) return void lane.push(r[1])
  other.push(l.slice(0, 200))
})
const seen = []; const waiters = new Set()
readline.createInterface({ input: child.stdout }).on("line", (line) => { seen.push(JSON.parse(line)); for (const k of waiters) k() })
const until = (check) => new Promise((res) => { const k = () => { const v = check(); if (v) { waiters.delete(k); res(v) } }; waiters.add(k); k() })
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
const answer = (id) => until(() => seen.find((m) => m.id === id && !("method" in m)))
child.on("exit", (c, s) => { console.log("gateway exited", c, s, other.slice(-3)); process.exit(1) })
send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "p", version: "1" } } })
await answer(0); send({ jsonrpc: "2.0", method: "notifications/initialized" })
for (let id = 1;; id++) { send({ jsonrpc: "2.0", id, method: "tools/list" }); if ((await answer(id)).result.tools.length > 0) break; await until(() => seen.some((m) => m.method === "notifications/tools/list_changed")) }
const results = {}
let id = 100
for (const tool of (process.env.TOOLS ?? "dup,hugeid,prog,notes,late,dup").split(",")) {
  const my = id++
  send({ jsonrpc: "2.0", id: my, method: "tools/call", params: { name: `h_${tool}`, arguments: {} } })
  const a = await answer(my)
  results[`${tool}#${my}`] = a.error ? `error ${a.error.code} ${a.error.message.slice(0, 80)}` : a.result.content[0].text
}
send({ jsonrpc: "2.0", id: 999, method: "ping" }); await answer(999)
await new Promise((r) => setTimeout(r, 500))
const answersTo = (n) => seen.filter((m) => m.id === n && !("method" in m)).length
console.log(JSON.stringify({ results, answersPerCall: [100, 101, 102, 103, 104, 105].map(answersTo), lane, logs: seen.filter((m) => m.method === "notifications/message").length, progress: seen.filter((m) => m.method === "notifications/progress").length, peakRss, peakHeap, stderr: other.slice(-12) }))
child.kill(); process.exit(0)
