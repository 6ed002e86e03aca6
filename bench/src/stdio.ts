/**
 * `tools/call add` over stdio, end to end, against three servers in child processes:
 * `apps/everything` (effect-mcp), the official TypeScript SDK (`@modelcontextprotocol/server`
 * 2.4.0, `sdk-add-server.ts`) serving the same tool, and a bare `readline` + `JSON.parse` /
 * `JSON.stringify` loop (`bare-stdio-server.ts`): the floor.
 *
 * Throughput: for each server, spawn it, do the handshake, warm up, then send `total` calls
 * keeping `window` in flight (a new one goes out whenever an answer comes back). Latency is
 * send → response line; throughput is calls / wall time; RSS is the child's peak `VmRSS` over
 * samples taken every 50 ms; CPU/call is the child's user + system CPU time over the measured
 * calls (from `/proc/<pid>/stat`), which other load on the machine disturbs less.
 *
 * Startup: spawn → the first `tools/call add` answered (after `initialize` and
 * `notifications/initialized` in the handshake era), `startupRuns` times per server, alternating;
 * the median is shown, with the CPU time the child had spent by then (from `/proc`, less disturbed
 * by other load than wall time). Besides the three, ours serving only `add`
 * (`ours-stdio-server.ts`) is timed as `tsc` compiled it (Node loads each module of ours and of
 * Effect: what `node dist/server.js` costs) against the SDK's one-tool server (`apps/everything`
 * also builds every conformance fixture as it starts), target ≤ 1.5× the SDK's; and the same
 * bundled (`scripts/bundle.mjs`: an entry and the chunks it loads when first used), as the demo and
 * `mcp` are run, target ≤ 1.0×.
 * The Effect floor (`effect-floor-stdio-server.ts`: `effect/Effect`, `effect/Schema` and
 * NodeRuntime loaded as separate modules, then answers by hand) is timed beside them: no
 * tsc-compiled Effect server starts faster, and what ours takes above it is printed in the SDK's
 * whole startups. The tsc-compiled server and the floor are timed twice: importing the workspace's `dist` (pnpm's
 * links), and in a plain npm project with the packed packages installed from their tarballs (`packed.ts`: the
 * published layout, what a user runs; target ours ≤ that floor + 1.3 SDK startups).
 *
 * The client is plain Node and the same for every server: request lines are built before
 * the clock starts, and each response line is only searched (its id, that it is a result
 * with the right sum), never parsed. Servers run alternately (ours, sdk, bare, ours, …), a
 * fresh child each round; the table shows each server's best round by throughput.
 *
 * The envelope is `BENCH_ENVELOPE` (`envelope.ts`): 2025-11-25 with its handshake (default), or
 * the stateless 2026-07-28 (`_meta` on every request, no `initialize`; startup is then spawn →
 * the first call's answer). In 2026-07-28 the servers are ours serving only `add`
 * (`ours-stdio-server.ts`) with 2026-07-28 alone (`ours`) and with both eras (`ours-dual`), the
 * SDK's `serveStdio` entry, which serves 2026-07-28 too (`sdk-add-server.ts --serve-stdio`), and
 * bare; the summary section is then `stdio-stateless`.
 *
 * Ratios are best round over best round, and min / median of the per-round ratios (round r of
 * one server over round r of the other); targets are judged on the median.
 *
 * Environment: BENCH_REQUESTS (20000), BENCH_WARMUP (5000), BENCH_IN_FLIGHT (64), BENCH_ROUNDS
 * (3), BENCH_STARTUP_RUNS (7), BENCH_STDIO_PARTS (throughput,startup: the parts to run), BENCH_PACKED (0: no
 * packed route), BENCH_PACKED_DIR (the packed project's folder, kept and reused), BENCH_PACKED_BASE_DIR (another packed project, timed
 * beside: `packed.ts`), BENCH_STARTUP_INSTRUCTIONS (1:
 * each startup server also counted once under callgrind, `startup-instructions.ts`), BENCH_OURS
 * (our server's file, handshake era), BENCH_NODE_FLAGS
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`; read with `profile.ts`), BENCH_PIN=0.
 *
 * Prints the tables to stdout and exits 1 if any response was an error, wrong or missing.
 * A benchmark, not a test.
 */
import * as Envelope from "./envelope.js"
import * as Packed from "./packed.js"
import {
  BenchFailure,
  type Child,
  cpuMillis,
  here,
  markLoad,
  median,
  mib,
  ms,
  num,
  otherLoad,
  otherLoadNote,
  percent,
  percentile,
  pinningNote,
  ratio,
  rssKiB,
  spawnChild,
  table
} from "./proc.js"
import * as StartupInstructions from "./startup-instructions.js"
import { record, type Row, targetRow } from "./summary.js"

const total = Number(process.env.BENCH_REQUESTS ?? 20_000)
const warmup = Number(process.env.BENCH_WARMUP ?? 5_000)
const window = Number(process.env.BENCH_IN_FLIGHT ?? 64)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const startupRuns = Number(process.env.BENCH_STARTUP_RUNS ?? 7)
const parts = (process.env.BENCH_STDIO_PARTS ?? "throughput,startup").split(",")
const envelope = Envelope.fromEnv()
/** Gives up on a round when no answer arrives for this long. */
const stallMillis = 30_000

interface Server {
  readonly key:
    | "ours"
    | "ours-dual"
    | "sdk"
    | "bare"
    | "ours-add"
    | "ours-bundled"
    | "effect-floor"
    | "ours-packed"
    | "effect-floor-packed"
    | "ours-packed-base"
    | "effect-floor-packed-base"
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
}

const section = envelope.handshake ? "stdio" : "stdio-stateless"

const bareServer: Server = {
  key: "bare",
  name: "bare readline + JSON.parse",
  file: here("./bare-stdio-server.js"),
  args: []
}

const servers: ReadonlyArray<Server> = envelope.handshake
  ? [
    {
      key: "ours",
      name: "effect-mcp (apps/everything)",
      file: process.env.BENCH_OURS ?? here("../../apps/everything/dist/main.js"),
      args: ["stdio"]
    },
    { key: "sdk", name: "official SDK 2.4.0", file: here("./sdk-add-server.js"), args: [] },
    bareServer
  ]
  : [
    {
      key: "ours",
      name: "effect-mcp, add only, 2026-07-28 only",
      file: here("./ours-stdio-server.js"),
      args: ["--revisions", "stateless"]
    },
    {
      key: "ours-dual",
      name: "effect-mcp, add only, dual (both eras)",
      file: here("./ours-stdio-server.js"),
      args: ["--revisions", "dual"]
    },
    { key: "sdk", name: "official SDK 2.4.0, serveStdio", file: here("./sdk-add-server.js"), args: ["--serve-stdio"] },
    bareServer
  ]

/**
 * Startup only, in the handshake era: ours with nothing but `add`, like the SDK's server (the
 * like-for-like startup ratio); in 2026-07-28 `ours` is that server already.
 */
const oursAdd: Server = {
  key: "ours-add",
  name: "effect-mcp, add only (tsc-compiled)",
  file: here("./ours-stdio-server.js"),
  args: []
}
/**
 * The same server bundled (`scripts/bundle.mjs`, esbuild, split: what a one-tool stdio server
 * never runs is in chunks it never reads), as the demo and the `mcp` command are run: what startup
 * costs when Node loads a few modules instead of hundreds.
 */
const oursBundled: Server = {
  key: "ours-bundled",
  name: "effect-mcp, add only, bundled",
  file: here("./ours-stdio-server.bundle.mjs"),
  args: envelope.handshake ? [] : ["--revisions", "stateless"]
}
/**
 * The floor of any tsc-compiled Effect server: `effect/Effect`, `effect/Schema` and NodeRuntime
 * loaded as separate modules, then answers by hand (`effect-floor-stdio-server.ts`).
 */
const effectFloor: Server = {
  key: "effect-floor",
  name: "Effect floor (effect, Schema, NodeRuntime loaded; no MCP)",
  file: here("./effect-floor-stdio-server.js"),
  args: []
}
const startupServersOf = async (): Promise<ReadonlyArray<Server>> => [
  ...servers,
  ...(envelope.handshake ? [oursAdd] : []),
  oursBundled,
  effectFloor,
  ...(process.env.BENCH_PACKED === "0" ? [] : Packed.servers(await Packed.project(), envelope.handshake !== undefined)),
  ...(process.env.BENCH_PACKED_BASE_DIR === undefined || process.env.BENCH_PACKED === "0"
    ? []
    : await Packed.baseServers(process.env.BENCH_PACKED_BASE_DIR, envelope.handshake !== undefined))
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

const start = (server: Server): Child => spawnChild(server.file, server.args)

/** Sends one request line and waits for the line answering `id`. */
const call = (child: Child, id: number, line: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchFailure(`no answer to request ${id}`)), stallMillis)
    void child.exited.then((code) => reject(new BenchFailure(`the server exited (code ${code})`)))
    child.setOnLines((lines) => {
      for (const l of lines) {
        if (idOf(l) === id) {
          clearTimeout(timer)
          resolve(l)
        }
      }
    })
    child.write(line + "\n")
  })

/** The handshake of the envelope (nothing for 2026-07-28). */
const handshake = async (child: Child) => {
  if (envelope.handshake === undefined) return
  const answer = await call(child, 0, envelope.handshake.initialize)
  const result = JSON.parse(answer).result
  if (result?.protocolVersion !== envelope.revision) throw new BenchFailure(`initialize failed: ${answer}`)
  child.write(envelope.handshake.initialized + "\n")
}

/**
 * `count` calls with ids `first … first + count - 1`, `window` in flight. Request `id`
 * adds `id` and 1, so its answer must hold `"sum":id+1`.
 */
const burst = (child: Child, first: number, count: number, sampleRss: boolean): Promise<Round> => {
  const requests = new Array<string>(count)
  for (let k = 0; k < count; k++) requests[k] = envelope.addCall(first + k) + "\n"
  const sentAt = new Float64Array(count)
  const latency = new Float64Array(count)
  const answered = new Uint8Array(count)
  let next = 0
  let done = 0
  let ok = 0
  let bad = 0
  let firstBad: string | undefined
  let peak = 0
  const pid = child.pid

  return new Promise((resolve) => {
    let started = 0
    let cpuAtStart = 0
    let stall: ReturnType<typeof setTimeout> | undefined
    const sampler = sampleRss ? setInterval(() => peak = Math.max(peak, rssKiB(pid)), 50) : undefined
    let finished = false
    const finish = () => {
      if (finished) return
      finished = true
      clearTimeout(stall)
      clearInterval(sampler)
      const seconds = (performance.now() - started) / 1000
      const cpu = cpuMillis(pid) - cpuAtStart
      if (sampleRss) peak = Math.max(peak, rssKiB(pid))
      const measured = latency.filter((_, k) => answered[k] === 1).sort()
      child.setOnLines(() => {})
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
      child.write(text)
    }
    child.setOnLines((lines, now) => {
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
        if (Envelope.isGoodAdd(line, first + k)) ok++
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
    void child.exited.then(finish)
    cpuAtStart = cpuMillis(pid)
    started = performance.now()
    armStall()
    send(window)
  })
}

const round = async (server: Server): Promise<Round> => {
  const child = start(server)
  try {
    await handshake(child)
    const warm = await burst(child, 1, warmup, false)
    if (warm.ok !== warmup) {
      throw new BenchFailure(
        `${server.name}: warm-up got ${warm.ok}/${warmup} good answers (first bad: ${warm.firstBad ?? "none"})`
      )
    }
    return await burst(child, 1 + warmup, total, true)
  } catch (error) {
    throw new BenchFailure(
      `${server.name}: ${error instanceof Error ? error.message : String(error)}\nstderr: ${child.stderr()}`
    )
  } finally {
    await child.stop()
  }
}

interface Startup {
  /** Spawn → the first `tools/call` answered, in ms. */
  readonly wall: number
  /** The child's CPU time (user + system) by then, in ms. */
  readonly cpu: number
}

/** Spawn → the first `tools/call` answered (after the handshake, in its era). */
const startup = async (server: Server): Promise<Startup> => {
  const spawnedAt = performance.now()
  const child = start(server)
  try {
    if (envelope.handshake !== undefined) {
      const answer = await call(child, 0, envelope.handshake.initialize)
      if (!answer.includes("\"result\":")) throw new BenchFailure(`${server.name}: initialize failed: ${answer}`)
      child.write(envelope.handshake.initialized + "\n")
    }
    const answer = await call(child, 1, envelope.addCall(1))
    if (!Envelope.isGoodAdd(answer, 1)) throw new BenchFailure(`${server.name}: first call failed: ${answer}`)
    return { wall: performance.now() - spawnedAt, cpu: cpuMillis(child.pid) }
  } catch (error) {
    throw new BenchFailure(
      `${server.name}: ${error instanceof Error ? error.message : String(error)}\nstderr: ${child.stderr()}`
    )
  } finally {
    await child.stop()
  }
}

/** Startup: each server's runs, medians, and the ratios against the SDK's (on the wall-time medians). */
const startupPart = async (): Promise<{ readonly out: ReadonlyArray<string>; readonly summary: Array<Row> }> => {
  const startupServers = await startupServersOf()
  const runs: Array<Array<Startup>> = startupServers.map(() => [])
  for (let r = 0; r < startupRuns; r++) {
    for (let s = 0; s < startupServers.length; s++) runs[s].push(await startup(startupServers[s]))
  }
  const wall = runs.map((server) => median(server.map((run) => run.wall)))
  const cpu = runs.map((server) => median(server.map((run) => run.cpu)))
  const at = (key: Server["key"]) => startupServers.findIndex((server) => server.key === key)
  const sdk = at("sdk")
  const compiled = at(envelope.handshake ? "ours-add" : "ours")
  const bundled = at("ours-bundled")
  const packed = at("ours-packed")
  const floorPacked = at("effect-floor-packed")
  const base = at("ours-packed-base")
  const floorBase = at("effect-floor-packed-base")
  const targets = [
    ...(packed >= 0
      ? [{ label: "ours (tsc-compiled, packed packages) / SDK", s: packed, threshold: 1.5, shown: "1.5x" }]
      : []),
    { label: "ours (tsc-compiled, workspace dist) / SDK", s: compiled, threshold: 1.5, shown: "1.5x" },
    { label: "ours (bundled, add only) / SDK", s: bundled, threshold: 1, shown: "1.0x" },
    ...(envelope.handshake
      ? [{ label: "apps/everything (tsc-compiled) / SDK", s: at("ours"), threshold: 0, shown: "" }]
      : [])
  ]
  // What ours adds above the Effect floor, in the SDK's whole startups (same run): the part of a
  // tsc-compiled server's startup that is ours to cut (issue 42).
  const floor = at("effect-floor")
  const above = (s: number, of: ReadonlyArray<number>, base = floor) => ((of[s] - of[base]) / of[sdk]).toFixed(2)
  const out = [
    `Startup: spawn → the first tools/call answered${
      envelope.handshake ? " (after initialize and notifications/initialized)" : ""
    }, median of ${startupRuns} alternating spawns; CPU: the child's user + system time by then`,
    ...table([
      ["server", "spawn → first call", "CPU by then", "runs (wall ms)"],
      ...startupServers.map((server, s) => [
        server.name,
        `${wall[s].toFixed(0)} ms`,
        `${cpu[s].toFixed(0)} ms`,
        runs[s].map((run) => run.wall.toFixed(0)).join(", ")
      ])
    ]),
    ...table([
      ["startup ratio", "wall (median)", "CPU (median)", "target (wall)"],
      ...targets.map(({ label, s, shown, threshold }) => [
        label,
        ratio(wall[s] / wall[sdk]),
        ratio(cpu[s] / cpu[sdk]),
        threshold > 0 ? `≤ ${shown}${wall[s] / wall[sdk] <= threshold ? " met" : " NOT MET"}` : ""
      ]),
      ["Effect floor / SDK", ratio(wall[floor] / wall[sdk]), ratio(cpu[floor] / cpu[sdk]), ""],
      [
        "ours (tsc-compiled, workspace dist) above the floor, in SDK startups",
        above(compiled, wall),
        above(compiled, cpu),
        ""
      ],
      ...(packed >= 0
        ? [
          [
            "Effect floor (npm project) / SDK",
            ratio(wall[floorPacked] / wall[sdk]),
            ratio(cpu[floorPacked] / cpu[sdk]),
            ""
          ],
          [
            "ours (tsc-compiled, packed packages) above its floor, in SDK startups",
            above(packed, wall, floorPacked),
            above(packed, cpu, floorPacked),
            `≤ 1.30 (wall and CPU)${
              Number(above(packed, wall, floorPacked)) <= 1.3 && Number(above(packed, cpu, floorPacked)) <= 1.3
                ? " met"
                : " NOT MET"
            }`
          ]
        ]
        : []),
      ...(base >= 0
        ? [[
          "ours (tsc-compiled, BENCH_PACKED_BASE_DIR's packages) above its floor, in SDK startups",
          above(base, wall, floorBase),
          above(base, cpu, floorBase),
          ""
        ]]
        : [])
    ]),
    ...StartupInstructions.rows(envelope, startupServers, {
      sdk: at("sdk"),
      floor: at("effect-floor"),
      compiled,
      floorPacked,
      packed,
      floorBase,
      base,
      skip: envelope.handshake === undefined ? -1 : at("ours")
    })
  ]
  const summary: Array<Row> = [
    {
      section,
      label: `spawn → first tools/call (${startupServers.map((server) => server.key).join(" / ")})`,
      value: `${wall.map((t) => t.toFixed(0)).join(" / ")} ms, CPU ${cpu.map((t) => t.toFixed(0)).join(" / ")} ms`
    },
    ...targets.filter(({ threshold }) => threshold > 0).map(({ label, s, shown, threshold }) => ({
      ...targetRow(section, `startup ${label}`, wall[s] / wall[sdk], ratio(wall[s] / wall[sdk]), "≤", threshold, shown),
      value: `${ratio(wall[s] / wall[sdk])} (CPU ${ratio(cpu[s] / cpu[sdk])})`
    })),
    ...(packed >= 0
      ? [{
        ...targetRow(
          section,
          "startup ours (tsc-compiled, packed packages) above its floor, in SDK startups (wall)",
          Number(above(packed, wall, floorPacked)),
          above(packed, wall, floorPacked),
          "≤",
          1.3,
          "1.30"
        ),
        value: `${above(packed, wall, floorPacked)} (CPU ${above(packed, cpu, floorPacked)})`
      }]
      : [])
  ]
  return { out, summary }
}

/** Throughput: rounds of every server, the best of each, and the ratios. */
const throughputPart = async (): Promise<
  { readonly out: ReadonlyArray<string>; readonly summary: Array<Row>; readonly failed: boolean }
> => {
  const note = pinningNote()
  const results: Array<Array<Round>> = servers.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let s = 0; s < servers.length; s++) results[s].push(await round(servers[s]))
  }
  const best = results.map((runs) => runs.reduce((a, b) => (b.rps > a.rps ? b : a)))
  const failed = results.some((runs) => runs.some((run) => run.bad > 0 || run.missing > 0))

  const at = (key: Server["key"]) => servers.findIndex((server) => server.key === key)
  const ours = best[at("ours")]
  const sdk = best[at("sdk")]

  interface Pair {
    readonly a: Server["key"]
    readonly b: Server["key"]
    readonly unit: "x" | "%"
    readonly threshold: number
    readonly shown: string
  }
  const pairs: ReadonlyArray<Pair> = [
    { a: "ours", b: "bare", unit: "%", threshold: 0.5, shown: "50%" },
    { a: "ours", b: "sdk", unit: "x", threshold: 2.5, shown: "2.5x" },
    { a: "ours-dual", b: "bare", unit: "%", threshold: 0.5, shown: "50%" },
    { a: "ours-dual", b: "sdk", unit: "x", threshold: 2.5, shown: "2.5x" }
  ]
  const ratioRows = [["ratio (throughput)", "best", "per round (min / median)", "target (median)", "CPU/call"]]
  const summary: Array<Row> = [
    {
      section,
      label: `req/s (${servers.map((server) => server.key).join(" / ")})`,
      value: `${best.map((run) => num(run.rps)).join(" / ")}, p99 ${
        best.map((run) => run.p99.toFixed(1)).join(" / ")
      } ms`
    }
  ]
  for (const pair of pairs) {
    const i = at(pair.a)
    const j = at(pair.b)
    if (i < 0 || j < 0) continue
    const show = (v: number) => (pair.unit === "x" ? ratio(v) : percent(v))
    const perRound = results[i].map((run, r) => run.rps / results[j][r].rps)
    const mid = median(perRound)
    const bestRatio = best[i].rps / best[j].rps
    // b's CPU per call over a's: higher is better for a, like throughput.
    const cpu = best[j].cpuPerCall / best[i].cpuPerCall
    const label = `${pair.a} / ${pair.b}`
    ratioRows.push([
      label,
      show(bestRatio),
      `${show(Math.min(...perRound))} / ${show(mid)}`,
      `≥ ${pair.shown}${mid >= pair.threshold ? " met" : " NOT MET"}`,
      show(cpu)
    ])
    summary.push({
      ...targetRow(section, `${label} throughput`, mid, `median ${show(mid)}`, "≥", pair.threshold, pair.shown),
      value: `median ${show(mid)} (min ${show(Math.min(...perRound))}, best ${show(bestRatio)}, by CPU/call ${
        show(cpu)
      })`
    })
  }
  const out = [
    `stdio tools/call add (${envelope.revision}): ${total} calls after ${warmup} warm-up, ${window} in flight, ` +
    `${rounds} alternating rounds; best round of each by req/s; ${note}`,
    ...table([
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
    ]),
    ...table(ratioRows),
    ...table([
      ["other ratios", "value"],
      ["ours/sdk p99", ratio(ours.p99 / sdk.p99)],
      ["ours/sdk CPU/call (lower: less)", ratio(ours.cpuPerCall / sdk.cpuPerCall)]
    ]),
    `CPU/call ratios: the second server's CPU time per call over the first's (2x: the first uses half the CPU).`
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
  summary.push({
    section,
    label: "ours / SDK CPU per call (lower: less)",
    value: ratio(ours.cpuPerCall / sdk.cpuPerCall)
  })
  return { out, summary, failed }
}

const main = async () => {
  const loadMark = markLoad()
  const throughput = parts.includes("throughput") ? await throughputPart() : undefined
  const started = parts.includes("startup") ? await startupPart() : undefined
  const out = [...(throughput?.out ?? []), ...(started?.out ?? []), otherLoadNote(loadMark)]
  process.stdout.write(out.join("\n") + "\n")
  record([
    ...(throughput?.summary ?? []),
    ...(started?.summary ?? []),
    { section, label: "other load on the machine", value: `${percent(otherLoad(loadMark))} of a CPU` }
  ])
  if (throughput?.failed === true) process.exitCode = 1
}

main().catch((error) => {
  process.stderr.write(
    `STDIO BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
