/**
 * The engine of the HTTP throughput benchmarks (`http.ts`: the handshake era with sessions;
 * `http-stateless.ts`: 2026-07-28), against servers in child processes.
 *
 * For each server and connection count (10 and 50): open that many keep-alive connections (and
 * in the handshake era one MCP session on each: `initialize` + `notifications/initialized`),
 * warm up until throughput stops rising (in the first round for at least BENCH_HTTP_WARMUP_MIN_MILLIS),
 * then measure for a fixed time with one call in flight
 * per connection (`http-driver.ts`). Each server is one child process started before the first
 * round and kept to the end; rounds alternate between them (a, a, b, b, c, a, …), with new
 * connections each time; the table shows each server's best round by throughput and every
 * round's figure. Ratios are given three ways: best round over best round, and the min / median
 * of the per-round ratios (round r of one server over round r of the other, measured a few
 * seconds apart: what the machine's noise disturbs least); targets are judged on the median.
 * Every answer is checked (200, a result, the right sum): any bad answer fails the benchmark.
 * Server CPU per request is the child's user + system time (`/proc/<pid>/stat`) over the
 * measured calls; client CPU is this process's CPU time over wall time (near 100% would mean
 * the client, not the server, is the limit).
 *
 * Environment: BENCH_ROUNDS, BENCH_HTTP_MILLIS (defaults per benchmark),
 * BENCH_HTTP_WARMUP_MIN_MILLIS (1000), BENCH_HTTP_WARMUP_MAX_MILLIS (6000),
 * BENCH_HTTP_CONNECTIONS ("10,50"), BENCH_HTTP_SERVERS (server keys; default each benchmark's
 * own), BENCH_HTTP_FETCH=1 (also drive the bare server with `fetch`, to compare clients),
 * BENCH_PROFILE=<dir> (a CPU profile of each measured run, taken in the server: `proc.ts`),
 * BENCH_NODE_FLAGS, BENCH_PIN=0.
 */
import { join } from "node:path"
import type { Envelope } from "./envelope.js"
import { fetchLoad, load, type LoadStats, openSessions, type Session, type Target } from "./http-driver.js"
import {
  BenchFailure,
  type Child,
  command,
  cpuMillis,
  markLoad,
  median,
  mib,
  ms,
  num,
  otherLoad,
  otherLoadNote,
  percent,
  pinningNote,
  profileDir,
  ratio,
  rssKiB,
  startHttpServer,
  table
} from "./proc.js"
import { record, type Row } from "./summary.js"

export interface Server {
  /** Its name in `BENCH_HTTP_SERVERS` and in the ratios. */
  readonly key: string
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
  /** Run only when `BENCH_HTTP_SERVERS` names it. */
  readonly optIn?: boolean
  /** Starts it (another runtime than Node: `runtimes.ts`); by default `node file args` (`startHttpServer`). */
  readonly start?: () => Promise<{ readonly child: Child; readonly port: number }>
  /** Header lines sent with every request (`Target.headers`). */
  readonly headers?: string | undefined
}

/** A ratio of two servers' throughput, `a / b`, shown as `x` or `%`, with an optional target (≥). */
export interface Pair {
  readonly a: string
  readonly b: string
  readonly label: string
  readonly unit: "x" | "%"
  readonly target?: { readonly threshold: number; readonly shown: string }
  /** Percentages to a tenth (a target like 98% needs it). */
  readonly fine?: boolean
}

export interface Bench {
  /** The section of the summary rows (`http`, `http-stateless`). */
  readonly section: string
  /** The first words of the heading, e.g. `HTTP tools/call add (2025-11-25, one session per connection)`. */
  readonly title: string
  readonly envelope: Envelope
  readonly servers: ReadonlyArray<Server>
  readonly pairs: ReadonlyArray<Pair>
  readonly rounds: number
  readonly millis: number
  /** Lines printed after the tables. */
  readonly notes: ReadonlyArray<string>
  /** The connection counts (default `BENCH_HTTP_CONNECTIONS`). */
  readonly connections?: ReadonlyArray<number>
}

/** Warm-up runs in slices until throughput stops rising (two slices in a row not 5% above the best), within bounds. */
const warmupSlice = 500
const warmupMin = Number(process.env.BENCH_HTTP_WARMUP_MIN_MILLIS ?? 1_000)
const warmupMax = Number(process.env.BENCH_HTTP_WARMUP_MAX_MILLIS ?? 6_000)
const defaultConnectionCounts = (process.env.BENCH_HTTP_CONNECTIONS ?? "10,50").split(",").map(Number)

export interface Run extends LoadStats {
  readonly warmupMillis: number
  /** Server CPU time per answered request, µs. */
  readonly serverCpuPerRequest: number
  /** Server CPU time / wall time. */
  readonly serverCpu: number
  readonly serverRssKiB: number
}

/**
 * Warms up until throughput stops rising: servers can take seconds to reach their pace (the SDK's
 * JSON server went 700 → 6,500 req/s over its first 6 s at 50 connections), so a fixed short
 * warm-up would compare cold code. Returns the next id and the time it took.
 */
const warmUp = async (
  sessions: ReadonlyArray<Session>,
  envelope: Envelope,
  minimum: number,
  slice: number
): Promise<{ readonly nextId: number; readonly millis: number }> => {
  const start = performance.now()
  let nextId = 1
  let best = 0
  let stale = 0
  for (;;) {
    const run = await load(sessions, envelope, slice, nextId)
    if (run.bad > 0) throw new BenchFailure(`${run.bad} bad answers in the warm-up; first: ${run.firstBad}`)
    nextId = run.nextId
    stale = run.rps > best * 1.05 ? 0 : stale + 1
    best = Math.max(best, run.rps)
    const elapsed = performance.now() - start
    if ((stale >= 2 && elapsed >= minimum) || elapsed >= warmupMax) return { nextId, millis: elapsed }
  }
}

interface Started {
  readonly server: Server
  readonly child: Child
  readonly target: Target
}

const measure = async (
  bench: Bench,
  { child, server, target }: Started,
  connections: number,
  roundIndex: number
): Promise<Run> => {
  const sessions = await openSessions(target, bench.envelope, connections)
  try {
    // The child is warm after its first round: later rounds only wait, in shorter slices, for throughput to settle.
    const warm = roundIndex === 0
      ? await warmUp(sessions, bench.envelope, warmupMin, warmupSlice)
      : await warmUp(sessions, bench.envelope, 0, warmupSlice / 2)
    if (profileDir !== undefined) await command(child, "profile-start", "profiling")
    const cpuBefore = cpuMillis(child.pid)
    const run = await load(sessions, bench.envelope, bench.millis, warm.nextId)
    const cpu = cpuMillis(child.pid) - cpuBefore
    if (profileDir !== undefined) {
      const file = join(profileDir, `${bench.section}-${server.key}-${connections}c-r${roundIndex + 1}.cpuprofile`)
      await command(child, `profile-stop ${file}`, "profiled")
    }
    if (run.bad > 0) throw new BenchFailure(`${run.bad} bad answers; first: ${run.firstBad}`)
    return {
      ...run,
      warmupMillis: warm.millis,
      serverCpuPerRequest: (cpu * 1000) / Math.max(1, run.requests),
      serverCpu: cpu / 1000 / run.seconds,
      serverRssKiB: rssKiB(child.pid)
    }
  } finally {
    for (const session of sessions) session.connection.close()
  }
}

/** One round of one server: every connection count in turn, each with new connections (and sessions). */
const round = async (bench: Bench, started: Started, roundIndex: number): Promise<Array<Run>> => {
  try {
    const runs: Array<Run> = []
    for (const connections of bench.connections ?? defaultConnectionCounts) {
      runs.push(await measure(bench, started, connections, roundIndex))
    }
    return runs
  } catch (error) {
    throw new BenchFailure(
      `${started.server.name}: ${
        error instanceof Error ? error.message : String(error)
      }\nstderr: ${started.child.stderr()}`
    )
  }
}

/** The bare server driven by `fetch` instead of raw sockets. */
const fetchRound = async (bench: Bench, bare: Server, connections: number): Promise<LoadStats> => {
  const { child, port } = await startHttpServer(bare.file, bare.args)
  try {
    const target = { port, path: "/mcp" }
    await fetchLoad(target, bench.envelope, connections, warmupMax / 2)
    const run = await fetchLoad(target, bench.envelope, connections, bench.millis)
    if (run.bad > 0) throw new BenchFailure(`fetch client: ${run.bad} bad answers; first: ${run.firstBad}`)
    return run
  } finally {
    await child.stop()
  }
}

/** A server's figures at one connection count: its best round, and the median of its rounds' req/s. */
export interface Measured {
  readonly connections: number
  readonly best: Run
  readonly medianRps: number
  /** Every round's run, in order (round r of each server measured a few seconds apart). */
  readonly rounds: ReadonlyArray<Run>
}

/**
 * Runs a benchmark: prints its tables to stdout and records its summary rows; returns each
 * server's figures by key.
 */
export const run = async (bench: Bench): Promise<Map<string, Array<Measured>>> => {
  const connectionCounts = bench.connections ?? defaultConnectionCounts
  const wanted = process.env.BENCH_HTTP_SERVERS?.split(",")
  const servers = bench.servers.filter((server) =>
    wanted === undefined ? server.optIn !== true : wanted.includes(server.key)
  )
  const note = pinningNote()
  const loadMark = markLoad()
  // results[server][connection count][round]
  const results: Array<Array<Array<Run>>> = servers.map(() => connectionCounts.map(() => []))
  // Every server child starts first and lives through all rounds (idle while the others run).
  const started: Array<Started> = []
  try {
    for (const server of servers) {
      const { child, port } = server.start !== undefined
        ? await server.start()
        : await startHttpServer(server.file, server.args)
      started.push({ server, child, target: { port, path: "/mcp", headers: server.headers } })
    }
    for (let r = 0; r < bench.rounds; r++) {
      for (let s = 0; s < servers.length; s++) {
        const runs = await round(bench, started[s], r)
        runs.forEach((run, c) => results[s][c].push(run))
      }
    }
  } finally {
    await Promise.all(started.map(({ child }) => child.stop()))
  }
  const best = results.map((byCount) => byCount.map((runs) => runs.reduce((a, b) => (b.rps > a.rps ? b : a))))

  const rows = [
    [
      "server",
      "conns",
      "req/s",
      "p50",
      "p99",
      "srv CPU/req",
      "srv CPU",
      "client CPU",
      "srv RSS",
      "warm-up",
      "median req/s",
      "runs (req/s)"
    ]
  ]
  servers.forEach((server, s) =>
    connectionCounts.forEach((connections, c) => {
      const run = best[s][c]
      rows.push([
        c === 0 ? server.name : "",
        String(connections),
        num(run.rps),
        ms(run.p50),
        ms(run.p99),
        `${run.serverCpuPerRequest.toFixed(1)} µs`,
        percent(run.serverCpu),
        percent(run.clientCpu),
        mib(run.serverRssKiB),
        `${(run.warmupMillis / 1000).toFixed(1)} s`,
        num(median(results[s][c].map((x) => x.rps))),
        results[s][c].map((x) => num(x.rps)).join(", ")
      ])
    })
  )

  const out = [
    `${bench.title}, keep-alive, one call in flight per connection: ${bench.millis} ms measured after a warm-up ` +
    `until req/s stops rising (${warmupMin / 1000}-${warmupMax / 1000} s), ${bench.rounds} alternating rounds, ` +
    `best round of each by req/s; ${note}`,
    ...table(rows)
  ]

  const index = (key: string) => servers.findIndex((server) => server.key === key)
  const summary: Array<Row> = []
  const ratioRows = [[
    "ratio (req/s)",
    ...connectionCounts.map((n) => `best ${n} conns`),
    ...connectionCounts.map((n) => `per round ${n} conns (min / median)`),
    "target (median)",
    ...connectionCounts.map((n) => `CPU/req ${n} conns`)
  ]]
  for (const pair of bench.pairs) {
    const i = index(pair.a)
    const j = index(pair.b)
    if (i < 0 || j < 0) continue
    const bestRatio = connectionCounts.map((_, c) => best[i][c].rps / best[j][c].rps)
    const perRound = connectionCounts.map((_, c) => results[i][c].map((run, r) => run.rps / results[j][c][r].rps))
    const medians = perRound.map(median)
    // The same ratio from the server's CPU time per request (b's over a's: higher is better for a, like req/s).
    // Other load on the machine disturbs it less than throughput.
    const cpu = connectionCounts.map((_, c) => best[j][c].serverCpuPerRequest / best[i][c].serverCpuPerRequest)
    const show = (v: number) =>
      pair.unit === "x" ? ratio(v) : pair.fine === true && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : percent(v)
    const target = pair.target
    const marks = target === undefined ? [] : medians.map((v) => v >= target.threshold)
    ratioRows.push([
      pair.label,
      ...bestRatio.map(show),
      ...perRound.map((values, c) =>
        `${show(Math.min(...values))} / ${show(medians[c])}${target === undefined || marks[c] ? "" : " (!)"}`
      ),
      target === undefined ? "" : `≥ ${target.shown}${marks.every(Boolean) ? " met" : " NOT MET"}`,
      ...cpu.map(show)
    ])
    const counts = `(${connectionCounts.join(" / ")} conns)`
    summary.push({
      section: bench.section,
      label: `${pair.label} ${counts}`,
      value: `median ${medians.map(show).join(" / ")} (min ${
        perRound.map((values) => show(Math.min(...values))).join(" / ")
      }, best ${bestRatio.map(show).join(" / ")}, by CPU/req ${cpu.map(show).join(" / ")})`,
      ...(target === undefined ? {} : { target: `≥ ${target.shown}`, met: marks.every(Boolean) })
    })
  }
  out.push(...table(ratioRows))
  servers.forEach((server, s) =>
    summary.push({
      section: bench.section,
      label: `${server.key} req/s (${connectionCounts.join(" / ")} conns)`,
      value: `${best[s].map((run) => num(run.rps)).join(" / ")}, p99 ${
        best[s].map((run) => run.p99.toFixed(1)).join(" / ")
      } ms`
    })
  )
  summary.push({
    section: bench.section,
    label: "other load on the machine",
    value: `${percent(otherLoad(loadMark))} of a CPU`
  })

  const bare = servers.find((server) => server.key === "bare")
  if (process.env.BENCH_HTTP_FETCH === "1" && bare !== undefined) {
    const fetchRows = [["client against bare", "conns", "req/s", "p50", "p99", "client CPU"]]
    const bareAt = index("bare")
    for (const [c, connections] of connectionCounts.entries()) {
      const run = await fetchRound(bench, bare, connections)
      fetchRows.push([
        "fetch (undici)",
        String(connections),
        num(run.rps),
        ms(run.p50),
        ms(run.p99),
        percent(run.clientCpu)
      ])
      const raw = best[bareAt][c]
      fetchRows.push([
        "raw node:net (above)",
        String(connections),
        num(raw.rps),
        ms(raw.p50),
        ms(raw.p99),
        percent(raw.clientCpu)
      ])
    }
    out.push(...table(fetchRows))
  }

  out.push(otherLoadNote(loadMark))
  out.push(
    "CPU/req ratios: the second server's CPU time per request over the first's (2x: the first uses half the CPU).",
    ...bench.notes
  )
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
  return new Map(servers.map((server, s) => [
    server.key,
    connectionCounts.map((connections, c) => ({
      connections,
      best: best[s][c],
      medianRps: median(results[s][c].map((x) => x.rps)),
      rounds: results[s][c]
    }))
  ]))
}

/** `run` as a program's main: a failure is printed with `what` and exits 1. */
export const main = (bench: Bench, what: string): void => {
  run(bench).catch((error) => {
    process.stderr.write(
      `${what} FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
    )
    process.exit(1)
  })
}
