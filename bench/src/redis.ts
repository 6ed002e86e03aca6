/**
 * What shared state on Redis (`@effect-mcp/redis`, `RedisState.layer`) costs, in one run, against a
 * redis-server of its own on a free port (`--save "" --appendonly no`):
 *
 * 1. **State: memory vs Redis.** One server (`ours-redis-http-server.ts`: the `add` tool on
 *    `NodeMcpServer.layerHttp`), its state in process memory or on Redis (`--redis`, the same
 *    code), driven with `tools/call add` by the client of the HTTP benchmarks (`http-driver.ts`:
 *    raw keep-alive sockets, one call in flight per connection): (a) the handshake era
 *    (2025-11-25, one initialized session per connection, calls repeated on it) and (b) the
 *    stateless 2026-07-28 revision. Requests/s and p50/p99, and the ratios Redis / memory with the
 *    targets (stateless ≥ 90%, handshake ≥ 60%).
 * 2. **One instance vs three behind nginx.** The demo server (`apps/everything`, `--redis`) started
 *    by `deploy/cluster.mjs` with `--instances 1` and `--instances 3`: straight to the one instance
 *    (the floor), through nginx to it, and through nginx round-robin to three, both eras. Every
 *    server-side process (instances, nginx) shares one CPU, so this is the overhead per request
 *    of the proxy and of spreading a session over instances, not a speed-up.
 * 3. **An idle session in Redis.** Opens 1,000 handshake sessions (`initialize` with an SDK-like
 *    client's capabilities and `clientInfo`, then `notifications/initialized`) on the Redis
 *    server of (1a), and reports Redis's `used_memory` growth per session, the `MEMORY USAGE` of
 *    one session's key, and every key the sessions added (target ≤ 2 KB a session).
 *
 * The targets of a comparison are measured side by side: each gets its connections (and sessions)
 * and a warm-up until req/s stops rising, then rounds of one slice of load on each in turn (the
 * order rotating), so the machine's slow spells (seconds long on these VMs) fall on all alike.
 * Figures are over all slices of a target (req/s = answers / time, p50 and p99 of every call);
 * ratios are the median (and min) of the per-round ratios, and targets are judged on the median.
 * Every answer is checked.
 * Server CPU/req is the user + system time of the server-side processes (`/proc`) over the
 * measured calls; Redis CPU/req that of redis-server.
 *
 * With pinning (`proc.ts`), this process and redis-server run on CPU 0 and every server-side
 * process on the last CPU, so Redis is "another machine" for the servers, as in a deployment.
 * Nothing listens beyond 127.0.0.1. Every process started here is stopped at the end, also on
 * failure or Ctrl-C.
 *
 * Environment: BENCH_ROUNDS (12), BENCH_REDIS_MILLIS (400: one slice),
 * BENCH_REDIS_CONNECTIONS (10), BENCH_REDIS_SESSIONS (1000), BENCH_REDIS_PARTS (1,2,3),
 * BENCH_PROFILE=<dir> (a CPU profile of each measured run of the part-1 servers, read with
 * `profile.js`), BENCH_PIN=0.
 *
 * A benchmark, not a test.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { join } from "node:path"
import { type Envelope, handshakeEra, isGoodAdd, stateless } from "./envelope.js"
import { Connection, openSession, openSessions, Refused, type Session } from "./http-driver.js"
import {
  BenchFailure,
  type Child,
  command,
  cpuMillis,
  freePort,
  here,
  median,
  ms,
  num,
  percent,
  percentile,
  pinning,
  pinningNote,
  profileDir,
  startHttpServer,
  table
} from "./proc.js"
import { record, type Row, targetRow } from "./summary.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 12)
const millis = Number(process.env.BENCH_REDIS_MILLIS ?? 400)
const connectionCount = Number(process.env.BENCH_REDIS_CONNECTIONS ?? 10)
const sessionCount = Number(process.env.BENCH_REDIS_SESSIONS ?? 1_000)
const parts = (process.env.BENCH_REDIS_PARTS ?? "1,2,3").split(",")
const warmupSlice = 500
const warmupMin = 1_000
const warmupMax = 6_000
const section = "redis"

// ---------------------------------------------------------------------------------------------
// Processes: everything started here, stopped at the end whatever happens.

/** Every process this benchmark started (directly or through cluster.mjs), by pid. */
const started = new Set<number>()
const stoppers: Array<() => Promise<void>> = []

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const killAll = (): void => {
  for (const pid of started) {
    if (alive(pid)) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // Gone meanwhile.
      }
    }
  }
}

const stopAll = async (): Promise<void> => {
  // Newest first: the cluster before the Redis it uses.
  for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => {})
  killAll()
}

process.on("exit", killAll)
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killAll()
    process.exit(130)
  })
}

/** `taskset -c <cpu> …` when pinning is on. */
const pinned = (cpu: string | undefined, command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  cpu === undefined ? [command, [...args]] : ["taskset", ["-c", cpu, command, ...args]]

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

/** SIGTERM, then SIGKILL after `grace` ms. */
const terminate = async (child: ChildProcess, grace: number): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), grace)
  await exited(child)
  clearTimeout(timer)
}

/** Resolves once something accepts connections on `port`. */
const listening = (port: number, timeout = 15_000): Promise<void> =>
  new Promise((resolve, reject) => {
    const deadline = Date.now() + timeout
    const attempt = () => {
      const socket = connect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        resolve()
      })
      socket.once("error", () => {
        socket.destroy()
        if (Date.now() > deadline) reject(new BenchFailure(`nothing listens on ${port}`))
        else setTimeout(attempt, 25)
      })
    }
    attempt()
  })

/** The pids of a process's children (nginx's workers), from `/proc`. */
const childrenOf = (pid: number): Array<number> => {
  const found: Array<number> = []
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      if (ppid === pid) found.push(Number(name))
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}

/** Busy CPU time of the whole machine so far, ms. */
const machineBusy = (): number => {
  const line = readFileSync("/proc/stat", "latin1").split("\n", 1)[0]
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number)
  return (user + nice + system + irq + softirq + steal) * 10
}

const sumCpu = (pids: ReadonlyArray<number>): number => pids.reduce((sum, pid) => sum + (cpuMillis(pid) || 0), 0)

// ---------------------------------------------------------------------------------------------
// Redis: the server, and a client of a few commands (RESP over node:net).

type Reply = string | number | null | BenchFailure | ReadonlyArray<Reply>

/** A minimal Redis client: commands pipelined on one connection, answers in order. */
class RedisClient {
  private buf: Buffer = Buffer.alloc(0)
  private readonly waiting: Array<(reply: Reply) => void> = []

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk))
    socket.on("error", () => {})
    socket.on("close", () => {
      for (const resolve of this.waiting.splice(0)) resolve(new BenchFailure("redis connection closed"))
    })
  }

  static open(port: number): Promise<RedisClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: "127.0.0.1", noDelay: true })
      socket.once("connect", () => {
        socket.off("error", reject)
        resolve(new RedisClient(socket))
      })
      socket.once("error", reject)
    })
  }

  command(...args: ReadonlyArray<string | number>): Promise<Reply> {
    const parts = args.map((arg) => Buffer.from(String(arg)))
    const text = Buffer.concat([
      Buffer.from(`*${parts.length}\r\n`),
      ...parts.flatMap((part) => [Buffer.from(`$${part.length}\r\n`), part, Buffer.from("\r\n")])
    ])
    return new Promise((resolve, reject) => {
      this.waiting.push((reply) => (reply instanceof BenchFailure ? reject(reply) : resolve(reply)))
      this.socket.write(text)
    })
  }

  async text(...args: ReadonlyArray<string | number>): Promise<string> {
    const reply = await this.command(...args)
    if (typeof reply !== "string") throw new BenchFailure(`${args.join(" ")}: ${JSON.stringify(reply)}`)
    return reply
  }

  close(): void {
    this.socket.destroy()
  }

  private onData(chunk: Buffer) {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk])
    for (;;) {
      const parsed = this.parse(0)
      if (parsed === undefined) return
      this.buf = this.buf.subarray(parsed.end)
      this.waiting.shift()?.(parsed.value)
    }
  }

  /** One reply at `at`, or undefined if it is not all in yet. */
  private parse(at: number): { readonly value: Reply; readonly end: number } | undefined {
    const lineEnd = this.buf.indexOf("\r\n", at)
    if (lineEnd < 0) return undefined
    const kind = String.fromCharCode(this.buf[at])
    const line = this.buf.toString("latin1", at + 1, lineEnd)
    const next = lineEnd + 2
    switch (kind) {
      case "+":
        return { value: line, end: next }
      case "-":
        return { value: new BenchFailure(`redis: ${line}`), end: next }
      case ":":
        return { value: Number(line), end: next }
      case "$": {
        const length = Number(line)
        if (length < 0) return { value: null, end: next }
        if (this.buf.length < next + length + 2) return undefined
        return { value: this.buf.toString("utf8", next, next + length), end: next + length + 2 }
      }
      case "*": {
        const count = Number(line)
        if (count < 0) return { value: null, end: next }
        const items: Array<Reply> = []
        let end = next
        for (let i = 0; i < count; i++) {
          const item = this.parse(end)
          if (item === undefined) return undefined
          items.push(item.value)
          end = item.end
        }
        return { value: items, end }
      }
      default:
        throw new BenchFailure(`redis: unexpected reply ${JSON.stringify(this.buf.toString("latin1", at, lineEnd))}`)
    }
  }
}

interface Redis {
  readonly port: number
  readonly pid: number
  readonly client: RedisClient
  /** The URL of database `db`. */
  readonly url: (db: number) => string
}

const startRedis = async (cpu: string | undefined): Promise<Redis> => {
  const port = await freePort()
  const [command, args] = pinned(cpu, "redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--loglevel",
    "warning"
  ])
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr!.setEncoding("utf8")
  child.stderr!.on("data", (text: string) => {
    stderr = (stderr + text).slice(-2000)
  })
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (error) => reject(new BenchFailure(`redis-server: ${error.message}`)))
    child.once("exit", (code) => reject(new BenchFailure(`redis-server exited (${code}): ${stderr}`)))
  })
  failed.catch(() => {})
  if (child.pid !== undefined) started.add(child.pid)
  stoppers.push(() => terminate(child, 2_000))
  await Promise.race([listening(port), failed])
  const client = await RedisClient.open(port)
  stoppers.push(async () => client.close())
  return { port, pid: child.pid!, client, url: (db) => `redis://127.0.0.1:${port}/${db}` }
}

const usedMemory = async (redis: Redis): Promise<number> => {
  const info = await redis.client.text("INFO", "memory")
  const match = /^used_memory:(\d+)/m.exec(info)
  if (match === null) throw new BenchFailure(`INFO memory without used_memory: ${info.slice(0, 200)}`)
  return Number(match[1])
}

/** Every key of the selected database. */
const allKeys = async (redis: Redis): Promise<Set<string>> => {
  const keys = new Set<string>()
  let cursor = "0"
  do {
    const reply = await redis.client.command("SCAN", cursor, "COUNT", 1000) as [string, Array<string>]
    cursor = reply[0]
    for (const key of reply[1]) keys.add(key)
  } while (cursor !== "0")
  return keys
}

// ---------------------------------------------------------------------------------------------
// Measuring: the same driver and the same warm-up for every target.

interface Target {
  readonly key: string
  readonly name: string
  readonly port: number
  /** The server-side processes whose CPU time counts (the nginx master's workers found when measured). */
  readonly pids: () => ReadonlyArray<number>
  /** The server child, for profiles. */
  readonly child?: Child
}

/** One slice of closed-loop load on one target. */
interface Slice {
  readonly latencies: Array<number>
  readonly seconds: number
  readonly bad: number
  readonly firstBad: string | undefined
  /** This process's CPU time over the slice, ms. */
  readonly clientMillis: number
  readonly nextId: number
}

/** A target's figures over all its measured slices. */
interface Result {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Server-side CPU per answered request, µs. */
  readonly serverCpuPerRequest: number
  /** Redis CPU per answered request, µs. */
  readonly redisCpuPerRequest: number
  /** This process's CPU time / wall time. */
  readonly clientCpu: number
  /** Requests/s of each slice, in order. */
  readonly slices: ReadonlyArray<number>
}

/** CPU time of other processes during the measured slices, and the wall time of those slices. */
const otherLoad = { millis: 0, wall: 0 }

/**
 * `load` of `http-driver.ts` (closed loop: every session keeps one `tools/call add` in flight for
 * `duration`, then the calls in flight finish; throughput = answers / (last answer − start)), but
 * through `Connection.request`, which reconnects a connection the server closed after an answer:
 * nginx closes a client's keep-alive connection after 1,000 requests (its `keepalive_requests`)
 * and a client carries on over a new one (the same session). Used for every target here, so all
 * are driven alike.
 */
const drive = async (
  sessions: ReadonlyArray<Session>,
  envelope: Envelope,
  duration: number,
  firstId: number
): Promise<Slice> => {
  const latencies: Array<number> = []
  let nextId = firstId
  let bad = 0
  let firstBad: string | undefined
  let stopping = false
  const cpu = process.cpuUsage()
  const start = performance.now()
  let last = start
  const timer = setTimeout(() => {
    stopping = true
  }, duration)
  await Promise.all(sessions.map(async (session) => {
    while (!stopping) {
      const id = nextId++
      const body = envelope.addCall(id)
      const sentAt = performance.now()
      try {
        const response = await session.connection.request(
          `${session.prefix}Content-Length: ${body.length}\r\n\r\n${body}`
        )
        const now = performance.now()
        last = now
        if (response.status === 200 && isGoodAdd(response.body, id)) latencies.push(now - sentAt)
        else {
          bad++
          firstBad ??= `${response.status}\n${response.head}\n\n${response.body.slice(0, 500)}`
        }
      } catch (error) {
        bad++
        firstBad ??= error instanceof Error ? error.message : String(error)
        return
      }
    }
  }))
  clearTimeout(timer)
  const used = process.cpuUsage(cpu)
  return {
    latencies,
    seconds: (last - start) / 1000,
    bad,
    firstBad,
    clientMillis: (used.user + used.system) / 1000,
    nextId
  }
}

const rpsOf = (slice: Slice) => slice.latencies.length / slice.seconds

/** Slices until throughput stops rising (two in a row not 5% above the best), for at least `warmupMin`. */
const warmUp = async (sessions: ReadonlyArray<Session>, envelope: Envelope): Promise<number> => {
  const start = performance.now()
  let nextId = 1
  let best = 0
  let stale = 0
  for (;;) {
    const slice = await drive(sessions, envelope, warmupSlice, nextId)
    if (slice.bad > 0) throw new BenchFailure(`${slice.bad} bad answers in the warm-up; first: ${slice.firstBad}`)
    nextId = slice.nextId
    stale = rpsOf(slice) > best * 1.05 ? 0 : stale + 1
    best = Math.max(best, rpsOf(slice))
    const elapsed = performance.now() - start
    if ((stale >= 2 && elapsed >= warmupMin) || elapsed >= warmupMax) return nextId
  }
}

/**
 * The targets of one comparison, measured side by side: each gets its connections (and sessions)
 * and its warm-up, then `rounds` rounds of one slice of `millis` on each target in turn (the order
 * rotating from round to round), so that the machine's slow spells fall on all of them alike.
 */
const compareTargets = async (
  targets: ReadonlyArray<Target>,
  envelope: Envelope,
  redis: Redis,
  group: string
): Promise<Array<Result>> => {
  const what = (t: number, error: unknown) =>
    new BenchFailure(
      `${group}, ${targets[t].name}: ${error instanceof Error ? error.message : String(error)}` +
        (targets[t].child === undefined ? "" : `\nstderr: ${targets[t].child!.stderr()}`)
    )
  const pools: Array<ReadonlyArray<Session>> = []
  try {
    const nextIds: Array<number> = []
    for (const [t, target] of targets.entries()) {
      try {
        const sessions = await openSessions({ port: target.port, path: "/mcp" }, envelope, connectionCount)
        pools.push(sessions)
        nextIds.push(await warmUp(sessions, envelope))
      } catch (error) {
        throw what(t, error)
      }
    }
    const profiled = (t: number) => profileDir !== undefined && targets[t].child !== undefined
    for (const [t, target] of targets.entries()) {
      if (profiled(t)) await command(target.child!, "profile-start", "profiling")
    }
    const acc = targets.map(() => ({
      latencies: [] as Array<number>,
      seconds: 0,
      server: 0,
      redis: 0,
      client: 0,
      slices: [] as Array<number>
    }))
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < targets.length; k++) {
        const t = (r + k) % targets.length
        const pids = targets[t].pids()
        const serverBefore = sumCpu(pids)
        const redisBefore = cpuMillis(redis.pid)
        const machineBefore = machineBusy()
        const wallBefore = performance.now()
        const slice = await drive(pools[t], envelope, millis, nextIds[t])
        const server = sumCpu(pids) - serverBefore
        const redisCpu = cpuMillis(redis.pid) - redisBefore
        const wall = performance.now() - wallBefore
        otherLoad.millis += Math.max(0, machineBusy() - machineBefore - server - redisCpu - slice.clientMillis)
        otherLoad.wall += wall
        if (slice.bad > 0) throw what(t, `${slice.bad} bad answers; first: ${slice.firstBad}`)
        nextIds[t] = slice.nextId
        const a = acc[t]
        for (const latency of slice.latencies) a.latencies.push(latency)
        a.seconds += slice.seconds
        a.server += server
        a.redis += redisCpu
        a.client += slice.clientMillis
        a.slices.push(rpsOf(slice))
      }
    }
    for (const [t, target] of targets.entries()) {
      if (profiled(t)) {
        await command(
          target.child!,
          `profile-stop ${join(profileDir!, `${section}-${group}-${target.key}.cpuprofile`)}`,
          "profiled"
        )
      }
    }
    return acc.map((a) => {
      const sorted = Float64Array.from(a.latencies).sort()
      const requests = Math.max(1, a.latencies.length)
      return {
        rps: a.latencies.length / a.seconds,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        serverCpuPerRequest: (a.server * 1000) / requests,
        redisCpuPerRequest: (a.redis * 1000) / requests,
        clientCpu: a.client / 1000 / a.seconds,
        slices: a.slices
      }
    })
  } finally {
    for (const sessions of pools) for (const session of sessions) session.connection.close()
  }
}

const us = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} µs` : "-")
const signedMs = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? "+" : ""}${n.toFixed(3)} ms` : "-")

const runRows = (targets: ReadonlyArray<Target>, results: ReadonlyArray<Result>, label: string) =>
  targets.map((target, t) => {
    const result = results[t]
    return [
      label,
      target.name,
      num(result.rps),
      ms(result.p50),
      ms(result.p99),
      us(result.serverCpuPerRequest),
      us(result.redisCpuPerRequest),
      percent(result.clientCpu),
      `${num(Math.min(...result.slices))} – ${num(median(result.slices))} – ${num(Math.max(...result.slices))}`
    ]
  })

const runHeader = [
  "era",
  "target",
  "req/s",
  "p50",
  "p99",
  "server CPU/req",
  "Redis CPU/req",
  "client CPU",
  "slices: min – median – max req/s"
]

interface Comparison {
  /** Median and min of the per-round req/s ratios a / b (slice of round r over slice of round r). */
  readonly median: number
  readonly min: number
  /** Latency differences a − b, ms. */
  readonly p50: number
  readonly p99: number
  /** Server-side + Redis CPU per request, a − b, µs. */
  readonly cpu: number
}

const compare = (a: Result, b: Result): Comparison => {
  const perRound = a.slices.map((rps, r) => rps / b.slices[r])
  return {
    median: median(perRound),
    min: Math.min(...perRound),
    p50: a.p50 - b.p50,
    p99: a.p99 - b.p99,
    cpu: a.serverCpuPerRequest + a.redisCpuPerRequest - b.serverCpuPerRequest - b.redisCpuPerRequest
  }
}

// ---------------------------------------------------------------------------------------------
// Part 1: memory vs Redis, one instance.

interface Part {
  readonly lines: Array<string>
  readonly rows: Array<Row>
}

const partOne = async (redis: Redis): Promise<{ readonly out: Part; readonly handshakeRedis: Target }> => {
  const server = here("./ours-redis-http-server.js")
  const start = async (key: string, name: string, args: ReadonlyArray<string>): Promise<Target> => {
    const { child, port } = await startHttpServer(server, args)
    started.add(child.pid)
    stoppers.push(() => child.stop())
    return { key, name, port, child, pids: () => [child.pid] }
  }
  const handshake = [
    await start("memory", "in memory", ["--revisions", "handshake"]),
    await start("redis", "on Redis", ["--revisions", "handshake", "--redis", redis.url(0)])
  ]
  const statelessTargets = [
    await start("memory", "in memory", ["--revisions", "stateless"]),
    await start("redis", "on Redis", ["--revisions", "stateless", "--redis", redis.url(1)])
  ]
  const groups = [
    { label: "handshake", era: "2025-11-25", envelope: handshakeEra, targets: handshake, threshold: 0.6 },
    { label: "stateless", era: "2026-07-28", envelope: stateless, targets: statelessTargets, threshold: 0.9 }
  ]
  const rows = [runHeader]
  const ratioRows = [["Redis / memory", "req/s median (min)", "target", "", "p50 +", "p99 +", "CPU/req +"]]
  const summary: Array<Row> = []
  for (const group of groups) {
    const results = await compareTargets(group.targets, group.envelope, redis, group.label)
    rows.push(...runRows(group.targets, results, group.era))
    const c = compare(results[1], results[0])
    const met = c.median >= group.threshold
    const shown = `${(group.threshold * 100).toFixed(0)}%`
    ratioRows.push([
      `${group.label} (${group.era})`,
      `${percent(c.median)} (${percent(c.min)})`,
      `≥ ${shown}`,
      met ? "met" : "NOT MET",
      signedMs(c.p50),
      signedMs(c.p99),
      us(c.cpu)
    ])
    summary.push(
      targetRow(
        section,
        `${group.label}: Redis / memory req/s (${connectionCount} conns)`,
        c.median,
        `${percent(c.median)} (min ${percent(c.min)})`,
        "≥",
        group.threshold,
        shown
      ),
      {
        section,
        label: `${group.label}: memory → Redis`,
        value: `${num(results[0].rps)} → ${num(results[1].rps)} req/s, p50 ${results[0].p50.toFixed(3)} → ${
          results[1].p50.toFixed(3)
        } ms, p99 ${results[0].p99.toFixed(3)} → ${results[1].p99.toFixed(3)} ms`
      }
    )
  }
  const lines = [
    `1. One instance, state in memory vs on Redis (ours-redis-http-server.ts, tools/call add, ${connectionCount} ` +
    `keep-alive connections, one call in flight each; handshake: one initialized session per connection): ` +
    `${rounds} rounds of a ${millis} ms slice on each, after a warm-up`,
    ...table(rows, 2),
    ...table(ratioRows),
    "req/s: median (min) of the per-round ratios; p50 +, p99 +: Redis's minus memory's; CPU/req +: server + Redis " +
    "CPU per request, Redis's minus memory's."
  ]
  return { out: { lines, rows: summary }, handshakeRedis: handshake[1] }
}

// ---------------------------------------------------------------------------------------------
// Part 2: one instance vs three behind nginx (deploy/cluster.mjs).

interface Cluster {
  readonly url: string
  readonly instances: ReadonlyArray<{ readonly port: number; readonly pid: number }>
  readonly nginx: { readonly port: number; readonly pid: number }
}

const startCluster = async (instances: number, redisUrl: string, cpu: string | undefined): Promise<Cluster> => {
  const script = join(here("../.."), "deploy/cluster.mjs")
  const demo = join(here("../.."), "apps/everything/dist/main.js")
  if (!existsSync(demo)) throw new BenchFailure(`${demo} is missing: build apps/everything first`)
  const [command, args] = pinned(cpu, process.execPath, [
    script,
    "--instances",
    String(instances),
    "--port",
    "0",
    "--redis",
    redisUrl
  ])
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
  if (child.pid !== undefined) started.add(child.pid)
  let stderr = ""
  child.stderr!.setEncoding("utf8")
  child.stderr!.on("data", (text: string) => {
    stderr = (stderr + text).slice(-4000)
  })
  let reported: Cluster | undefined
  stoppers.push(async () => {
    // cluster.mjs stops its processes on SIGTERM (SIGKILL after 1.5 s); then whatever is left, by pid.
    await terminate(child, 4_000)
    for (const pid of [...(reported?.instances.map((i) => i.pid) ?? []), reported?.nginx.pid ?? -1]) {
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL")
    }
  })
  reported = await new Promise<Cluster>((resolve, reject) => {
    let out = ""
    const timer = setTimeout(() => reject(new BenchFailure(`cluster.mjs: no JSON line in 30 s\n${stderr}`)), 30_000)
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (text: string) => {
      out += text
      const end = out.indexOf("\n")
      if (end < 0) return
      clearTimeout(timer)
      try {
        resolve(JSON.parse(out.slice(0, end)) as Cluster)
      } catch (error) {
        reject(new BenchFailure(`cluster.mjs printed ${out.slice(0, end)}: ${String(error)}`))
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new BenchFailure(`cluster.mjs exited (${code}) before it was up\n${stderr}`))
    })
  })
  for (const instance of reported.instances) started.add(instance.pid)
  started.add(reported.nginx.pid)
  return reported
}

const partTwo = async (redis: Redis, cpu: string | undefined): Promise<Part> => {
  // Each cluster on a database of its own: two deployments, not one of four instances.
  const one = await startCluster(1, redis.url(2), cpu)
  const three = await startCluster(3, redis.url(3), cpu)
  const nginxPids = (cluster: Cluster) => () => [cluster.nginx.pid, ...childrenOf(cluster.nginx.pid)]
  const targets: ReadonlyArray<Target> = [
    {
      key: "direct",
      name: "1 instance, direct (no nginx)",
      port: one.instances[0].port,
      pids: () => [one.instances[0].pid]
    },
    {
      key: "nginx-1",
      name: "nginx → 1 instance",
      port: one.nginx.port,
      pids: () => [one.instances[0].pid, ...nginxPids(one)()]
    },
    {
      key: "nginx-3",
      name: "nginx → 3 instances",
      port: three.nginx.port,
      pids: () => [...three.instances.map((i) => i.pid), ...nginxPids(three)()]
    }
  ]
  const rows = [runHeader]
  const overheadRows = [["vs 1 instance direct", "era", "req/s median (min)", "p50 +", "p99 +", "CPU/req +"]]
  const summary: Array<Row> = []
  for (
    const { era, envelope } of [{ era: "2025-11-25", envelope: handshakeEra }, {
      era: "2026-07-28",
      envelope: stateless
    }]
  ) {
    const results = await compareTargets(targets, envelope, redis, `cluster-${era}`)
    rows.push(...runRows(targets, results, era))
    for (const t of [1, 2]) {
      const c = compare(results[t], results[0])
      overheadRows.push([
        targets[t].name,
        era,
        `${percent(c.median)} (${percent(c.min)})`,
        signedMs(c.p50),
        signedMs(c.p99),
        us(c.cpu)
      ])
      summary.push({
        section,
        label: `${targets[t].name} / direct, ${era}`,
        value: `req/s ${percent(c.median)}, p50 ${signedMs(c.p50)}, p99 ${signedMs(c.p99)}, CPU/req ${us(c.cpu)}`
      })
    }
  }
  return {
    lines: [
      `2. The demo server (apps/everything, --redis, --era dual) by deploy/cluster.mjs: 1 instance direct (the floor), ` +
      `nginx → 1, nginx → 3 (round-robin, no affinity: a session's calls spread over the three); every instance ` +
      `and nginx share ${cpu === undefined ? "the machine (not pinned)" : `CPU ${cpu}`}: the overhead per request, ` +
      `not a speed-up. ${connectionCount} connections, ${rounds} rounds of a ${millis} ms slice on each, after a warm-up`,
      ...table(rows, 2),
      ...table(overheadRows, 2),
      "CPU/req +: server-side (instances + nginx master and workers) + Redis CPU per request, minus the direct instance's."
    ],
    rows: summary
  }
}

// ---------------------------------------------------------------------------------------------
// Part 3: the bytes of an idle handshake session in Redis.

/** An `initialize` as the SDK's client sends it: its usual capabilities and a clientInfo. */
const sdkLike: Envelope = {
  ...handshakeEra,
  handshake: {
    initialize: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
        clientInfo: { name: "example-client", version: "1.0.0" }
      }
    }),
    initialized: handshakeEra.handshake!.initialized
  }
}

const partThree = async (redis: Redis, target: Target): Promise<Part> => {
  const connections = await Promise.all(
    Array.from({ length: 10 }, () => Connection.open({ port: target.port, path: "/mcp" }))
  )
  try {
    await redis.client.text("SELECT", 0)
    // Let touches and the like from part 1 settle.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const keysBefore = await allKeys(redis)
    const liveSet = "mcp:sessions"
    const liveBefore = Number(await redis.client.command("MEMORY", "USAGE", liveSet, "SAMPLES", "0") ?? 0)
    const before = await usedMemory(redis)
    const ids: Array<string> = []
    let left = sessionCount
    await Promise.all(connections.map(async (connection) => {
      while (left > 0) {
        left--
        const session = await openSession(connection, sdkLike)
        if (session instanceof Refused) throw new BenchFailure(`session refused: ${session.status} ${session.body}`)
        ids.push(session.sessionId!)
      }
    }))
    await new Promise((resolve) => setTimeout(resolve, 500))
    const after = await usedMemory(redis)
    const liveAfter = Number(await redis.client.command("MEMORY", "USAGE", liveSet, "SAMPLES", "0") ?? 0)
    const keysAfter = await allKeys(redis)
    const perSession = (after - before) / ids.length

    // Every key the sessions added, by shape (the session id replaced).
    const added = [...keysAfter].filter((key) => !keysBefore.has(key))
    const shapes = new Map<string, { count: number; bytes: number; sample: string }>()
    const usages = await Promise.all(
      added.map((key) => redis.client.command("MEMORY", "USAGE", key, "SAMPLES", "0"))
    )
    added.forEach((key, k) => {
      const id = ids.find((candidate) => key.includes(candidate))
      const shape = id === undefined ? key : key.replace(id, "<id>")
      const entry = shapes.get(shape) ?? { count: 0, bytes: 0, sample: key }
      entry.count++
      entry.bytes += Number(usages[k] ?? 0)
      shapes.set(shape, entry)
    })
    const sessionKey = `mcp:session.v2:${ids[0]}`
    const oneKey = Number(await redis.client.command("MEMORY", "USAGE", sessionKey, "SAMPLES", "0") ?? Number.NaN)
    // One string: its header, the subject, the state's JSON deflated (RedisSessionStore).
    const length = Number(await redis.client.command("STRLEN", sessionKey) ?? 0)
    const fieldText = `one string of ${length} B (the state's JSON deflated)`

    const shapeRows = [["keys added", "count", "MEMORY USAGE each (mean)"]]
    for (const [shape, entry] of shapes) {
      shapeRows.push([shape, num(entry.count), `${(entry.bytes / entry.count).toFixed(0)} B`])
    }
    shapeRows.push([
      `${liveSet} (sorted set, grown)`,
      `+${num(ids.length)} members`,
      `${((liveAfter - liveBefore) / ids.length).toFixed(0)} B a member`
    ])
    const met = perSession <= 2048
    return {
      lines: [
        `3. Idle handshake sessions in Redis: ${num(ids.length)} sessions opened on the Redis server of 1a ` +
        `(initialize with capabilities {roots:{listChanged:true},sampling:{},elicitation:{}} and clientInfo, then ` +
        `notifications/initialized), over 10 connections`,
        ...table([
          ["figure", "value", "target", ""],
          [
            "used_memory growth / session",
            `${perSession.toFixed(0)} B (${num(before)} → ${num(after)} B)`,
            "≤ 2 KB",
            met ? "met" : "NOT MET"
          ],
          ["MEMORY USAGE of one session key", `${oneKey} B (${sessionKey.replace(ids[0], "<id>")})`, "", ""],
          ["its record", fieldText, "", ""]
        ], 2),
        ...table(shapeRows)
      ],
      rows: [
        targetRow(
          section,
          `Redis bytes per idle handshake session (${num(ids.length)}, used_memory)`,
          perSession,
          `${perSession.toFixed(0)} B (one key: ${oneKey} B)`,
          "≤",
          2048,
          "2 KB"
        )
      ]
    }
  } finally {
    for (const connection of connections) connection.close()
  }
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  const begun = performance.now()
  const note = pinningNote()
  // Pinned: this process on CPU 0 (pinning() did it), Redis beside it, every server-side process on the last CPU.
  const serverCpu = pinning()?.server
  const clientCpu = serverCpu === undefined ? undefined : "0"
  const redis = await startRedis(clientCpu)
  const out: Array<string> = [
    `REDIS BENCHMARK: redis-server ${
      /redis_version:(\S+)/.exec(await redis.client.text("INFO", "server"))?.[1] ?? "?"
    } on 127.0.0.1:${redis.port} (no persistence); ${note}${clientCpu === undefined ? "" : ", redis-server on CPU 0"}`
  ]
  const print = (lines: ReadonlyArray<string>) => {
    process.stdout.write(lines.join("\n") + "\n\n")
  }
  print(out)
  const summary: Array<Row> = []
  let later: Part | undefined
  if (parts.includes("1") || parts.includes("3")) {
    const partOneStoppers = stoppers.length
    const one = await partOne(redis)
    if (parts.includes("1")) {
      print(one.out.lines)
      summary.push(...one.out.rows)
    }
    if (parts.includes("3")) {
      // Measured now, on the Redis server of 1a; printed after part 2.
      later = await partThree(redis, one.handshakeRedis)
    }
    // The part-1 servers go before the clusters run.
    for (const stop of stoppers.splice(partOneStoppers).reverse()) await stop()
  }
  if (parts.includes("2")) {
    const two = await partTwo(redis, serverCpu)
    print(two.lines)
    summary.push(...two.rows)
  }
  if (later !== undefined) {
    print(later.lines)
    summary.push(...later.rows)
  }
  const other = otherLoad.wall === 0 ? Number.NaN : otherLoad.millis / otherLoad.wall
  summary.push({ section, label: "other load on the machine", value: `${percent(other)} of a CPU` })
  print([
    `other processes used ${percent(other)} of a CPU during the measured runs` +
    (other > 0.15 ? " (BUSY MACHINE: these figures are disturbed, run again when it is idle)" : ""),
    `total ${((performance.now() - begun) / 1000).toFixed(0)} s`
  ])
  record(summary)
}

main()
  .catch((error) => {
    process.stderr.write(
      `REDIS BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
    )
    process.exitCode = 1
  })
  .finally(() => stopAll())
