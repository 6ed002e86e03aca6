/**
 * Idle `subscriptions/listen` streams (2026-07-28) over Streamable HTTP, in server children run
 * with `--expose-gc`: effect-mcp through `NodeMcpServer.layerHttp` serving 2026-07-28
 * (`ours-http-server.ts --revisions stateless`), the official SDK's `createMcpHandler`
 * (`sdk-stateless-http-server.ts`), and bare `node:http` holding SSE responses open
 * (`bare-http-server.ts`): the floor, what Node itself costs per held-open POST.
 *
 * Each listen is one POST on its own connection (`MCP-Protocol-Version: 2026-07-28`,
 * `Mcp-Method: subscriptions/listen`, params `{ notifications: { toolsListChanged: true },
 * _meta }`) whose response is an SSE stream held open; it counts as open once its first event,
 * `notifications/subscriptions/acknowledged`, arrived.
 *
 * For each server: warm up (20 listens, one change, closed), measure; open 1,000 listens (50 at
 * a time), measure: live memory per idle listen (heap used after full collections, and heap used
 * + external; `control.ts`), and RSS per listen (indicative only: pages of earlier garbage stay).
 * Where the server can tell (ours: `McpServer.activeSubscriptions`; bare), the number of open
 * subscriptions is checked. Then, in alternating rounds over the servers, one `addTool` in the
 * server (a control command: ours `McpServer.addTool`, the SDK a tool more in its factory and
 * `handler.notify.toolsChanged()`, bare writes the event itself): the time from the command
 * until each of the 1,000 streams got its `notifications/tools/list_changed` (with the right
 * subscription id): first, median, p99 and last. Ours coalesces list changes over its
 * `listChangedWindow` (10 ms by default), which is part of its figure.
 *
 * Target: ours ≤ 10 KB of heap per idle listen (judged on the whole; what ours adds over bare,
 * Node's own cost of a held-open POST, is printed too).
 *
 * Environment: BENCH_LISTENS (1000), BENCH_LISTEN_ROUNDS (5), BENCH_LISTEN_SERVERS (keys: ours,
 * sdk, bare; default all), BENCH_HEAP_SNAPSHOTS=<dir> (heap snapshots before and after the
 * listens are opened, `<dir>/listen-<server>-before|idle.heapsnapshot`: compare them with
 * `heap.ts --per 1000`), BENCH_PROFILE=<dir> (a CPU profile of each change's fan-out, sampled
 * every 100 µs, `<dir>/listen-<server>-r<round>.cpuprofile`; `profile.ts`), BENCH_PIN=0.
 *
 * A benchmark, not a test.
 */
import { type ClientRequest, request } from "node:http"
import { join } from "node:path"
import * as Envelope from "./envelope.js"
import {
  BenchFailure,
  type Child,
  command,
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
  startHttpServer,
  table
} from "./proc.js"
import { record, type Row, targetRow } from "./summary.js"

const listenCount = Number(process.env.BENCH_LISTENS ?? 1_000)
const rounds = Number(process.env.BENCH_LISTEN_ROUNDS ?? 5)
const warmupListens = 20
/** Listens being opened at once. */
const openingAtOnce = 50
const timeoutMillis = 30_000
const snapshots = process.env.BENCH_HEAP_SNAPSHOTS || undefined
/** A snapshot of a heap holding 1,000 listens takes tens of seconds on a loaded machine. */
const snapshotMillis = 300_000

interface Server {
  readonly key: string
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
  /** Answers the `subscriptions` command. */
  readonly counts: boolean
}

const all: ReadonlyArray<Server> = [
  {
    key: "ours",
    name: "effect-mcp layerHttp, 2026-07-28",
    file: here("./ours-http-server.js"),
    args: ["--revisions", "stateless"],
    counts: true
  },
  {
    key: "sdk",
    name: "SDK 2.4.0 createMcpHandler",
    file: here("./sdk-stateless-http-server.js"),
    args: [],
    counts: false
  },
  { key: "bare", name: "bare node:http, SSE held open", file: here("./bare-http-server.js"), args: [], counts: true }
]
const wanted = process.env.BENCH_LISTEN_SERVERS?.split(",")
const servers = wanted === undefined ? all : all.filter((server) => wanted.includes(server.key))

const subscriptionIdKey = "io.modelcontextprotocol/subscriptionId"

/** One `subscriptions/listen` POST on a connection of its own, its SSE stream read event by event. */
class Listen {
  /** Called with the time each `notifications/tools/list_changed` arrives. */
  onListChanged: (now: number) => void = () => {}
  private closing = false

  private constructor(private readonly request: ClientRequest) {}

  /** Opens a listen with JSON-RPC id `id`; resolves once it is acknowledged. */
  static open(port: number, id: string, onGone: (why: string) => void): Promise<Listen> {
    return new Promise((resolve, reject) => {
      const body = Envelope.listenToolsCall(id)
      const req = request({
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        agent: false,
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen"
        }
      })
      const listen = new Listen(req)
      let acknowledged = false
      const timer = setTimeout(() => fail(`no acknowledgement in ${timeoutMillis / 1000} s`), timeoutMillis)
      const fail = (why: string) => {
        clearTimeout(timer)
        if (!acknowledged) reject(new BenchFailure(`listen ${id}: ${why}`))
        else if (!listen.closing) onGone(`listen ${id}: ${why}`)
        req.destroy()
      }
      req.on("error", (error) => fail(error.message))
      req.on("response", (response) => {
        const type = response.headers["content-type"] ?? ""
        if (response.statusCode !== 200 || !type.startsWith("text/event-stream")) {
          let text = ""
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => text += chunk)
          response.on("end", () => fail(`${response.statusCode} ${type}: ${text.slice(0, 300)}`))
          return
        }
        response.setEncoding("utf8")
        let buffer = ""
        response.on("data", (chunk: string) => {
          const now = performance.now()
          buffer += chunk
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const event = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const data = event.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
              line.slice(5).trimStart()
            ).join("\n")
            if (data.length === 0) continue // a comment (keep-alive) or an event without data
            const message = JSON.parse(data)
            const subscription = message.params?._meta?.[subscriptionIdKey]
            if (subscription !== id) return fail(`an event for subscription ${subscription}: ${data}`)
            if (message.method === "notifications/subscriptions/acknowledged") {
              acknowledged = true
              clearTimeout(timer)
              resolve(listen)
            } else if (message.method === "notifications/tools/list_changed") listen.onListChanged(now)
          }
        })
        response.on("end", () => fail(`the stream ended`))
        response.on("error", (error) => fail(error.message))
      })
      req.end(body)
    })
  }

  close(): void {
    this.closing = true
    this.request.destroy()
  }
}

/** Opens `count` listens, `openingAtOnce` at a time; ids `<prefix>-<k>`. */
const openListens = async (port: number, prefix: string, count: number, onGone: (why: string) => void) => {
  const opened: Array<Listen> = []
  let next = 0
  await Promise.all(Array.from({ length: Math.min(openingAtOnce, count) }, async () => {
    while (next < count) opened.push(await Listen.open(port, `${prefix}-${next++}`, onGone))
  }))
  return opened
}

interface FanOut {
  /** From the command to its answer (the server's own account: the change is in). */
  readonly answered: number
  readonly first: number
  readonly p50: number
  readonly p99: number
  readonly last: number
}

/** `addTool` in the server, timed until every listen got its `notifications/tools/list_changed`. */
const fanOut = (child: Child, listens: ReadonlyArray<Listen>): Promise<FanOut> =>
  new Promise((resolve, reject) => {
    const times = new Float64Array(listens.length)
    let got = 0
    let answered = Number.NaN
    let start = 0
    const timer = setTimeout(
      () =>
        reject(new BenchFailure(`${got} of ${listens.length} listens got list_changed in ${timeoutMillis / 1000} s`)),
      timeoutMillis
    )
    const finish = () => {
      if (got < listens.length || Number.isNaN(answered)) return
      clearTimeout(timer)
      for (const listen of listens) listen.onListChanged = () => {}
      const sorted = times.slice().sort()
      resolve({
        answered,
        first: sorted[0],
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        last: sorted[sorted.length - 1]
      })
    }
    listens.forEach((listen, k) => {
      let seen = false
      listen.onListChanged = (now) => {
        if (seen) return
        seen = true
        times[k] = now - start
        got++
        finish()
      }
    })
    start = performance.now()
    command(child, "addTool", "added").then(() => {
      answered = performance.now() - start
      finish()
    }, reject)
  })

/** The server's count of open subscriptions, when it can tell. */
const openCount = async (server: Server, child: Child): Promise<number | undefined> =>
  server.counts ? Number((await command(child, "subscriptions", "subscriptions ")).split(" ")[1]) : undefined

/** Waits (up to 5 s) until the server holds `count` subscriptions, when it can tell. */
const settle = async (server: Server, child: Child, count: number): Promise<void> => {
  if (!server.counts) return new Promise((resolve) => setTimeout(resolve, 500))
  const until = performance.now() + 5_000
  for (;;) {
    const open = await openCount(server, child)
    if (open === count) return
    if (performance.now() > until) throw new BenchFailure(`${open} subscriptions open, expected ${count}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

interface Held {
  readonly server: Server
  readonly child: Child
  readonly listens: ReadonlyArray<Listen>
  readonly before: Memory
  readonly idle: Memory
  readonly openSeconds: number
  readonly fanOuts: Array<FanOut>
}

const hold = async (server: Server, lost: Array<string>): Promise<Held> => {
  const { child, port } = await startHttpServer(server.file, server.args, ["--expose-gc"])
  const onGone = (why: string) => lost.push(`${server.name}: ${why}`)
  try {
    const warm = await openListens(port, "warm", warmupListens, onGone)
    await fanOut(child, warm)
    for (const listen of warm) listen.close()
    await settle(server, child, 0)
    const before = await memoryOf(child)
    if (snapshots !== undefined) {
      await command(
        child,
        `heap-snapshot ${join(snapshots, `listen-${server.key}-before.heapsnapshot`)}`,
        "snapshot",
        snapshotMillis
      )
    }
    const start = performance.now()
    const listens = await openListens(port, "idle", listenCount, onGone)
    const openSeconds = (performance.now() - start) / 1000
    await settle(server, child, listenCount)
    const idle = await memoryOf(child)
    if (snapshots !== undefined) {
      await command(
        child,
        `heap-snapshot ${join(snapshots, `listen-${server.key}-idle.heapsnapshot`)}`,
        "snapshot",
        snapshotMillis
      )
    }
    return { server, child, listens, before, idle, openSeconds, fanOuts: [] }
  } catch (error) {
    await child.stop()
    throw new BenchFailure(
      `${server.name}: ${error instanceof Error ? error.message : String(error)}\nstderr: ${child.stderr()}`
    )
  }
}

const kb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KB` : "-")

const main = async () => {
  const note = pinningNote()
  const loadMark = markLoad()
  const lost: Array<string> = []
  const held: Array<Held> = []
  try {
    for (const server of servers) held.push(await hold(server, lost))
    for (let r = 0; r < rounds; r++) {
      for (const h of held) {
        try {
          if (profileDir !== undefined) await command(h.child, "profile-start 100", "profiling")
          h.fanOuts.push(await fanOut(h.child, h.listens))
          if (profileDir !== undefined) {
            const file = join(profileDir, `listen-${h.server.key}-r${r + 1}.cpuprofile`)
            await command(h.child, `profile-stop ${file}`, "profiled")
          }
        } catch (error) {
          throw new BenchFailure(`${h.server.name}: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
    }
    for (const h of held) {
      const open = await openCount(h.server, h.child)
      if (open !== undefined && open !== listenCount) {
        throw new BenchFailure(`${h.server.name}: ${open} subscriptions open after the changes`)
      }
    }
    if (lost.length > 0) throw new BenchFailure(`streams ended while held:\n${lost.slice(0, 5).join("\n")}`)
  } finally {
    for (const h of held) for (const listen of h.listens) listen.close()
    await Promise.all(held.map((h) => h.child.stop()))
  }

  const perListen = (h: Held, f: (m: Memory) => number) => (f(h.idle) - f(h.before)) / listenCount
  const heap = (m: Memory) => m.heapUsed
  const live = (m: Memory) => m.heapUsed + m.external
  const rss = (m: Memory) => m.rss
  const out = [
    `idle subscriptions/listen (2026-07-28) over HTTP, ${num(listenCount)} streams, one connection each; the child's ` +
    `process.memoryUsage() after gc; ${note}`,
    ...table([
      ["server", "opened in", "heap before", "heap after", "heap/listen", "heap+ext/listen", "RSS/listen"],
      ...held.map((h) => [
        h.server.name,
        `${h.openSeconds.toFixed(1)} s`,
        mib(h.before.heapUsed / 1024),
        mib(h.idle.heapUsed / 1024),
        kb(perListen(h, heap)),
        kb(perListen(h, live)),
        kb(perListen(h, rss))
      ])
    ]),
    `one addTool → notifications/tools/list_changed on all ${num(listenCount)} streams, ${rounds} alternating ` +
    `rounds (times from the command; "last" = all streams got it):`,
    ...table([
      ["server", "answered", "first", "p50", "p99", "last (median)", "last, each round"],
      ...held.map((h) => [
        h.server.name,
        ms(median(h.fanOuts.map((f) => f.answered))),
        ms(median(h.fanOuts.map((f) => f.first))),
        ms(median(h.fanOuts.map((f) => f.p50))),
        ms(median(h.fanOuts.map((f) => f.p99))),
        ms(median(h.fanOuts.map((f) => f.last))),
        h.fanOuts.map((f) => f.last.toFixed(1)).join(", ")
      ])
    ])
  ]
  const at = (key: string) => held.find((h) => h.server.key === key)
  const ours = at("ours")
  const summary: Array<Row> = []
  if (ours !== undefined) {
    const perHeap = perListen(ours, heap)
    out.push(
      `target: ours ≤ 10 KB of heap per idle listen: ${kb(perHeap)}${perHeap <= 10 * 1024 ? ", met" : ", NOT MET"}`
    )
    summary.push(targetRow("listen", "ours heap per idle listen", perHeap, kb(perHeap), "≤", 10 * 1024, "10 KB"))
  }
  for (const h of held) {
    summary.push({
      section: "listen",
      label: `${h.server.key} heap / heap+external per idle listen`,
      value: `${kb(perListen(h, heap))} / ${kb(perListen(h, live))}`
    }, {
      section: "listen",
      label: `${h.server.key} addTool → all ${num(listenCount)} list_changed (median, min–max)`,
      value: `${ms(median(h.fanOuts.map((f) => f.last)))} (${ms(Math.min(...h.fanOuts.map((f) => f.last)))}–${
        ms(Math.max(...h.fanOuts.map((f) => f.last)))
      })`
    })
  }
  const bare = at("bare")
  if (ours !== undefined && bare !== undefined) {
    // What effect-mcp adds to what Node itself holds for a held-open POST (the bare floor).
    const added = perListen(ours, heap) - perListen(bare, heap)
    out.push(`ours over bare (what effect-mcp adds to Node's own held-open POST): ${kb(added)} of heap per listen`)
    summary.push({ section: "listen", label: "ours heap per idle listen over bare", value: kb(added) })
  }
  const sdk = at("sdk")
  if (ours !== undefined && sdk !== undefined) {
    const heapRatio = perListen(ours, heap) / perListen(sdk, heap)
    const fanRatio = median(ours.fanOuts.map((f) => f.last)) / median(sdk.fanOuts.map((f) => f.last))
    out.push(`ours / SDK: heap per listen ${heapRatio.toFixed(2)}x, time to all list_changed ${fanRatio.toFixed(2)}x`)
  }
  out.push(otherLoadNote(loadMark))
  summary.push({
    section: "listen",
    label: "other load on the machine",
    value: `${percent(otherLoad(loadMark))} of a CPU`
  })
  process.stdout.write(out.join("\n") + "\n")
  record(summary)
}

main().catch((error) => {
  process.stderr.write(
    `LISTEN BENCHMARK FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
