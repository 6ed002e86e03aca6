/**
 * The control side of the HTTP server children: `--port N` from the command line, `ready` on
 * stdout once listening, and stdin lines from the benchmark:
 *
 * - `memory` → `memory {"rss":…,"heapUsed":…}` after full garbage collections (the child runs with
 *   `--expose-gc`; without it, the figures are taken without a collection);
 *
 * and the process exits when stdin ends, so a child never outlives its benchmark.
 */
import { createInterface } from "node:readline"

export const port = (): number => {
  const at = process.argv.indexOf("--port")
  const value = at > 0 ? Number(process.argv[at + 1]) : Number.NaN
  if (!Number.isInteger(value) || value <= 0) {
    process.stderr.write("usage: node <server>.js --port N\n")
    process.exit(2)
  }
  return value
}

export const flag = (name: string): boolean => process.argv.includes(`--${name}`)

const collect = async () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return
  // Twice, a turn apart: finalizers and weak references freed by the first run are collected by the second.
  gc()
  await new Promise((resolve) => setImmediate(resolve))
  gc()
}

export const ready = (): void => {
  process.stdout.write("ready\n")
  const lines = createInterface({ input: process.stdin })
  lines.on("line", (line) => {
    if (line.trim() === "memory") {
      void collect().then(() => process.stdout.write(`memory ${JSON.stringify(process.memoryUsage())}\n`))
    }
  })
  lines.on("close", () => process.exit(0))
}
