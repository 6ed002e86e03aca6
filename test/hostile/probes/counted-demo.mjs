// For probes: the demo over HTTP (`apps/everything/dist/main.js http --port 0 ...args`) with
// count-preload.cjs, once it listens: its URL, and `sample(phase)`, which asks it (SIGUSR2) for its
// heap after GC, RSS, live fibers and pending timers and waits for the answer on its stderr (each
// line wakes the wait, no timer). The probe exits 1 if the demo exits under it; `stop()` kills it.
// VERBOSE=1 passes the demo's other stderr lines on.
import { spawn } from "node:child_process"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")

export const countedDemo = async (args) => {
  const child = spawn(process.execPath, ["--expose-gc", "--require", path.join(here, "count-preload.cjs"), path.join(root, "apps/everything/dist/main.js"), "http", "--port", "0", ...args], {
    cwd: root, stdio: ["ignore", "ignore", "pipe"]
  })
  const counts = []
  let url
  const waiters = new Set()
  readline.createInterface({ input: child.stderr }).on("line", (l) => {
    const m = /listening on (http:\/\/\S+)/.exec(l)
    if (m) url = new URL(m[1])
    if (l.startsWith("COUNTS ")) counts.push(JSON.parse(l.slice(7)))
    else if (process.env.VERBOSE) console.error("demo:", l.slice(0, 300))
    for (const w of waiters) w()
  })
  child.on("exit", (code, signal) => { console.error(`demo exited ${code ?? signal}`); process.exit(1) })
  const until = (check) => new Promise((res) => { const w = () => { const v = check(); if (v) { waiters.delete(w); res(v) } }; waiters.add(w); w() })
  const t0 = Date.now()
  const sample = async (phase) => {
    const c = counts.length
    child.kill("SIGUSR2")
    const m = await until(() => counts[c])
    return { phase, s: +((Date.now() - t0) / 1000).toFixed(1), heapMiB: +(m.heapUsed / 1048576).toFixed(2), rssMiB: +(m.rss / 1048576).toFixed(1), fibers: m.fibers, timers: m.timers }
  }
  await until(() => url)
  const stop = () => {
    child.removeAllListeners("exit")
    child.kill()
  }
  return { url, sample, stop }
}
