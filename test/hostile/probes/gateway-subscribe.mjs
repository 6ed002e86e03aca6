// Probe: `mcp gateway` (stdio) in front of the demo (stdio, its requests counted by
// fixtures/count-upstream.mjs): a downstream client subscribes to N instances of the demo's template
// (`demo+test://template/{i}/data`), one after another, then leaves (its stdin ends). The mirror
// subscribes upstream each URI no list names, at most `maxUnlistedSubscriptions` (1,000) kept, the
// oldest dropped. Prints the time of each hundred subscribes, the upstream's resources/subscribe and
// unsubscribe requests, the gateway's CPU (/proc) and its heap after GC.
// N (default 1,200) WAIT (seconds idle at the end, default 0) UPSTREAM_ERA (the demo's --era: handshake, or
// stateless: the mirror then listens again with every URI for each one added)
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const n = Number(process.env.N ?? 1200)
const dir = mkdtempSync(path.join(os.tmpdir(), "gateway-subscribe-"))
const countFile = path.join(dir, "counts.json")
const file = path.join(dir, "gateway.json")
writeFileSync(file, JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [path.join(root, "test/hostile/fixtures/count-upstream.mjs"), process.execPath, path.join(root, "apps/everything/dist/main.js"), "stdio", "--era", process.env.UPSTREAM_ERA ?? "handshake"], env: { COUNT_FILE: countFile } } } }))
const child = spawn(process.execPath, ["--expose-gc", "--require", path.join(root, "test/hostile/fixtures/memory-on-signal.cjs"), path.join(root, "apps/cli/dist/main.js"), "gateway", "--config", file, "--start-timeout", "60"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] })
const memories = []
const seen = new Map()
const waiters = new Set()
const wake = () => { for (const w of waiters) w() }
readline.createInterface({ input: child.stderr }).on("line", (l) => { if (l.startsWith("MEMORY ")) memories.push(JSON.parse(l.slice(7))); else if (process.env.VERBOSE) console.error("gw:", l.slice(0, 300)); wake() })
readline.createInterface({ input: child.stdout }).on("line", (line) => { const m = JSON.parse(line); if (m.id !== undefined && !("method" in m)) seen.set(m.id, m); wake() })
const until = (check) => new Promise((res) => { const w = () => { const v = check(); if (v) { waiters.delete(w); res(v) } }; waiters.add(w); w() })
const cpu = () => { const f = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) / 100 }
const memory = async () => { const c = memories.length; child.kill("SIGUSR2"); const m = await until(() => memories[c]); return +(m.heapUsed / 1048576).toFixed(1) }
const upstream = () => { try { const c = JSON.parse(readFileSync(countFile, "utf8")); return { subscribe: c["resources/subscribe"] ?? 0, unsubscribe: c["resources/unsubscribe"] ?? 0, listen: c["subscriptions/listen"] ?? 0 } } catch { return {} } }
const send = (m) => child.stdin.write(JSON.stringify(m) + "\n")
const call = (id, method, params) => { send({ jsonrpc: "2.0", id, method, params }); return until(() => seen.get(id)) }
await call(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "sub", version: "1" } })
send({ jsonrpc: "2.0", method: "notifications/initialized" })
const templates = await call(1, "resources/templates/list", {})
const base = { heapMiB: await memory(), cpuS: cpu(), upstream: upstream() }
const steps = []
let t = Date.now(), c = cpu(), errors = 0
for (let i = 0; i < n; i++) {
  const a = await call(100 + i, "resources/subscribe", { uri: `demo+test://template/${i}/data` })
  if (a.error) errors++
  if ((i + 1) % 100 === 0) {
    const now = Date.now(), c2 = cpu()
    steps.push({ upTo: i + 1, ms: now - t, gatewayCpuS: +(c2 - c).toFixed(2), upstream: upstream() })
    t = now; c = c2
  }
}
const after = { heapMiB: await memory(), cpuS: cpu(), upstream: upstream() }
// Then idle for WAIT seconds (default 0): does the mirror go on asking the upstream?
const idle = Number(process.env.WAIT ?? 0)
let later
if (idle > 0) {
  const c0 = cpu()
  await new Promise((r) => setTimeout(r, idle * 1000))
  later = { seconds: idle, gatewayCpuS: +(cpu() - c0).toFixed(2), upstream: upstream() }
}
console.log(JSON.stringify({ n, templates: templates.result?.resourceTemplates?.map((x) => x.uriTemplate), errors, base, steps, after, later }))
child.kill()
process.exit(0)
