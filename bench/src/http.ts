/**
 * `tools/call add` over Streamable HTTP (2025-11-25, sessions), end to end, against servers in
 * child processes:
 *
 * - effect-mcp through `NodeMcpServer.layerHttp` and through `HttpTransport.layer` mounted on an
 *   `HttpLayerRouter` (`ours-http-server.ts`);
 * - the official SDK's sessionful server (`sdk-http-server.ts`), with `enableJsonResponse: true`
 *   (JSON answers, as ours gives: the fair comparison) and with its default (every answer an SSE
 *   stream);
 * - bare `node:http` answering JSON-RPC with `JSON.parse` / `JSON.stringify` (`bare-http-server.ts`):
 *   the floor, which also shows how far the client can go.
 *
 * For each server and connection count (10 and 50): open that many keep-alive connections, one
 * MCP session on each (`initialize` + `notifications/initialized`), warm up until throughput
 * stops rising, then measure for a fixed time with one call in flight per connection
 * (`http-driver.ts`). Each server is one child process started before the first round and kept
 * to the end; rounds alternate between them (ours, ours, sdk, sdk, bare, ours, …), with new
 * connections and sessions each time; the table shows each server's best round by throughput.
 * Every answer is checked (200, a result, the right sum): any bad answer fails the benchmark.
 * Server CPU per request is the child's user + system time (`/proc/<pid>/stat`) over the
 * measured calls; client CPU is this process's CPU time over wall time (near 100% would mean
 * the client, not the server, is the limit).
 *
 * Environment: BENCH_ROUNDS (2), BENCH_HTTP_MILLIS (2000), BENCH_HTTP_WARMUP_MIN_MILLIS (1000),
 * BENCH_HTTP_WARMUP_MAX_MILLIS (6000), BENCH_HTTP_CONNECTIONS ("10,50"), BENCH_HTTP_SERVERS
 * (keys: layerHttp, router, sdk-json, sdk-sse, bare; default all), BENCH_HTTP_FETCH=1 (also drive
 * the bare server with `fetch`, to compare clients), BENCH_PIN=0, BENCH_ENVELOPE (envelope.ts).
 *
 * A benchmark, not a test.
 */
import * as Envelope from "./envelope.js"
import { fetchLoad, load, type LoadStats, openSessions, type Session, type Target } from "./http-driver.js"
import {
  BenchFailure,
  type Child,
  cpuMillis,
  here,
  markLoad,
  mib,
  ms,
  num,
  otherLoad,
  otherLoadNote,
  percent,
  pinningNote,
  ratio,
  rssKiB,
  startHttpServer,
  table
} from "./proc.js"
import { record, type Row } from "./summary.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const millis = Number(process.env.BENCH_HTTP_MILLIS ?? 2_000)
/** Warm-up runs in slices until throughput stops rising (two slices in a row not 5% above the best), within bounds. */
const warmupSlice = 500
const warmupMin = Number(process.env.BENCH_HTTP_WARMUP_MIN_MILLIS ?? 1_000)
const warmupMax = Number(process.env.BENCH_HTTP_WARMUP_MAX_MILLIS ?? 6_000)
const connectionCounts = (process.env.BENCH_HTTP_CONNECTIONS ?? "10,50").split(",").map(Number)
const envelope = Envelope.fromEnv()

interface Server {
  readonly key: string
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
}

const all: ReadonlyArray<Server> = [
  {
    key: "layerHttp",
    name: "effect-mcp NodeMcpServer.layerHttp",
    file: here("./ours-http-server.js"),
    args: ["--mode", "layerHttp"]
  },
  {
    key: "router",
    name: "effect-mcp HttpTransport on HttpLayerRouter",
    file: here("./ours-http-server.js"),
    args: ["--mode", "router"]
  },
  { key: "sdk-json", name: "SDK 2.4.0, enableJsonResponse", file: here("./sdk-http-server.js"), args: ["--json"] },
  { key: "sdk-sse", name: "SDK 2.4.0, default (SSE answers)", file: here("./sdk-http-server.js"), args: [] },
  { key: "bare", name: "bare node:http + JSON.parse", file: here("./bare-http-server.js"), args: [] }
]

const wanted = process.env.BENCH_HTTP_SERVERS?.split(",")
const servers = wanted === undefined ? all : all.filter((server) => wanted.includes(server.key))

interface Run extends LoadStats {
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
  sessions: ReadonlyArray<Session>
): Promise<{ readonly nextId: number; readonly millis: number }> => {
  const start = performance.now()
  let nextId = 1
  let best = 0
  let stale = 0
  for (;;) {
    const slice = await load(sessions, envelope, warmupSlice, nextId)
    if (slice.bad > 0) throw new BenchFailure(`${slice.bad} bad answers in the warm-up; first: ${slice.firstBad}`)
    nextId = slice.nextId
    stale = slice.rps > best * 1.05 ? 0 : stale + 1
    best = Math.max(best, slice.rps)
    const elapsed = performance.now() - start
    if ((stale >= 2 && elapsed >= warmupMin) || elapsed >= warmupMax) return { nextId, millis: elapsed }
  }
}

const measure = async (child: Child, target: Target, connections: number): Promise<Run> => {
  const sessions = await openSessions(target, envelope, connections)
  try {
    const warm = await warmUp(sessions)
    const cpuBefore = cpuMillis(child.pid)
    const run = await load(sessions, envelope, millis, warm.nextId)
    const cpu = cpuMillis(child.pid) - cpuBefore
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

interface Started {
  readonly server: Server
  readonly child: Child
  readonly target: Target
}

/** One round of one server: every connection count in turn, each with new connections and sessions. */
const round = async ({ child, server, target }: Started): Promise<Array<Run>> => {
  try {
    const runs: Array<Run> = []
    for (const connections of connectionCounts) runs.push(await measure(child, target, connections))
    return runs
  } catch (error) {
    throw new BenchFailure(
      `${server.name}: ${error instanceof Error ? error.message : String(error)}\nstderr: ${child.stderr()}`
    )
  }
}

/** The bare server driven by `fetch` instead of raw sockets (sessions do not matter to it). */
const fetchRound = async (connections: number): Promise<LoadStats> => {
  const bare = all.find((server) => server.key === "bare")!
  const { child, port } = await startHttpServer(bare.file, bare.args)
  try {
    const target = { port, path: "/mcp" }
    await fetchLoad(target, envelope, connections, warmupMax / 2)
    const run = await fetchLoad(target, envelope, connections, millis)
    if (run.bad > 0) throw new BenchFailure(`fetch client: ${run.bad} bad answers; first: ${run.firstBad}`)
    return run
  } finally {
    await child.stop()
  }
}

const main = async () => {
  const note = pinningNote()
  const loadMark = markLoad()
  // results[server][connection count][round]
  const results: Array<Array<Array<Run>>> = servers.map(() => connectionCounts.map(() => []))
  // Every server child starts first and lives through all rounds (idle while the others run).
  const started: Array<Started> = []
  try {
    for (const server of servers) {
      const { child, port } = await startHttpServer(server.file, server.args)
      started.push({ server, child, target: { port, path: "/mcp" } })
    }
    for (let r = 0; r < rounds; r++) {
      for (let s = 0; s < servers.length; s++) {
        const runs = await round(started[s])
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
        results[s][c].map((x) => num(x.rps)).join(", ")
      ])
    })
  )

  const out = [
    `HTTP tools/call add (${envelope.revision}${
      envelope.handshake ? ", one session per connection" : ", stateless"
    }, ` +
    `keep-alive, one call in flight per connection): ${millis} ms measured after a warm-up until req/s stops rising ` +
    `(${warmupMin / 1000}-${warmupMax / 1000} s), ` +
    `${rounds} alternating rounds, best round of each by req/s; ${note}`,
    ...table(rows)
  ]

  const index = (key: string) => servers.findIndex((server) => server.key === key)
  const summary: Array<Row> = []
  const ratioRows = [[
    "ratio",
    ...connectionCounts.map((n) => `req/s ${n} conns`),
    "target",
    ...connectionCounts.map((n) => `CPU/req ${n} conns`)
  ]]
  const pairs: ReadonlyArray<
    readonly [string, string, string, "x" | "%", { readonly threshold: number; readonly shown: string } | undefined]
  > = [
    ["layerHttp", "sdk-json", "layerHttp / SDK json", "x", { threshold: 2, shown: "2x" }],
    ["layerHttp", "sdk-sse", "layerHttp / SDK sse (default)", "x", undefined],
    ["layerHttp", "bare", "layerHttp / bare", "%", { threshold: 0.25, shown: "25%" }],
    ["router", "sdk-json", "router / SDK json", "x", undefined],
    ["router", "sdk-sse", "router / SDK sse (default)", "x", undefined],
    ["router", "bare", "router / bare", "%", undefined]
  ]
  for (const [a, b, label, unit, target] of pairs) {
    const i = index(a)
    const j = index(b)
    if (i < 0 || j < 0) continue
    const values = connectionCounts.map((_, c) => best[i][c].rps / best[j][c].rps)
    // The same ratio from the server's CPU time per request (b's over a's: higher is better for a, like req/s).
    // Other load on the machine disturbs it less than throughput.
    const cpu = connectionCounts.map((_, c) => best[j][c].serverCpuPerRequest / best[i][c].serverCpuPerRequest)
    const show = (v: number) => (unit === "x" ? ratio(v) : percent(v))
    const marks = target === undefined ? [] : values.map((v) => v >= target.threshold)
    ratioRows.push([
      label,
      ...values.map((v, c) => `${show(v)}${target === undefined ? "" : marks[c] ? "" : " (!)"}`),
      target === undefined ? "" : `≥ ${target.shown}${marks.every(Boolean) ? " met" : " NOT MET"}`,
      ...cpu.map(show)
    ])
    const counts = `(${connectionCounts.join(" / ")} conns)`
    summary.push({
      section: "http",
      label: `${label} ${counts}`,
      value: `${values.map(show).join(" / ")} (by CPU/req ${cpu.map(show).join(" / ")})`,
      ...(target === undefined ? {} : { target: `≥ ${target.shown}`, met: marks.every(Boolean) })
    })
  }
  out.push(...table(ratioRows))
  servers.forEach((server, s) =>
    summary.push({
      section: "http",
      label: `${server.key} req/s (${connectionCounts.join(" / ")} conns)`,
      value: `${best[s].map((run) => num(run.rps)).join(" / ")}, p99 ${
        best[s].map((run) => run.p99.toFixed(1)).join(" / ")
      } ms`
    })
  )
  summary.push({
    section: "http",
    label: "other load on the machine",
    value: `${percent(otherLoad(loadMark))} of a CPU`
  })

  if (process.env.BENCH_HTTP_FETCH === "1") {
    const fetchRows = [["client against bare", "conns", "req/s", "p50", "p99", "client CPU"]]
    const bareAt = index("bare")
    for (const [c, connections] of connectionCounts.entries()) {
      const run = await fetchRound(connections)
      fetchRows.push([
        "fetch (undici)",
        String(connections),
        num(run.rps),
        ms(run.p50),
        ms(run.p99),
        percent(run.clientCpu)
      ])
      if (bareAt >= 0) {
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
    }
    out.push(...table(fetchRows))
  }

  out.push(otherLoadNote(loadMark))
  out.push(
    "CPU/req ratios: the second server's CPU time per request over the first's (2x: the first uses half the CPU). " +
      "SDK json = enableJsonResponse: true (application/json answers, like ours); SDK sse = its default, " +
      "every POST answered as an SSE stream."
  )
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
}

main().catch((error) => {
  process.stderr.write(
    `HTTP BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
