// Probe: a loud HTTP upstream (COUNT logs of SIZE bytes on one call) behind `mcp gateway` over
// stdio, downstream not reading until the upstream wrote everything. Prints the gateway's memory.
// PATH_=lane|engine  HEAP=64  COUNT  SIZE  ARENA (MALLOC_ARENA_MAX)  GATEWAY_ARGS
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const here = path.dirname(fileURLToPath(import.meta.url))
const port = Number(process.env.PORT ?? 44100)
const upstream = spawn(process.execPath, [path.join(root, "test/gateway/fixtures/loud-http.mjs"), String(port)], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, COUNT: process.env.COUNT ?? "200000", SIZE: process.env.SIZE ?? "2048" }
})
const flooded = new Promise((r) => readline.createInterface({ input: upstream.stdout }).once("line", r))
const file = path.join(mkdtempSync(path.join(os.tmpdir(), "dprobe-")), "gateway.json")
writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${port}/mcp` } } }))
const extraEnv = process.env.ARENA ? { MALLOC_ARENA_MAX: process.env.ARENA } : {}
const nodeArgs = [`--max-old-space-size=${process.env.HEAP ?? 64}`, "--require", path.join(here, "mem-preload.cjs"), ...(process.env.NODE_EXTRA ?? "").split(" ").filter(Boolean)]
const child = spawn(process.execPath, [...nodeArgs, path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file, "--timeout", "600"], {
  cwd: root, env: { ...process.env, ...extraEnv, EFFECT_MCP_DEBUG_RELAY_LANE: "1" }, stdio: ["pipe", "pipe", "pipe"]
})
import { createWriteStream } from "node:fs"
const log = createWriteStream(process.env.LOG ?? path.join(os.tmpdir(), "probe-mem.log"))
let peakRss = 0, peakHeap = 0, peakAB = 0, last = ""
readline.createInterface({ input: child.stderr }).on("line", (l) => {
  const m = /rss=([\d.]+) heapUsed=([\d.]+).*arrayBuffers=([\d.]+)/.exec(l)
  if (m) { peakRss = Math.max(peakRss, +m[1]); peakHeap = Math.max(peakHeap, +m[2]); peakAB = Math.max(peakAB, +m[3]); last = l; log.write(l + "\n"); return }
  if (/^GC /.test(l)) return void log.write(l + "\n")
  if (process.env.VERBOSE || /heap|memory|FATAL|Error/i.test(l)) console.error("gw:", l)
})
const seen = []
const waiters = new Set()
readline.createInterface({ input: child.stdout }).on("line", (line) => { seen.push(JSON.parse(line)); if (seen.length % 1000 === 0) log.write(`SEEN ${seen.length}\n`); for (const k of waiters) k() })
const until = (check) => new Promise((res) => { const v = check(); if (v) return res(v); const k = () => { const v = check(); if (v) { waiters.delete(k); res(v) } }; waiters.add(k) })
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
const answer = (id) => until(() => seen.find((m) => m.id === id && !("method" in m)))
let exited = null
child.on("exit", (code, sig) => { exited = `${code}/${sig}`; console.log("gateway exited", exited); for (const k of waiters) k() })
send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "p", version: "1" } } })
await answer(0)
send({ jsonrpc: "2.0", method: "notifications/initialized" })
for (let id = 1;; id++) {
  send({ jsonrpc: "2.0", id, method: "tools/list" })
  if ((await answer(id)).result.tools.length > 0) break
  await until(() => seen.some((m) => m.method === "notifications/tools/list_changed"))
}
const t0 = Date.now()
if (!process.env.NOPAUSE) child.stdout.pause()
const meta = process.env.PATH_ === "engine" ? { _meta: { progressToken: "p" } } : {}
send({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "up_loud", arguments: {}, ...meta } })
await Promise.race([flooded.then(() => log.write("FLOODED\n")), new Promise((r) => child.on("exit", r))])
const atFlood = { peakRss, peakHeap, peakAB, last }
child.stdout.resume()
await Promise.race([answer(99), new Promise((r) => child.on("exit", r))])
const logs = seen.filter((m) => m.method === "notifications/message").length
// let it settle, then report
child.kill("SIGUSR2")
await new Promise((r) => setTimeout(r, 600))
console.log(JSON.stringify({ path: process.env.PATH_ ?? "lane", count: process.env.COUNT ?? 200000, size: process.env.SIZE ?? 2048, arena: process.env.ARENA, exited, ms: Date.now() - t0, logs, atFlood, peakRss, peakHeap, peakAB, last }))
child.kill(); upstream.kill()
process.exit(0)
