/**
 * Tasks over Streamable HTTP on 127.0.0.1: effect-mcp in 2025-11-25 (`params.task`, sessions),
 * effect-mcp in 2026-07-28 (the `io.modelcontextprotocol/tasks` extension declared in each
 * request's `_meta` client capabilities, `resultType: "task"`), and the official SDK 1.32.2's
 * experimental server tasks in 2025-11-25 (`registerToolTask`, `InMemoryTaskStore`), each
 * server a child of its own run with `--expose-gc` (`ours-tasks-server.ts`,
 * `sdk-tasks-server.ts`). The tool is `sleep` (`{ ms }` → `"done"`); its plain call is the floor
 * (the SDK's is `sleep-plain`, the same work as a plain tool: a plain call of its task tool
 * polls a task inside the server). The client keeps `BENCH_TASKS_CONNECTIONS` keep-alive
 * connections (one session each in 2025-11-25), one request in flight on each.
 *
 * Three phases per server, each in a fresh child, so no phase's tasks linger in another's
 * figures:
 *
 * 1. Overhead: `sleep { ms: 0 }` as a plain call and as a task's full round (create, `tasks/get`
 *    at once and again until `completed`, then `tasks/result` in 2025-11-25; in 2026-07-28 the
 *    completed `tasks/get` carries the result), `BENCH_TASKS_OVERHEAD_CALLS` of each over the
 *    connections, in `BENCH_ROUNDS` alternating rounds: latency per call (p50), the server's CPU
 *    time per call (`/proc`), and their ratios, task round / plain call.
 * 2. 1,000 concurrent tasks (`BENCH_TASKS`): after a warm-up (and as many tasks made as they will be,
 *    working 300 ms: the code a server compiles the first time it holds that many is not counted
 *    per task), the floor: the heap per handler of
 *    as many handlers run alone, none of a task around them (`floor-start` / `floor-stop` of each
 *    server: ours, fibers of the server's runtime running the tool's own `run`; the SDK's, the
 *    timer its `createTask` sets), so that what being a task costs beyond its handler is printed
 *    apart. Then heap after gc; then create the
 *    tasks with `ms` = `BENCH_TASKS_HOLD_MILLIS` (all working at once), each followed at once by
 *    a `tasks/get` on the same connection: create-to-first-status latency (from sending the
 *    create until the `tasks/get` showing it `working`), p50 and p99; heap after gc again, while
 *    all are working (checked: the first one made still is): the heap per working task (every
 *    heap figure leaves V8's code spaces out: the code compiled as the server gets busy is no
 *    task's; printed apart, per task). Then
 *    each task's result is read and checked.
 * 3. Sweep: a server whose `taskTtl` is `BENCH_TASKS_SWEEP_TTL` (the 2025-11-25 clients ask for
 *    it too, `params.task.ttl`); after a warm-up whose tasks are swept, heap after gc (the
 *    baseline); then `BENCH_TASKS_SWEEP` (10,000) tasks of `ms: 0`, finished at once; heap
 *    (finished); then past the ttl and the sweep interval, heap again (swept): what a finished
 *    task holds until it is swept, and how much of it returns. The last tasks made are checked
 *    completed before the ttl, a sample of all of them checked gone after.
 *
 * Each of ours is then put against the SDK, same run, as ratios (task round p50 and server CPU,
 * heap per working task, its handler alone and beyond it, create → first status p50 and p99,
 * create p50, the server's CPU per task made, heap per finished task), and the 2026-07-28 create
 * path against the 2025-11-25 one (create p50, CPU per task made).
 *
 * Ours runs with the store's bounds raised for the benchmark (`maxTasks`, `maxTasksPerOwner`
 * 200,000; `maxBytes` 512 MiB; swept every second), said in the output.
 *
 * Environment: BENCH_TASKS (1000), BENCH_TASKS_SWEEP (10000), BENCH_TASKS_HOLD_MILLIS (10000),
 * BENCH_TASKS_SWEEP_TTL (20000: it must cover the making of all the tasks, or the phase fails;
 * ours takes no ttl under 1 s), BENCH_TASKS_OVERHEAD_CALLS (2000), BENCH_TASKS_CONNECTIONS (50),
 * BENCH_ROUNDS (3), BENCH_TASKS_SERVERS (keys: ours, ours-2026, sdk; default all),
 * BENCH_TASKS_PHASES (overhead,concurrent,sweep: a subset; `instructions`, not by default: each
 * server under callgrind, the instructions per plain call and per task round, BENCH_INSTR_WARMUP
 * (1000), BENCH_INSTR_SETTLE (200), BENCH_INSTR_CALLS (1000) on 10 connections; with
 * BENCH_HTTP_STALL_MILLIS raised, the first calls under callgrind being slow: `pnpm run
 * tasks-instructions` does both),
 * BENCH_TASKS_BEFORE=<commit> (ours at that commit too, built apart by `baseline.ts`, each run
 * just before ours: a same-run A/B), BENCH_HEAP_SNAPSHOTS=<dir> (a heap
 * snapshot of the child at each memory measurement, `<dir>/tasks-<server>-<name>.heapsnapshot`,
 * names floor-before, floor (the handlers alone), before, working, baseline, finished, swept: compare two with `heap.ts --per N`),
 * BENCH_PROFILE=<dir> (a CPU profile of each server over the making of the concurrent tasks,
 * sampled every 100 µs, `<dir>/tasks-<server>-concurrent.cpuprofile`, and over the last round's
 * plain calls and task rounds, `tasks-<server>-overhead-plain` and `-overhead-task`: read them with `profile.ts`;
 * profiled figures are not comparable), BENCH_PIN=0.
 *
 * A benchmark, not a test.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { baseline } from "./baseline.js"
import { Connection, type Response, type Target } from "./http-driver.js"
import {
  BenchFailure,
  callgrindArgs,
  callgrindOutFile,
  type Child,
  command,
  cpuMillis,
  freePort,
  here,
  markLoad,
  median,
  type Memory,
  memoryOf,
  mib,
  ms,
  num,
  otherLoad,
  otherLoadNote,
  percent,
  percentile,
  pinningNote,
  profileDir,
  ratio,
  spawnCommand,
  startHttpServer,
  table,
  waitForLine
} from "./proc.js"
import { record, type Row } from "./summary.js"

const concurrentTasks = Number(process.env.BENCH_TASKS ?? 1_000)
const sweepTasks = Number(process.env.BENCH_TASKS_SWEEP ?? 10_000)
const holdMillis = Number(process.env.BENCH_TASKS_HOLD_MILLIS ?? 10_000)
const sweepTtl = Number(process.env.BENCH_TASKS_SWEEP_TTL ?? 20_000)
const overheadCalls = Number(process.env.BENCH_TASKS_OVERHEAD_CALLS ?? 2_000)
const connectionCount = Number(process.env.BENCH_TASKS_CONNECTIONS ?? 50)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const phases = (process.env.BENCH_TASKS_PHASES ?? "overhead,concurrent,sweep").split(",")
const snapshots = process.env.BENCH_HEAP_SNAPSHOTS || undefined
/** The ttl of the tasks of the overhead and concurrent phases. */
const longTtl = 60_000
/** Ours sweeps every second; the SDK's timers are exact. */
const sweepInterval = 1_000
const warmupCalls = 200
/** Polls of one task before its round gives up. */
const maxPolls = 10_000

const storeNote = "ours: TaskStore.layerMemory({ maxTasks: 200,000, maxTasksPerOwner: 200,000 (defaults 10,000 " +
  "and 1,000), maxBytes: 512 MiB, sweepInterval: 1 s }), taskPollInterval 100 ms"

interface Server {
  readonly key: string
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly revision: "2025-11-25" | "2026-07-28"
  /** The tool of the plain call: the floor. */
  readonly plainTool: string
}

const all: ReadonlyArray<Server> = [
  {
    key: "ours",
    name: "effect-mcp 2025-11-25",
    file: here("./ours-tasks-server.js"),
    args: ["--revisions", "handshake"],
    revision: "2025-11-25",
    plainTool: "sleep"
  },
  {
    key: "ours-2026",
    name: "effect-mcp 2026-07-28",
    file: here("./ours-tasks-server.js"),
    args: ["--revisions", "stateless"],
    revision: "2026-07-28",
    plainTool: "sleep"
  },
  {
    key: "sdk",
    name: "SDK 1.32.2 2025-11-25",
    file: here("./sdk-tasks-server.js"),
    args: [],
    revision: "2025-11-25",
    plainTool: "sleep-plain"
  }
]
/** `BENCH_TASKS_BEFORE=<commit>`: ours at that commit too (built apart, `baseline.ts`), each before ours. */
const before = process.env.BENCH_TASKS_BEFORE || undefined
const withBefore: ReadonlyArray<Server> = before === undefined ?
  all :
  all.flatMap((server) =>
    server.key === "sdk" ? [server] : [
      {
        ...server,
        key: `${server.key}-before`,
        name: `${server.name} @${before}`,
        file: join(baseline(before), "bench/dist/ours-tasks-server.js")
      },
      server
    ]
  )
const wanted = process.env.BENCH_TASKS_SERVERS?.split(",")
const servers = wanted === undefined
  ? withBefore
  : withBefore.filter((server) => wanted.includes(server.key.replace(/-before$/, "")))

// ---------------------------------------------------------------------------- the client

const metaOf = (tasks: boolean) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { "io.modelcontextprotocol/tasks": {} } } : {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" }
})
const withTasks = metaOf(true)
const withoutTasks = metaOf(false)

interface Message {
  readonly id?: unknown
  readonly result?: any
  readonly error?: { readonly code: number; readonly message: string }
}

const describe = (response: Response) => `${response.status}\n${response.head}\n\n${response.body.slice(0, 500)}`

/** The JSON-RPC answer to request `id` in a response: a JSON body, or the event of an SSE stream that carries it. */
const answerOf = (response: Response, id: number, what: string): Message => {
  const body = response.body
  // 2026-07-28 answers an error with its HTTP status (an unknown task: 400), the JSON-RPC error in the body.
  if (response.status !== 200) {
    const message = body.startsWith("{") ? JSON.parse(body) as Message : undefined
    if (message?.error !== undefined && message.id === id) return message
    throw new BenchFailure(`${what}: ${describe(response)}`)
  }
  if (body.startsWith("{")) return JSON.parse(body) as Message
  for (const event of body.replace(/\r\n/g, "\n").split("\n\n")) {
    const data = event.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart())
      .join("\n")
    if (data.length === 0) continue
    const message = JSON.parse(data) as Message
    if (message.id === id) return message
  }
  throw new BenchFailure(`${what}: no answer to request ${id}: ${describe(response)}`)
}

/** A task as made: where it lives (2025-11-25: its session's connection) and its id. */
interface Made {
  readonly peer: Peer
  readonly taskId: string
}

/** One keep-alive connection (2025-11-25: with its session): one request at a time. */
class Peer {
  private nextId = 1
  /** How many `tasks/get` the task rounds took. */
  polls = 0

  private constructor(
    readonly connection: Connection,
    readonly server: Server,
    private readonly sessionId: string | undefined
  ) {}

  static async open(target: Target, server: Server): Promise<Peer> {
    const connection = await Connection.open(target)
    if (server.revision === "2026-07-28") return new Peer(connection, server, undefined)
    const init = await connection.request(requestText(target, undefined, undefined, undefined, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } }
    }))
    const answer = answerOf(init, 0, "initialize")
    if (init.sessionId === undefined || answer.result?.protocolVersion !== "2025-11-25") {
      throw new BenchFailure(`initialize: ${describe(init)}`)
    }
    const peer = new Peer(connection, server, init.sessionId)
    const initialized = await connection.request(
      requestText(target, init.sessionId, "2025-11-25", undefined, {
        jsonrpc: "2.0",
        method: "notifications/initialized"
      })
    )
    if (initialized.status !== 202 && initialized.status !== 200) {
      throw new BenchFailure(`notifications/initialized: ${describe(initialized)}`)
    }
    return peer
  }

  /** A request; its answer (a result or an error). */
  async rpc(method: string, params: Record<string, unknown>, name?: string): Promise<Message> {
    const id = this.nextId++
    const stateless = this.server.revision === "2026-07-28"
    const response = await this.connection.request(requestText(
      this.connection.target,
      this.sessionId,
      this.server.revision,
      stateless ? { method, name } : undefined,
      { jsonrpc: "2.0", id, method, params }
    ))
    return answerOf(response, id, method)
  }

  private result(message: Message, what: string): any {
    if (message.error !== undefined || message.result === undefined) {
      throw new BenchFailure(`${this.server.name}: ${what}: ${JSON.stringify(message).slice(0, 500)}`)
    }
    return message.result
  }

  private checkDone(result: any, what: string): void {
    if (result?.content?.[0]?.text !== "done") {
      throw new BenchFailure(`${this.server.name}: ${what}: not done: ${JSON.stringify(result).slice(0, 500)}`)
    }
  }

  /** A plain call of the floor tool. */
  async plain(ms: number): Promise<void> {
    const stateless = this.server.revision === "2026-07-28"
    const params = { name: this.server.plainTool, arguments: { ms }, ...(stateless ? { _meta: withoutTasks } : {}) }
    const result = this.result(await this.rpc("tools/call", params, this.server.plainTool), "plain tools/call")
    if (result.taskId !== undefined || result.task !== undefined) {
      throw new BenchFailure(`${this.server.name}: the plain call made a task`)
    }
    this.checkDone(result, "plain tools/call")
  }

  /** Creates a task of `sleep { ms }`: its id, and the status it was created with. */
  async create(ms: number, ttl: number): Promise<{ readonly taskId: string; readonly status: string }> {
    if (this.server.revision === "2026-07-28") {
      const result = this.result(
        await this.rpc("tools/call", { name: "sleep", arguments: { ms }, _meta: withTasks }, "sleep"),
        "task tools/call"
      )
      if (result.resultType !== "task" || typeof result.taskId !== "string") {
        throw new BenchFailure(`${this.server.name}: no task: ${JSON.stringify(result)}`)
      }
      return { taskId: result.taskId, status: result.status }
    }
    const result = this.result(
      await this.rpc("tools/call", { name: "sleep", arguments: { ms }, task: { ttl } }),
      "task tools/call"
    )
    if (typeof result.task?.taskId !== "string") {
      throw new BenchFailure(`${this.server.name}: no task: ${JSON.stringify(result)}`)
    }
    return { taskId: result.task.taskId, status: result.task.status }
  }

  /** `tasks/get`: the raw answer (an error once the task is gone). */
  get(taskId: string): Promise<Message> {
    const stateless = this.server.revision === "2026-07-28"
    return this.rpc("tasks/get", stateless ? { taskId, _meta: withTasks } : { taskId }, taskId)
  }

  /** `tasks/get`: the task's status (2026-07-28 completed: its inlined result checked). */
  async status(taskId: string): Promise<string> {
    const result = this.result(await this.get(taskId), "tasks/get")
    if (result.status === "completed" && this.server.revision === "2026-07-28") {
      this.checkDone(result.result, "tasks/get, completed")
    }
    return result.status
  }

  /** A finished task's result, checked (2026-07-28: its `tasks/get`, which inlines it). */
  async finished(taskId: string): Promise<void> {
    if (this.server.revision === "2026-07-28") {
      const status = await this.status(taskId)
      if (status !== "completed") throw new BenchFailure(`${this.server.name}: a task is ${status}, not completed`)
      return
    }
    this.checkDone(this.result(await this.rpc("tasks/result", { taskId }), "tasks/result"), "tasks/result")
  }

  /** A task's whole round: create, poll at once until completed, its result. */
  async round(ms: number, ttl: number): Promise<void> {
    const { taskId } = await this.create(ms, ttl)
    for (let n = 1;; n++) {
      this.polls++
      const status = await this.status(taskId)
      if (status === "completed") break
      if (status !== "working") throw new BenchFailure(`${this.server.name}: a task went ${status}`)
      if (n >= maxPolls) throw new BenchFailure(`${this.server.name}: a task still working after ${n} polls`)
    }
    // 2026-07-28: the completed tasks/get carried the result, checked.
    if (this.server.revision === "2025-11-25") await this.finished(taskId)
  }
}

/** The request text of one POST to `/mcp`. */
const requestText = (
  target: Target,
  sessionId: string | undefined,
  revision: string | undefined,
  stateless: { readonly method: string; readonly name: string | undefined } | undefined,
  message: object
): string => {
  const body = JSON.stringify(message)
  return `POST ${target.path} HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n` +
    `Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n` +
    (sessionId === undefined ? "" : `Mcp-Session-Id: ${sessionId}\r\n`) +
    (revision === undefined ? "" : `MCP-Protocol-Version: ${revision}\r\n`) +
    (stateless === undefined ? "" : `Mcp-Method: ${stateless.method}\r\n`) +
    (stateless?.name === undefined ? "" : `Mcp-Name: ${stateless.name}\r\n`) +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

/** `count` jobs over the peers, one at a time on each. */
const spread = async (peers: ReadonlyArray<Peer>, count: number, job: (peer: Peer, k: number) => Promise<void>) => {
  let next = 0
  await Promise.all(peers.map(async (peer) => {
    while (next < count) await job(peer, next++)
  }))
}

/** Each peer's tasks, one after another on it; the peers side by side. */
const each = async (made: ReadonlyArray<Made>, job: (task: Made) => Promise<void>) => {
  const byPeer = new Map<Peer, Array<Made>>()
  for (const task of made) {
    const list = byPeer.get(task.peer) ?? []
    list.push(task)
    byPeer.set(task.peer, list)
  }
  await Promise.all([...byPeer.values()].map(async (list) => {
    for (const task of list) await job(task)
  }))
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, millis)))

/** A server child and its peers, for one phase; stopped after. */
const withServer = async <A>(
  server: Server,
  ttl: number,
  phase: string,
  f: (child: Child, peers: ReadonlyArray<Peer>) => Promise<A>
): Promise<A> => {
  const { child, port } = await startHttpServer(
    server.file,
    [...server.args, "--task-ttl", String(ttl), "--floor-fibers", String(concurrentTasks)],
    ["--expose-gc"]
  )
  const peers: Array<Peer> = []
  try {
    const target: Target = { port, path: "/mcp" }
    peers.push(...await Promise.all(Array.from({ length: connectionCount }, () => Peer.open(target, server))))
    return await f(child, peers)
  } catch (error) {
    throw new BenchFailure(
      `${server.name}, ${phase}: ${error instanceof Error ? error.message : String(error)}\nstderr: ${child.stderr()}`
    )
  } finally {
    for (const peer of peers) peer.connection.close()
    await child.stop()
  }
}

/** `BENCH_HEAP_SNAPSHOTS`: a heap snapshot of the child, `<dir>/tasks-<server>-<name>.heapsnapshot`. */
const snapshot = async (child: Child, server: Server, name: string): Promise<void> => {
  if (snapshots === undefined) return
  await command(child, `heap-snapshot ${join(snapshots, `tasks-${server.key}-${name}.heapsnapshot`)}`, "snapshot")
}

const warmUp = async (peers: ReadonlyArray<Peer>, ttl: number) => {
  await spread(peers, warmupCalls, (peer) => peer.plain(0))
  await spread(peers, warmupCalls, (peer) => peer.round(0, ttl))
}

/** How long the tasks of the concurrent phase's warm-up work. */
const warmHoldMillis = 300

/**
 * The concurrent phase's own warm-up: as many tasks as it measures, made as it makes them (each
 * followed by a `tasks/get`), working a moment, then read. The code the server compiles the first
 * time it holds that many (V8's optimized code, half a megabyte) is then not counted per task.
 */
const warmConcurrent = async (peers: ReadonlyArray<Peer>) => {
  const made: Array<Made> = new Array(concurrentTasks)
  await spread(peers, concurrentTasks, async (peer, k) => {
    const task = await peer.create(warmHoldMillis, longTtl)
    await peer.status(task.taskId)
    made[k] = { peer, taskId: task.taskId }
  })
  await sleep(warmHoldMillis + 200)
  await each(made, (task) => task.peer.finished(task.taskId))
}

// ---------------------------------------------------------------------------- the phases

interface Batch {
  /** Latency of one call (a task: its whole round), median. */
  readonly p50: number
  /** The server's CPU time per call, milliseconds. */
  readonly cpu: number
  readonly seconds: number
}

interface Overhead {
  readonly plain: Array<Batch>
  readonly task: Array<Batch>
  /** `tasks/get` per task round. */
  readonly polls: number
}

const batch = async (child: Child, peers: ReadonlyArray<Peer>, job: (peer: Peer) => Promise<void>): Promise<Batch> => {
  const latencies = new Float64Array(overheadCalls)
  const cpu = cpuMillis(child.pid)
  const start = performance.now()
  await spread(peers, overheadCalls, async (peer, k) => {
    const sent = performance.now()
    await job(peer)
    latencies[k] = performance.now() - sent
  })
  const seconds = (performance.now() - start) / 1000
  return {
    p50: percentile(latencies.sort(), 0.5),
    cpu: (cpuMillis(child.pid) - cpu) / overheadCalls,
    seconds
  }
}

const overhead = (server: Server): Promise<Overhead> =>
  withServer(server, longTtl, "overhead", async (child, peers) => {
    await warmUp(peers, longTtl)
    const plain: Array<Batch> = []
    const task: Array<Batch> = []
    let polls = 0
    for (let r = 0; r < rounds; r++) {
      // BENCH_PROFILE: the last round's two batches, each a profile of its own.
      const profiled = async <A>(name: string, run: () => Promise<A>): Promise<A> => {
        if (profileDir === undefined || r !== rounds - 1) return run()
        await command(child, "profile-start 100", "profiling")
        const result = await run()
        await command(child, `profile-stop ${join(profileDir, `tasks-${server.key}-${name}.cpuprofile`)}`, "profiled")
        return result
      }
      const runPlain = async () =>
        plain.push(await profiled("overhead-plain", () => batch(child, peers, (peer) => peer.plain(0))))
      const runTask = async () => {
        const before = peers.reduce((sum, peer) => sum + peer.polls, 0)
        task.push(await profiled("overhead-task", () => batch(child, peers, (peer) => peer.round(0, longTtl))))
        polls += peers.reduce((sum, peer) => sum + peer.polls, 0) - before
      }
      if (r % 2 === 0) {
        await runPlain()
        await runTask()
      } else {
        await runTask()
        await runPlain()
      }
    }
    return { plain, task, polls: polls / (rounds * overheadCalls) }
  })

/** Instructions per plain call and per task round (`BENCH_TASKS_PHASES=instructions`). */
interface Instructions {
  /** Every thread's (the JIT's and GC's too), and the main thread's alone. */
  readonly plain: { readonly total: number; readonly main: number }
  readonly task: { readonly total: number; readonly main: number }
}

const instrWarmup = Number(process.env.BENCH_INSTR_WARMUP ?? 1_000)
const instrSettle = Number(process.env.BENCH_INSTR_SETTLE ?? 200)
const instrCalls = Number(process.env.BENCH_INSTR_CALLS ?? 1_000)
const instrConnections = 10

/**
 * The server under callgrind (instrumentation off until warmed up: `BENCH_INSTR_WARMUP` plain
 * calls and task rounds), then, each on its own, `BENCH_INSTR_SETTLE` task rounds (plain calls)
 * with the counters on, the counters zeroed, `BENCH_INSTR_CALLS` counted and dumped: the
 * instructions per task round and per plain call, on 10 connections, one request in flight on each.
 */
const instructions = async (server: Server): Promise<Instructions> => {
  const port = await freePort()
  const outFile = callgrindOutFile()
  const child = spawnCommand("valgrind", [
    ...callgrindArgs(outFile),
    process.execPath,
    "--expose-gc",
    server.file,
    "--port",
    String(port),
    ...server.args,
    "--task-ttl",
    String(longTtl)
  ])
  const peers: Array<Peer> = []
  const control = (...flags: ReadonlyArray<string>) =>
    execFileSync("callgrind_control", [...flags, String(child.pid)], { stdio: "ignore", timeout: 120_000 })
  let dumps = 0
  const count = async (job: (peer: Peer) => Promise<void>) => {
    await spread(peers, instrSettle, job)
    control("-z")
    await spread(peers, instrCalls, job)
    control("-d")
    dumps++
    const dir = dirname(outFile)
    const names = readdirSync(dir).filter((name) => new RegExp(`\\.${dumps}-\\d+$`).test(name))
    if (names.length === 0) throw new BenchFailure(`${server.name}: no callgrind dump\n${child.stderr()}`)
    let total = 0
    let main = 0
    for (const name of names) {
      const totals = /^totals:\s+(\d+)/m.exec(readFileSync(join(dir, name), "latin1"))
      if (totals === null) throw new BenchFailure(`${server.name}: no totals in ${name}`)
      total += Number(totals[1])
      if (name.endsWith("-01")) main = Number(totals[1])
    }
    return { total: total / instrCalls, main: main / instrCalls }
  }
  try {
    await waitForLine(child, (line) => (line === "ready" ? true : undefined), `${server.name} to listen`, 300_000)
    const target: Target = { port, path: "/mcp" }
    peers.push(...await Promise.all(Array.from({ length: instrConnections }, () => Peer.open(target, server))))
    await spread(peers, instrWarmup, (peer) => peer.plain(0))
    await spread(peers, instrWarmup, (peer) => peer.round(0, longTtl))
    control("-i", "on")
    const task = await count((peer) => peer.round(0, longTtl))
    const plain = await count((peer) => peer.plain(0))
    return { plain, task }
  } catch (error) {
    throw new BenchFailure(
      `${server.name}, instructions: ${
        error instanceof Error ? error.message : String(error)
      }\nstderr: ${child.stderr()}`
    )
  } finally {
    for (const peer of peers) peer.connection.close()
    child.process.stdin.end()
    const timer = setTimeout(() => child.process.kill("SIGKILL"), 300_000)
    await child.exited
    clearTimeout(timer)
    rmSync(dirname(outFile), { recursive: true, force: true })
  }
}

interface Concurrent {
  /** Heap after gc with the floor's handlers running alone (`floor-start`), and before them. */
  readonly floorBefore: Memory
  readonly floor: Memory
  readonly before: Memory
  readonly working: Memory
  /** Create-to-first-status, and the create alone, sorted. */
  readonly firstStatus: Float64Array
  readonly create: Float64Array
  readonly createSeconds: number
  /** The server's CPU time per task made (its create and its first `tasks/get`), milliseconds. */
  readonly createCpu: number
}

const concurrent = (server: Server): Promise<Concurrent> =>
  withServer(server, longTtl, "concurrent", async (child, peers) => {
    await warmUp(peers, longTtl)
    await warmConcurrent(peers)
    // The floor: the same number of handlers, running alone (none of a task around them).
    const floorBefore = await memoryOf(child)
    await snapshot(child, server, "floor-before")
    await command(child, "floor-start", "floor")
    const floor = await memoryOf(child)
    await snapshot(child, server, "floor")
    await command(child, "floor-stop", "floored")
    const before = await memoryOf(child)
    await snapshot(child, server, "before")
    if (profileDir !== undefined) await command(child, "profile-start 100", "profiling")
    const made: Array<Made> = new Array(concurrentTasks)
    const firstStatus = new Float64Array(concurrentTasks)
    const create = new Float64Array(concurrentTasks)
    const cpuBefore = cpuMillis(child.pid)
    const start = performance.now()
    let lastMade = start
    await spread(peers, concurrentTasks, async (peer, k) => {
      const sent = performance.now()
      const task = await peer.create(holdMillis, longTtl)
      const answered = performance.now()
      if (task.status !== "working") throw new BenchFailure(`a task was created ${task.status}`)
      made[k] = { peer, taskId: task.taskId }
      lastMade = Math.max(lastMade, answered)
      const status = await peer.status(task.taskId)
      if (status !== "working") throw new BenchFailure(`a task's first tasks/get said ${status}, not working`)
      firstStatus[k] = performance.now() - sent
      create[k] = answered - sent
    })
    const createSeconds = (performance.now() - start) / 1000
    const createCpu = (cpuMillis(child.pid) - cpuBefore) / concurrentTasks
    if (profileDir !== undefined) {
      await command(child, `profile-stop ${join(profileDir, `tasks-${server.key}-concurrent.cpuprofile`)}`, "profiled")
    }
    const working = await memoryOf(child)
    const first = await made[0].peer.status(made[0].taskId)
    if (first !== "working") {
      throw new BenchFailure(`the first task was ${first} at the measurement: raise BENCH_TASKS_HOLD_MILLIS`)
    }
    await snapshot(child, server, "working")
    await sleep(lastMade + holdMillis + 500 - performance.now())
    await each(made, (task) => task.peer.finished(task.taskId))
    return {
      floorBefore,
      floor,
      before,
      working,
      firstStatus: firstStatus.sort(),
      create: create.sort(),
      createSeconds,
      createCpu
    }
  })

interface Sweep {
  readonly baseline: Memory
  readonly finished: Memory
  readonly swept: Memory
  readonly createSeconds: number
}

const sweep = (server: Server): Promise<Sweep> =>
  withServer(server, sweepTtl, "sweep", async (child, peers) => {
    await warmUp(peers, sweepTtl)
    await sleep(sweepTtl + sweepInterval + 1_000)
    const baseline = await memoryOf(child)
    await snapshot(child, server, "baseline")
    const made: Array<Made> = new Array(sweepTasks)
    const start = performance.now()
    await spread(peers, sweepTasks, async (peer, k) => {
      const task = await peer.create(0, sweepTtl)
      made[k] = { peer, taskId: task.taskId }
    })
    const lastMade = performance.now()
    const createSeconds = (lastMade - start) / 1000
    await sleep(300)
    const finished = await memoryOf(child)
    if (performance.now() - start >= sweepTtl) {
      throw new BenchFailure(
        `making ${num(sweepTasks)} tasks took ${
          createSeconds.toFixed(1)
        } s, past their ttl: raise BENCH_TASKS_SWEEP_TTL`
      )
    }
    // The last ones made finished (and are not swept yet).
    for (const task of made.slice(-Math.min(500, sweepTasks))) {
      const status = await task.peer.status(task.taskId)
      if (status !== "completed") throw new BenchFailure(`a task was ${status} after it should have finished`)
    }
    if (performance.now() - start >= sweepTtl) {
      throw new BenchFailure(`the check of the finished tasks ran past their ttl: raise BENCH_TASKS_SWEEP_TTL`)
    }
    await snapshot(child, server, "finished")
    await sleep(lastMade + sweepTtl + sweepInterval + 1_000 - performance.now())
    const swept = await memoryOf(child)
    await snapshot(child, server, "swept")
    for (const task of [...made.slice(0, 100), ...made.slice(-100)]) {
      const answer = await task.peer.get(task.taskId)
      if (answer.error === undefined) {
        throw new BenchFailure(`a task was still there past its ttl: ${JSON.stringify(answer).slice(0, 300)}`)
      }
    }
    return { baseline, finished, swept, createSeconds }
  })

// ---------------------------------------------------------------------------- the report

interface Result {
  readonly server: Server
  readonly overhead: Overhead | undefined
  readonly concurrent: Concurrent | undefined
  readonly sweep: Sweep | undefined
  readonly instructions: Instructions | undefined
}

const kb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(2)} KB` : "-")
const us = (millis: number) => (Number.isFinite(millis) ? `${(millis * 1000).toFixed(0)} µs` : "-")
/** The heap but its code spaces: the code V8 compiles as a server gets busy is no task's. */
const heap = (m: Memory) => m.heapUsed - (m.code ?? 0)
const live = (m: Memory) => heap(m) + m.external
/** What the code spaces grew by while the tasks were made, per task (left out of the heap's figures). */
const codePerTask = (c: Concurrent) => ((c.working.code ?? 0) - (c.before.code ?? 0)) / concurrentTasks

const perWorking = (c: Concurrent, f: (m: Memory) => number) => (f(c.working) - f(c.before)) / concurrentTasks
/** The handler alone, per task (the floor). */
const perHandler = (c: Concurrent) => (heap(c.floor) - heap(c.floorBefore)) / concurrentTasks
/** What a working task holds beyond its handler. */
const perBeyond = (c: Concurrent) => perWorking(c, heap) - perHandler(c)
const perFinished = (s: Sweep) => (heap(s.finished) - heap(s.baseline)) / sweepTasks
const returned = (s: Sweep) => (heap(s.finished) - heap(s.swept)) / (heap(s.finished) - heap(s.baseline))
const medianOf = (batches: ReadonlyArray<Batch>, f: (b: Batch) => number) => median(batches.map(f))
const plainP50 = (o: Overhead) => medianOf(o.plain, (b) => b.p50)
const taskP50 = (o: Overhead) => medianOf(o.task, (b) => b.p50)
const plainCpu = (o: Overhead) => medianOf(o.plain, (b) => b.cpu)
const taskCpu = (o: Overhead) => medianOf(o.task, (b) => b.cpu)
const firstP50 = (c: Concurrent) => percentile(c.firstStatus, 0.5)
const firstP99 = (c: Concurrent) => percentile(c.firstStatus, 0.99)

/** The results that ran a phase, with it. */
const having = <K extends "overhead" | "concurrent" | "sweep" | "instructions">(
  results: ReadonlyArray<Result>,
  key: K
) =>
  results.flatMap((r) => {
    const value = r[key]
    return value === undefined ? [] : [{ server: r.server, value: value as NonNullable<Result[K]> }]
  })

/** Each of ours against the SDK, by measure (NaN where a phase did not run for either). */
const versus = (
  mine: ReadonlyArray<Result>,
  sdk: Result
): Array<[string, Array<number>]> => {
  const rows: Array<[string, (r: Result) => number]> = []
  const o = (f: (mine: Overhead, sdk: Overhead) => number) => (r: Result) =>
    r.overhead !== undefined && sdk.overhead !== undefined ? f(r.overhead, sdk.overhead) : Number.NaN
  const c = (f: (mine: Concurrent, sdk: Concurrent) => number) => (r: Result) =>
    r.concurrent !== undefined && sdk.concurrent !== undefined ? f(r.concurrent, sdk.concurrent) : Number.NaN
  if (sdk.overhead !== undefined) {
    rows.push(["task round p50", o((m, s) => taskP50(m) / taskP50(s))])
    rows.push(["task round, server CPU", o((m, s) => taskCpu(m) / taskCpu(s))])
  }
  if (sdk.concurrent !== undefined) {
    rows.push(["heap per working task", c((m, s) => perWorking(m, heap) / perWorking(s, heap))])
    rows.push(["  its handler alone", c((m, s) => perHandler(m) / perHandler(s))])
    rows.push(["  beyond its handler", c((m, s) => perBeyond(m) / perBeyond(s))])
    rows.push(["create → first status p50", c((m, s) => firstP50(m) / firstP50(s))])
    rows.push(["create → first status p99", c((m, s) => firstP99(m) / firstP99(s))])
    rows.push(["create p50", c((m, s) => percentile(m.create, 0.5) / percentile(s.create, 0.5))])
    rows.push(["create + first get, server CPU", c((m, s) => m.createCpu / s.createCpu)])
  }
  if (sdk.sweep !== undefined) {
    rows.push([
      "heap per finished task",
      (r) => r.sweep !== undefined ? perFinished(r.sweep) / perFinished(sdk.sweep!) : Number.NaN
    ])
  }
  return rows.map(([label, f]) => [label, mine.map(f)])
}

/** The concurrent phase's table, and its lines of the summary. */
const reportConcurrent = (
  concurrents: ReadonlyArray<{ readonly server: Server; readonly value: Concurrent }>,
  out: Array<string>,
  summary: Array<Row>
) => {
  out.push(
    `${num(concurrentTasks)} concurrent tasks (sleep ${holdMillis / 1000} s, all working at the measurement): ` +
      `create → first tasks/get showing it working; CPU/task: the server's CPU time while they were made, per task`,
    ...table([
      [
        "server",
        "made in",
        "CPU/task",
        "create p50",
        "first status p50",
        "p99",
        "heap before",
        "heap working",
        "heap/task",
        "heap+ext/task",
        "handler alone",
        "beyond it",
        "code/task"
      ],
      ...concurrents.map(({ server, value: c }) => [
        server.name,
        `${c.createSeconds.toFixed(2)} s`,
        us(c.createCpu),
        ms(percentile(c.create, 0.5)),
        ms(firstP50(c)),
        ms(firstP99(c)),
        mib(heap(c.before) / 1024),
        mib(heap(c.working) / 1024),
        kb(perWorking(c, heap)),
        kb(perWorking(c, live)),
        kb(perHandler(c)),
        kb(perBeyond(c)),
        kb(codePerTask(c))
      ])
    ]),
    `heap: after gc, V8's code spaces left out (code/task: what they grew by, per task, while the tasks were ` +
      `made: compiled code, no task's); handler alone: the heap per handler of ${
        num(concurrentTasks)
      } run alone in the same child before the ` +
      `tasks (ours: a fiber of the server's runtime running the tool's run of sleep; the SDK: the timer its ` +
      `createTask sets); beyond it: heap/task minus that, what being a task costs`
  )
  for (const { server, value: c } of concurrents) {
    summary.push(
      {
        section: "tasks",
        label: `${server.name}: heap per working task (its handler alone, beyond it)`,
        value: `${kb(perWorking(c, heap))} (${kb(perHandler(c))}, ${kb(perBeyond(c))})`
      },
      {
        section: "tasks",
        label: `${server.name}: create → first status p50 / p99`,
        value: `${ms(firstP50(c))} / ${ms(firstP99(c))}`
      }
    )
  }
}

const main = async () => {
  const note = pinningNote()
  const loadMark = markLoad()
  const results: Array<Result> = []
  for (const server of servers) {
    results.push({
      server,
      overhead: phases.includes("overhead") ? await overhead(server) : undefined,
      concurrent: phases.includes("concurrent") ? await concurrent(server) : undefined,
      sweep: phases.includes("sweep") ? await sweep(server) : undefined,
      instructions: phases.includes("instructions") ? await instructions(server) : undefined
    })
  }

  const out = [
    `tasks over Streamable HTTP on 127.0.0.1, ${connectionCount} keep-alive connections (2025-11-25: a session ` +
    `each), one request in flight on each; memory: the server child's process.memoryUsage() after gc; ${note}`,
    storeNote
  ]
  const summary: Array<Row> = [{ section: "tasks", label: "ours' task store", value: "bounds raised (see output)" }]
  const overheads = having(results, "overhead")
  if (overheads.length > 0) {
    out.push(
      `${num(overheadCalls)} sleep { ms: 0 } of each kind per round, ${rounds} alternating rounds (medians): a ` +
        `plain call vs a task's round (create, tasks/get at once until completed, the result)`,
      ...table([
        ["server", "plain p50", "task round p50", "ratio", "plain CPU/call", "task CPU/call", "ratio", "gets/round"],
        ...overheads.map(({ server, value: o }) => [
          server.name,
          ms(plainP50(o)),
          ms(taskP50(o)),
          ratio(taskP50(o) / plainP50(o)),
          us(plainCpu(o)),
          us(taskCpu(o)),
          ratio(taskCpu(o) / plainCpu(o)),
          o.polls.toFixed(2)
        ])
      ])
    )
    for (const { server, value: o } of overheads) {
      summary.push({
        section: "tasks",
        label: `${server.name}: task round / plain call (latency, server CPU)`,
        value: `${ratio(taskP50(o) / plainP50(o))}, ${ratio(taskCpu(o) / plainCpu(o))}`
      })
    }
  }
  const concurrents = having(results, "concurrent")
  if (concurrents.length > 0) reportConcurrent(concurrents, out, summary)
  const sweeps = having(results, "sweep")
  if (sweeps.length > 0) {
    out.push(
      `${num(sweepTasks)} finished tasks (sleep 0, ttl ${sweepTtl / 1000} s), swept: heap after gc before them ` +
        `(baseline), once they finished, and past the ttl and the sweep interval`,
      ...table([
        ["server", "made in", "baseline", "finished", "swept", "heap/finished task", "returned", "swept / baseline"],
        ...sweeps.map(({ server, value: s }) => [
          server.name,
          `${s.createSeconds.toFixed(2)} s`,
          mib(heap(s.baseline) / 1024),
          mib(heap(s.finished) / 1024),
          mib(heap(s.swept) / 1024),
          kb(perFinished(s)),
          percent(returned(s)),
          ratio(heap(s.swept) / heap(s.baseline))
        ])
      ])
    )
    for (const { server, value: s } of sweeps) {
      summary.push({
        section: "tasks",
        label: `${server.name}: heap per finished task, returned after the sweep`,
        value: `${kb(perFinished(s))}, ${percent(returned(s))}`
      })
    }
  }
  const counted = having(results, "instructions")
  if (counted.length > 0) {
    const sdkCounted = results.find((r) => r.server.key === "sdk")?.instructions
    const k = (n: number) => `${(n / 1000).toFixed(1)} k`
    out.push(
      `instructions under callgrind (every thread; the main thread's apart), ${num(instrCalls)} counted of each ` +
        `after ${num(instrWarmup)} of warm-up, ${instrConnections} connections: a plain call and a task's round`,
      ...table([
        ["server", "plain", "plain, main", "task round", "task round, main", "round / plain", "round / SDK's"],
        ...counted.map(({ server, value: i }) => [
          server.name,
          k(i.plain.total),
          k(i.plain.main),
          k(i.task.total),
          k(i.task.main),
          ratio(i.task.total / i.plain.total),
          sdkCounted === undefined ? "-" : ratio(i.task.total / sdkCounted.task.total)
        ])
      ])
    )
    for (const { server, value: i } of counted) {
      summary.push({
        section: "tasks",
        label: `${server.name}: instructions per task round (main thread), per plain call`,
        value: `${k(i.task.total)} (${k(i.task.main)}), ${k(i.plain.total)}`
      })
    }
  }
  const sdk = results.find((r) => r.server.key === "sdk")
  const mine = results.filter((r) => r.server.key !== "sdk")
  if (sdk !== undefined && mine.length > 0) {
    const rows = versus(mine, sdk)
    if (rows.length > 0) {
      out.push(...table([
        ["ours / SDK 2025-11-25", ...mine.map((r) => r.server.name)],
        ...rows.map(([label, ns]) => [label, ...ns.map((n) => ratio(n))])
      ]))
      for (const [k, r] of mine.entries()) {
        summary.push({
          section: "tasks",
          label: `${r.server.name} / SDK: ${rows.map(([label]) => label).join(", ")}`,
          value: rows.map(([, ns]) => ratio(ns[k])).join(", ")
        })
      }
    }
  }
  const ours = results.find((r) => r.server.key === "ours")?.concurrent
  const ours2026 = results.find((r) => r.server.key === "ours-2026")?.concurrent
  if (ours !== undefined && ours2026 !== undefined) {
    const createRatio = percentile(ours2026.create, 0.5) / percentile(ours.create, 0.5)
    const cpuRatio = ours2026.createCpu / ours.createCpu
    out.push(
      `the 2026-07-28 create path / the 2025-11-25 one: create p50 ${ratio(createRatio)}, server CPU per task ` +
        `made (create + first get) ${ratio(cpuRatio)}`
    )
    summary.push({
      section: "tasks",
      label: "2026-07-28 / 2025-11-25: create p50, server CPU per task made",
      value: `${ratio(createRatio)}, ${ratio(cpuRatio)}`
    })
  }
  if (profileDir !== undefined) out.push(`profiled (BENCH_PROFILE): these figures are not comparable`)
  out.push(otherLoadNote(loadMark))
  summary.push({
    section: "tasks",
    label: "other load on the machine",
    value: `${percent(otherLoad(loadMark))} of a CPU`
  })
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
}

main().catch((error) => {
  process.stderr.write(
    `TASKS BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
