/**
 * Many loud upstream calls at once, the gateway's client not reading, at the wire: `mcp gateway`
 * over stdio under a 96 MiB heap, in front of a Streamable HTTP upstream whose one tool sends 300
 * logs of 60,000 bytes on the call's stream before its answer (`test/gateway/fixtures/loud-http.mjs`).
 * Eight calls are made, on the raw lane and on the server's path (a progress token), and the client
 * reads nothing until the upstream wrote every call's stream (the upstream calls may take 10 minutes:
 * a loaded machine makes the gateway slow to read them).
 *
 * Before: each call kept 256 of its logs waiting (up to 64 KiB each, 16 MiB a call), with nothing
 * bounding the calls together; eight of them ran the gateway out of its heap on either path
 * (`FATAL ERROR: ... JavaScript heap out of memory`, SIGABRT: both tests failed so). Now the logs waiting are bounded in
 * bytes across calls (the lane's `maxWaitingBytes`, the relay's `maxCallLogBytes`: 16 MiB each):
 * the gateway lives, and every call is answered after the logs it kept.
 */
import { Services } from "@effect-mcp/test-support"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const loud = path.join(root, "test/gateway/fixtures/loud-http.mjs")
const calls = 8

type Json = Record<string, any>

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

const flood = async (meta: (i: number) => Json) => {
  const port = await freePort()
  const upstream = spawn(process.execPath, [loud, String(port)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, COUNT: "300", SIZE: "60000" }
  })
  // The upstream's line for each call's stream written to its end (an event, not a guess).
  let written = 0
  const allWritten = new Promise<void>((resolve) =>
    readline.createInterface({ input: upstream.stdout! }).on("line", () => ++written === calls && resolve())
  )
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "call-logs-")), "gateway.json")
  writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${port}/mcp` } } }))
  const child = spawn(process.execPath, [
    // 96 MiB: without the bound, eight calls keep 128 MiB of logs. With it, what the gateway may hold is
    // its own 18 MiB, the logs waiting (16 MiB) and what waits on its stdout (32 MiB, `maxBufferedBytes`: a
    // pipe keeps strings on the heap until written): 63 MiB of heap at the peak, measured on either path
    // (test/hostile/probes/many.mjs). Under 64 MiB it lived only while the collector kept up: once in a CI
    // run, it did not.
    "--max-old-space-size=96",
    mcpMain,
    "gateway",
    "--config",
    file,
    "--timeout",
    "600"
  ], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (chunk) => stderr = (stderr + chunk).slice(-2000))
  const seen: Array<Json> = []
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const k of waiters) k()
  }
  const exited = new Promise<string>((resolve) =>
    child.on("exit", (code, signal) => {
      wake()
      resolve(`the gateway exited (${code ?? signal}): ${stderr}`)
    })
  )
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    // A gateway that dies mid-write leaves its last line cut: that one is not a message.
    try {
      seen.push(JSON.parse(line))
    } catch {
      return
    }
    wake()
  })
  /** Waits until `check` holds, or fails when the gateway exits first. */
  const until = <A>(check: () => A | undefined): Promise<A> =>
    Promise.race([
      new Promise<A>((resolve) => {
        const k = () => {
          const got = check()
          if (got === undefined) return
          waiters.delete(k)
          resolve(got)
        }
        waiters.add(k)
        k()
      }),
      exited.then((why) => Promise.reject(new Error(why)))
    ])
  const answer = (id: number) => until(() => seen.find((m) => m.id === id && !("method" in m)))
  const send = (message: Json) => void child.stdin!.write(JSON.stringify(message) + "\n")
  try {
    send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "loud", version: "1" } }
    })
    await answer(0)
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    // The upstream's tools are mirrored once it is connected (a list_changed says so).
    for (let id = 1;; id++) {
      send({ jsonrpc: "2.0", id, method: "tools/list" })
      if ((await answer(id)).result.tools.length > 0) break
      await until(() => seen.some((m) => m.method === "notifications/tools/list_changed") || undefined)
    }
    child.stdout!.pause()
    for (let i = 0; i < calls; i++) {
      send({
        jsonrpc: "2.0",
        id: 100 + i,
        method: "tools/call",
        params: { name: "up_loud", arguments: {}, ...meta(i) }
      })
    }
    await Promise.race([allWritten, exited.then((why) => Promise.reject(new Error(why)))])
    child.stdout!.resume()
    const answers = await Promise.all(Array.from({ length: calls }, (_, i) => answer(100 + i)))
    return { answers, logs: seen.filter((m) => m.method === "notifications/message").length }
  } finally {
    child.kill()
    upstream.kill()
  }
}

describe("many loud calls and a client that does not read (gateway over stdio, 96 MiB heap)", () => {
  it.each(
    [
      ["the raw lane", () => ({})],
      ["the server's path", (i: number) => ({ _meta: { progressToken: `p${i}` } })]
    ] as const
  )("keeps their logs waiting within a bound in bytes on %s, and answers every call", async (_, meta) => {
    const { answers, logs } = await flood(meta)
    for (const answer of answers) expect(answer.result.content).toEqual([{ type: "text", text: "done" }])
    // What fails without the bound is the gateway itself: it runs out of its heap and exits, and
    // `flood` rejects (`until` fails on the exit). The counts below hold either way (each call keeps
    // at most 256 logs); they say the answers came after what was kept, and that logs were dropped.
    // 2,400 logs of 60 KB were sent: what the output held (32 MiB) and 16 MiB more, the rest dropped.
    expect(logs).toBeGreaterThan(0)
    expect(logs).toBeLessThan(2400)
  }, 240_000)
})
