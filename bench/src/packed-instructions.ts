/**
 * The request path of a packed install (issue 42), in instructions per `tools/call add` under callgrind: the
 * tsc-compiled add-only servers run from the packed project (`packed.ts`: the published layout, `bundle/`,
 * installed with npm), over stdio (`ours-stdio-server.js`) and over HTTP (`ours-http-server.js --mode layerHttp`,
 * one session per connection), and the same servers from `BENCH_PACKED_BASE_DIR`'s project in the same run: a change
 * to the published layout (`scripts/bundle-package.mjs`) before and after, on its cost per request.
 *
 * Each server is started with its instrumentation off, warmed up with BENCH_INSTR_WARMUP calls (1500), then counted
 * over BENCH_INSTR_CALLS calls (2500) between the window's two edges (`proc.ts` `callgrindPerCall`), BENCH_INSTR_RUNS
 * times (3, a fresh process each; the median and the range printed): every thread's count, and the main thread's
 * apart (V8's background compiles fall in or out of a window from run to run; the main thread's count is the steady
 * one). Stdio keeps 10 calls in flight; HTTP one on each of 10 connections.
 * BENCH_PACKED_TRANSPORTS (stdio,http): the transports to count.
 *
 * `BENCH_PACKED_DIR=… BENCH_PACKED_BASE_DIR=… node dist/packed-instructions.js` (valgrind installed)
 */
import * as path from "node:path"
import { handshakeEra } from "./envelope.js"
import * as Envelope from "./envelope.js"
import { callAddOver, openSessions, type Session } from "./http-driver.js"
import * as Packed from "./packed.js"
import {
  BenchFailure,
  callgrindArgs,
  callgrindOutFile,
  callgrindPerCall,
  type Child,
  freePort,
  median,
  ratio,
  spawnCommand,
  table,
  waitForLine
} from "./proc.js"

const warmup = Number(process.env.BENCH_INSTR_WARMUP ?? 1_500)
const calls = Number(process.env.BENCH_INSTR_CALLS ?? 2_500)
const runs = Number(process.env.BENCH_INSTR_RUNS ?? 3)
const window = 10
/** Calls run with the instrumentation on before the counted window (`callgrindPerCall`). */
const settle = Number(process.env.BENCH_INSTR_SETTLE ?? 300)

/** A server under callgrind, its dumps to `outFile`'s folder (`proc.ts` `callgrindArgs`). */
const underCallgrind = (outFile: string, file: string, args: ReadonlyArray<string>): Child =>
  spawnCommand("valgrind", [...callgrindArgs(outFile), process.execPath, file, ...args])

/** Calls `first … first + count - 1` over the child's stdin, `window` in flight, each answer checked. */
const driveStdio = (child: Child, first: number, count: number): Promise<void> =>
  new Promise((resolve, reject) => {
    let next = first
    let answered = 0
    const end = first + count
    const send = () => child.write(Envelope.handshakeEra.addCall(next++) + "\n")
    child.setOnLines((lines) => {
      for (const line of lines) {
        const id = /"id":(\d+)/.exec(line)
        if (id === null) continue
        if (!Envelope.isGoodAdd(line, Number(id[1]))) return reject(new BenchFailure(`a bad answer: ${line}`))
        answered++
        if (next < end) send()
      }
      if (answered === count) resolve()
    })
    void child.exited.then((code) => reject(new BenchFailure(`exited (${code})\n${child.stderr()}`)))
    for (let i = 0; i < Math.min(window, count); i++) send()
  })

/** Instructions per call: every thread's, and the main thread's. */
type Count = { readonly total: number; readonly main: number }

const stdio = async (dir: string): Promise<Count> => {
  const outFile = callgrindOutFile()
  const child = underCallgrind(outFile, path.join(dir, "ours-stdio-server.js"), [])
  try {
    child.write(handshakeEra.handshake!.initialize + "\n")
    await waitForLine(child, (line) => (line.includes("\"id\":0") ? true : undefined), "initialize", 300_000)
    child.write(handshakeEra.handshake!.initialized + "\n")
    await driveStdio(child, 1, warmup)
    return (await callgrindPerCall(child, "stdio", outFile, calls, {
      settle: () => driveStdio(child, warmup + 1, settle),
      drive: () => driveStdio(child, warmup + settle + 1, calls),
      stop: () => child.process.stdin.end()
    }))
  } catch (error) {
    child.process.kill("SIGKILL")
    throw error
  }
}

const driveHttp = (sessions: ReadonlyArray<Session>, first: number, count: number): Promise<void> =>
  callAddOver(sessions, handshakeEra, first, count)

const http = async (dir: string): Promise<Count> => {
  const port = await freePort()
  const outFile = callgrindOutFile()
  const child = underCallgrind(outFile, path.join(dir, "ours-http-server.js"), [
    "--port",
    String(port),
    "--mode",
    "layerHttp"
  ])
  try {
    await waitForLine(child, (line) => (line === "ready" ? true : undefined), "the HTTP server to listen", 300_000)
    const sessions = await openSessions({ port, path: "/mcp" }, handshakeEra, window)
    await driveHttp(sessions, 1, warmup)
    return (await callgrindPerCall(child, "http", outFile, calls, {
      settle: () => driveHttp(sessions, warmup + 1, settle),
      drive: () => driveHttp(sessions, warmup + settle + 1, calls),
      stop: () => {
        for (const session of sessions) session.connection.close()
        child.process.stdin.end()
      }
    }))
  } catch (error) {
    child.process.kill("SIGKILL")
    throw error
  }
}

const main = async () => {
  const dir = await Packed.project()
  const base = process.env.BENCH_PACKED_BASE_DIR
  if (base !== undefined) await Packed.baseServers(base, true)
  const projects = [["this", dir], ...(base === undefined ? [] : [["base", base]])] as const
  const rows = [["transport", "threads", "project", "k instructions / call (median)", "range", "this / base"]]
  const transports = (process.env.BENCH_PACKED_TRANSPORTS ?? "stdio,http").split(",")
  for (const [transport, measure] of [["stdio", stdio], ["http", http]] as const) {
    if (!transports.includes(transport)) continue
    const counts = new Map<string, Array<Count>>(projects.map(([name]) => [name, []]))
    // Interleaved: this, base, this, base…
    for (let run = 0; run < runs; run++) {
      for (const [name, folder] of projects) counts.get(name)!.push(await measure(folder))
    }
    for (const threads of ["main", "total"] as const) {
      for (const [name] of projects) {
        const values = counts.get(name)!.map((count) => count[threads])
        const baseValues = counts.get("base")?.map((count) => count[threads])
        rows.push([
          transport,
          threads === "main" ? "main" : "all",
          name,
          (median(values) / 1000).toFixed(1),
          `${(Math.min(...values) / 1000).toFixed(1)}-${(Math.max(...values) / 1000).toFixed(1)}`,
          name === "this" && baseValues !== undefined ? ratio(median(values) / median(baseValues)) : "-"
        ])
      }
    }
  }
  process.stdout.write(
    [
      `packed servers, tools/call add (2025-11-25), Node ${process.version}, instructions per call under callgrind: ` +
      `${warmup} calls of warm-up, ${calls} counted, ${runs} runs; this ${dir}` +
      (base === undefined ? "" : `, base ${base}`),
      ...table(rows)
    ].join("\n") + "\n"
  )
}

main().catch((error) => {
  process.stderr.write(`PACKED INSTRUCTIONS FAILED: ${error instanceof BenchFailure ? error.message : error}\n`)
  process.exit(1)
})
