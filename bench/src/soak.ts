/**
 * The demo server (`apps/everything`, default options, default heap) under hostile load, the
 * probes of issue 16 at their scale, one after the other:
 *
 * 1. 20,000 `subscriptions/listen` (2026-07-28) with large filters (`BENCH_SOAK_URIS` resource
 *    URIs, 1,500 by default: about 60 KB; every other listen a third of that), 200 at a time;
 *    the ones the server holds stay open until the phase ends.
 * 2. 2,000 handshake-era sessions, each a `longRunning` call of 1,000 steps with a progress token
 *    of 2,000 characters (what filled the event store with 2.5 MB a session), its stream dropped
 *    half way; 100 at a time.
 * 3. Over stdio, a server of its own: 10,000 hostile lines (garbage, deep nesting, `1e309`,
 *    batches of junk, lines of 5 MB), each of which must be answered.
 *
 * Meanwhile a normal `tools/call add` (2026-07-28, a POST of its own) every 100 ms must be
 * answered. The peaks of the server's V8 heap in use and of its RSS (`peak.ts`, sampled every
 * 20 ms) are printed per phase, against the bound stated below.
 *
 * Environment: BENCH_SOAK_LISTENS (20000), BENCH_SOAK_SESSIONS (2000), BENCH_SOAK_LINES (10000),
 * BENCH_SOAK_URIS (1500).
 *
 * A benchmark, not a test.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, here, num, table } from "./proc.js"

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

const listens = Number(process.env.BENCH_SOAK_LISTENS ?? 20_000)
const sessions = Number(process.env.BENCH_SOAK_SESSIONS ?? 2_000)
const lines = Number(process.env.BENCH_SOAK_LINES ?? 10_000)
const uris = Number(process.env.BENCH_SOAK_URIS ?? 1_500)

/** What no phase may take the server past. */
const bound = { heapUsed: 512 * 1024 * 1024, rss: 1024 * 1024 * 1024 }

const main = here("../../apps/everything/dist/main.js")
const peakPreload = here("./peak.js")

interface Server {
  readonly process: ChildProcess
  readonly peak: () => { readonly heapUsed: number; readonly rss: number }
}

/** The demo in `mode`, with the peak sampler; resolves once it said where it serves (HTTP) or at once (stdio). */
const start = async (name: string, args: ReadonlyArray<string>): Promise<Server> => {
  const file = join(tmpdir(), `soak-${name}-${process.pid}.json`)
  const child = spawn(process.execPath, ["--import", peakPreload, main, ...args], {
    env: { ...process.env, PEAK_FILE: file },
    stdio: ["pipe", "pipe", "pipe"]
  })
  if (args[0] === "http") {
    await new Promise<void>((resolve, reject) => {
      let said = ""
      child.stderr!.on("data", (chunk: Buffer) => {
        said += chunk.toString()
        if (said.includes("/mcp (")) resolve()
      })
      child.once("exit", (code) => reject(new Error(`the demo exited (${code}): ${said}`)))
    })
  }
  child.stderr!.resume()
  return {
    process: child,
    peak: () => {
      try {
        return JSON.parse(readFileSync(file, "utf8"))
      } catch {
        return { heapUsed: 0, rss: 0 }
      }
    }
  }
}

const statelessMeta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

/** One POST; `onResponse` sees the response as it starts (a held SSE stream is not waited for). */
const post = (
  port: number,
  agent: Agent | false,
  headers: Record<string, string>,
  body: string,
  onResponse?: (status: number, close: () => void) => void
): Promise<{ readonly status: number; readonly text: string; readonly session?: string | undefined }> =>
  new Promise((resolve) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/mcp",
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": String(Buffer.byteLength(body)),
        ...headers
      }
    }, (res) => {
      onResponse?.(res.statusCode ?? 0, () => req.destroy())
      let text = ""
      res.on("data", (chunk: Buffer) => {
        if (text.length < 4096) text += chunk.toString()
      })
      res.on(
        "end",
        () =>
          resolve({ status: res.statusCode ?? 0, text, session: res.headers["mcp-session-id"] as string | undefined })
      )
      res.on("error", () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on("error", () => resolve({ status: 0, text: "" }))
    req.end(body)
  })

/** Runs `count` tasks, `width` at a time. */
const pool = async (count: number, width: number, task: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await task(next++)
  }))
}

/** A normal call every 100 ms until stopped: how many were answered, and how many were not. */
const prober = (port: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let ok = 0
  let failed = 0
  let id = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const n = ++id
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: n,
        method: "tools/call",
        params: { name: "add", arguments: { a: n, b: 1 }, _meta: statelessMeta }
      })
      const answer = await post(port, agent, {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "add"
      }, body)
      if (answer.status === 200 && answer.text.includes(`"sum":${n + 1}`)) ok++
      else failed++
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      agent.destroy()
      return { ok, failed }
    }
  }
}

const listenPhase = async (port: number) => {
  const all = Array.from({ length: uris }, (_, i) => `file:///soak/${i.toString().padStart(6, "0")}/resource.txt`)
  // Every other listen a third of the size: filters a server may take, and ones it may not.
  const filters = [all, all.slice(0, Math.ceil(uris / 3))]
  const held: Array<() => void> = []
  const statuses = new Map<number, number>()
  await pool(listens, 200, async (i) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: `listen-${i}`,
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: filters[i % 2] },
        _meta: statelessMeta
      }
    })
    await new Promise<void>((resolve) => {
      void post(port, false, { "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" }, body, (
        status,
        close
      ) => {
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        if (status === 200) held.push(close)
        resolve()
      }).then(() => resolve())
    })
  })
  for (const close of held) close()
  return [...statuses].map(([status, n]) => `${num(n)} × ${status}`).join(", ")
}

const sessionPhase = async (port: number) => {
  const token = "t".repeat(2000)
  let opened = 0
  let refused = 0
  await pool(sessions, 100, async (i) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const init = await post(
      port,
      agent,
      {},
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "soak", version: "1" } }
      })
    )
    if (init.status !== 200 || init.session === undefined) {
      refused++
      agent.destroy()
      return
    }
    opened++
    const headers = { "mcp-session-id": init.session, "mcp-protocol-version": "2025-11-25" }
    await post(port, agent, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: `long-${i}`,
      method: "tools/call",
      params: { name: "longRunning", arguments: { duration: 1, steps: 1000 }, _meta: { progressToken: token } }
    })
    // Half way through its stream, the client goes away (the events stay in the store).
    await new Promise<void>((resolve) => {
      void post(port, false, headers, call, (_status, close) =>
        setTimeout(() => {
          close()
          resolve()
        }, 500)).then(() => resolve())
    })
    agent.destroy()
  })
  return `${num(opened)} opened, ${num(refused)} refused`
}

/** Hostile lines over stdio; each is answered (an error with its id, or null). */
const stdioPhase = async () => {
  const server = await start("stdio", ["stdio"])
  const child = server.process
  let answers = 0
  let buffered = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString()
    let at: number
    while ((at = buffered.indexOf("\n")) >= 0) {
      buffered = buffered.slice(at + 1)
      answers++
    }
  })
  const deep = "[".repeat(50_000) + "]".repeat(50_000)
  const huge = "x".repeat(5 * 1024 * 1024)
  const kinds = [
    (i: number) => `garbage ${i} {{{`,
    (i: number) =>
      `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"add","arguments":{"a":${deep}}}}`,
    (i: number) =>
      `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"add","arguments":{"a":1e309,"b":1}}}`,
    (i: number) => `[{"jsonrpc":"2.0","id":${i}},3,"x"]`,
    (i: number) => (i % 1000 === 4 ? huge : `{"jsonrpc":"2.0","id":${i},"method":"nope"}`)
  ]
  // A batch of junk answers each of its items: count what is expected.
  let expected = 0
  for (let i = 0; i < lines; i++) {
    const kind = i % kinds.length
    expected += 1
    const text = kinds[kind]!(i) + "\n"
    if (!child.stdin!.write(text)) await new Promise((resolve) => child.stdin!.once("drain", resolve))
  }
  const deadline = Date.now() + 60_000
  while (answers < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  child.stdin!.end()
  await new Promise((resolve) => child.once("exit", resolve))
  return { what: `${num(answers)} answers to ${num(expected)} lines`, peak: server.peak() }
}

const run = async () => {
  const port = await freePort()
  const server = await start("http", ["http", "--port", String(port)])
  const probe = prober(port)
  const rows: Array<ReadonlyArray<string>> = []
  const phase = async (name: string, body: () => Promise<string>) => {
    const started = performance.now()
    const what = await body()
    await new Promise((resolve) => setTimeout(resolve, 400))
    const peak = server.peak()
    rows.push([name, what, `${((performance.now() - started) / 1000).toFixed(1)} s`, mib(peak.heapUsed), mib(peak.rss)])
  }
  try {
    await phase(`${num(listens)} listens, ${num(uris)} / ${num(Math.ceil(uris / 3))} URIs`, () => listenPhase(port))
    await phase(`${num(sessions)} sessions filling the event store`, () => sessionPhase(port))
  } finally {
    const probed = await probe.stop()
    server.process.kill("SIGTERM")
    await new Promise((resolve) => server.process.once("exit", resolve))
    const stdio = await stdioPhase()
    rows.push([
      `${num(lines)} hostile stdio lines (own server)`,
      stdio.what,
      "",
      mib(stdio.peak.heapUsed),
      mib(stdio.peak.rss)
    ])
    const worst = rows.slice(0)
    const within = [server.peak(), stdio.peak].every((p) => p.heapUsed <= bound.heapUsed && p.rss <= bound.rss)
    process.stdout.write(
      [
        `soak: the demo server, default options and heap; peaks are cumulative over the HTTP phases`,
        ...table([["phase", "what happened", "took", "peak heap", "peak RSS"], ...worst]),
        `normal calls meanwhile: ${num(probed.ok)} answered, ${num(probed.failed)} not`,
        `bound: heap ≤ ${mib(bound.heapUsed)}, RSS ≤ ${mib(bound.rss)}: ${within ? "held" : "NOT HELD"}` +
        (probed.failed === 0 ? "" : "; some normal calls were NOT answered")
      ].join("\n") + "\n"
    )
  }
}

run().catch((error) => {
  process.stderr.write(`SOAK FAILED: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
