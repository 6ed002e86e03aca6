/**
 * `tools/call add` through `mcp gateway` (apps/cli, built) vs directly to its upstream, and vs a
 * floor (`gateway-floor.ts`: a bare pass-through process, plain Node, no Effect), in the same run,
 * over stdio and over HTTP, to two upstreams: our demo (`apps/everything`) and the official SDK's
 * server (`sdk-add-server.ts` over stdio, `sdk-http-server.ts --json` over HTTP), whose own cost
 * per call is larger, as most servers' is:
 *
 * - stdio: the client spawns the upstream (direct), the floor or the gateway (`mcp gateway
 *   --config F`, whose one upstream is spawned over stdio), does the handshake, then keeps
 *   `BENCH_IN_FLIGHT` calls in flight for `BENCH_REQUESTS` calls; rounds alternate (direct, floor,
 *   ours, direct, …);
 * - HTTP: the upstream on a port vs the floor and the gateway on ports of their own, whose upstream
 *   is that same server over HTTP; `BENCH_SESSIONS` sessions keep one call in flight each for
 *   `BENCH_MILLIS`;
 * - CPU per call of each process (client, gateway, upstream), read from `/proc` over the measured
 *   calls: wall-clock figures on a loaded machine are noisy, CPU time much less so;
 * - memory: the gateway's RSS with 1 upstream and with 9 (the demo over stdio each), once idle:
 *   the difference over 8 is what one upstream connection costs the gateway.
 *
 * Every process shares the machine's cores (2 here: client, gateway and upstream compete). The
 * floor shows what any gateway process costs on them. Targets (issue 41, as the floor showed them
 * to be reachable): ours ≥ 80% of the floor's throughput, and p50 at most 0.3 ms more than the
 * floor's, same run. Ratios are the medians of per-round ratios.
 * The gateway's CPU per call is also printed split (its system part: the kernel's side of its
 * reads and writes). `BENCH_STRACE=1` counts the system calls per call of the process in the
 * middle of each HTTP route (the upstream for direct, else the floor or the gateway) with
 * `strace -c -f` over its measured calls: what a gateway adds in reads and writes, apart from
 * what it does in JS (strace slows the process it watches: its rounds' speeds mean nothing).
 * `BENCH_PARTS` picks parts (`stdio-demo,stdio-sdk,http-demo,http-sdk,memory`, the default).
 * `BENCH_GATEWAY_FLAGS` (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) are given to the floor's and
 * the gateway's processes. A benchmark, not a test: it prints, and exits 1 on a wrong answer.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as Envelope from "./envelope.js"
import { load, openSessions } from "./http-driver.js"
import { cpuMillis, cpuSplitMillis, freePort, rssKiB } from "./proc.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = path.join(root, "apps/cli/dist/main.js")
const demoMain = path.join(root, "apps/everything/dist/main.js")
const floorMain = path.join(root, "bench/dist/gateway-floor.js")
const sdkStdio = path.join(root, "bench/dist/sdk-add-server.js")
const sdkHttp = path.join(root, "bench/dist/sdk-http-server.js")
const requests = Number(process.env.BENCH_REQUESTS ?? 20_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 16)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const sessions = Number(process.env.BENCH_SESSIONS ?? 16)
const millis = Number(process.env.BENCH_MILLIS ?? 5_000)
/**
 * Calls each HTTP route (direct, floor, ours) serves before its first round, not counted
 * (`BENCH_HTTP_WARMUP_CALLS`, 10,000; 0 for none, as before). The HTTP gateways are started once
 * for all rounds, and V8 still compiles ours for its first ~6,000 calls (`--trace-opt`: 246
 * functions optimised in its first 1,500 calls, 120 more by 6,000, 16 more by 20,000), on the 2
 * cores the client, gateway and upstream share; the floor, with less code, settles sooner. Without
 * a warm-up the first round (and the median of three) counted that compiling as the gateway's per
 * call. (Each stdio round spawns its processes and warms them with 5,000 calls of its own.)
 */
const httpWarmup = Number(process.env.BENCH_HTTP_WARMUP_CALLS ?? 10_000)
/** Which parts run (default all): `stdio-demo,stdio-sdk,http-demo,http-sdk,memory`. */
const parts = (process.env.BENCH_PARTS ?? "stdio-demo,stdio-sdk,http-demo,http-sdk,memory").split(",")
const gatewayFlags = (process.env.BENCH_GATEWAY_FLAGS ?? "").split(" ").filter((f) => f.length > 0)
const straced = process.env.BENCH_STRACE === "1"

const dir = mkdtempSync(path.join(os.tmpdir(), "bench-gateway-"))
let configs = 0
const configOf = (servers: Record<string, unknown>) => {
  const file = path.join(dir, `gateway-${configs++}.json`)
  writeFileSync(file, JSON.stringify({ mcpServers: servers }))
  return file
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
/** The children of a process (its upstream, for a gateway). */
const childrenOf = (pid: number): Array<number> => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** Three ways to the same upstream: directly, through the floor, through ours. */
type Route = "direct" | "floor" | "ours" | "before"
/**
 * `BENCH_BEFORE`: the `main.js` of another build of `mcp` (a copy of `apps/cli/dist` inside
 * `apps/cli`, say, so that its imports resolve), run as a fourth route in the same rounds.
 */
const beforeMain = process.env.BENCH_BEFORE
const routes: ReadonlyArray<Route> = [
  "direct",
  "floor",
  "ours",
  ...(beforeMain !== undefined ? ["before" as const] : [])
]
const mainOf = (route: Route) => route === "before" ? beforeMain! : mcpMain

interface Stats {
  readonly rps: number
  readonly p50: number
  /** CPU µs per call: the client (this process), the gateway (none direct), the upstream. */
  readonly client: number
  readonly gateway: number
  /** The system part of `gateway`. */
  readonly gatewaySystem: number
  readonly upstream: number
  /** `BENCH_STRACE`: system calls per call of the process in the middle, by name (and `total`). */
  readonly syscalls?: Readonly<Record<string, number>> | undefined
}

/**
 * `strace -c -f` on `pid` until `stop` is called: the counts of its system calls by name, once
 * strace has written them (`total` among them).
 */
const strace = async (pid: number) => {
  const out = path.join(dir, `strace-${pid}-${Date.now()}.txt`)
  const proc = spawn("strace", ["-c", "-f", "-o", out, "-p", String(pid)], { stdio: ["ignore", "ignore", "pipe"] })
  // strace says on stderr when it is attached.
  await new Promise<void>((resolve, reject) => {
    proc.once("error", reject)
    proc.stderr!.once("data", () => resolve())
  })
  return async (): Promise<Record<string, number>> => {
    const exited = new Promise((resolve) => proc.once("exit", resolve))
    proc.kill("SIGINT")
    await exited
    const counts: Record<string, number> = {}
    for (const line of readFileSync(out, "latin1").split("\n")) {
      const cols = line.trim().split(/\s+/)
      // % time, seconds, usecs/call, calls, [errors,] syscall
      if (cols.length >= 5 && /^[\d.]+$/.test(cols[0]!) && /^\d+$/.test(cols[3]!)) {
        counts[cols[cols.length - 1]!] = Number(cols[3])
      } else if (cols[cols.length - 1] === "total" && /^\d+$/.test(cols[2]!)) counts.total = Number(cols[2])
    }
    return counts
  }
}

/** CPU of the processes given (and of this one) over `run`, per call. */
const measured = async (
  pids: {
    readonly gateway: number | undefined
    readonly upstream: number | undefined
    /** `BENCH_STRACE`: count the system calls of the gateway (the upstream when direct). */
    readonly strace?: boolean
  },
  run: () => Promise<{ readonly rps: number; readonly p50: number; readonly calls: number }>
): Promise<Stats> => {
  const middle = pids.gateway ?? pids.upstream
  const stopTrace = pids.strace === true && middle !== undefined ? await strace(middle) : undefined
  const own = process.cpuUsage()
  const gateway = pids.gateway === undefined ? undefined : cpuSplitMillis(pids.gateway)
  const upstream = pids.upstream === undefined ? 0 : cpuMillis(pids.upstream)
  const result = await run()
  const ownUsed = process.cpuUsage(own)
  const gatewayAfter = pids.gateway === undefined ? undefined : cpuSplitMillis(pids.gateway)
  const upstreamAfter = pids.upstream === undefined ? 0 : cpuMillis(pids.upstream)
  const counts = stopTrace === undefined ? undefined : await stopTrace()
  const per = (ms: number) => (ms * 1000) / result.calls
  return {
    rps: result.rps,
    p50: result.p50,
    client: (ownUsed.user + ownUsed.system) / result.calls,
    gateway: gateway === undefined ?
      Number.NaN :
      per(gatewayAfter!.user + gatewayAfter!.system - gateway.user - gateway.system),
    gatewaySystem: gateway === undefined ? Number.NaN : per(gatewayAfter!.system - gateway.system),
    upstream: pids.upstream === undefined ? Number.NaN : per(upstreamAfter - upstream),
    syscalls: counts === undefined ?
      undefined :
      Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, n / result.calls]))
  }
}

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

/** An upstream over stdio: how it is spawned. */
interface StdioUpstream {
  readonly label: string
  readonly args: ReadonlyArray<string>
}

const stdioArgs = (route: Route, upstream: StdioUpstream, config: string): ReadonlyArray<string> =>
  route === "direct"
    ? upstream.args
    : route === "floor"
    ? [...gatewayFlags, floorMain, "stdio", "up", process.execPath, ...upstream.args]
    : [...gatewayFlags, mainOf(route), "gateway", "--config", config, "--serve", "handshake"]

const stdioRound = async (route: Route, upstream: StdioUpstream, config: string): Promise<Stats> => {
  const c = child(stdioArgs(route, upstream, config))
  const envelope = Envelope.handshakeEra
  c.send(envelope.handshake!.initialize)
  while (!(await c.next()).includes("\"id\":0")) { /* a notification before the answer */ }
  c.send(envelope.handshake!.initialized)
  const tool = route === "direct" ? "add" : "up_add"
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
      const id = Number(/"id":(\d+)/.exec(line)?.[1])
      if (!Envelope.isGoodAdd(line, id)) throw new Error(`bad answer: ${line.slice(0, 200)}`)
      latency.push(performance.now() - sentAt[id - first]!)
      if (next < count) send()
    }
    return { rps: count / ((performance.now() - start) / 1000), p50: median(latency), calls: count }
  }
  await run(Math.min(5_000, requests), 1)
  const pid = c.proc.pid!
  const stats = await measured(
    route === "direct" ? { gateway: undefined, upstream: pid } : { gateway: pid, upstream: childrenOf(pid)[0] },
    () => run(requests, 1_000_000)
  )
  c.proc.kill()
  return stats
}

/** `node args…` until killed, once its stderr (or stdout) says `ready`. */
const serving = (args: ReadonlyArray<string>, ready: string) =>
  new Promise<ChildProcess>((resolve) => {
    const proc = spawn(process.execPath, args, { cwd: root, stdio: ["pipe", "pipe", "pipe"] })
    let seen = ""
    const look = (chunk: Buffer) => {
      seen += chunk
      if (seen.includes(ready)) resolve(proc)
    }
    proc.stderr!.on("data", look)
    proc.stdout!.on("data", look)
  })

const envelopeOf = (tool: string) => ({
  ...Envelope.handshakeEra,
  addCall: (id: number) => Envelope.handshakeEra.addCall(id).replace("\"name\":\"add\"", `"name":"${tool}"`)
})

/** `httpWarmup` calls to a route, on sessions of their own, before its rounds (not counted). */
const httpWarm = async (port: number, tool: string): Promise<void> => {
  if (httpWarmup <= 0) return
  const envelope = envelopeOf(tool)
  const opened = await openSessions({ port, path: "/mcp" }, envelope, sessions)
  let done = 0
  while (done < httpWarmup) {
    const s = await load(opened, envelope, 1_000, 20_000_000 + done)
    if (s.bad > 0) throw new Error(`bad answers while warming up: ${s.firstBad}`)
    done += s.requests
  }
  for (const s of opened) s.connection.close()
}

const httpRound = async (
  port: number,
  tool: string,
  pids: { readonly gateway: number | undefined; readonly upstream: number }
): Promise<Stats> => {
  const envelope = envelopeOf(tool)
  const opened = await openSessions({ port, path: "/mcp" }, envelope, sessions)
  await load(opened, envelope, 1_000, 1)
  const stats = await measured({ ...pids, strace: straced }, async () => {
    const s = await load(opened, envelope, millis, 10_000_000)
    if (s.bad > 0) throw new Error(`bad answers: ${s.firstBad}`)
    return { rps: s.rps, p50: s.p50, calls: s.requests }
  })
  for (const s of opened) s.connection.close()
  return stats
}

const us = (n: number) => Number.isFinite(n) ? n.toFixed(1) : "-"
const pct = (n: number) => `${(n * 100).toFixed(0)}%`

/** Each route's rounds, and the ratios of the same rounds. */
const compare = (label: string, by: Readonly<Record<Route, ReadonlyArray<Stats>>>) => {
  for (const route of routes) {
    const s = by[route]
    console.log(
      `${label} ${route.padEnd(6)}: ${s.map((x) => `${Math.round(x.rps)}/s p50 ${x.p50.toFixed(3)}`).join("; ")}` +
        ` | CPU µs/call (median) client ${us(median(s.map((x) => x.client)))}, gateway ${
          us(median(s.map((x) => x.gateway)))
        } (system ${us(median(s.map((x) => x.gatewaySystem)))}), upstream ${us(median(s.map((x) => x.upstream)))}` +
        (s[0]?.syscalls === undefined ?
          "" :
          ` | syscalls/call (${route === "direct" ? "upstream" : "gateway"}) ${
            Object.entries(s[0].syscalls).filter(([, n]) => n >= 0.01).sort((a, b) => b[1] - a[1])
              .map(([name, n]) => `${name} ${n.toFixed(2)}`).join(", ")
          }`)
    )
  }
  const ratio = (a: Route, b: Route) => median(by[a].map((x, i) => x.rps / by[b][i]!.rps))
  const added = (a: Route, b: Route) => median(by[a].map((x, i) => x.p50 - by[b][i]!.p50))
  console.log(
    `${label}: throughput ours/direct ${pct(ratio("ours", "direct"))}, floor/direct ${
      pct(ratio("floor", "direct"))
    }, ours/floor ${pct(ratio("ours", "floor"))} (target ≥ 80%); added p50 ours ${
      added("ours", "direct").toFixed(3)
    } ms, floor ${added("floor", "direct").toFixed(3)} ms, ours − floor ${
      added("ours", "floor").toFixed(3)
    } ms (target ≤ 0.3)` +
      (beforeMain === undefined ?
        "" :
        `; ours/before ${pct(ratio("ours", "before"))}, CPU per call of the gateway ${
          us(median(by.ours.map((x) => x.gateway)))
        } µs vs ${us(median(by.before.map((x) => x.gateway)))} µs before`)
  )
}

const stdioBench = async (upstream: StdioUpstream) => {
  const config = configOf({ up: { command: process.execPath, args: upstream.args } })
  const by: Record<Route, Array<Stats>> = { direct: [], floor: [], ours: [], before: [] }
  for (let r = 0; r < rounds; r++) {
    for (const route of routes) by[route].push(await stdioRound(route, upstream, config))
  }
  compare(`stdio, ${upstream.label}`, by)
}

const httpBench = async (
  label: string,
  upstreamArgs: (port: number) => ReadonlyArray<string>,
  ready: (port: number) => string
) => {
  const upstreamPort = await freePort()
  const upstream = await serving(upstreamArgs(upstreamPort), ready(upstreamPort))
  const url = `http://127.0.0.1:${upstreamPort}/mcp`
  const floorPort = await freePort()
  const floor = await serving([...gatewayFlags, floorMain, "http", "up", String(floorPort), url], "ready")
  const gateway = async (route: Route) => {
    const port = await freePort()
    const config = configOf({ up: { url } })
    const args = ["gateway", "--config", config, "--port", String(port), "--serve", "handshake"]
    return { port, proc: await serving([...gatewayFlags, mainOf(route), ...args], "serving at") }
  }
  const ours = await gateway("ours")
  const before = beforeMain === undefined ? undefined : await gateway("before")
  const by: Record<Route, Array<Stats>> = { direct: [], floor: [], ours: [], before: [] }
  const target = { direct: upstreamPort, floor: floorPort, ours: ours.port, before: before?.port ?? 0 }
  const gateways = { direct: undefined, floor: floor.pid, ours: ours.proc.pid, before: before?.proc.pid }
  for (const route of routes) await httpWarm(target[route], route === "direct" ? "add" : "up_add")
  for (let r = 0; r < rounds; r++) {
    for (const route of routes) {
      by[route].push(
        await httpRound(target[route], route === "direct" ? "add" : "up_add", {
          gateway: gateways[route],
          upstream: upstream.pid!
        })
      )
    }
  }
  compare(`http, ${label}`, by)
  // SIGINT: a profiled gateway writes its profile as it exits.
  for (const proc of [ours.proc, before?.proc, floor, upstream]) proc?.kill("SIGINT")
}

const main = async () => {
  console.log(
    `load: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} on ${os.cpus().length} CPUs; HTTP routes warmed up ` +
      `with ${httpWarmup} calls each before their rounds`
  )
  const demo = { label: "our demo", args: [demoMain, "stdio", "--era", "handshake"] }
  if (parts.includes("stdio-demo")) await stdioBench(demo)
  if (parts.includes("stdio-sdk")) await stdioBench({ label: "SDK server", args: [sdkStdio] })
  if (parts.includes("http-demo")) {
    await httpBench(
      "our demo",
      (port) => [demoMain, "http", "--port", String(port), "--era", "handshake"],
      (port) => `:${port}`
    )
  }
  if (parts.includes("http-sdk")) {
    await httpBench("SDK server", (port) => [sdkHttp, "--port", String(port), "--json"], () => "ready")
  }
  if (!parts.includes("memory")) return

  const idle = async (servers: Record<string, unknown>) => {
    const c = child([mcpMain, "gateway", "--config", configOf(servers), "--serve", "handshake"])
    c.send(Envelope.handshakeEra.handshake!.initialize)
    await c.next()
    // The least of five readings half a second apart, from 1 s after the handshake: RSS moves with
    // the heap's collections, the least is the closest to what stays.
    const readings: Array<number> = []
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    for (let i = 0; i < 5; i++) {
      readings.push(rssKiB(c.proc.pid!) / 1024)
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    const upstreams = childrenOf(c.proc.pid!).map((pid) => rssKiB(pid) / 1024)
    c.proc.kill()
    return { rss: Math.min(...readings), upstream: median(upstreams) }
  }
  const demoStdio = { command: process.execPath, args: demo.args }
  const one = await idle({ u0: demoStdio })
  const nine = await idle(Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`u${i}`, demoStdio])))
  console.log(
    `memory: gateway RSS ${one.rss.toFixed(1)} MiB with 1 upstream, ${nine.rss.toFixed(1)} MiB with 9: ` +
      `${((nine.rss - one.rss) / 8).toFixed(2)} MiB per upstream connection in the gateway ` +
      `(each stdio upstream, the demo, is a process of ${nine.upstream.toFixed(1)} MiB of its own)`
  )
  console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
