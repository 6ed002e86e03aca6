// Drives the `mcp` CLI's client (apps/cli/dist, our McpClient over stdio) against client-hostile-up.mjs,
// one CASE each (CASES=big,endless,...; default all), HEAP MiB of old space (default 256), 60 s at most a
// case; prints per case: the exit, the answer's or error's first line, the seconds, the client's peak RSS and
// heap (mem-preload.cjs, every 250 ms) and the server's.
import { spawn } from "node:child_process"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const heap = process.env.HEAP ?? "256"
const all = ["big", "endless", "notify", "deep", "ids", "asks", "pages-endless", "pages-repeat", "tools-100k", "tools-50mb", "storm", "http-big", "sse-endless", "sse-tiny", "sse-notify"]
const cases = (process.env.CASES ?? all.join(",")).split(",")
const command = (kase) => kase.startsWith("pages") || kase.startsWith("tools-") ? ["tools"] : ["call", "--json"]

/** The call's text (--json), else the output's first two lines. */
const answerOf = (out) => {
  try {
    return JSON.parse(out).content[0].text.slice(0, 300)
  } catch {
    return out.trim().split("\n").slice(0, 2).map((l) => l.slice(0, 200))
  }
}

/** The target: a stdio command, or (http-*, sse-*) the URL of client-hostile-http.mjs, started for the case. */
const targetOf = (kase) => {
  if (!/^(http|sse)-/.test(kase)) return Promise.resolve({ url: `stdio:${process.execPath} ${path.join(here, "client-hostile-up.mjs")} ${kase}`, stop: () => {} })
  const server = spawn(process.execPath, [path.join(here, "client-hostile-http.mjs"), kase], { stdio: ["ignore", "pipe", "inherit"] })
  return new Promise((resolve) =>
    readline.createInterface({ input: server.stdout }).once("line", (l) =>
      resolve({ url: `http://127.0.0.1:${l.split(" ")[1]}/mcp`, stop: () => server.kill() })))
}

const run = (kase) => targetOf(kase).then(({ url: up, stop }) => new Promise((done) => {
  const t0 = process.hrtime.bigint()
  const args = [`--max-old-space-size=${heap}`, "--require", path.join(here, "mem-preload.cjs"), path.join(root, "apps/cli/dist/main.js"), ...command(kase), "--timeout", kase === "sse-tiny" ? "10" : "60", up, ...(command(kase)[0] === "call" ? ["go"] : [])]
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, N: process.env.N ?? (kase === "asks" ? "2000" : "1000000") }, stdio: ["ignore", "pipe", "pipe"] })
  let peakRss = 0, peakHeap = 0, out = "", err = [], lines = 0
  readline.createInterface({ input: child.stderr }).on("line", (l) => {
    const m = /rss=([\d.]+) heapUsed=([\d.]+)/.exec(l)
    if (m) { peakRss = Math.max(peakRss, +m[1]); peakHeap = Math.max(peakHeap, +m[2]); return }
    err.push(l.slice(0, 300))
    if (err.length > 5) err.shift()
    lines++
  })
  child.stdout.on("data", (d) => { if (out.length < 4096) out += d.toString().slice(0, 4096) })
  const guard = setTimeout(() => child.kill("SIGKILL"), 90_000)
  child.on("exit", (code, signal) => {
    clearTimeout(guard)
    stop()
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9
    done({ case: kase, code, signal, seconds: +seconds.toFixed(2), clientPeakRssMiB: peakRss, clientPeakHeapMiB: peakHeap, out: answerOf(out), stderrLines: lines, err: err.slice(-3) })
  })
}))

for (const kase of cases) console.log(JSON.stringify(await run(kase)))
