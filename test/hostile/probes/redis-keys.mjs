// Probe: Redis key growth under sessions opened and abandoned. Starts its own redis-server
// (127.0.0.1, no persistence) and the demo over HTTP on it (--redis, --redis-prefix hp:,
// --idle-timeout IDLE seconds). Each of ROUNDS rounds: a session initialized, a tool call, a task
// (slow_compute as a task), a resource subscription, its GET stream opened and dropped; then
// abandoned (no DELETE). Prints keys and their MEMORY USAGE after the rounds and after IDLE+WAIT
// seconds, and the kinds of keys without a TTL.
// ROUNDS (default 200)  IDLE (default 3)  WAIT (seconds past IDLE, default 8)  TARGET=demo|gateway
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
const rounds = Number(process.env.ROUNDS ?? 200)
const idle = Number(process.env.IDLE ?? 3)
const freePort = () => new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => r(port)) }) })
const redisPort = await freePort()
const port = await freePort()
const redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" })
const cli = (...args) => new Promise((resolve) => {
  const p = spawn("redis-cli", ["-p", String(redisPort), ...args])
  let out = ""
  p.stdout.on("data", (c) => out += c)
  p.on("exit", () => resolve(out.trim()))
})
for (let i = 0; (await cli("ping")) !== "PONG"; i++) { if (i > 100) throw new Error("no redis"); await new Promise((r) => setTimeout(r, 100)) }
const target = process.env.TARGET ?? "demo"
let args
if (target === "gateway") {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "redis-keys-")), "gateway.json")
  writeFileSync(file, JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [path.join(root, "apps/everything/dist/main.js"), "stdio"] } } }))
  args = [path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file, "--port", String(port), "--redis", `redis://127.0.0.1:${redisPort}`, "--redis-prefix", "hp:"]
} else {
  args = [path.join(root, "apps/everything/dist/main.js"), "http", "--port", String(port), "--redis", `redis://127.0.0.1:${redisPort}`, "--redis-prefix", "hp:", "--idle-timeout", String(idle)]
}
const server = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, MCP_REQUEST_STATE_KEY: "k".repeat(40) } })
readline.createInterface({ input: server.stderr }).on("line", (l) => { if (process.env.VERBOSE || /error|warn/i.test(l)) console.error("srv:", l.slice(0, 300)) })
const post = (body, session, extra = {}) => new Promise((resolve, reject) => {
  const text = JSON.stringify(body)
  http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: {
    "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25",
    ...(session ? { "mcp-session-id": session } : {}), ...extra } }, (res) => {
    let data = ""
    res.setEncoding("utf8").on("data", (c) => data += c).on("end", () => resolve({ status: res.statusCode, session: res.headers["mcp-session-id"], data }))
  }).on("error", reject).end(text)
})
const getStream = (session) => new Promise((resolve) => {
  const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } }, (res) => {
    res.once("data", () => {}); setImmediate(() => { req.destroy(); resolve(res.statusCode) })
  })
  req.on("error", () => resolve(0)).end()
})
for (let i = 0;; i++) { try { await post({ jsonrpc: "2.0", id: 0, method: "ping" }); break } catch (e) { if (i > 300) throw e; await new Promise((r) => setTimeout(r, 100)) } }
const keyReport = async () => {
  const keys = (await cli("--scan", "--pattern", "hp:*")).split("\n").filter(Boolean)
  let bytes = 0
  const noTtl = {}
  const kinds = {}
  for (const k of keys) {
    bytes += Number(await cli("memory", "usage", k)) || 0
    const kind = k.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}|[0-9a-f]{16,}|[A-Za-z0-9_-]{20,}/g, "*")
    kinds[kind] = (kinds[kind] ?? 0) + 1
    if ((await cli("pttl", k)) === "-1") noTtl[kind] = (noTtl[kind] ?? 0) + 1
  }
  const big = {}
  for (const k of keys) {
    const type = await cli("type", k)
    const len = type === "zset" ? await cli("zcard", k) : type === "hash" ? await cli("hlen", k) : type === "set" ? await cli("scard", k) : type === "list" ? await cli("llen", k) : type === "stream" ? await cli("xlen", k) : undefined
    if (len !== undefined && Number(len) > 20) big[k] = `${type}:${len}`
  }
  return { keys: keys.length, bytes, kinds, noTtl, big }
}
const before = await keyReport()
const t0 = Date.now()
let fails = 0
for (let r = 0; r < rounds; r++) {
  const init = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: `r${r}`, version: "1" } } })
  const s = init.session
  if (!s) { fails++; continue }
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, s)
  const calls = await Promise.all([
    post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: target === "gateway" ? "demo_greet" : "greet", arguments: { name: "x" } } }, s),
    post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: target === "gateway" ? "demo_slow_compute" : "slow_compute", arguments: { seconds: 0 }, task: { ttl: 60_000 } } }, s),
    post({ jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: { uri: target === "gateway" ? "demo+test://watched" : "test://watched" } }, s),
    post({ jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "debug" } }, s)
  ])
  if (calls.some((c) => c.status !== 200 && c.status !== 202)) fails++
  await getStream(s)
}
const ms = Date.now() - t0
const afterRounds = await keyReport()
await new Promise((r) => setTimeout(r, (idle + Number(process.env.WAIT ?? 8)) * 1000))
const afterIdle = await keyReport()
// One more session: what prunes the expired ones runs when a session is created.
await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "last", version: "1" } } })
const afterCreate = await keyReport()
const brief = (r) => ({ keys: r.keys, bytes: r.bytes, noTtl: r.noTtl, big: r.big })
console.log(JSON.stringify({ target, rounds, fails, ms, before: { keys: before.keys, bytes: before.bytes }, afterRounds: { ...brief(afterRounds), kinds: afterRounds.kinds }, afterIdle: brief(afterIdle), afterCreate: brief(afterCreate) }))
server.kill(); redis.kill()
process.exit(0)
