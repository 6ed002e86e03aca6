/**
 * HTTP clients that never read, at the wire: `mcp gateway --port` in front of a Streamable HTTP
 * upstream whose tool writes 700 logs of 60,000 bytes (42 MB) on its call's SSE stream and
 * keeps it open (`test/gateway/fixtures/loud-http.mjs` with `HOLD=1`). Three clients each call it
 * on a socket they never read; the gateway closes each once more than `maxBufferedBytes` (32 MiB)
 * waits on it. Then its heap is measured after a full GC (`fixtures/memory-on-signal.cjs`, on
 * SIGUSR2) against the same measure taken before the calls.
 *
 * Before: what waited to be written on a connection the budget closed (up to 32 MiB each, no longer
 * counted anywhere) stayed in its response's queue for as long as its request ran: 3 connections
 * closed, about 90 MiB more heap after the GC, and any number of connections so many times 32 MiB.
 * Now the queue is let go when the connection closes.
 */
import { Services } from "@effect-mcp/test-support"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const mcpMain = Programs.mcpMain
const slow = 3

/** A port free on 127.0.0.1 (the test kit's). */
const freePort = () => Effect.runPromise(Services.freePort)

describe("connections closed for not reading (mcp gateway over HTTP)", () => {
  it("leave nothing of what waited on them", async () => {
    const upPort = await freePort()
    const port = await freePort()
    const upstream = spawn(process.execPath, [path.join(here, "../gateway/fixtures/loud-http.mjs"), String(upPort)], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, COUNT: "700", SIZE: "60000", HOLD: "1" }
    })
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "cut-memory-")), "gateway.json")
    writeFileSync(file, JSON.stringify({ mcpServers: { up: { url: `http://127.0.0.1:${upPort}/mcp` } } }))
    const child = spawn(process.execPath, [
      "--expose-gc",
      "--require",
      path.join(here, "fixtures/memory-on-signal.cjs"),
      mcpMain,
      "gateway",
      "--config",
      file,
      "--port",
      String(port),
      "--timeout",
      "600"
    ], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
    const sockets: Array<net.Socket> = []
    let stderr = ""
    let serving = false
    let cuts = 0
    const memories: Array<{ heapUsed: number }> = []
    const waiters = new Set<() => void>()
    const wake = () => {
      for (const k of waiters) k()
    }
    readline.createInterface({ input: child.stderr! }).on("line", (line) => {
      stderr = (stderr + line + "\n").slice(-3000)
      if (line.startsWith("MEMORY ")) memories.push(JSON.parse(line.slice(7)))
      if (line.includes("mcp gateway: serving")) serving = true
      if (line.includes("closed a connection that does not read its answers")) cuts++
      wake()
    })
    const exited = new Promise<string>((resolve) =>
      child.on("exit", (code, signal) => {
        wake()
        resolve(`the gateway exited (${code ?? signal}): ${stderr}`)
      })
    )
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
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const post = (body: object, session?: string) =>
      new Promise<{ session: string | undefined; text: string }>((resolve, reject) => {
        const text = JSON.stringify(body)
        http.request({
          host: "127.0.0.1",
          port,
          path: "/mcp",
          method: "POST",
          agent,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
            ...(session !== undefined ? { "mcp-session-id": session } : {})
          }
        }, (res) => {
          let data = ""
          res.setEncoding("utf8").on("data", (c) => data += c).on(
            "end",
            () => resolve({ session: res.headers["mcp-session-id"] as string | undefined, text: data })
          )
        }).on("error", reject).end(text)
      })
    const open = async () => {
      const { session } = await post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      })
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)
      return session!
    }
    const memory = async () => {
      const count = memories.length
      child.kill("SIGUSR2")
      return (await until(() => memories[count])).heapUsed
    }
    try {
      await until(() => serving || undefined)
      // The upstream's tools, once it is connected.
      const first = await open()
      for (;;) {
        if ((await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, first)).text.includes("up_loud")) break
        await until(() => stderr.includes("up is up") || undefined)
      }
      const before = await memory()
      for (let i = 0; i < slow; i++) {
        const session = await open()
        const text = JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "up_loud" } })
        const socket = net.connect(port, "127.0.0.1").on("error", () => {})
        // Never read.
        socket.pause()
        sockets.push(socket)
        socket.write(
          `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
            `accept: application/json, text/event-stream\r\nmcp-session-id: ${session}\r\n` +
            `mcp-protocol-version: 2025-11-25\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
        )
      }
      // Each closed by the gateway: more than 32 MiB waited on it.
      await until(() => cuts >= slow || undefined)
      const after = await memory()
      expect(after - before).toBeLessThan(32 * 1024 * 1024)
    } finally {
      for (const socket of sockets) socket.destroy()
      agent.destroy()
      child.kill()
      upstream.kill()
    }
  }, 120_000)
})
