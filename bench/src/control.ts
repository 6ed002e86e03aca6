/**
 * The control side of the HTTP server children: `--port N` from the command line, `ready` on
 * stdout once listening, and stdin lines from the benchmark:
 *
 * - `memory` → `memory {"rss":…,"heapUsed":…,"code":…}` after full garbage collections (the child
 *   runs with `--expose-gc`; without it, the figures are taken without a collection); `code`: the
 *   bytes of the heap's code spaces (compiled code, part of `heapUsed`);
 * - `profile-start [µs]` → `profiling`: starts V8's CPU profiler in this process (`node:inspector`;
 *   sampling every 1000 µs unless given); `profile-stop <file>` → `profiled <file>`: stops it and
 *   writes the profile there (read it with `profile.ts`), so a profile holds the measured calls
 *   only, not the start-up;
 * - `heap-snapshot <file>` → `snapshot <file>`: after full collections, a heap snapshot there
 *   (`v8.writeHeapSnapshot`; compare two with `heap.ts`);
 * - any command the server gave `ready` (e.g. `addTool` → `added extra-1`), answered with the
 *   line its promise gives;
 *
 * and the process exits when stdin ends, so a child never outlives its benchmark.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector"
import { dirname } from "node:path"
import { createInterface } from "node:readline"
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8"

export const port = (): number => {
  const at = process.argv.indexOf("--port")
  const value = at > 0 ? Number(process.argv[at + 1]) : Number.NaN
  if (!Number.isInteger(value) || value <= 0) {
    process.stderr.write("usage: node <server>.js --port N\n")
    process.exit(2)
  }
  return value
}

/** The value of `--<name>`; exits 2 without one. */
export const arg = (name: string): string => {
  const at = process.argv.indexOf(`--${name}`)
  const value = at > 0 ? process.argv[at + 1] : undefined
  if (value === undefined) {
    process.stderr.write(`usage: --${name} <value>\n`)
    process.exit(2)
  }
  return value
}

export const flag = (name: string): boolean => process.argv.includes(`--${name}`)

/** The bytes used in V8's code spaces: compiled code, which `heapUsed` counts too. */
const codeBytes = () =>
  getHeapSpaceStatistics().reduce(
    (sum, space) => space.space_name.includes("code") ? sum + space.space_used_size : sum,
    0
  )

const collect = async () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return
  // Twice, a turn apart: finalizers and weak references freed by the first run are collected by the second.
  gc()
  await new Promise((resolve) => setImmediate(resolve))
  gc()
}

/** A control command of a server child: the promise of its answer line. */
export type Command = () => Promise<string>

/** The inspector session of a running profile. */
const profiler: { session: Session | undefined } = { session: undefined }

const post = (session: Session, method: string, params: object = {}): Promise<any> =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error === null ? resolve(result) : reject(error)))
  )

const profileStart = async (interval: number): Promise<string> => {
  if (profiler.session !== undefined) return "profiling"
  const session = new Session()
  session.connect()
  profiler.session = session
  await post(session, "Profiler.enable")
  await post(session, "Profiler.setSamplingInterval", { interval })
  await post(session, "Profiler.start")
  return "profiling"
}

const profileStop = async (file: string): Promise<string> => {
  const session = profiler.session
  if (session === undefined) return "failed profile-stop: not profiling"
  profiler.session = undefined
  const { profile } = await post(session, "Profiler.stop")
  session.disconnect()
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify(profile))
  return `profiled ${file}`
}

export const ready = (commands: Readonly<Record<string, Command>> = {}): void => {
  process.stdout.write("ready\n")
  const lines = createInterface({ input: process.stdin })
  lines.on("line", (line) => {
    const name = line.trim()
    const answer = (promise: Promise<string>) =>
      promise.then(
        (text) => process.stdout.write(`${text}\n`),
        (error) => process.stdout.write(`failed ${name}: ${String(error)}\n`)
      )
    if (name === "memory") {
      void collect().then(() =>
        process.stdout.write(`memory ${JSON.stringify({ ...process.memoryUsage(), code: codeBytes() })}\n`)
      )
    } else if (name === "profile-start" || name.startsWith("profile-start ")) {
      void answer(profileStart(Number(name.slice("profile-start".length).trim() || 1000)))
    } else if (name.startsWith("heap-snapshot ")) {
      const file = name.slice("heap-snapshot ".length)
      void answer(
        collect().then(() => {
          mkdirSync(dirname(file), { recursive: true })
          return `snapshot ${writeHeapSnapshot(file)}`
        })
      )
    } else if (name.startsWith("profile-stop ")) {
      void answer(profileStop(name.slice("profile-stop ".length)))
    } else if (Object.hasOwn(commands, name)) {
      void answer(commands[name]())
    }
  })
  lines.on("close", () => process.exit(0))
}
