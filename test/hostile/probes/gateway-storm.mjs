// `mcp gateway` (stdio, 64 MiB heap, mem-preload.cjs) in front of client-hostile-up.mjs `storm`: one call makes the
// upstream send N (default 200,000) tools/list_changed; then, every second for 5 s, how many tools/list the
// upstream was asked (its `lists` tool) and how many list changes the gateway passed downstream; peak memory.
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const N = process.env.N ?? "200000"
const file = path.join(mkdtempSync(path.join(os.tmpdir(), "dprobe-")), "gateway.json")
writeFileSync(file, JSON.stringify({ mcpServers: { h: { command: process.execPath, args: [path.join(here, "client-hostile-up.mjs"), process.env.UP_CASE ?? "storm"], env: { N, PAGES: process.env.PAGES ?? "100" } } } }))
const child = spawn(process.execPath, [...(process.env.NODE_ARGS ?? "").split(" ").filter(Boolean), `--max-old-space-size=${process.env.HEAP ?? 64}`, "--require", path.join(here, "mem-preload.cjs"), path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file], { cwd: root, stdio: ["pipe", "pipe", "pipe"] })
let peakRss = 0, peakHeap = 0
const other = []
readline.createInterface({ input: child.stderr }).on("line", (l) => {
  const m = /rss=([\d.]+) heapUsed=([\d.]+)/.exec(l)
  if (m) { peakRss = Math.max(peakRss, +m[1]); peakHeap = Math.max(peakHeap, +m[2]); return }
  other.push(l.slice(0, 200)); if (other.length > 5 && !other[0].includes(" is up")) other.shift(); else if (other.length > 5) other.splice(1, 1)
})
const seen = []; const waiters = new Set(); let changes = 0
readline.createInterface({ input: child.stdout }).on("line", (line) => {
  const m = JSON.parse(line)
  if (m.method === "notifications/tools/list_changed") return void changes++
  seen.push(m); for (const k of waiters) k()
})
const until = (check) => new Promise((res) => { const k = () => { const v = check(); if (v) { waiters.delete(k); res(v) } }; waiters.add(k); k() })
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
const answer = (id) => until(() => seen.find((m) => m.id === id && !("method" in m)))
child.on("exit", (c, s) => { console.log("gateway exited", c, s, other); process.exit(1) })
const guard = setTimeout(() => { console.log("guard: 120 s"); child.kill("SIGKILL") }, 120_000)
send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "p", version: "1" } } })
await answer(0); send({ jsonrpc: "2.0", method: "notifications/initialized" })
let id = 1
// Listed until the upstream's tools are served (UP_CASE: until it is up, as its stderr says).
if (process.env.UP_CASE !== undefined) await new Promise((r) => { const k = setInterval(() => other.some((l) => l.includes(" is up")) && (clearInterval(k), r()), 100) })
for (;; id++) { send({ jsonrpc: "2.0", id, method: "tools/list" }); if ((await answer(id)).result.tools.length > 0 || process.env.UP_CASE !== undefined) break; await new Promise((r) => setTimeout(r, 200)) }
const call = async (name) => { const my = ++id; send({ jsonrpc: "2.0", id: my, method: "tools/call", params: { name, arguments: {} } }); const a = await answer(my); return a.error ? `error ${a.error.message}` : a.result.content[0].text }
if (process.env.UP_CASE !== undefined) {
  // Another upstream case (tools-100k): what the gateway lists downstream, and its memory.
  const listed = seen.find((m) => m.id === id).result
  let n = listed.tools.length, cursor = listed.nextCursor, pages = 1
  while (cursor !== undefined) { const my = ++id; send({ jsonrpc: "2.0", id: my, method: "tools/list", params: { cursor } }); const a = (await answer(my)).result; n += a.tools.length; cursor = a.nextCursor; pages++ }
  await new Promise((r) => setTimeout(r, 1000))
  clearTimeout(guard); child.removeAllListeners("exit"); child.kill("SIGINT")
  console.log(JSON.stringify({ upstream: process.env.UP_CASE, downstreamTools: n, pages, peakRssMiB: peakRss, peakHeapMiB: peakHeap, stderr: other }))
  process.exit(0)
}
const t0 = Date.now()
const go = await call("h_go")
const samples = []
for (let i = 0; i < 5; i++) { await new Promise((r) => setTimeout(r, 1000)); samples.push({ s: i + 1, upstreamLists: await call("h_lists"), downstreamChanges: changes }) }
clearTimeout(guard); child.removeAllListeners("exit"); child.kill("SIGINT"); await new Promise((r) => child.once("exit", r))
console.log(JSON.stringify({ N: +N, go, callSeconds: (Date.now() - t0) / 1000, samples, peakRssMiB: peakRss, peakHeapMiB: peakHeap, stderr: other }))
