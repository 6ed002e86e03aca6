/**
 * `tools/call add` through `mcp gateway` (apps/cli, built) vs directly to its upstream (the demo,
 * `apps/everything`), in the same run, over stdio and over HTTP:
 *
 * - stdio: the client spawns the demo (`… stdio`) or the gateway (`mcp gateway --config F`, whose
 *   one upstream is the demo over stdio), does the handshake, then keeps `BENCH_IN_FLIGHT` calls
 *   in flight for `BENCH_REQUESTS` calls; rounds alternate (direct, gateway, direct, …);
 * - HTTP: the demo on a port (`… http --port P --era handshake`) vs the gateway on a port
 *   (`--port Q --serve handshake`) whose upstream is that same demo over HTTP; `BENCH_SESSIONS`
 *   sessions keep one call in flight each for `BENCH_MILLIS`;
 * - memory: the gateway's RSS with 1 upstream and with 9 (the demo over stdio each), once idle:
 *   the difference over 8 is what one upstream connection costs the gateway.
 *
 * Targets (issue 41): through the gateway ≥ 80% of the direct throughput, and p50 at most 0.3 ms
 * more. Ratios are the medians of per-round ratios. A benchmark, not a test: it prints, and exits 1
 * on a wrong answer.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as Envelope from "./envelope.js"
import { load, openSessions } from "./http-driver.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = path.join(root, "apps/cli/dist/main.js")
const demoMain = path.join(root, "apps/everything/dist/main.js")
const requests = Number(process.env.BENCH_REQUESTS ?? 20_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 16)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const sessions = Number(process.env.BENCH_SESSIONS ?? 16)
const millis = Number(process.env.BENCH_MILLIS ?? 5_000)

const dir = mkdtempSync(path.join(os.tmpdir(), "bench-gateway-"))
const configOf = (servers: Record<string, unknown>) => {
  const file = path.join(dir, `gateway-${Object.keys(servers).length}-${Date.now()}.json`)
  writeFileSync(file, JSON.stringify({ mcpServers: servers }))
  return file
}
const demoStdio = { command: process.execPath, args: [demoMain, "stdio", "--era", "handshake"] }

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** A child over stdio, its lines read one by one. */
const child = (args: ReadonlyArray<string>) => {
  const proc = spawn(process.execPath, args, { cwd: root, stdio: ["pipe", "pipe", "ignore"] })
  const waiting: Array<(line: string) => void> = []
  const lines: Array<string> = []
  readline.createInterface({ input: proc.stdout! }).on("line", (line) => {
    const take = waiting.shift()
    if (take !== undefined) take(line)
    else lines.push(line)
  })
  const next = () =>
    new Promise<string>((resolve) => {
      const line = lines.shift()
      if (line !== undefined) resolve(line)
      else waiting.push(resolve)
    })
  return { proc, next, send: (line: string) => proc.stdin!.write(line + "\n") }
}

interface Stats {
  readonly rps: number
  readonly p50: number
}

const stdioRound = async (args: ReadonlyArray<string>, tool: string): Promise<Stats> => {
  const c = child(args)
  const envelope = Envelope.handshakeEra
  c.send(envelope.handshake!.initialize)
  while (!(await c.next()).includes("\"id\":0")) { /* a notification before the answer */ }
  c.send(envelope.handshake!.initialized)
  const call = (id: number) => envelope.addCall(id).replace("\"name\":\"add\"", `"name":"${tool}"`)
  const run = async (count: number, first: number) => {
    const sentAt = new Float64Array(count)
    const latency: Array<number> = []
    let next = 0
    const send = () => {
      sentAt[next] = performance.now()
      c.send(call(first + next++))
    }
    const start = performance.now()
    for (let i = 0; i < Math.min(window, count); i++) send()
    for (let done = 0; done < count; done++) {
      const line = await c.next()
      const id = Number(line.slice(22, line.indexOf(",", 22)))
      if (!Envelope.isGoodAdd(line, id)) throw new Error(`bad answer: ${line.slice(0, 200)}`)
      latency.push(performance.now() - sentAt[id - first]!)
      if (next < count) send()
    }
    return { rps: count / ((performance.now() - start) / 1000), p50: median(latency) }
  }
  await run(Math.min(5_000, requests), 1)
  const stats = await run(requests, 1_000_000)
  c.proc.kill()
  return stats
}

/** `node args…` until killed, once its stderr says `ready`. */
const serving = (args: ReadonlyArray<string>, ready: string) =>
  new Promise<ChildProcess>((resolve) => {
    const proc = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
    let seen = ""
    proc.stderr!.on("data", (chunk) => {
      seen += chunk
      if (seen.includes(ready)) resolve(proc)
    })
  })

const httpRound = async (port: number, tool: string): Promise<Stats> => {
  const envelope = {
    ...Envelope.handshakeEra,
    addCall: (id: number) => Envelope.handshakeEra.addCall(id).replace("\"name\":\"add\"", `"name":"${tool}"`)
  }
  const opened = await openSessions({ port, path: "/mcp" }, envelope, sessions)
  await load(opened, envelope, 1_000, 1)
  const stats = await load(opened, envelope, millis, 10_000_000)
  if (stats.bad > 0) throw new Error(`bad answers: ${stats.firstBad}`)
  for (const s of opened) s.connection.close()
  return { rps: stats.rps, p50: stats.p50 }
}

const compare = (label: string, direct: ReadonlyArray<Stats>, gateway: ReadonlyArray<Stats>) => {
  const ratios = direct.map((d, i) => gateway[i]!.rps / d.rps)
  const added = direct.map((d, i) => gateway[i]!.p50 - d.p50)
  const fmt = (s: ReadonlyArray<Stats>) =>
    s.map((x) => `${Math.round(x.rps)} req/s p50 ${x.p50.toFixed(3)} ms`).join("; ")
  console.log(`${label} direct:  ${fmt(direct)}`)
  console.log(`${label} gateway: ${fmt(gateway)}`)
  console.log(
    `${label}: gateway/direct throughput ${(median(ratios) * 100).toFixed(0)}% (target ≥ 80%), ` +
      `added p50 ${median(added).toFixed(3)} ms (target ≤ 0.3 ms)`
  )
}

const main = async () => {
  console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} on ${os.cpus().length} CPUs`)
  const stdioConfig = configOf({ demo: demoStdio })
  const direct: Array<Stats> = []
  const through: Array<Stats> = []
  for (let r = 0; r < rounds; r++) {
    direct.push(await stdioRound([demoMain, "stdio", "--era", "handshake"], "add"))
    through.push(await stdioRound([mcpMain, "gateway", "--config", stdioConfig, "--serve", "handshake"], "demo_add"))
  }
  compare("stdio", direct, through)

  const demoPort = 20_000 + Math.floor(Math.random() * 20_000)
  const gatewayPort = demoPort + 1
  const demo = await serving([demoMain, "http", "--port", String(demoPort), "--era", "handshake"], `:${demoPort}`)
  const httpConfig = configOf({ demo: { url: `http://127.0.0.1:${demoPort}/mcp` } })
  const gateway = await serving(
    [mcpMain, "gateway", "--config", httpConfig, "--port", String(gatewayPort), "--serve", "handshake"],
    "serving at"
  )
  const hDirect: Array<Stats> = []
  const hThrough: Array<Stats> = []
  for (let r = 0; r < rounds; r++) {
    hDirect.push(await httpRound(demoPort, "add"))
    hThrough.push(await httpRound(gatewayPort, "demo_add"))
  }
  compare("http", hDirect, hThrough)
  gateway.kill()
  demo.kill()

  const idle = async (servers: Record<string, unknown>) => {
    const c = child([mcpMain, "gateway", "--config", configOf(servers), "--serve", "handshake"])
    c.send(Envelope.handshakeEra.handshake!.initialize)
    await c.next()
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const rss = rssMiB(c.proc.pid!)
    c.proc.kill()
    return rss
  }
  const one = await idle({ u0: demoStdio })
  const nine = await idle(Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`u${i}`, demoStdio])))
  console.log(
    `memory: gateway RSS ${one.toFixed(1)} MiB with 1 upstream, ${nine.toFixed(1)} MiB with 9: ` +
      `${((nine - one) / 8).toFixed(2)} MiB per upstream connection`
  )
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
