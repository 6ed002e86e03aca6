/**
 * `pnpm bench:runtimes`: `tools/call add` in the stateless revision (2026-07-28) through fetch
 * handlers on Bun, Deno and Cloudflare's workerd (`runtime-servers.ts`: the runtimes from the npm
 * registry, the servers bundled and started here), against three servers on the same runtime,
 * each in its own process:
 *
 * - effect-mcp: `HttpTransport.toWebHandler` on Bun (`Bun.serve`) and Deno (`Deno.serve`),
 *   `HttpTransport.toWorkerHandler` as a Worker (`web-ours.ts`): the server built once;
 * - the official SDK 2.4.0: `createMcpHandler` behind its Host/Origin guards, a fresh `McpServer`
 *   per request from its factory (`web-sdk.ts`);
 * - a bare fetch handler answering the same JSON bytes as ours (`web-bare.ts`): the floor.
 *
 * Four parts, in one run:
 *
 * 1. Throughput: the engine of the Node HTTP benchmarks (`http-bench.ts`: keep-alive, one call in
 *    flight per connection, alternating rounds, every answer checked), per runtime, with the
 *    ratios (median of the per-round ratios) and the server's CPU time per request. Targets
 *    (issue 38), on Bun and Deno: ours ≥ 5x the SDK's req/s and ≥ 50% of bare's. On workerd one
 *    isolate (workerd serves a Worker from one isolate): ours vs the SDK's, no target.
 * 2. Cold start: a fresh process to its first answered call (spawn → listening → the first
 *    `tools/call` answered), median of BENCH_COLD_RUNS, wall time and the server process's CPU time
 *    (`/proc`: load disturbs it less; on workerd the Worker's module is evaluated before it listens,
 *    so most of it is there); target on workerd: ours ≤ the SDK's.
 * 2b. The Worker's cold start in V8 alone (part `v8`, with workerd): each Worker bundle evaluated by a
 *    fresh Node process (`worker-eval.ts`), which answers one call through its `fetch`: the process's
 *    CPU time evaluating the bundle and answering the first call (building our server), median of
 *    BENCH_COLD_RUNS. No runtime in the way: what the bundle itself costs. With
 *    BENCH_COLD_INSTRUCTIONS=1 (valgrind installed), also the instructions each run executes under
 *    callgrind, less the bare Worker's (Node's own startup): one run each, deterministic to about
 *    0.5%, so a loaded machine cannot blur them as it does CPU time (about 20x slower).
 * 3. Memory: a fresh process per server, 10,000 calls over 10 connections, then RSS (and the heap
 *    after a full collection where the runtime has one: Bun, Deno; workerd shows none).
 * 4. Construction, on Bun and Deno, in the processes of part 3: what the SDK's factory costs (a new
 *    `McpServer` and its tool, built for every request, µs each, against its CPU time per request
 *    of part 1) and what building ours costs (a handler built, its first call answered, disposed:
 *    ms, paid once per process or isolate).
 *
 * Environment: BENCH_RUNTIMES (bun,deno,workerd), BENCH_ROUNDS (3), BENCH_RUNTIME_MILLIS (1000),
 * BENCH_RUNTIME_CONNECTIONS (10), BENCH_COLD_RUNS (5), BENCH_COLD_INSTRUCTIONS=1 (part v8),
 * BENCH_MEMORY_REQUESTS (10000), BENCH_PIN=0, BENCH_RUNTIME_PARTS (throughput,cold,v8,memory: the
 * parts to run; part 4 runs with memory), and those of `http-bench.ts` (warm-up bounds).
 *
 * A benchmark, not a test.
 */
import { spawnSync } from "node:child_process"
import { stateless } from "./envelope.js"
import { type Bench, type Measured, type Pair, run } from "./http-bench.js"
import { callAdd, Connection, openSession, openSessions, Refused, type Target } from "./http-driver.js"
import {
  BenchFailure,
  command,
  cpuMillis,
  here,
  markLoad,
  median,
  memoryOf,
  mib,
  otherLoadNote,
  ratio,
  rssKiB,
  table
} from "./proc.js"
import { bundle, bundleFile, install, type Kind, type Runtime, start, version } from "./runtime-servers.js"
import { record, type Row, targetRow } from "./summary.js"

const runtimes = (process.env.BENCH_RUNTIMES ?? "bun,deno,workerd").split(",") as Array<Runtime>
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const millis = Number(process.env.BENCH_RUNTIME_MILLIS ?? 1_000)
const connections = (process.env.BENCH_RUNTIME_CONNECTIONS ?? "10").split(",").map(Number)
const coldRuns = Number(process.env.BENCH_COLD_RUNS ?? 5)
const memoryRequests = Number(process.env.BENCH_MEMORY_REQUESTS ?? 10_000)
const kinds: ReadonlyArray<Kind> = ["ours", "sdk", "bare"]
/**
 * `BENCH_HTTP_SERVERS=ours,sdk,bare,platform,effect`: also the floors `web-platform.ts`, `web-effect.ts` in
 * parts 1 and 2 (the cold start of a bundle of Effect alone: what any Effect server pays at startup).
 * `…,stateless`: also our server on the entry that names what it uses (`web-stateless.ts`,
 * `StatelessServer`), beside today's (`web-ours.ts`), in every part.
 */
const floors = (["platform", "effect", "stateless"] as const).filter((kind) =>
  process.env.BENCH_HTTP_SERVERS?.split(",").includes(kind) === true
)

const parts = (process.env.BENCH_RUNTIME_PARTS ?? "throughput,cold,v8,memory").split(",")

const names: Record<Runtime, string> = { bun: "Bun", deno: "Deno", workerd: "workerd" }

const serverName = (runtime: Runtime, kind: Kind): string =>
  kind === "ours"
    ? `effect-mcp ${runtime === "workerd" ? "toWorkerHandler" : "toWebHandler"}`
    : kind === "sdk"
    ? "SDK 2.4.0 createMcpHandler"
    : kind === "platform"
    ? "@effect/platform toWebHandler, no MCP"
    : kind === "effect"
    ? "a fiber per request, no platform, no MCP"
    : kind === "stateless"
    ? `effect-mcp StatelessServer.${runtime === "workerd" ? "toWorkerHandler" : "toWebHandler"}`
    : "bare fetch handler"

const fiveTimes = { threshold: 5, shown: "5x" }
const half = { threshold: 0.5, shown: "50%" }

const throughput = (runtime: Runtime): Bench => {
  const targets = runtime !== "workerd"
  const pairs: Array<Pair> = [
    { a: "ours", b: "sdk", label: "ours / SDK", unit: "x", ...(targets ? { target: fiveTimes } : {}) },
    { a: "ours", b: "bare", label: "ours / bare", unit: "%", ...(targets ? { target: half } : {}) },
    { a: "sdk", b: "bare", label: "SDK / bare", unit: "%" },
    { a: "ours", b: "platform", label: "ours / @effect/platform", unit: "%" },
    { a: "platform", b: "bare", label: "@effect/platform / bare", unit: "%" },
    { a: "platform", b: "effect", label: "@effect/platform / a fiber per request", unit: "%" },
    { a: "effect", b: "bare", label: "a fiber per request / bare", unit: "%" }
  ]
  return {
    section: `runtimes-${runtime}`,
    title: `${names[runtime]} ${version(runtime)}${
      runtime === "workerd" ? " (one isolate)" : ""
    }: tools/call add (2026-07-28, stateless) through fetch handlers`,
    envelope: stateless,
    rounds,
    millis,
    connections,
    servers: [...kinds, "platform" as const, "effect" as const].map((kind) => ({
      key: kind,
      name: serverName(runtime, kind),
      file: "",
      args: [],
      start: () => start(runtime, kind),
      headers: edgeHeaders(runtime),
      optIn: kind === "platform" || kind === "effect"
    })),
    pairs,
    notes: [
      `SDK = createMcpHandler({ legacy: "reject" }) behind hostHeaderValidationResponse / originValidationResponse ` +
      "(localhost), a fresh McpServer from the factory per request; ours checks Host and Origin by default."
    ]
  }
}

const coldHeader = [
  "runtime",
  "server",
  "bundle",
  "listening",
  "first answer",
  "total (median)",
  "CPU listening",
  "CPU total",
  "runs (total)"
]

/**
 * What Cloudflare's edge adds to every request it passes to a Worker: the client's address in
 * `CF-Connecting-IP` (a documentation address here). workerd alone adds nothing, and a Worker
 * that reads no address says so (ours: the "no client address" warning, once) on a path the edge
 * never takes.
 */
const edgeHeaders = (runtime: Runtime): string | undefined =>
  runtime === "workerd" ? "CF-Connecting-IP: 203.0.113.7\r\n" : undefined

/** A fresh process to its first answered call. */
interface Cold {
  readonly listening: number
  readonly firstAnswer: number
  readonly total: number
  /** The server process's CPU time (ms) once it listened, and once it answered. */
  readonly cpuListening: number
  readonly cpu: number
}

const coldStart = async (runtime: Runtime, kind: Kind): Promise<Cold> => {
  const started = await start(runtime, kind)
  try {
    const cpuListening = cpuMillis(started.child.pid)
    const connection = await Connection.open({ port: started.port, path: "/mcp", headers: edgeHeaders(runtime) })
    const session = await openSession(connection, stateless)
    if (session instanceof Refused) throw new BenchFailure(`${kind} on ${runtime} refused: ${session.body}`)
    await callAdd(session, stateless, 1)
    const answeredAt = performance.now()
    const cpu = cpuMillis(started.child.pid)
    connection.close()
    return {
      cpuListening,
      cpu,
      listening: started.listeningAt - started.spawnedAt,
      firstAnswer: answeredAt - started.listeningAt,
      total: answeredAt - started.spawnedAt
    }
  } finally {
    await started.child.stop()
  }
}

/** A Worker bundle evaluated by a fresh Node process, its first call answered: CPU ms (`worker-eval.ts`). */
const inV8 = (kind: Kind): { readonly evaluate: number; readonly first: number } => {
  const run = spawnSync(process.execPath, [here("./worker-eval.js"), bundleFile("workerd", kind)], {
    encoding: "utf8",
    timeout: 60_000
  })
  if (run.status !== 0) throw new BenchFailure(`${kind} bundle in V8: ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!)
}

/** Millions of instructions a Worker bundle's evaluation and first answer execute (`inV8` under callgrind). */
const instructionsInV8 = (kind: Kind): number => {
  const run = spawnSync("valgrind", [
    "--tool=callgrind",
    "--callgrind-out-file=/dev/null",
    // V8 writes the code it runs.
    "--smc-check=all-non-file",
    process.execPath,
    here("./worker-eval.js"),
    bundleFile("workerd", kind)
  ], { encoding: "utf8", timeout: 600_000 })
  const refs = /I\s+refs:\s+([\d,]+)/.exec(run.stderr ?? "")
  if (run.status !== 0 || refs === null) throw new BenchFailure(`${kind} bundle under callgrind: ${run.stderr}`)
  return Number(refs[1]!.replaceAll(",", "")) / 1e6
}

/** Part v8: each Worker bundle in a fresh Node process, alternating; the table's rows and the summary's. */
const v8Part = (coldKinds: ReadonlyArray<Kind>, summary: Array<Row>): Array<Array<string>> => {
  const rows = [["server", "evaluate", "first answer", "total (median)", "runs (total)"]]
  const runs = new Map<Kind, Array<{ readonly evaluate: number; readonly first: number }>>()
  for (let i = 0; i < coldRuns; i++) {
    for (const kind of coldKinds) runs.set(kind, [...(runs.get(kind) ?? []), inV8(kind)])
  }
  const total = (kind: Kind) => median(runs.get(kind)!.map((run) => run.evaluate + run.first))
  for (const kind of coldKinds) {
    const of = runs.get(kind)!
    rows.push([
      serverName("workerd", kind),
      `${median(of.map((run) => run.evaluate)).toFixed(1)} ms`,
      `${median(of.map((run) => run.first)).toFixed(1)} ms`,
      `${total(kind).toFixed(1)} ms`,
      of.map((run) => (run.evaluate + run.first).toFixed(0)).join(", ")
    ])
  }
  summary.push({
    section: "runtimes-workerd",
    label: "Worker bundle in V8, CPU to first answer, ours vs SDK",
    value: `${total("ours").toFixed(0)} vs ${total("sdk").toFixed(0)} ms (${ratio(total("ours") / total("sdk"))})`
  })
  if (process.env.BENCH_COLD_INSTRUCTIONS === "1") {
    const counted = new Map(coldKinds.map((kind) => [kind, instructionsInV8(kind)]))
    const above = (kind: Kind) => counted.get(kind)! - counted.get("bare")!
    rows.push(["instructions above the bare Worker's (callgrind, one run each)", "", "", "", ""])
    for (const kind of coldKinds) rows.push([serverName("workerd", kind), "", "", `${above(kind).toFixed(0)} M`, ""])
    summary.push({
      section: "runtimes-workerd",
      label: "Worker bundle in V8, instructions to first answer, ours vs SDK",
      value: `${above("ours").toFixed(0)} vs ${above("sdk").toFixed(0)} M (${ratio(above("ours") / above("sdk"))})`
    })
    if (counted.has("stateless")) {
      summary.push({
        section: "runtimes-workerd",
        label: "Worker bundle in V8, instructions to first answer, StatelessServer vs SDK",
        value: `${above("stateless").toFixed(0)} vs ${above("sdk").toFixed(0)} M (${
          ratio(above("stateless") / above("sdk"))
        })`
      })
    }
  }
  return rows
}

/** `total` calls over 10 connections, each call checked. */
const drive = async (target: Target, total: number): Promise<void> => {
  const sessions = await openSessions(target, stateless, 10)
  let next = 1
  try {
    await Promise.all(sessions.map(async (session) => {
      while (next <= total) await callAdd(session, stateless, next++)
    }))
  } finally {
    for (const session of sessions) session.connection.close()
  }
}

interface Memory {
  readonly idleRss: number
  readonly rss: number
  /** Bytes, after a full collection; NaN where the runtime shows none (workerd). */
  readonly heapUsed: number
  /** The answer of `construct` (Bun, Deno; ours and the SDK). */
  readonly construct: string | undefined
}

const constructions: Record<Kind, number> = { ours: 20, sdk: 2_000, bare: 0, platform: 0, effect: 0, stateless: 0 }

const memory = async (runtime: Runtime, kind: Kind): Promise<Memory> => {
  const { child, port } = await start(runtime, kind)
  try {
    const inProcess = runtime !== "workerd"
    const idleRss = inProcess ? (await memoryOf(child)).rss / 1024 : rssKiB(child.pid)
    await drive({ port, path: "/mcp", headers: edgeHeaders(runtime) }, memoryRequests)
    const after = inProcess ? await memoryOf(child) : undefined
    const construct = inProcess && constructions[kind] > 0
      ? (await command(child, `construct ${constructions[kind]}`, "construct ")).slice("construct ".length)
      : undefined
    return {
      idleRss,
      rss: after === undefined ? rssKiB(child.pid) : after.rss / 1024,
      heapUsed: after === undefined ? Number.NaN : after.heapUsed,
      construct
    }
  } catch (error) {
    throw new BenchFailure(`memory of ${kind} on ${runtime}: ${String(error)}\nstderr: ${child.stderr()}`)
  } finally {
    await child.stop()
  }
}

/** The leading number of a `construct` answer (µs or ms). */
const leading = (text: string | undefined): number => (text === undefined ? Number.NaN : Number.parseFloat(text))

const cpuOf = (measured: Map<string, Array<Measured>> | undefined, kind: Kind): number =>
  measured?.get(kind)?.[0]?.best.serverCpuPerRequest ?? Number.NaN

const main = async () => {
  const loadMark = markLoad()
  const sizes = new Map<string, number>()
  for (const runtime of runtimes) {
    install(runtime)
    for (const kind of [...kinds, ...floors]) sizes.set(`${runtime}-${kind}`, await bundle(runtime, kind))
    process.stdout.write(
      `${names[runtime]} bundles: ${
        [...kinds, ...floors].map((kind) => `${kind} ${((sizes.get(`${runtime}-${kind}`) ?? 0) / 1024).toFixed(0)} KiB`)
          .join(", ")
      }\n`
    )
  }
  const measured = new Map<Runtime, Map<string, Array<Measured>>>()
  for (const runtime of parts.includes("throughput") ? runtimes : []) {
    process.stdout.write("\n")
    measured.set(runtime, await run(throughput(runtime)))
  }

  const summary: Array<Row> = []
  const coldRows = [[...coldHeader]]
  const memoryRows = [["runtime", "server", "RSS idle", `RSS after ${memoryRequests.toLocaleString("en-US")}`, "heap"]]
  const constructRows = [[
    "runtime",
    "SDK: a server per request",
    "SDK CPU/req",
    "share",
    "ours: built once (per process)",
    "ours CPU/req"
  ]]
  const coldKinds = [...kinds, ...floors]
  for (const runtime of parts.includes("cold") ? runtimes : []) {
    const colds = new Map<Kind, Array<Cold>>()
    // Alternating, so the machine's noise spreads over all of them.
    for (let i = 0; i < coldRuns; i++) {
      for (const kind of coldKinds) colds.set(kind, [...(colds.get(kind) ?? []), await coldStart(runtime, kind)])
    }
    const medians = new Map(coldKinds.map((kind) => [kind, median(colds.get(kind)!.map((cold) => cold.total))]))
    for (const kind of coldKinds) {
      const runs = colds.get(kind)!
      coldRows.push([
        names[runtime],
        serverName(runtime, kind),
        `${((sizes.get(`${runtime}-${kind}`) ?? 0) / 1024).toFixed(0)} KiB`,
        `${median(runs.map((cold) => cold.listening)).toFixed(0)} ms`,
        `${median(runs.map((cold) => cold.firstAnswer)).toFixed(0)} ms`,
        `${medians.get(kind)!.toFixed(0)} ms`,
        `${median(runs.map((cold) => cold.cpuListening)).toFixed(0)} ms`,
        `${median(runs.map((cold) => cold.cpu)).toFixed(0)} ms`,
        runs.map((cold) => cold.total.toFixed(0)).join(", ")
      ])
    }
    const coldRatio = medians.get("ours")! / medians.get("sdk")!
    const cpuOfKind = (kind: Kind) => median(colds.get(kind)!.map((cold) => cold.cpu))
    const coldShown = `${medians.get("ours")!.toFixed(0)} vs ${medians.get("sdk")!.toFixed(0)} ms (${
      ratio(coldRatio)
    }); CPU ${cpuOfKind("ours").toFixed(0)} vs ${cpuOfKind("sdk").toFixed(0)} ms (${
      ratio(cpuOfKind("ours") / cpuOfKind("sdk"))
    })`
    summary.push(
      runtime === "workerd"
        ? targetRow(
          `runtimes-${runtime}`,
          "cold start to first answer, ours vs SDK",
          coldRatio,
          coldShown,
          "≤",
          1,
          "1x"
        )
        : { section: `runtimes-${runtime}`, label: "cold start to first answer, ours vs SDK", value: coldShown }
    )
  }
  const v8Rows = parts.includes("v8") && runtimes.includes("workerd") && process.env.BENCH_WORKER_SPLIT !== "1"
    ? v8Part([...kinds, ...floors], summary)
    : []
  for (const runtime of parts.includes("memory") ? runtimes : []) {
    const memories = new Map<Kind, Memory>()
    for (const kind of kinds) memories.set(kind, await memory(runtime, kind))
    for (const kind of kinds) {
      const m = memories.get(kind)!
      memoryRows.push([
        names[runtime],
        serverName(runtime, kind),
        mib(m.idleRss),
        mib(m.rss),
        Number.isNaN(m.heapUsed) ? "-" : mib(m.heapUsed / 1024)
      ])
    }
    summary.push({
      section: `runtimes-${runtime}`,
      label: `RSS after ${memoryRequests} calls (ours / SDK / bare)`,
      value: kinds.map((kind) => mib(memories.get(kind)!.rss)).join(" / ")
    })
    if (runtime !== "workerd") {
      const sdkMicros = leading(memories.get("sdk")!.construct)
      const sdkCpu = cpuOf(measured.get(runtime), "sdk")
      constructRows.push([
        names[runtime],
        memories.get("sdk")!.construct ?? "-",
        `${sdkCpu.toFixed(1)} µs`,
        `${((sdkMicros / sdkCpu) * 100).toFixed(0)}%`,
        memories.get("ours")!.construct ?? "-",
        `${cpuOf(measured.get(runtime), "ours").toFixed(1)} µs`
      ])
      summary.push({
        section: `runtimes-${runtime}`,
        label: "construction: SDK per request vs ours once",
        value: `SDK ${sdkMicros.toFixed(0)} µs per request (${
          ((sdkMicros / sdkCpu) * 100).toFixed(0)
        }% of its CPU/req); ours ${leading(memories.get("ours")!.construct).toFixed(1)} ms once`
      })
    }
  }
  const out: Array<string> = []
  if (coldRows.length > 1) {
    out.push(
      "",
      `Cold start: a fresh process (workerd: one Worker) to its first answered tools/call; median of ${coldRuns} ` +
        "alternating runs (listening: spawn to listening; first answer: from then, the first call's round trip, " +
        "which builds our server; CPU: the server process's, from /proc, once listening and once answered; on " +
        "workerd the Worker's module is evaluated before it listens)",
      ...table(coldRows, 2)
    )
  }
  if (v8Rows.length > 0) {
    out.push(
      "",
      `The Worker bundles in V8 alone (Node ${process.version}, no workerd): a fresh process evaluates a bundle and ` +
        `answers one call through its fetch; that process's CPU time; median of ${coldRuns} alternating runs`,
      ...table(v8Rows, 1)
    )
  }
  if (memoryRows.length > 1) {
    out.push(
      "",
      `Memory: a fresh process, ${memoryRequests.toLocaleString("en-US")} tools/call over 10 connections; ` +
        "RSS and heap used after a full collection (Bun, Deno); workerd: the process's RSS, no collection, no heap " +
        "figure",
      ...table(memoryRows, 2)
    )
  }
  if (constructRows.length > 1) {
    out.push(
      "",
      "Construction: the SDK's factory (new McpServer + registerTool), which createMcpHandler calls for every request, " +
        "timed alone in the server process after its 10,000 calls, against the SDK's CPU time per request above " +
        `(${connections[0]} conns); ours: a handler built, its first call answered and disposed, which happens once`,
      ...table(constructRows)
    )
  }
  out.push(otherLoadNote(loadMark))
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
}

main().catch((error) => {
  process.stderr.write(
    `RUNTIMES BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
