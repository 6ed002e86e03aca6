/**
 * What telemetry adds to a stateless `tools/call add` over HTTP, ours against the OpenTelemetry SDK's
 * floor, measured so that a busy machine disturbs every server alike: all the servers of
 * `telemetry.ts` (ours off / spans / spans + metrics, `ours-http-server.ts`; the floor off / span /
 * span + histogram, `otel-floor-http-server.ts`) run at once, and each round drives every one of
 * them at the same time with the same number of requests (a few keep-alive connections each, from
 * this process); each server's CPU per request is read from `/proc` for the round. Per round,
 * ours ÷ the floor's added CPU per request (`on − off` over `floor-on − floor-off`); printed: the
 * median over the rounds. Each server is driven well below its saturation (they share the machine),
 * so per-request figures hold more wake-ups than at full load; the differences are what is compared.
 *
 * `BENCH_TELEMETRY_BEFORE=<commit>`: the same three of ours built at that commit too (`baseline.ts`),
 * for before/after ratios of the same rounds. Spans go to a sink in this process that answers 200;
 * metrics every `BENCH_OTLP_METRICS_MILLIS` (1000; the SDK's default is 60000).
 *
 * Environment: BENCH_ROUNDS (7), BENCH_REQUESTS (8000 per server a round), BENCH_CONNECTIONS (8).
 * Linux only (`/proc`). A benchmark, not a test.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { baseline } from "./baseline.js"
import { stateless } from "./envelope.js"
import { BenchFailure, here, median, table } from "./proc.js"
import { record, type Row } from "./summary.js"

interface Running {
  readonly key: string
  readonly port: number
  readonly child: ChildProcess
  readonly agent: Agent
}

const rounds = Number(process.env.BENCH_ROUNDS ?? 7)
const requests = Number(process.env.BENCH_REQUESTS ?? 8_000)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8)

/** The server's user + system CPU time so far, µs (`/proc/<pid>/stat`, in clock ticks of 10 ms). */
const cpuOf = (child: ChildProcess): number => {
  const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

const start = (key: string, file: string, args: ReadonlyArray<string>, port: number): Promise<Running> =>
  new Promise((resolve, reject) => {
    // Its stdin held open: the server exits when this process does.
    const child = spawn(process.execPath, [file, "--port", String(port), ...args], {
      stdio: ["pipe", "pipe", "inherit"]
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new BenchFailure(`${key} exited (${code}) before it was ready`)))
    child.stdout!.once(
      "data",
      () => resolve({ key, port, child, agent: new Agent({ keepAlive: true, maxSockets: connections }) })
    )
  })

let nextId = 0

const call = (server: Running): Promise<void> =>
  new Promise((resolve, reject) => {
    const body = stateless.addCall(++nextId)
    const post = request({
      host: "127.0.0.1",
      port: server.port,
      path: "/mcp",
      method: "POST",
      agent: server.agent,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(body),
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "add"
      }
    }, (response) => {
      response.resume()
      response.on("end", () =>
        response.statusCode === 200 ? resolve() : reject(new BenchFailure(`${server.key}: ${response.statusCode}`)))
    })
    post.on("error", reject)
    post.end(body)
  })

const drive = async (server: Running, count: number): Promise<void> => {
  let left = count
  await Promise.all(Array.from({ length: connections }, async () => {
    while (left-- > 0) await call(server)
  }))
}

const main = async () => {
  const sink = createServer((incoming, response) => {
    incoming.resume()
    incoming.on("end", () => response.writeHead(200, { "content-length": 0 }).end())
  })
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`
  const ours = here("./ours-http-server.js")
  const floor = here("./otel-floor-http-server.js")
  const oursArgs = {
    off: ["--revisions", "stateless"],
    spans: ["--revisions", "stateless", "--otlp", url, "--otlp-no-metrics"],
    on: ["--revisions", "stateless", "--otlp", url]
  }
  const specs: Array<readonly [string, string, ReadonlyArray<string>]> = [
    ["off", ours, oursArgs.off],
    ["spans", ours, oursArgs.spans],
    ["on", ours, oursArgs.on],
    ["floor-off", floor, []],
    ["floor-spans", floor, ["--otlp", url]],
    ["floor-on", floor, ["--otlp", url, "--otlp-metrics"]]
  ]
  const before = process.env.BENCH_TELEMETRY_BEFORE
  if (before !== undefined && before !== "") {
    const file = join(baseline(before), "bench/dist/ours-http-server.js")
    specs.push(["before-off", file, oursArgs.off], ["before-spans", file, oursArgs.spans], [
      "before-on",
      file,
      oursArgs.on
    ])
  }
  const firstPort = 21_000 + Math.floor(Math.random() * 20_000)
  const servers: Array<Running> = []
  try {
    for (const [i, [key, file, args]] of specs.entries()) servers.push(await start(key, file, args, firstPort + i))
    await Promise.all(servers.map((server) => drive(server, requests)))
    const cpu = new Map(servers.map((server) => [server.key, [] as Array<number>]))
    for (let round = 0; round < rounds; round++) {
      const at = servers.map((server) => cpuOf(server.child))
      await Promise.all(servers.map((server) => drive(server, requests)))
      servers.forEach((server, i) => cpu.get(server.key)!.push((cpuOf(server.child) - at[i]!) / requests))
    }
    const rows = [["added CPU/req", "ours", "floor", "ours ÷ floor (median)", "per round"]]
    const summary: Array<Row> = []
    const pairs = [
      ["spans", "spans", "off", "floor-spans", "floor-off"],
      ["spans + metrics", "on", "off", "floor-on", "floor-off"],
      [`spans, at ${before}`, "before-spans", "before-off", "floor-spans", "floor-off"],
      [`spans + metrics, at ${before}`, "before-on", "before-off", "floor-on", "floor-off"]
    ] as const
    for (const [label, on, off, floorOn, floorOff] of pairs) {
      if (!cpu.has(on)) continue
      const added = (a: string, b: string) => cpu.get(a)!.map((x, r) => x - cpu.get(b)![r]!)
      const ourAdded = added(on, off)
      const floorAdded = added(floorOn, floorOff)
      const ratios = ourAdded.map((x, r) => x / floorAdded[r]!)
      rows.push([
        label,
        `${median(ourAdded).toFixed(1)} µs`,
        `${median(floorAdded).toFixed(1)} µs`,
        median(ratios).toFixed(2),
        ratios.map((x) => x.toFixed(2)).join(", ")
      ])
      summary.push({
        section: "telemetry-paired",
        label: `added CPU/req, ${label}, ours ÷ OpenTelemetry SDK floor`,
        value: `${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(", ")})`,
        target: "≤ 1.2",
        met: median(ratios) <= 1.2
      })
    }
    const perServer = [["server", "CPU/req (median)", "per round"]]
    for (const [key, figures] of cpu) {
      perServer.push([key, `${median(figures).toFixed(1)} µs`, figures.map((x) => x.toFixed(1)).join(" ")])
    }
    process.stdout.write(
      [
        `Telemetry over HTTP, every server at once (stateless tools/call add, ${connections} connections each, ` +
        `${requests} requests per server a round, ${rounds} rounds; CPU from /proc)`,
        ...table(perServer),
        ...table(rows)
      ].join("\n") + "\n"
    )
    record(summary)
  } finally {
    for (const server of servers) {
      server.child.stdin!.end()
      server.agent.destroy()
    }
    sink.close()
  }
}

main().catch((error) => {
  process.stderr.write(
    `TELEMETRY PAIRED BENCHMARK FAILED: ${
      error instanceof BenchFailure ? error.message : String(error?.stack ?? error)
    }\n`
  )
  process.exit(1)
})
