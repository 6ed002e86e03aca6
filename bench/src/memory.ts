/**
 * Memory of Streamable HTTP sessions (2025-11-25), in server children run with `--expose-gc`:
 * effect-mcp through `NodeMcpServer.layerHttp` (`ours-http-server.ts`) and the official SDK's
 * sessionful server (`sdk-http-server.ts`, its default settings). Every figure is the child's
 * own `process.memoryUsage()` after full garbage collections (`control.ts`).
 *
 * For each server: warm up (a few sessions and calls), measure; open 2,000 sessions
 * (`initialize` + `notifications/initialized` each, then idle) over 10 keep-alive connections,
 * measure: RSS and live memory (heap used + external, after gc) per idle session. RSS after gc
 * still holds the pages of earlier garbage, so the targets are on live memory. Then the growth of a session that has worked:
 * open 50 fresh sessions, measure, make 150 `tools/call add` on each, measure: the difference
 * per session is what 150 calls added to a fresh session's cost. Then ours only: open sessions
 * up to 10,000 idle ones and report the total RSS.
 *
 * A server may cap its sessions: a 503 on `initialize` stops the opening, and the figures are
 * per session actually opened (and say so). Every answer is checked; anything else unexpected
 * fails the benchmark.
 *
 * Environment: BENCH_MEMORY_SESSIONS (2000), BENCH_MEMORY_MANY (10000), BENCH_MEMORY_CALLS (150),
 * BENCH_MEMORY_GROWTH_SESSIONS (50), BENCH_PIN=0.
 *
 * A benchmark, not a test.
 */
import { handshakeEra as envelope } from "./envelope.js"
import { callAdd, Connection, openSession, Refused, type Session, type Target } from "./http-driver.js"
import {
  BenchFailure,
  type Child,
  here,
  markLoad,
  type Memory,
  memoryOf,
  mib,
  num,
  otherLoad,
  otherLoadNote,
  percent,
  pinningNote,
  ratio,
  startHttpServer,
  table
} from "./proc.js"
import { record, type Row, targetRow } from "./summary.js"

const idleSessions = Number(process.env.BENCH_MEMORY_SESSIONS ?? 2_000)
const manySessions = Number(process.env.BENCH_MEMORY_MANY ?? 10_000)
const calls = Number(process.env.BENCH_MEMORY_CALLS ?? 150)
const growthSessions = Number(process.env.BENCH_MEMORY_GROWTH_SESSIONS ?? 50)
const connectionCount = 10
const warmupSessions = 20
const warmupCalls = 50

interface Server {
  readonly key: string
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
  /** Go on to `manySessions` idle sessions. */
  readonly many: boolean
}

const servers: ReadonlyArray<Server> = [
  {
    key: "ours",
    name: "effect-mcp layerHttp",
    file: here("./ours-http-server.js"),
    args: ["--mode", "layerHttp"],
    many: true
  },
  { key: "sdk", name: "SDK 2.4.0 (default)", file: here("./sdk-http-server.js"), args: [], many: false }
]

/** The sessions opened so far, and whether the server refused one (its cap). */
interface Pool {
  readonly connections: ReadonlyArray<Connection>
  readonly sessions: Array<Session>
  refused: Refused | undefined
}

/** Opens up to `count` more sessions, spread over the pool's connections; stops at the first refusal. */
const openMore = async (pool: Pool, count: number): Promise<Array<Session>> => {
  const opened: Array<Session> = []
  let left = count
  await Promise.all(pool.connections.map(async (connection) => {
    while (left > 0 && pool.refused === undefined) {
      left--
      const session = await openSession(connection, envelope)
      if (session instanceof Refused) pool.refused = session
      else opened.push(session)
    }
  }))
  pool.sessions.push(...opened)
  return opened
}

/** `calls` calls on each session, the sessions of one connection one after another. */
const work = async (sessions: ReadonlyArray<Session>, count: number, firstId: number): Promise<number> => {
  const byConnection = new Map<Connection, Array<Session>>()
  for (const session of sessions) {
    const list = byConnection.get(session.connection) ?? []
    list.push(session)
    byConnection.set(session.connection, list)
  }
  let nextId = firstId
  await Promise.all([...byConnection.values()].map(async (list) => {
    for (const session of list) {
      for (let k = 0; k < count; k++) await callAdd(session, envelope, nextId++)
    }
  }))
  return nextId
}

interface Result {
  readonly server: Server
  readonly before: Memory
  readonly idle: Memory
  /** Sessions opened for the idle measurement (fewer than asked if refused). */
  readonly opened: number
  /** Before and after the calls on `grown` fresh sessions (absent if the server refused them). */
  readonly growth: { readonly fresh: Memory; readonly used: Memory; readonly grown: number } | undefined
  readonly many: { readonly memory: Memory; readonly total: number; readonly seconds: number } | undefined
  /** Time to open the idle sessions. */
  readonly seconds: number
  readonly refused: Refused | undefined
}

const kb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KB` : "-")

const measure = async (server: Server): Promise<Result> => {
  const { child, port } = await startHttpServer(server.file, server.args, ["--expose-gc"])
  const target: Target = { port, path: "/mcp" }
  const pool: Pool = {
    connections: await Promise.all(Array.from({ length: connectionCount }, () => Connection.open(target))),
    sessions: [],
    refused: undefined
  }
  try {
    return await steps(server, child, pool)
  } catch (error) {
    throw new BenchFailure(
      `${server.name}: ${error instanceof Error ? error.message : String(error)}\nstderr: ${child.stderr()}`
    )
  } finally {
    for (const connection of pool.connections) connection.close()
    await child.stop()
  }
}

const steps = async (server: Server, child: Child, pool: Pool): Promise<Result> => {
  let nextId = await work(await openMore(pool, warmupSessions), warmupCalls, 1)
  if (pool.refused !== undefined) throw new BenchFailure(`refused a session during the warm-up`)
  const before = await memoryOf(child)
  const start = performance.now()
  const opened = (await openMore(pool, idleSessions)).length
  const seconds = (performance.now() - start) / 1000
  const idle = await memoryOf(child)

  let growth: Result["growth"]
  const fresh = await openMore(pool, growthSessions)
  if (fresh.length > 0) {
    const freshMemory = await memoryOf(child)
    nextId = await work(fresh, calls, nextId)
    growth = { fresh: freshMemory, used: await memoryOf(child), grown: fresh.length }
  }

  let many: Result["many"]
  if (server.many && pool.refused === undefined) {
    const start = performance.now()
    await openMore(pool, manySessions - pool.sessions.length)
    const seconds = (performance.now() - start) / 1000
    many = { memory: await memoryOf(child), total: pool.sessions.length, seconds }
  }
  return { server, before, idle, opened, seconds, growth, many, refused: pool.refused }
}

const main = async () => {
  const note = pinningNote()
  const loadMark = markLoad()
  const results: Array<Result> = []
  for (const server of servers) results.push(await measure(server))

  /** What the heap and Buffers hold: after a collection, the live memory the sessions cost. */
  const live = (m: Memory) => m.heapUsed + m.external
  const perIdle = (r: Result) => ({
    rss: (r.idle.rss - r.before.rss) / r.opened,
    live: (live(r.idle) - live(r.before)) / r.opened
  })
  const growth = (r: Result) =>
    r.growth === undefined ? Number.NaN : (live(r.growth.used) - live(r.growth.fresh)) / r.growth.grown

  const out = [
    `memory of Streamable HTTP sessions (2025-11-25): the child's process.memoryUsage() after gc; live = heap used ` +
    `+ external; ${connectionCount} keep-alive connections; ${note}`
  ]
  out.push(...table([
    [
      "idle sessions",
      "sessions",
      "opened in",
      "RSS before",
      "RSS after",
      "live before",
      "live after",
      "RSS/session",
      "live/session"
    ],
    ...results.map((r) => [
      r.server.name,
      num(r.opened),
      `${r.seconds.toFixed(1)} s`,
      mib(r.before.rss / 1024),
      mib(r.idle.rss / 1024),
      mib(live(r.before) / 1024),
      mib(live(r.idle) / 1024),
      kb(perIdle(r).rss),
      kb(perIdle(r).live)
    ])
  ]))
  out.push(...table([
    [`${calls} tools/call on each of`, "sessions", "live before", "live after", "growth/session", "fresh session"],
    ...results.map((r) => [
      r.server.name,
      num(r.growth?.grown ?? 0),
      r.growth === undefined ? "-" : mib(live(r.growth.fresh) / 1024),
      r.growth === undefined ? "-" : mib(live(r.growth.used) / 1024),
      kb(growth(r)),
      kb(perIdle(r).live)
    ])
  ]))

  const ours = results.find((r) => r.server.key === "ours")!
  const sdk = results.find((r) => r.server.key === "sdk")!
  const pool = (r: Result) => warmupSessions + r.opened + (r.growth?.grown ?? 0)
  const summary: Array<Row> = [
    targetRow(
      "memory",
      "ours per idle session (live)",
      perIdle(ours).live,
      kb(perIdle(ours).live),
      "≤",
      30 * 1024,
      "30 KB"
    ),
    { section: "memory", label: "SDK per idle session (live)", value: kb(perIdle(sdk).live) },
    { section: "memory", label: "ours / SDK per idle session", value: ratio(perIdle(ours).live / perIdle(sdk).live) },
    {
      section: "memory",
      label: "RSS per idle session, ours / SDK",
      value: `${kb(perIdle(ours).rss)} / ${kb(perIdle(sdk).rss)}`
    },
    targetRow(
      "memory",
      `ours growth of a session after ${calls} calls`,
      growth(ours),
      kb(growth(ours)),
      "≤",
      20 * 1024,
      "20 KB"
    ),
    { section: "memory", label: `SDK growth of a session after ${calls} calls`, value: kb(growth(sdk)) }
  ]
  const ratioRows = [
    ["ratio ours / SDK (live)", "value"],
    ["per idle session", ratio(perIdle(ours).live / perIdle(sdk).live)],
    [`growth after ${calls} calls`, ratio(growth(ours) / growth(sdk))]
  ]
  out.push(...table(ratioRows))
  if (ours.many !== undefined) {
    out.push(
      `effect-mcp layerHttp with ${num(ours.many.total)} idle sessions: RSS ${mib(ours.many.memory.rss / 1024)} ` +
        `(target < 500 MB${ours.many.memory.rss < 500e6 ? ": met" : ": NOT MET"}), live ${
          mib(live(ours.many.memory) / 1024)
        }; ` +
        `the last ${num(ours.many.total - pool(ours))} opened in ${ours.many.seconds.toFixed(1)} s`
    )
    summary.push(
      targetRow(
        "memory",
        `ours RSS with ${num(ours.many.total)} idle sessions`,
        ours.many.memory.rss / 1e6,
        mib(ours.many.memory.rss / 1024),
        "<",
        500,
        "500 MB"
      )
    )
  }
  out.push(
    `targets: ≤ 30 KB live per idle session (ours: ${kb(perIdle(ours).live)}${
      perIdle(ours).live <= 30 * 1024 ? ", met" : ", NOT MET"
    }), ≤ 20 KB growth after ${calls} calls (ours: ${kb(growth(ours))}${
      growth(ours) <= 20 * 1024 ? ", met" : ", NOT MET"
    }). ` +
      `RSS after gc keeps the pages of earlier garbage, so its per-session figure is only indicative.`
  )
  for (const r of results) {
    if (r.refused !== undefined) {
      out.push(
        `${r.server.name} refused a session (${r.refused.status}) after ${num(r.opened)} idle + ` +
          `${num(r.growth?.grown ?? 0)} working sessions: figures are per session opened`
      )
      summary.push({ section: "memory", label: `${r.server.name} refused sessions`, value: `${r.refused.status}` })
    }
  }
  out.push(otherLoadNote(loadMark))
  summary.push({
    section: "memory",
    label: "other load on the machine",
    value: `${percent(otherLoad(loadMark))} of a CPU`
  })
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
}

main().catch((error) => {
  process.stderr.write(
    `MEMORY BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
