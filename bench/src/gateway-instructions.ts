/**
 * Instructions per `tools/call add` through a gateway over HTTP (handshake era) to our demo
 * upstream over HTTP, the gateway run under callgrind (valgrind installed): the floor
 * (`gateway-floor.ts`, plain Node), ours (`mcp gateway`, apps/cli built) and, with `BENCH_BEFORE`
 * (the `main.js` of another build of `mcp`), that build too. Each gateway is started with its
 * instrumentation off, warmed up with BENCH_INSTR_WARMUP calls (6000; 1500 before lane6, see
 * below), then instrumented (`callgrind_control -i on`), BENCH_INSTR_SETTLE calls (3000; 300
 * before) run (valgrind translating the code again makes the first calls slow), the counters zeroed (`-z`), BENCH_INSTR_CALLS calls (1000) run
 * on BENCH_INSTR_SESSIONS sessions (10), one call in flight on each, and the count dumped (`-d`) at
 * once: every thread's instructions (the JIT's and the GC's too) between the window's two edges in
 * one run (`proc.ts` `callgrindPerCall`), not the switch-on, the warm-up or the exit.
 * `BENCH_INSTR_KEEP=<dir>` keeps each window's dump there, by function (`callgrind_annotate`). The upstream runs as it is (not counted). `BENCH_INSTR_ROUNDS` (1)
 * runs each gateway that many times (medians printed); `BENCH_INSTR_GATEWAYS` picks some of
 * `floor,ours,before`.
 *
 * Switching the instrumentation on holds the gateway for seconds: with its default ping interval
 * (5 s) ours missed its upstream's ping, dropped the upstream's tools and reconnected while counted
 * (2,037k and then 789k per call for one build, in two runs). So ours runs with `--ping-interval 600`.
 * Meanwhile the upstream lets its idle kept-alive connections go: the floor and ours send a POST
 * closed under them so again once (before, the floor answered 502 to up to 27 calls a window, and
 * ours failed such calls too, as reported last stop); a call that fails still is sent again by the
 * driver, and printed.
 *
 * Counting only the window did not make the count deterministic: in runs of one build (lane4,
 * load 11 to 27 on 2 cores) the floor counted 505k, 509k, 567k and 606k per call (windows of 33 to
 * 71 s) and ours 1,049k and 1,516k. The dumps say why (`BENCH_INSTR_KEEP`, `callgrind_annotate`):
 * V8's optimizing compiler (`v8::internal::compiler::*`, on its background threads) still runs in
 * the window, 31% and 40% of two floor windows and 52% of ours', and how much of it falls in the
 * window moves from run to run. Without it the two floor windows counted 348k and 364k (4.6%
 * apart) and ours 505k: ours / floor 1.42x. So each gateway's main thread is now counted apart too
 * (`--separate-threads=yes`, the `main thread` columns): the gateway's own work, the JIT's
 * background compiles left out. Compare builds only in one run, repeated, and read the medians.
 *
 * Work per second of the window, apart from work per call (lane5): `BENCH_INSTR_IDLE=20` counts 20 s
 * of idle, the 10 sessions open, after the warm-up; `BENCH_INSTR_PACE=600` spreads the same 1,000
 * calls over a ~65 s window. Idle, the floor's main thread counted 60k and 87k instructions a
 * second, ours 683k and 698k, of which ~260k was the in-memory task store's sweep waking every
 * second with no task (433k once it sleeps while empty). Paced, the floor's main thread too
 * counted 395k per call against 319k unpaced (V8 adapting to a slow, mostly idle process: more
 * scavenges, more code run in the interpreter; with `--no-flush-bytecode --no-flush-baseline-code
 * --no-memory-reducer --min-semi-space-size=16 --max-semi-space-size=16` in
 * `BENCH_INSTR_NODE_FLAGS` the floor held at 313k and 328k). So windows of unlike lengths are
 * not comparable, whatever the gateway: compare ours and the floor in windows of like length.
 *
 * **Warm-up against steady state (lane6).** After 1,500 calls V8 was still compiling both gateways
 * on its background threads inside the window (ours 365k and 391k instructions a call of it, the
 * floor 169k and 285k): all threads 1.25x the floor, main thread 0.96x. `--trace-opt` on a
 * plain gateway: 246 compiles in its first 1,500 calls, 120 more by 6,000, 16 more by 20,000, 3 by
 * 40,000, and no function optimised and deoptimised over and over. After 6,000 calls: all threads
 * 0.88x (ours 287k and 311k, floor 335k and 344k). Switching the instrumentation on holds the
 * gateway for seconds, and that pause alone deoptimised a dozen of node's own HTTP functions
 * (`parserOnIncoming`, `onParserExecuteCommon`, `emitCloseNT`, … "wrong map", "not a Smi" under
 * `--trace-deopt`: a plain gateway stopped 7 s with SIGSTOP after 20,000 calls), compiled again
 * over the next ~5,000 calls: one window of ours after 20,000 calls of warm-up counted 511k a call
 * (176k on background threads). So the defaults are now 6,000 calls of warm-up and 3,000 settling
 * calls after the switch-on: with those (20,000 of warm-up, 3 rounds) ours counted 312.9k, 314.5k
 * and 313.7k a call, the floor 336.7k, 302.9k and 342.7k: 0.93x the floor, main thread 0.94x.
 * `BENCH_INSTR_WARMUP=1500 BENCH_INSTR_SETTLE=300` measures the warm-up as before.
 *
 * **What this count does not show (lane6, open).** The wall-clock bench (`gateway.ts`, HTTP, our
 * demo, warmed up) read ours' CPU per call from `/proc` at 1.47x and 1.48x the floor's (179 against
 * 122 µs, 252 against 171), while here ours counts fewer instructions than the floor, also with one
 * session (`BENCH_INSTR_SESSIONS=1`, no calls batched in a turn: 280.8k against 310.9k, 0.90x).
 * Neither system calls (`BENCH_STRACE=1`: 4.34 a call against 4.37) nor callgrind's simulated
 * caches and branches (`BENCH_CALLGRIND_FLAGS="--cache-sim=yes --branch-sim=yes"`, main thread per
 * call: I1 misses 12.1k against 12.9k, D1 5.3k against 4.7k, mispredicts 6.0k against 6.6k) tell
 * them apart. This machine has no hardware counters (`perf` sees no PMU) to read real misses.
 *
 * `BENCH_INSTR_UPSTREAM=sdk` puts the official SDK's server (`sdk-http-server.ts --json`) upstream
 * instead of our demo (`demo`, the default).
 *
 * `node dist/gateway-instructions.js`
 */
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { handshakeEra } from "./envelope.js"
import { callAdd, openSessions, type Session } from "./http-driver.js"
import {
  BenchFailure,
  callgrindArgs,
  callgrindOutFile,
  callgrindPerCall,
  freePort,
  here,
  median,
  ratio,
  spawnCommand,
  table
} from "./proc.js"

const root = here("../..")
const demoMain = path.join(root, "apps/everything/dist/main.js")
const floorMain = here("./gateway-floor.js")
const mcpMain = path.join(root, "apps/cli/dist/main.js")
const sdkHttp = here("./sdk-http-server.js")
const beforeMain = process.env.BENCH_BEFORE
const upstreamKind = process.env.BENCH_INSTR_UPSTREAM === "sdk" ? "sdk" : "demo"
/**
 * V8's flags for each gateway counted (`BENCH_INSTR_NODE_FLAGS`, none by default). Tried and left
 * out: `--single-threaded --predictable-gc-schedule` (no background threads, no GC by the clock)
 * did not make the counts steadier (ours 915k to 1,459k per call in five runs with them, 876k to
 * 959k in three without).
 */
const nodeFlags = (process.env.BENCH_INSTR_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
const warmup = Number(process.env.BENCH_INSTR_WARMUP ?? 6_000)
const calls = Number(process.env.BENCH_INSTR_CALLS ?? 1_000)
/** Calls run with the instrumentation on before the counted window (`callgrindPerCall`). */
const settle = Number(process.env.BENCH_INSTR_SETTLE ?? 3_000)
const rounds = Number(process.env.BENCH_INSTR_ROUNDS ?? 1)
/** Sessions driven at once, one call in flight on each (`BENCH_INSTR_SESSIONS`, 10). */
const sessions = Number(process.env.BENCH_INSTR_SESSIONS ?? 10)
/**
 * Milliseconds each session waits between its counted calls (`BENCH_INSTR_PACE`, 0): a longer
 * window for the same calls, to tell work per call from work per second the window lasts.
 */
const pace = Number(process.env.BENCH_INSTR_PACE ?? 0)
/**
 * `BENCH_INSTR_IDLE=<seconds>`: the window holds no calls but that many seconds of idle, the
 * sessions open (after the warm-up and the settling calls); the counts printed are then per
 * second of idle, not per call.
 */
const idle = Number(process.env.BENCH_INSTR_IDLE ?? 0)

const envelope = {
  ...handshakeEra,
  addCall: (id: number) => handshakeEra.addCall(id).replace("\"name\":\"add\"", "\"name\":\"up_add\"")
}

/** The counted window's wall time, in seconds, of the last gateway measured. */
let window = 0

/** The calls that failed and were sent again, by what they said (the start of it), in this window. */
const failures = new Map<string, number>()

/** `count` calls, spread over the sessions, one in flight on each. */
const drive = async (opened: ReadonlyArray<Session>, first: number, count: number, wait = 0): Promise<void> => {
  let next = first
  const end = first + count
  await Promise.all(opened.map(async (session) => {
    while (next < end) {
      const id = next++
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      // Again after a failure (for up to 30 s): callgrind holds the gateway for seconds while it
      // switches its instrumentation on; meanwhile a keep-alive connection to the upstream closes
      // (a 502 from the floor, -32603 from ours) or ours misses its upstream's ping and takes its
      // tools away until it is up again ("Unknown tool"). That reconnection is counted: one time,
      // spread over the calls counted (raise BENCH_INSTR_CALLS to thin it).
      for (let tries = 1;; tries++) {
        const failed = await callAdd(session, envelope, id).then(() => undefined, (error: unknown) => error)
        if (failed === undefined) break
        if (tries === 300) throw failed
        // Its first line (a status line, or the error's message), without the call's id.
        const said = String(failed instanceof Error ? failed.message : failed).split("\n", 2)
          .join(" ").replace(/tools\/call \d+/, "tools/call").slice(0, 160)
        failures.set(said, (failures.get(said) ?? 0) + 1)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  }))
}

interface Gateway {
  readonly key: string
  /** The gateway's command line after `node`, given its port. */
  readonly args: (port: number) => ReadonlyArray<string>
  /** What it prints (stdout or stderr) once it serves. */
  readonly ready: string
}

/** Instructions per call of one gateway: every thread's, and its main thread's. */
const measure = async (gateway: Gateway): Promise<{ readonly total: number; readonly main: number }> => {
  const port = await freePort()
  const outFile = callgrindOutFile()
  const child = spawnCommand("valgrind", [
    ...callgrindArgs(outFile),
    process.execPath,
    ...nodeFlags,
    ...gateway.args(port)
  ])
  try {
    // The gateway says it serves on stderr (where valgrind writes too), the floor on stdout.
    let said = false
    child.setOnLines((lines) => {
      if (lines.some((line) => line.includes(gateway.ready))) said = true
    })
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (!said && !child.stderr().includes(gateway.ready)) return
        clearInterval(timer)
        resolve()
      }, 100)
      void child.exited.then((code) => {
        clearInterval(timer)
        reject(new BenchFailure(`${gateway.key} exited (${code}) before it served\n${child.stderr()}`))
      })
    })
    const opened = await openSessions({ port, path: "/mcp" }, envelope, sessions)
    await drive(opened, 1, warmup)
    return await callgrindPerCall(child, gateway.key, outFile, idle > 0 ? idle : calls, {
      settle: () => drive(opened, warmup + 1, settle),
      drive: async () => {
        // The window's wall time, printed: a gateway's own work per second is counted too.
        failures.clear()
        const start = Date.now()
        if (idle > 0) await new Promise((resolve) => setTimeout(resolve, idle * 1000))
        else await drive(opened, warmup + settle + 1, calls, pace)
        window = (Date.now() - start) / 1000
      },
      stop: () => {
        for (const session of opened) session.connection.close()
        child.process.kill("SIGINT")
      }
    })
  } catch (error) {
    child.process.kill("SIGKILL")
    throw error
  }
}

const main = async () => {
  const upstreamPort = await freePort()
  const upstream = upstreamKind === "sdk"
    // The SDK's server reads commands on its stdin (`control.ts`): kept open.
    ? spawn(process.execPath, [sdkHttp, "--port", String(upstreamPort), "--json"], { stdio: ["pipe", "pipe", "pipe"] })
    : spawn(process.execPath, [demoMain, "http", "--port", String(upstreamPort), "--era", "handshake"], {
      stdio: ["ignore", "pipe", "pipe"]
    })
  // Serving once it names its port (the demo) or says it is ready (the SDK's).
  await new Promise<void>((resolve) => {
    let seen = ""
    const look = (chunk: Buffer) => {
      seen += chunk
      if (seen.includes(`:${upstreamPort}`) || /^ready$/m.test(seen)) resolve()
    }
    upstream.stdout.on("data", look)
    upstream.stderr.on("data", look)
  })
  const url = `http://127.0.0.1:${upstreamPort}/mcp`
  const config = path.join(mkdtempSync(path.join(os.tmpdir(), "bench-gateway-instr-")), "gateway.json")
  writeFileSync(config, JSON.stringify({ mcpServers: { up: { url } } }))
  const mcp = (main: string) => (port: number) => [
    main,
    "gateway",
    "--config",
    config,
    "--port",
    String(port),
    "--serve",
    "handshake",
    "--ping-interval",
    "600"
  ]
  const wanted = process.env.BENCH_INSTR_GATEWAYS?.split(",")
  const all: ReadonlyArray<Gateway> = [
    { key: "floor", args: (port) => [floorMain, "http", "up", String(port), url], ready: "ready" },
    { key: "ours", args: mcp(mcpMain), ready: "serving at" },
    ...(beforeMain === undefined ? [] : [{ key: "before", args: mcp(beforeMain), ready: "serving at" }])
  ]
  // `BENCH_INSTR_GATEWAYS`: which of floor, ours, before run (default all).
  const gateways = all.filter((gateway) => wanted === undefined || wanted.includes(gateway.key))
  try {
    const results = new Map<string, Array<number>>()
    const mains = new Map<string, Array<number>>()
    for (let r = 0; r < rounds; r++) {
      for (const gateway of gateways) {
        const { main, total } = await measure(gateway)
        process.stdout.write(
          `${gateway.key}: ${(total / 1000).toFixed(1)} k instructions / ${
            idle > 0 ? "second of idle" : "call"
          }, main thread ` +
            `${(main / 1000).toFixed(1)} k (window ${window.toFixed(0)} s)\n`
        )
        // Each failure sent again is counted too: said, so that a count that moves can be read.
        for (const [said, n] of failures) process.stdout.write(`  ${n} call(s) failed and were sent again: ${said}\n`)
        results.set(gateway.key, [...(results.get(gateway.key) ?? []), total])
        mains.set(gateway.key, [...(mains.get(gateway.key) ?? []), main])
      }
    }
    const floor = results.has("floor") ? median(results.get("floor")!) : Number.NaN
    const floorMain = mains.has("floor") ? median(mains.get("floor")!) : Number.NaN
    const k = (n: number) => `${(n / 1000).toFixed(1)}k`
    const rows = [[
      "gateway",
      "all threads / call (median)",
      "runs",
      "/ floor",
      "main thread / call",
      "runs",
      "/ floor"
    ]]
    for (const [key, counts] of results) {
      const main = mains.get(key)!
      rows.push([
        key,
        k(median(counts)),
        counts.map(k).join(" "),
        ratio(median(counts) / floor),
        k(median(main)),
        main.map(k).join(" "),
        ratio(median(main) / floorMain)
      ])
    }
    process.stdout.write(
      [
        `gateway over HTTP to ${
          upstreamKind === "sdk" ? "the SDK's server (JSON answers)" : "our demo"
        } over HTTP, tools/call add (2025-11-25), the gateway's instructions per call ` +
        `under callgrind: ${warmup} calls of warm-up, ${
          idle > 0 ? `then ${idle} s of idle counted (per second, not per call)` : `${calls} counted`
        }, ${sessions} sessions${pace > 0 ? `, ${pace} ms between a session's calls` : ""}`,
        ...table(rows)
      ].join("\n") + "\n"
    )
  } finally {
    upstream.kill()
  }
}

main().catch((error) => {
  process.stderr.write(`GATEWAY INSTRUCTIONS FAILED: ${error instanceof BenchFailure ? error.message : error}\n`)
  process.exit(1)
})
