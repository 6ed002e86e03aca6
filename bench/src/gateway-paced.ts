/**
 * CPU per `tools/call add` of the floor (`gateway-floor.ts`) and of ours (`mcp gateway`, apps/cli
 * built) over HTTP, to our demo upstream over HTTP, under the same PACED load: `BENCH_PACE_RATE`
 * calls a second (2,000) spread over `BENCH_SESSIONS` sessions (16), one call in flight on each at
 * most, for `BENCH_PACE_MILLIS` (5,000) a round, rounds alternating floor, ours (`BENCH_ROUNDS`, 5).
 * Both gateways then do the same work a second, so their CPU per call compares by the clock even
 * on a loaded machine (`gateway.ts` runs a closed loop: the faster gateway gets more calls).
 *
 * Each gateway is started with `turns-probe.cjs` preloaded, which on SIGUSR2 prints libuv's loop
 * count and events (`performance.nodeTiming.uvMetricsInfo`), the process's user and system CPU µs,
 * minor page faults, context switches, and V8's GC count and time. Read before and after each
 * round, per call: what a gateway pays a turn of its loop, and how many turns a call takes.
 * `BENCH_BEFORE` (the `main.js` of another build of `mcp`; `same`: this one, with
 * `BENCH_BEFORE_FLAGS` of its own) adds that build as a third gateway, and `ours ÷ before` per
 * round. `BENCH_FLOOR_UNDICI=1` adds the floor with undici as its client (`gateway-floor.ts
 * http-undici`). `BENCH_GATEWAY_FLAGS` are given to every gateway's node; `BENCH_STDOUT_DIR` keeps
 * their stdout (`--trace-gc`). In the probe: `TURNS_PROBE_PROFILE=<dir>` (a CPU profile of each
 * window), `TURNS_PROBE_HEAP=<dir>` (a sampling heap profile of each window),
 * `TURNS_PROBE_SNAPSHOT=<dir>` (a heap snapshot at each read).
 *
 * **What it showed (lane7, issue 41; load 9-22 on 2 cores, medians of 5-9 alternating rounds).**
 * Not a turn's fixed cost: ours takes no more turns of its loop per call than the floor (1.05-1.25
 * against 1.04-1.37 at 1,000/s; 0.5-0.7 against 0.6-0.9 at 2,000/s) and handles the same 2.0 events
 * per call (the client's request, the upstream's answer). System CPU per call is equal. GC costs
 * alike per call: both allocate ~26 KB a call (`--trace-gc-nvp`); ours scavenges a 16 MB young
 * generation (2 per 1,000 calls, 3-9 ms each with its helpers), the floor a 1-8 MB one (4-18 per
 * 1,000 calls, ~1 ms); a 1 MB young generation for ours made it no cheaper (more, costlier
 * scavenges). What differs is user CPU, spread thin (window profiles): no function of ours above
 * ~10 µs a call. The floor with undici as its client (`http-undici`) cost 1.13-1.42x the floor in
 * the same runs, ours 1.13-1.46x: most of ours' excess over the floor is undici against `node:http`
 * (its wasm parser, its request objects, and a `setImmediate` before each request on an idle
 * kept-alive socket: undici's check for bytes a server sent unasked, GHSA-35p6-xmwp-9g52). Then
 * undici's `request` API was dropped from the raw lane's POST (`platform-node` `httpPost.ts`):
 * ours ÷ before 0.94x (0.87-1.08, 9 rounds).
 *
 * `node dist/gateway-paced.js`
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Envelope from "./envelope.js"
import { load, openSessions, type Session } from "./http-driver.js"
import { freePort } from "./proc.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = path.join(root, "apps/cli/dist/main.js")
const demoMain = path.join(root, "apps/everything/dist/main.js")
const floorMain = path.join(root, "bench/dist/gateway-floor.js")
const probe = path.join(root, "bench/turns-probe.cjs")
const rate = Number(process.env.BENCH_PACE_RATE ?? 2_000)
const sessions = Number(process.env.BENCH_SESSIONS ?? 16)
const millis = Number(process.env.BENCH_PACE_MILLIS ?? 5_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const warmup = Number(process.env.BENCH_HTTP_WARMUP_CALLS ?? 10_000)
const beforeMain = process.env.BENCH_BEFORE
const gatewayFlags = (process.env.BENCH_GATEWAY_FLAGS ?? "").split(" ").filter((f) => f.length > 0)
/** `BENCH_BEFORE_FLAGS`: node flags of the `before` gateway only (`BENCH_BEFORE=same`: this build, so flags compare). */
const beforeFlags = (process.env.BENCH_BEFORE_FLAGS ?? "").split(" ").filter((f) => f.length > 0)

interface Probe {
  readonly loops: number
  readonly events: number
  readonly user: number
  readonly system: number
  readonly minflt: number
  readonly vcsw: number
  readonly ivcsw: number
  readonly gcs: number
  readonly gcMillis: number
  readonly majors: number
  readonly majorMillis: number
}

interface Gateway {
  readonly name: string
  readonly proc: ChildProcess
  readonly port: number
  readonly read: () => Promise<Probe>
}

const start = (name: string, given: ReadonlyArray<string>, port: number, ready: string) =>
  new Promise<Gateway>((resolve) => {
    const args = name === "before" ? [...beforeFlags, ...given] : given
    const proc = spawn(process.execPath, ["--require", probe, ...gatewayFlags, ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let seen = ""
    let started = false
    const waiting: Array<(p: Probe) => void> = []
    proc.stderr!.setEncoding("utf8")
    proc.stderr!.on("data", (chunk: string) => {
      seen += chunk
      for (let at = seen.indexOf("\n"); at >= 0; at = seen.indexOf("\n")) {
        const line = seen.slice(0, at)
        seen = seen.slice(at + 1)
        if (line.startsWith("turns-probe ")) waiting.shift()?.(JSON.parse(line.slice(12)) as Probe)
        else if (!started && line.includes(ready)) {
          started = true
          resolve({
            name,
            proc,
            port,
            read: () =>
              new Promise<Probe>((r) => {
                waiting.push(r)
                proc.kill("SIGUSR2")
              })
          })
        }
      }
    })
    // `BENCH_STDOUT_DIR`: each gateway's stdout kept there (e.g. `--trace-gc` in BENCH_GATEWAY_FLAGS).
    if (process.env.BENCH_STDOUT_DIR !== undefined) {
      proc.stdout!.pipe(createWriteStream(path.join(process.env.BENCH_STDOUT_DIR, `${name}.out`)))
    } else proc.stdout!.resume()
  })

const envelopeOf = (tool: string) => ({
  ...Envelope.handshakeEra,
  addCall: (id: number) => Envelope.handshakeEra.addCall(id).replace("\"name\":\"add\"", `"name":"${tool}"`)
})
const envelope = envelopeOf("up_add")

const requestText = (prefix: string, body: string) =>
  `${prefix}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

/** `rate` calls a second for `millis`, each to an idle session (skipped when none is idle). */
const paced = (opened: ReadonlyArray<Session>, firstId: number) =>
  new Promise<{ calls: number; skipped: number; p50: number }>((resolve, reject) => {
    const idle = [...opened]
    const latencies: Array<number> = []
    let id = firstId
    let due = 0
    let skipped = 0
    let inFlight = 0
    const began = performance.now()
    let stopped = false
    const send = () => {
      const session = idle.pop()
      if (session === undefined) return void skipped++
      const mine = id++
      const at = performance.now()
      inFlight++
      session.connection.send(requestText(session.prefix, envelope.addCall(mine)), (response) => {
        inFlight--
        if (response instanceof Error || response.status !== 200 || !Envelope.isGoodAdd(response.body, mine)) {
          clearInterval(timer)
          return reject(new Error(`bad answer: ${response instanceof Error ? response.message : response.body}`))
        }
        latencies.push(performance.now() - at)
        idle.push(session)
        if (stopped && inFlight === 0) done()
      })
    }
    const done = () => {
      latencies.sort((a, b) => a - b)
      resolve({ calls: latencies.length, skipped, p50: latencies[Math.floor(latencies.length / 2)] ?? Number.NaN })
    }
    const timer = setInterval(() => {
      const elapsed = performance.now() - began
      if (elapsed >= millis) {
        clearInterval(timer)
        stopped = true
        if (inFlight === 0) done()
        return
      }
      const target = Math.floor((elapsed / 1000) * rate)
      while (due < target) {
        due++
        send()
      }
    }, 2)
  })

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const main = async () => {
  console.log(
    `load: ${
      os.loadavg().map((l) => l.toFixed(2)).join(" ")
    }; ${rate}/s over ${sessions} sessions, ${millis} ms a round, ${rounds} rounds`
  )
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-paced-"))
  const upstreamPort = await freePort()
  const upstream = spawn(process.execPath, [demoMain, "http", "--port", String(upstreamPort), "--era", "handshake"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"]
  })
  await new Promise<void>((resolve) => {
    let seen = ""
    const look = (c: Buffer) => {
      seen += c
      if (seen.includes(`:${upstreamPort}`)) resolve()
    }
    upstream.stdout!.on("data", look)
    upstream.stderr!.on("data", look)
  })
  const url = `http://127.0.0.1:${upstreamPort}/mcp`
  const config = path.join(dir, "gateway.json")
  writeFileSync(config, JSON.stringify({ mcpServers: { up: { url } } }))
  const gateways: Array<Gateway> = []
  const floorPort = await freePort()
  gateways.push(await start("floor", [floorMain, "http", "up", String(floorPort), url], floorPort, "ready"))
  // `BENCH_FLOOR_UNDICI=1`: the floor with undici as its HTTP client too (`http-undici`).
  if (process.env.BENCH_FLOOR_UNDICI === "1") {
    const port = await freePort()
    gateways.push(await start("floorU", [floorMain, "http-undici", "up", String(port), url], port, "ready"))
  }
  for (
    const [name, main] of [
      ["ours", mcpMain],
      ...(beforeMain ? [["before", beforeMain === "same" ? mcpMain : beforeMain]] : [])
    ] as const
  ) {
    const port = await freePort()
    gateways.push(
      await start(
        name,
        [main, "gateway", "--config", config, "--port", String(port), "--serve", "handshake"],
        port,
        "serving at"
      )
    )
  }
  for (const g of gateways) {
    const s = await openSessions({ port: g.port, path: "/mcp" }, envelope, sessions)
    let done = 0
    while (done < warmup) done += (await load(s, envelope, 1_000, 20_000_000 + done)).requests
    for (const x of s) x.connection.close()
  }
  const rows = new Map<string, Array<Record<string, number>>>()
  let nextId = 1
  for (let r = 0; r < rounds; r++) {
    for (const g of gateways) {
      // Sessions of the round's own: a gateway lets a connection idle for seconds go.
      const opened = await openSessions({ port: g.port, path: "/mcp" }, envelope, sessions)
      await load(opened, envelope, 300, 30_000_000 + nextId)
      const before = await g.read()
      const run = await paced(opened, nextId)
      nextId += run.calls + run.skipped + 1
      const after = await g.read()
      for (const x of opened) x.connection.close()
      const per = (k: keyof Probe) => (after[k] - before[k]) / run.calls
      const row = {
        calls: run.calls,
        skipped: run.skipped,
        p50: run.p50,
        user: per("user"),
        system: per("system"),
        cpu: per("user") + per("system"),
        loops: per("loops"),
        events: per("events"),
        minflt: per("minflt"),
        vcsw: per("vcsw"),
        ivcsw: per("ivcsw"),
        gcPerK: per("gcs") * 1000,
        gcUs: per("gcMillis") * 1000,
        majorPerK: per("majors") * 1000,
        majorUs: per("majorMillis") * 1000
      }
      rows.set(g.name, [...(rows.get(g.name) ?? []), row])
    }
  }
  const keys = [
    "cpu",
    "user",
    "system",
    "loops",
    "events",
    "minflt",
    "vcsw",
    "ivcsw",
    "gcPerK",
    "gcUs",
    "majorPerK",
    "majorUs",
    "p50",
    "skipped"
  ]
  for (const g of gateways) {
    const rs = rows.get(g.name)!
    console.log(
      `${g.name.padEnd(6)} ` +
        keys.map((k) => {
          const xs = rs.map((x) => x[k]!)
          return `${k} ${
            median(xs).toFixed(k === "loops" || k === "events" || k === "vcsw" || k === "ivcsw" ? 3 : 1)
          } [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`
        }).join(", ")
    )
  }
  const floorRows = rows.get("floor")!
  for (const g of gateways.slice(1)) {
    const rs = rows.get(g.name)!
    const ratio = median(rs.map((x, i) => x.cpu! / floorRows[i]!.cpu!))
    console.log(
      `${g.name} ÷ floor, CPU per call (median of per-round ratios): ${ratio.toFixed(2)}x; rounds: ${
        rs.map((x, i) => (x.cpu! / floorRows[i]!.cpu!).toFixed(2)).join(", ")
      }`
    )
  }
  const oursRows = rows.get("ours")
  const beforeRows = rows.get("before")
  if (oursRows !== undefined && beforeRows !== undefined) {
    const ratios = oursRows.map((x, i) => x.cpu! / beforeRows[i]!.cpu!)
    console.log(
      `ours ÷ before, CPU per call (median of per-round ratios): ${median(ratios).toFixed(2)}x; rounds: ${
        ratios.map((r) => r.toFixed(2)).join(", ")
      }`
    )
  }
  for (const g of gateways) g.proc.kill("SIGINT")
  upstream.kill("SIGINT")
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
