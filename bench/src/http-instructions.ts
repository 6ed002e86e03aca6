/**
 * Instructions per `tools/call add` over HTTP (handshake era, one session per connection), each
 * server run under callgrind (valgrind installed): the server child is started with its
 * instrumentation off, warmed up with BENCH_INSTR_WARMUP calls (1500), then instrumented
 * (`callgrind_control -i on`), BENCH_INSTR_SETTLE calls (300) run, the counters zeroed, and
 * BENCH_INSTR_CALLS calls (2500: over 500, a major GC or a late JIT tier moved the count by 10%
 * between like runs) run on 10 connections, one call in flight on each, and the count dumped
 * (`proc.ts` `callgrindPerCall`); the instructions counted (every thread of the process: the
 * JIT's and the GC's too) over those calls only. Not disturbed by
 * other load on the machine, which the CPU time per request of `http.ts` is.
 *
 * Servers (BENCH_HTTP_SERVERS, default all): layerHttp, router (`ours-http-server.ts`),
 * router-bare (`router-bare-http-server.ts`), sdk-json (`sdk-http-server.ts --json`), bare
 * (`bare-http-server.ts`), router-untraced and router-bare-untraced (both router servers with
 * `--no-platform-tracer`), router-before (the router server at BENCH_ROUTER_BEFORE, as in `http.ts`).
 *
 * `BENCH_ENVELOPE=2026-07-28`: the stateless revision instead (every call one POST with its
 * `_meta` and headers, no session; `envelope.ts`), against servers `stateless` and `dual`
 * (`ours-http-server.ts --revisions stateless|dual`), `sdk-stateless` (`sdk-stateless-http-server.ts`,
 * modern only, as `http-stateless.ts` measures it), `bare`, and `stateless-before` (ours at
 * BENCH_STATELESS_BEFORE, built by `baseline.ts`); default all but `stateless-before`.
 *
 * `BENCH_HTTP_STALL_MILLIS=600000 node dist/http-instructions.js` (the first calls under callgrind are slow)
 */
import { join } from "node:path"
import { baseline } from "./baseline.js"
import { fromEnv } from "./envelope.js"
import { callAddOver, openSessions, type Session } from "./http-driver.js"
import {
  BenchFailure,
  callgrindArgs,
  callgrindOutFile,
  callgrindPerCall,
  freePort,
  here,
  ratio,
  spawnCommand,
  table,
  waitForLine
} from "./proc.js"

interface Server {
  readonly key: string
  readonly file: string
  readonly args: ReadonlyArray<string>
}

/** The commit of `router-before` (`http.ts`). */
const routerBefore = process.env.BENCH_ROUTER_BEFORE ?? "f6e11d25"

/** The commit of `stateless-before` (the stateless servers' `router-before`). */
const statelessBefore = process.env.BENCH_STATELESS_BEFORE ?? "67a510a"

const envelope = fromEnv()
const isStateless = envelope.handshake === undefined

const handshakeServers: ReadonlyArray<Server> = [
  { key: "layerHttp", file: here("./ours-http-server.js"), args: ["--mode", "layerHttp"] },
  { key: "router", file: here("./ours-http-server.js"), args: ["--mode", "router"] },
  { key: "router-bare", file: here("./router-bare-http-server.js"), args: [] },
  { key: "sdk-json", file: here("./sdk-http-server.js"), args: ["--json"] },
  { key: "bare", file: here("./bare-http-server.js"), args: [] },
  { key: "router-untraced", file: here("./ours-http-server.js"), args: ["--mode", "router", "--no-platform-tracer"] },
  { key: "router-bare-untraced", file: here("./router-bare-http-server.js"), args: ["--no-platform-tracer"] },
  { key: "router-before", file: "", args: ["--mode", "router"] }
]

const statelessServers: ReadonlyArray<Server> = [
  { key: "stateless", file: here("./ours-http-server.js"), args: ["--mode", "layerHttp", "--revisions", "stateless"] },
  { key: "dual", file: here("./ours-http-server.js"), args: ["--mode", "layerHttp", "--revisions", "dual"] },
  { key: "sdk-stateless", file: here("./sdk-stateless-http-server.js"), args: [] },
  { key: "bare", file: here("./bare-http-server.js"), args: [] },
  {
    key: "stateless-before",
    file: "",
    args: ["--mode", "layerHttp", "--revisions", "stateless"]
  }
]

const servers = isStateless ? statelessServers : handshakeServers
const before: Readonly<Record<string, string>> = { "router-before": routerBefore, "stateless-before": statelessBefore }

const warmup = Number(process.env.BENCH_INSTR_WARMUP ?? 1_500)
const calls = Number(process.env.BENCH_INSTR_CALLS ?? 2_500)
/** Calls run with the instrumentation on before the counted window (`callgrindPerCall`). */
const settle = Number(process.env.BENCH_INSTR_SETTLE ?? 300)
const connections = 10

const drive = (sessions: ReadonlyArray<Session>, first: number, count: number): Promise<void> =>
  callAddOver(sessions, envelope, first, count)

/** Instructions per call of one server. */
const measure = async (server: Server): Promise<number> => {
  const port = await freePort()
  const outFile = callgrindOutFile()
  const child = spawnCommand("valgrind", [
    ...callgrindArgs(outFile),
    process.execPath,
    server.key in before ? join(baseline(before[server.key]!), "bench/dist/ours-http-server.js") : server.file,
    "--port",
    String(port),
    ...server.args
  ])
  try {
    await waitForLine(child, (line) => (line === "ready" ? true : undefined), `${server.key} to listen`, 300_000)
    const sessions = await openSessions({ port, path: "/mcp" }, envelope, connections)
    await drive(sessions, 1, warmup)
    // Ended by its stdin: no kill after 2 s (`child.stop`).
    return (await callgrindPerCall(child, server.key, outFile, calls, {
      settle: () => drive(sessions, warmup + 1, settle),
      drive: () => drive(sessions, warmup + settle + 1, calls),
      stop: () => {
        for (const session of sessions) session.connection.close()
        child.process.stdin.end()
      }
    })).total
  } catch (error) {
    child.process.kill("SIGKILL")
    throw error
  }
}

const main = async () => {
  const wanted = process.env.BENCH_HTTP_SERVERS?.split(",")
  const chosen = servers.filter((server) =>
    wanted === undefined ? !(server.key in before) : wanted.includes(server.key)
  )
  const results = new Map<string, number>()
  for (const server of chosen) results.set(server.key, await measure(server))
  const rows = [["server", "instructions / call", isStateless ? "SDK / this" : "SDK json / this"]]
  const sdk = results.get(isStateless ? "sdk-stateless" : "sdk-json")
  for (const [key, count] of results) {
    rows.push([key, `${(count / 1000).toFixed(1)} k`, sdk === undefined ? "-" : ratio(sdk / count)])
  }
  process.stdout.write(
    [
      `HTTP tools/call add (${envelope.revision}), instructions per call under callgrind: ${warmup} calls of warm-up, ` +
      `${calls} counted, ${connections} connections`,
      ...table(rows)
    ].join("\n") + "\n"
  )
}

main().catch((error) => {
  process.stderr.write(`HTTP INSTRUCTIONS FAILED: ${error instanceof BenchFailure ? error.message : error}\n`)
  process.exit(1)
})
