/**
 * What the process benchmarks (stdio, http, memory) share: CPU pinning, spawning server
 * children, reading a child's CPU time and RSS from `/proc`, percentiles and tables.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { availableParallelism, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** A benchmark that cannot go on (a wrong answer, a dead server): its message is printed, exit 1. */
export class BenchFailure extends Error {}

/** A path relative to the compiled `dist/` directory of this package. */
export const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url))

/** Extra Node flags for the server children, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them. */
export const nodeFlags: ReadonlyArray<string> = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) =>
  flag.length > 0
)

export interface Pinning {
  /** The CPU the server children run on (this process runs on CPU 0). */
  readonly server: string
}

let pinned: { readonly value: Pinning | undefined } | undefined

/**
 * On Linux with `taskset` and at least two CPUs, this process (the client) runs on CPU 0 and
 * each server child on the last CPU, so the two never compete for a core and the kernel does
 * not move them around (unpinned, rounds of the same server differed by up to 1.7× on a 2-CPU
 * machine). `BENCH_PIN=0` turns this off. Pins this process on the first call.
 */
export const pinning = (): Pinning | undefined => {
  if (pinned !== undefined) return pinned.value
  const value = ((): Pinning | undefined => {
    const cpus = availableParallelism()
    if (process.env.BENCH_PIN === "0" || process.platform !== "linux" || cpus < 2) return undefined
    try {
      // -a: every thread of this process (V8's and libuv's were started before this call).
      execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" })
      return { server: String(cpus - 1) }
    } catch {
      return undefined
    }
  })()
  pinned = { value }
  return value
}

export const pinningNote = (): string => {
  const pin = pinning()
  return pin ? `client on CPU 0, server on CPU ${pin.server}` : "not pinned"
}

/** `node [flags] file args`, under `taskset -c <server CPU>` when pinning is on (taskset execs: same pid). */
export const nodeCommand = (
  file: string,
  args: ReadonlyArray<string>,
  flags: ReadonlyArray<string> = []
): [string, Array<string>] => {
  if (!existsSync(file)) throw new BenchFailure(`${file} is missing: run \`tsc -b bench apps/everything\` at the root`)
  const command = [process.execPath, ...nodeFlags, ...flags, file, ...args]
  const pin = pinning()
  const [head, ...rest] = pin === undefined ? command : ["taskset", "-c", pin.server, ...command]
  return [head, rest]
}

/** Resident set size of a process now, in KiB (0 if it is gone). */
export const rssKiB = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "latin1"))
    return match ? Number(match[1]) : 0
  } catch {
    return 0
  }
}

/** User and system CPU time of a process so far, in milliseconds (Linux clock ticks are 10 ms). */
export const cpuSplitMillis = (pid: number): { readonly user: number; readonly system: number } => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 }
  } catch {
    return { user: Number.NaN, system: Number.NaN }
  }
}

/** User + system CPU time of a process so far, in milliseconds (Linux clock ticks are 10 ms). */
export const cpuMillis = (pid: number): number => {
  const { system, user } = cpuSplitMillis(pid)
  return user + system
}

/** Busy CPU time of the whole machine so far, in milliseconds (all CPUs, from `/proc/stat`). */
const machineBusyMillis = (): number => {
  try {
    const line = readFileSync("/proc/stat", "latin1").split("\n", 1)[0]
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number)
    return (user + nice + system + irq + softirq + steal) * 10
  } catch {
    return Number.NaN
  }
}

/** Children alive (their pids), and the CPU time of those already stopped. */
const liveChildren = new Set<number>()
let stoppedChildrenMillis = 0

const ownMillis = (): number => {
  const usage = process.cpuUsage()
  let total = (usage.user + usage.system) / 1000 + stoppedChildrenMillis
  for (const pid of liveChildren) total += cpuMillis(pid) || 0
  return total
}

export interface LoadMark {
  readonly wall: number
  readonly machine: number
  readonly own: number
}

export const markLoad = (): LoadMark => ({ wall: performance.now(), machine: machineBusyMillis(), own: ownMillis() })

/**
 * The CPU time other processes used since `mark` (the machine's busy time minus this process's
 * and its server children's), as a fraction of one CPU: other work on the machine (a build, a
 * test run) competes with the benchmark and makes its figures unreliable.
 */
export const otherLoad = (mark: LoadMark): number => {
  const wall = performance.now() - mark.wall
  return Math.max(0, (machineBusyMillis() - mark.machine - (ownMillis() - mark.own)) / wall)
}

/** A line saying how busy the rest of the machine was, with a warning when it was. */
export const otherLoadNote = (mark: LoadMark): string => {
  const other = otherLoad(mark)
  if (!Number.isFinite(other)) return "other processes: unknown (no /proc/stat)"
  return `other processes used ${(other * 100).toFixed(0)}% of a CPU meanwhile` +
    (other > 0.15 ? " (BUSY MACHINE: these figures are disturbed, run again when it is idle)" : "")
}

export const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** A free TCP port on 127.0.0.1 (bound, read, released: a server child binds it right after). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

export const num = (n: number): string => Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-"
export const ms = (n: number): string => Number.isFinite(n) ? `${n.toFixed(3)} ms` : "-"
export const mib = (kib: number): string => `${(kib / 1024).toFixed(1)} MiB`
export const ratio = (n: number): string => Number.isFinite(n) ? `${n.toFixed(2)}x` : "-"
export const percent = (n: number): string => Number.isFinite(n) ? `${(n * 100).toFixed(0)}%` : "-"

/** Rows as aligned columns: the first `left` columns (default 1) left-aligned, the others right-aligned. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>, left = 1): Array<string> => {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => (row[c] ?? "").length)))
  return rows.map((row) =>
    row.map((cell, c) => (c < left ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ").trimEnd()
  )
}

/**
 * A server child process, with its stdout read as lines. The HTTP servers of this package
 * print `ready` once listening and answer control lines on stdin (see `control.ts`); the stdio
 * servers speak JSON-RPC lines.
 */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams
  readonly pid: number
  readonly exited: Promise<number | null>
  readonly stderr: () => string
  /** Gets every complete stdout line of one chunk at once, with one timestamp for all of them. */
  readonly setOnLines: (f: (lines: Array<string>, now: number) => void) => void
  readonly write: (text: string) => void
  /** Closes stdin, waits for the exit (kills after 2 s). */
  readonly stop: () => Promise<void>
}

export const spawnChild = (
  file: string,
  args: ReadonlyArray<string> = [],
  flags: ReadonlyArray<string> = []
): Child => {
  const [command, commandArgs] = nodeCommand(file, args, flags)
  return spawnCommand(command, commandArgs)
}

/** `command args`, under `taskset -c <server CPU>` when pinning is on (another runtime than Node: Bun, Deno, workerd). */
export const pinnedCommand = (command: string, args: ReadonlyArray<string>): [string, Array<string>] => {
  const pin = pinning()
  return pin === undefined ? [command, [...args]] : ["taskset", ["-c", pin.server, command, ...args]]
}

/**
 * Any program as a server child (`spawnChild` is Node's). `extraPipe`: a fourth pipe, on fd 3
 * (workerd's `--control-fd 3`), read as `process.stdio[3]`; `stopSignal`: `stop` sends it instead of
 * closing stdin, for a program that does not exit when its stdin ends.
 */
export const spawnCommand = (
  command: string,
  commandArgs: ReadonlyArray<string>,
  options: {
    readonly env?: NodeJS.ProcessEnv
    readonly extraPipe?: boolean
    readonly stopSignal?: NodeJS.Signals
  } = {}
): Child => {
  const child = spawn(command, commandArgs, {
    stdio: options.extraPipe === true ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
    ...(options.env === undefined ? {} : { env: options.env })
  }) as ChildProcessWithoutNullStreams
  const pid = child.pid ?? -1
  if (pid > 0) liveChildren.add(pid)
  let stderr = ""
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (text: string) => {
    stderr = (stderr + text).slice(-4000)
  })
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      liveChildren.delete(pid)
      resolve(code)
    })
    child.once("error", (error) => {
      stderr += `\n${error.message}`
      resolve(null)
    })
  })
  // A child that exits early must not turn writes into unhandled EPIPE errors.
  child.stdin.on("error", () => {})
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
    process: child,
    pid,
    exited,
    stderr: () => stderr,
    setOnLines: (f) => {
      onLines = f
    },
    write: (text) => {
      child.stdin.write(text)
    },
    stop: async () => {
      if (liveChildren.delete(pid)) stoppedChildrenMillis += cpuMillis(pid) || 0
      if (options.stopSignal !== undefined) child.kill(options.stopSignal)
      else child.stdin.end()
      const timer = setTimeout(() => child.kill("SIGKILL"), 2_000)
      await exited
      clearTimeout(timer)
    }
  }
}

/** Waits for a stdout line for which `match` returns a value (or fails on exit / timeout). */
export const waitForLine = <A>(
  child: Child,
  match: (line: string) => A | undefined,
  what: string,
  timeoutMillis = 30_000
): Promise<A> =>
  new Promise((resolve, reject) => {
    let settled = false
    const settle = (f: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.setOnLines(() => {})
      f()
    }
    const timer = setTimeout(
      () => settle(() => reject(new BenchFailure(`timed out waiting for ${what}\nstderr: ${child.stderr()}`))),
      timeoutMillis
    )
    void child.exited.then((code) =>
      settle(() =>
        reject(new BenchFailure(`the server exited (code ${code}) before ${what}\nstderr: ${child.stderr()}`))
      )
    )
    child.setOnLines((lines) => {
      for (const line of lines) {
        let value: A | undefined
        try {
          value = match(line)
        } catch (error) {
          return settle(() => reject(error))
        }
        if (value !== undefined) return settle(() => resolve(value))
      }
    })
  })

/** An HTTP server child of this package on a free port, once it printed `ready`. */
export const startHttpServer = async (
  file: string,
  args: ReadonlyArray<string>,
  flags: ReadonlyArray<string> = []
): Promise<{ readonly child: Child; readonly port: number }> => {
  const port = await freePort()
  const child = spawnChild(file, ["--port", String(port), ...args], flags)
  try {
    // Up to 2 minutes: a server's start took over 30 s on a loaded machine (load 20 on 2 cores).
    await waitForLine(child, (line) => (line === "ready" ? true : undefined), `${file} to listen`, 120_000)
  } catch (error) {
    child.process.kill("SIGKILL")
    throw error
  }
  return { child, port }
}

export interface Memory {
  readonly rss: number
  readonly heapUsed: number
  readonly heapTotal: number
  readonly external: number
  readonly arrayBuffers: number
  /** Of `heapUsed`, V8's code spaces (compiled code), when the child says (`control.ts`). */
  readonly code?: number
}

/** Asks a child run with `--expose-gc` for `process.memoryUsage()` after a full collection. */
export const memoryOf = (child: Child): Promise<Memory> => {
  const answer = waitForLine(
    child,
    (line) => (line.startsWith("memory ") ? JSON.parse(line.slice(7)) as Memory : undefined),
    "a memory report"
  )
  child.write("memory\n")
  return answer
}

/** Sends a control command (`control.ts`) to a server child; resolves with its answer line (`failed …` rejects). */
export const command = (child: Child, line: string, answer: string, timeoutMillis?: number): Promise<string> => {
  const answered = waitForLine(
    child,
    (text) => {
      if (text.startsWith("failed ")) throw new BenchFailure(`${line}: ${text}`)
      return text.startsWith(answer) ? text : undefined
    },
    `the answer to ${line}`,
    timeoutMillis
  )
  child.write(`${line}\n`)
  return answered
}

/**
 * `BENCH_PROFILE=<dir>`: the HTTP benchmarks profile each measured run of each server in the
 * server itself (`profile-start` / `profile-stop`, `control.ts`) and write
 * `<dir>/<bench>-<server>-<conns>c-r<round>.cpuprofile`; read them with `profile.ts`. The
 * profiler slows the server down: figures of a profiled run are not comparable.
 */
export const profileDir: string | undefined = process.env.BENCH_PROFILE || undefined

/**
 * Valgrind's arguments for a child counted by `callgrindPerCall`: callgrind with its
 * instrumentation off at start (a warm-up runs at full speed), its dumps written to
 * `<outFile>.<n>` (`callgrind_control -d`), code the JIT writes checked.
 */
export const callgrindArgs = (outFile: string): Array<string> => [
  "--tool=callgrind",
  `--callgrind-out-file=${outFile}`,
  "--instr-atstart=no",
  "--smc-check=all-non-file",
  // A dump per thread: the main thread's apart from V8's workers' (TurboFan compiles, GC helpers).
  "--separate-threads=yes",
  // `BENCH_CALLGRIND_FLAGS`, e.g. `--cache-sim=yes --branch-sim=yes`: simulated cache misses and
  // mispredicted branches in the dumps kept (`BENCH_INSTR_KEEP`), beside the instructions (still
  // the first count of each dump's totals, what is printed).
  ...(process.env.BENCH_CALLGRIND_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
]

const keepDumps = process.env.BENCH_INSTR_KEEP || undefined

/** A fresh directory for one child's callgrind dumps (removed by `callgrindPerCall`). */
export const callgrindOutFile = (): string => join(mkdtempSync(join(tmpdir(), "bench-callgrind-")), "callgrind.out")

/**
 * Instructions per call of a child started with `callgrindArgs(outFile)`, counted between the
 * window's two edges in one run: the instrumentation is switched on (valgrind translates the
 * process's code again: seconds of slow calls), `settle` runs calls until that transient is over
 * and the JIT has settled on the instrumented build, the counters are zeroed
 * (`callgrind_control -z`), `drive` runs the `calls` counted, and a dump (`callgrind_control -d`)
 * is read at once, its `totals` every thread's (the JIT's and GC's too) over the window only, and
 * the main thread's apart (`main`: the JS, the main thread's GC; not V8's background compiles,
 * which took 40% of the floor's window and 52% of ours' in lane4's runs, and move from run to run).
 * What the process does before (the switch-on, the warm-up) and after (its exit) is not
 * counted; `drive` keeps a call in flight on each session, so the window is busy. `stop` ends
 * the child.
 */
export const callgrindPerCall = async (
  child: Child,
  key: string,
  outFile: string,
  calls: number,
  phases: {
    readonly settle: () => Promise<void>
    readonly drive: () => Promise<void>
    readonly stop: () => void
  }
): Promise<{ readonly total: number; readonly main: number }> => {
  const control = (...flags: ReadonlyArray<string>) =>
    execFileSync("callgrind_control", [...flags, String(child.pid)], { stdio: "ignore", timeout: 120_000 })
  try {
    control("-i", "on")
    await phases.settle()
    control("-z")
    await phases.drive()
    control("-d")
    // One dump per thread: `<outFile>.1-01` the main thread's, `-02` and on V8's workers'.
    const dumps = readdirSync(dirname(outFile)).filter((name) => /\.1-\d+$/.test(name))
    if (dumps.length === 0) throw new BenchFailure(`${key}: no callgrind dump\n${child.stderr()}`)
    let total = 0
    let main = 0
    for (const name of dumps) {
      const dump = join(dirname(outFile), name)
      // `BENCH_INSTR_KEEP=<dir>`: the window's dumps kept there, by function (`callgrind_annotate`).
      if (keepDumps !== undefined) {
        copyFileSync(dump, join(keepDumps, `${key}-${child.pid}${name.slice(name.lastIndexOf("-"))}.callgrind`))
      }
      const totals = /^totals:\s+(\d+)/m.exec(readFileSync(dump, "latin1"))
      if (totals === null) throw new BenchFailure(`${key}: no totals in the callgrind dump ${name}\n${child.stderr()}`)
      total += Number(totals[1])
      if (name.endsWith("-01")) main = Number(totals[1])
    }
    return { total: total / calls, main: main / calls }
  } finally {
    phases.stop()
    const timer = setTimeout(() => child.process.kill("SIGKILL"), 300_000)
    await child.exited
    clearTimeout(timer)
    rmSync(dirname(outFile), { recursive: true, force: true })
  }
}
