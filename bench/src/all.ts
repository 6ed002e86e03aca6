/**
 * `pnpm bench`: every benchmark of this package, one after another, each in its own process
 * (their output goes by as they run), then one summary table of the figures and ratios they
 * reported (`summary.ts`), with the targets. A benchmark that reports no rows (the in-process
 * ones) is summed up by the last line it printed. Exits 1 if any benchmark failed.
 *
 * `BENCH_ONLY=stdio,http` runs a subset (names: core, server, stdio, stdio-stateless, http,
 * http-stateless, auth, memory, listen, client, tasks, redis, telemetry, telemetry-path, runtimes).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BenchFailure, here, table } from "./proc.js"
import { mark, type Row } from "./summary.js"

interface Bench {
  readonly name: string
  readonly file: string
  readonly what: string
  /** Environment of its process, besides this one's. */
  readonly env?: Readonly<Record<string, string>>
}

const benches: ReadonlyArray<Bench> = [
  { name: "core", file: "core-request-path.js", what: "core request path, in-process" },
  { name: "server", file: "server-path.js", what: "server request path, in-process" },
  { name: "stdio", file: "stdio.js", what: "stdio vs SDK vs bare, startup" },
  {
    name: "stdio-stateless",
    file: "stdio.js",
    what: "stdio 2026-07-28 vs SDK vs bare, startup",
    env: { BENCH_ENVELOPE: "2026-07-28" }
  },
  { name: "http", file: "http.js", what: "Streamable HTTP vs SDK vs bare" },
  { name: "http-stateless", file: "http-stateless.js", what: "Streamable HTTP 2026-07-28 vs SDK vs bare" },
  { name: "auth", file: "auth.js", what: "Streamable HTTP 2026-07-28 with a bearer JWT per call vs SDK" },
  { name: "memory", file: "memory.js", what: "memory per session vs SDK" },
  { name: "listen", file: "listen.js", what: "idle subscriptions/listen: memory, list_changed fan-out" },
  { name: "client", file: "client.js", what: "client pairs: ours → ours vs SDK → SDK, stdio and HTTP" },
  { name: "toolkit", file: "toolkit.js", what: "McpToolkit per tool call vs client.callTool" },
  {
    name: "tasks",
    file: "tasks.js",
    what: "tasks over HTTP: overhead, 1,000 concurrent, 10,000 swept, vs SDK 1.x"
  },
  {
    name: "redis",
    file: "redis.js",
    what: "shared state on Redis vs in memory, 1 vs 3 instances behind nginx, an idle session's bytes"
  },
  {
    name: "telemetry",
    file: "telemetry.js",
    what: "HTTP with telemetry off vs on (OTLP) vs the OpenTelemetry SDK's floor vs the commit before it, both eras"
  },
  {
    name: "telemetry-path",
    file: "telemetry-path.js",
    what: "telemetry on the request path in process vs the OpenTelemetry SDK's own span and histogram"
  },
  {
    name: "runtimes",
    file: "runtimes.js",
    what: "Bun, Deno, workerd: toWebHandler vs SDK createMcpHandler vs bare fetch; cold start; memory"
  }
]

const only = process.env.BENCH_ONLY?.split(",")
const chosen = only === undefined ? benches : benches.filter((bench) => only.includes(bench.name))

const run = (bench: Bench, summaryFile: string): Promise<{ readonly code: number | null; readonly last: string }> =>
  new Promise((resolve) => {
    process.stdout.write(`\n## ${bench.name}: ${bench.what}\n`)
    const child = spawn(process.execPath, [here(`./${bench.file}`)], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...bench.env, BENCH_SUMMARY: summaryFile }
    })
    let last = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (text: string) => {
      process.stdout.write(text)
      const lines = text.split("\n").filter((line) => line.trim().length > 0)
      if (lines.length > 0) last = lines[lines.length - 1]
    })
    child.once("exit", (code) => resolve({ code, last }))
    child.once("error", (error) => {
      process.stderr.write(`${bench.name}: ${error.message}\n`)
      resolve({ code: null, last })
    })
  })

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "effect-mcp-bench-"))
  const started = performance.now()
  const rows: Array<Row> = []
  const failures: Array<string> = []
  try {
    for (const bench of chosen) {
      const file = join(dir, `${bench.name}.jsonl`)
      const { code, last: printed } = await run(bench, file)
      let recorded: Array<Row> = []
      try {
        recorded = readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0).map((line) =>
          JSON.parse(line) as Row
        )
      } catch {
        // Nothing recorded.
      }
      if (code !== 0) {
        failures.push(bench.name)
        rows.push({ section: bench.name, label: "FAILED", value: `exit code ${code}` })
      } else if (recorded.length === 0) {
        // `<label>: <figures> (<counts>)` from the in-process benchmarks.
        const last = printed.replace(/ \([^)]*\)$/, "")
        const colon = last.indexOf(": ")
        rows.push(
          colon < 0
            ? { section: bench.name, label: bench.what, value: last }
            : { section: bench.name, label: last.slice(0, colon), value: last.slice(colon + 2) }
        )
      }
      rows.push(...recorded)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const minutes = (performance.now() - started) / 60_000
  const out = [
    "",
    `## summary (${minutes.toFixed(1)} min)`,
    ...table([
      ["bench", "figure", "value", "target", ""],
      ...rows.map((row) => [row.section, row.label, row.value, row.target ?? "", mark(row.met)])
    ], 3)
  ]
  const missed = rows.filter((row) => row.met === false).length
  const targets = rows.filter((row) => row.met !== undefined).length
  out.push(`targets met: ${targets - missed} of ${targets}`)
  if (failures.length > 0) out.push(`FAILED: ${failures.join(", ")}`)
  process.stdout.write(out.join("\n") + "\n")
  if (failures.length > 0) process.exitCode = 1
}

main().catch((error) => {
  process.stderr.write((error instanceof BenchFailure ? error.message : String(error?.stack ?? error)) + "\n")
  process.exit(1)
})
