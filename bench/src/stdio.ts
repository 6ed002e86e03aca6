/**
 * `tools/call add` over stdio, end to end, against two servers in child processes:
 * `apps/everything` (effect-mcp) and the official TypeScript SDK (`@modelcontextprotocol/server`
 * 2.4.0, `sdk-add-server.ts`) serving the same tool.
 *
 * For each server: spawn it, do the handshake (2025-11-25), warm up, then send `total`
 * calls keeping `window` in flight (a new one goes out whenever an answer comes back).
 * Latency is send → response line; throughput is calls / wall time; RSS is the child's
 * peak `VmRSS` over samples taken every 50 ms; CPU/call is the child's user + system CPU time
 * over the measured calls (from `/proc/<pid>/stat`), which other load on the machine disturbs less.
 *
 * The client is plain Node and the same for both servers: request lines are built before
 * the clock starts, and each response line is only searched (its id, that it is a result
 * with the right sum), never parsed. Servers run alternately (ours, sdk, ours, sdk, …);
 * the table shows each server's best round by throughput.
 *
 * Prints the table to stdout and exits 1 if any response was an error, wrong or missing.
 * A benchmark, not a test.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"

const total = Number(process.env.BENCH_REQUESTS ?? 20_000)
const warmup = Number(process.env.BENCH_WARMUP ?? 2_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 64)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
/** Extra Node flags for the server children, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them. */
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) => flag.length > 0)
/** Gives up on a round when no answer arrives for this long. */
const stallMillis = 30_000

/**
 * On Linux with `taskset` and at least two CPUs, this process runs on CPU 0 and each server on
 * the last CPU, so the two never compete for a core and the kernel does not move them around
 * (unpinned, rounds of the same server differed by up to 1.7× on a 2-CPU machine).
 * `BENCH_PIN=0` turns this off.
 */
const pin: { readonly server: string } | undefined = (() => {
  const cpus = availableParallelism()
  if (process.env.BENCH_PIN === "0" || process.platform !== "linux" || cpus < 2) return undefined
  try {
    execFileSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" })
    return { server: String(cpus - 1) }
  } catch {
    return undefined
  }
})()

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

interface Server {
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
}

const servers: ReadonlyArray<Server> = [
  {
    name: "effect-mcp (apps/everything)",
    file: process.env.BENCH_OURS ?? here("../../apps/everything/dist/main.js"),
    args: ["stdio"]
  },
  { name: "official SDK 2.4.0", file: here("./sdk-add-server.js"), args: [] }
]

interface Round {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Peak resident set size of the child during the round, in KiB. */
  readonly rssKiB: number
  /** CPU time (user + system) the child spent per call, in microseconds: less noisy than wall time. */
  readonly cpuPerCall: number
  readonly ok: number
  readonly bad: number
  readonly missing: number
  readonly firstBad: string | undefined
}

class BenchFailure extends Error {}

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

const rssKiB = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "latin1"))
    return match ? Number(match[1]) : 0
  } catch {
    return 0
  }
}

/** User + system CPU time of a process so far, in milliseconds (Linux clock ticks are 10 ms). */
const cpuMillis = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

/** The integer after the first `"id":` of a line, or -1. Only digits: ids here are numbers. */
const idOf = (line: string): number => {
  const at = line.indexOf("\"id\":")
  if (at < 0) return -1
  let i = at + 5
  let id = 0
  let digits = 0
  for (let c = line.charCodeAt(i); c >= 48 && c <= 57; c = line.charCodeAt(++i)) {
    id = id * 10 + (c - 48)
    digits++
  }
  return digits === 0 ? -1 : id
}

/**
 * One connection to a server child: lines in, lines out. `onLines` gets every complete
 * line of one stdout chunk at once, with one timestamp for all of them.
 */
const connect = (server: Server) => {
  const command = [process.execPath, ...nodeFlags, server.file, ...server.args]
  const [file, ...args] = pin === undefined ? command : ["taskset", "-c", pin.server, ...command]
  const child: ChildProcessWithoutNullStreams = spawn(file, args, {
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (text: string) => {
    stderr = (stderr + text).slice(-4000)
  })
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code))
    child.once("error", (error) => {
      stderr += `\n${error.message}`
      resolve(null)
    })
  })
  let onLines: (lines: Array<string>, now: number) => void = () => {}
  let carry = ""
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (text: string) => {
    const now = performance.now()
    const lines = (carry + text).split("\n")
    carry = lines.pop()!
    onLines(lines, now)
  })
  return {
    child,
    exited,
    stderr: () => stderr,
    setOnLines: (f: typeof onLines) => {
      onLines = f
    },
    write: (text: string) => child.stdin.write(text)
  }
}

type Connection = ReturnType<typeof connect>

/** Sends one request line and waits for the line answering `id`. */
const call = (connection: Connection, id: number, line: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchFailure(`no answer to request ${id}`)), stallMillis)
    void connection.exited.then((code) => reject(new BenchFailure(`the server exited (code ${code})`)))
    connection.setOnLines((lines) => {
      for (const l of lines) {
        if (idOf(l) === id) {
          clearTimeout(timer)
          resolve(l)
        }
      }
    })
    connection.write(line + "\n")
  })

const handshake = async (connection: Connection) => {
  const answer = await call(
    connection,
    0,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } }
    })
  )
  const result = JSON.parse(answer).result
  if (result?.protocolVersion !== "2025-11-25") throw new BenchFailure(`initialize failed: ${answer}`)
  connection.write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
}

/**
 * `count` calls with ids `first … first + count - 1`, `window` in flight. Request `id`
 * adds `id` and 1, so its answer must hold `"sum":id+1`.
 */
const burst = (connection: Connection, first: number, count: number, sampleRss: boolean): Promise<Round> => {
  const requests = new Array<string>(count)
  const sums = new Array<string>(count)
  for (let k = 0; k < count; k++) {
    const id = first + k
    requests[k] =
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${id},"b":1}}}\n`
    sums[k] = `"sum":${id + 1}}`
  }
  const sentAt = new Float64Array(count)
  const latency = new Float64Array(count)
  const answered = new Uint8Array(count)
  let next = 0
  let done = 0
  let ok = 0
  let bad = 0
  let firstBad: string | undefined
  let peak = 0
  const pid = connection.child.pid!

  return new Promise((resolve) => {
    let start = 0
    let cpuAtStart = 0
    let stall: ReturnType<typeof setTimeout> | undefined
    const sampler = sampleRss ? setInterval(() => peak = Math.max(peak, rssKiB(pid)), 50) : undefined
    let finished = false
    const finish = () => {
      if (finished) return
      finished = true
      clearTimeout(stall)
      clearInterval(sampler)
      const seconds = (performance.now() - start) / 1000
      const cpu = cpuMillis(pid) - cpuAtStart
      if (sampleRss) peak = Math.max(peak, rssKiB(pid))
      const measured = latency.filter((_, k) => answered[k] === 1).sort()
      connection.setOnLines(() => {})
      resolve({
        rps: ok / seconds,
        p50: percentile(measured, 0.5),
        p99: percentile(measured, 0.99),
        rssKiB: peak,
        cpuPerCall: (cpu * 1000) / Math.max(1, ok),
        ok,
        bad,
        missing: count - done,
        firstBad
      })
    }
    const armStall = () => {
      clearTimeout(stall)
      stall = setTimeout(finish, stallMillis)
    }
    /** Sends `n` more requests (as many as remain) in one write. */
    const send = (n: number) => {
      const end = Math.min(count, next + n)
      if (end === next) return
      const now = performance.now()
      let text = ""
      for (; next < end; next++) {
        sentAt[next] = now
        text += requests[next]
      }
      connection.write(text)
    }
    connection.setOnLines((lines, now) => {
      let answers = 0
      for (const line of lines) {
        if (line.startsWith("{\"method\":") || line.includes(",\"method\":")) continue // a notification or request of the server
        const k = idOf(line) - first
        if (k < 0 || k >= count || answered[k] === 1) {
          bad++
          firstBad ??= line
          continue
        }
        answered[k] = 1
        latency[k] = now - sentAt[k]
        done++
        answers++
        if (line.includes("\"result\":") && !line.includes("\"error\":") && line.includes(sums[k])) ok++
        else {
          bad++
          firstBad ??= line
        }
      }
      if (answers > 0) armStall()
      send(answers)
      if (done === count) finish()
    })
    // A server that dies leaves the rest missing at once, rather than after the stall timeout.
    void connection.exited.then(finish)
    cpuAtStart = cpuMillis(pid)
    start = performance.now()
    armStall()
    send(window)
  })
}

const round = async (server: Server): Promise<Round> => {
  const connection = connect(server)
  try {
    await handshake(connection)
    const warm = await burst(connection, 1, warmup, false)
    if (warm.ok !== warmup) {
      throw new BenchFailure(
        `${server.name}: warm-up got ${warm.ok}/${warmup} good answers (first bad: ${warm.firstBad ?? "none"})`
      )
    }
    return await burst(connection, 1 + warmup, total, true)
  } catch (error) {
    throw new BenchFailure(
      `${server.name}: ${error instanceof Error ? error.message : String(error)}\nstderr: ${connection.stderr()}`
    )
  } finally {
    connection.child.stdin.end()
    const timer = setTimeout(() => connection.child.kill(), 2_000)
    await connection.exited
    clearTimeout(timer)
  }
}

const main = async () => {
  for (const server of servers) {
    if (!existsSync(server.file)) throw new BenchFailure(`${server.file} is missing: run \`tsc -b\` at the root`)
  }
  const results: Array<Array<Round>> = servers.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let s = 0; s < servers.length; s++) results[s].push(await round(servers[s]))
  }
  const best = results.map((runs) => runs.reduce((a, b) => (b.rps > a.rps ? b : a)))
  const failed = results.some((runs) => runs.some((run) => run.bad > 0 || run.missing > 0))

  const num = (n: number) => Math.round(n).toLocaleString("en-US")
  const ms = (n: number) => `${n.toFixed(3)} ms`
  const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`
  const rows = [
    ["server", "req/s", "p50", "p99", "peak RSS", "CPU/call", "runs (req/s)"],
    ...servers.map((server, s) => [
      server.name,
      num(best[s].rps),
      ms(best[s].p50),
      ms(best[s].p99),
      mib(best[s].rssKiB),
      `${best[s].cpuPerCall.toFixed(1)} µs`,
      results[s].map((run) => num(run.rps)).join(", ")
    ])
  ]
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)))
  const line = (row: Array<string>) =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ")
  const [ours, sdk] = best
  const out = [
    `stdio tools/call add: ${total} calls after ${warmup} warm-up, ${window} in flight, ${rounds} alternating rounds; ` +
    `best round of each by req/s; ${pin ? `client on CPU 0, server on CPU ${pin.server}` : "not pinned"}`,
    line(rows[0]),
    ...rows.slice(1).map(line),
    `ours/sdk throughput: ${(ours.rps / sdk.rps).toFixed(2)}x`,
    `ours/sdk p99:        ${(ours.p99 / sdk.p99).toFixed(2)}x`,
    `ours/sdk CPU/call:   ${(ours.cpuPerCall / sdk.cpuPerCall).toFixed(2)}x`
  ]
  if (failed) {
    servers.forEach((server, s) =>
      results[s].forEach((run, r) => {
        if (run.bad > 0 || run.missing > 0) {
          out.push(
            `FAILED ${server.name} round ${r + 1}: ${run.bad} bad, ${run.missing} missing; first bad: ${
              run.firstBad ?? "none"
            }`
          )
        }
      })
    )
  }
  process.stdout.write(out.join("\n") + "\n")
  if (failed) process.exitCode = 1
}

main().catch((error) => {
  process.stderr.write((error instanceof BenchFailure ? error.message : String(error?.stack ?? error)) + "\n")
  process.exit(1)
})
