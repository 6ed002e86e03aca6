/**
 * A long event stream from an HTTP upstream, at the wire: `mcp gateway` over stdio in front of a
 * Streamable HTTP upstream whose one tool writes 1,200 logs of 60,000 bytes (72 MB) on its call's
 * SSE stream and keeps the stream open (`test/gateway/fixtures/loud-http.mjs` with `HOLD=1`). The
 * client reads everything.
 * Once the last log has reached the client, the gateway is asked for its memory after a full GC
 * (`fixtures/memory-on-signal.cjs`, on SIGUSR2).
 *
 * Before: the client's SSE reading (`Stream.runForEachWhile`, whose sink in effect 3 nests a
 * `catchAll` per chunk, each holding its chunk until the stream ends) kept every byte of the
 * stream read so far: 72 MB of array buffers after the GC, with the stream still open (and a
 * gateway with slow HTTP clients in front of a loud upstream grew without bound: RSS 650 MB, the
 * good clients' answers delayed by seconds). Now a chunk is let go once read.
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

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const mcpMain = Programs.mcpMain

type Json = Record<string, any>

/** A port free on 127.0.0.1 (the test kit's). */
const freePort = () => Effect.runPromise(Services.freePort)

describe("a long SSE stream from an HTTP upstream (gateway over stdio)", () => {
  it("is not kept by the gateway as it is read", async () => {
    const port = await freePort()
    const upstream = spawn(process.execPath, [path.join(here, "../gateway/fixtures/loud-http.mjs"), String(port)], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, COUNT: "1200", SIZE: "60000", HOLD: "1" }
    })
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "stream-retention-")), "gateway.json")
    writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${port}/mcp` } } }))
    const child = spawn(process.execPath, [
      "--expose-gc",
      "--require",
      path.join(here, "fixtures/memory-on-signal.cjs"),
      mcpMain,
      "gateway",
      "--config",
      file,
      "--timeout",
      "600"
    ], { cwd: root, stdio: ["pipe", "pipe", "pipe"] })
    let stderr = ""
    let memory: Json | undefined
    const waiters = new Set<() => void>()
    const wake = () => {
      for (const k of waiters) k()
    }
    readline.createInterface({ input: child.stderr! }).on("line", (line) => {
      stderr = (stderr + line + "\n").slice(-2000)
      if (line.startsWith("MEMORY ")) {
        memory = JSON.parse(line.slice(7))
        wake()
      }
    })
    const exited = new Promise<string>((resolve) =>
      child.on("exit", (code, signal) => {
        wake()
        resolve(`the gateway exited (${code ?? signal}): ${stderr}`)
      })
    )
    const seen: Array<Json> = []
    let logs = 0
    let last = false
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line)
      if (message.method === "notifications/message") {
        logs++
        if (message.params.data === "last") last = true
      } else seen.push(message)
      wake()
    })
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
    const answer = (id: number) => until(() => seen.find((m) => m.id === id))
    const send = (message: Json) => void child.stdin!.write(JSON.stringify(message) + "\n")
    try {
      send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      })
      await answer(0)
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
      for (let id = 1;; id++) {
        send({ jsonrpc: "2.0", id, method: "tools/list" })
        if ((await answer(id)).result.tools.length > 0) break
        await until(() => seen.some((m) => m.method === "notifications/tools/list_changed") || undefined)
      }
      send({ jsonrpc: "2.0", id: 100, method: "tools/call", params: { name: "up_loud", arguments: {} } })
      // The gateway read the whole stream so far: its last log reached the client.
      await until(() => last || undefined)
      child.kill("SIGUSR2")
      const after = await until(() => memory)
      // 72 MB passed through; what stays is the gateway's own (a few MiB of buffers).
      expect(logs).toBeGreaterThan(0)
      expect(after.arrayBuffers).toBeLessThan(32 * 1024 * 1024)
    } finally {
      child.kill()
      upstream.kill()
    }
  }, 120_000)
})
