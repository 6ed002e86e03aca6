/**
 * `NodeMcpServer.runMain` as a user runs it (a child process, `fixtures/run-main.ts`):
 *
 * - a stdio server answers on stdout and exits 0 when its input ends;
 * - a failing layer is one line on stderr, nothing on stdout, exit 1;
 * - a missing `Config.redacted` value is one line naming it; a too-short requestState key one
 *   line saying the minimum; both exit 1;
 * - a port in use is one line naming the port, exit 1;
 * - `announce` says where it listens; at Debug level every request is a line (method, name,
 *   outcome, duration);
 * - SIGTERM with a session, its GET stream and a 2026-07-28 listen open: the listen is answered
 *   gracefully and the process exits 0 at once (measured in the bench; here within a second);
 * - SIGTERM with connections answering nothing (a fresh one, one halfway through its headers, an
 *   idle keep-alive one) and an SSE stream: the stream is ended, the connections closed at once,
 *   exit 0 before the grace period of busy connections (1 second) would have run out.
 */
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"

import { type ChildProcess, spawn } from "node:child_process"
import { EventEmitter } from "node:events"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

// Each test starts a fixture through tsx (compiled as it starts: seconds of CPU, a minute on a loaded machine).
vi.setConfig({ testTimeout: 120_000 })
const root = path.resolve(here, "../../..")
const fixture = path.join(here, "fixtures", "run-main.ts")

interface Run {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<{ readonly code: number | null; readonly at: number }>
}

const run = (...args: ReadonlyArray<string>): Run => runWith({}, ...args)

/** Runs the fixture with `env` over this process's environment (an `undefined` entry: unset). */
const runWith = (env: Record<string, string | undefined>, ...args: ReadonlyArray<string>): Run => {
  const child = spawn(process.execPath, ["--conditions=@effect-mcp/source", "--import", "tsx", fixture, ...args], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, RUN_MAIN_FIXTURE_TOKEN: undefined, MCP_REQUEST_STATE_KEY: undefined, ...env }
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => (stdout += chunk))
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  const exited = new Promise<{ readonly code: number | null; readonly at: number }>((resolve) =>
    child.on("exit", (code) => resolve({ code, at: performance.now() }))
  )
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** Session `session` at `url`: `notifications/initialized` sent, then its standalone SSE stream opened. */
const openSession = async (url: string, session: string): Promise<Response> => {
  const sessionHeaders = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
  await (await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...sessionHeaders },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
  })).text()
  const standalone = await fetch(url, { headers: { accept: "text/event-stream", ...sessionHeaders } })
  assert.strictEqual(standalone.status, 200)
  return standalone
}

/**
 * Resolves once `check` holds, tested again at each `data` event of `sources` (a child's pipes, a
 * socket: their own listeners, added before, have taken the chunk); rejects after `ms` (a guard on
 * what never comes: a fixture compiled by tsx as it starts takes 20 s and more on a loaded machine).
 */
const until = (
  check: () => boolean,
  what: string,
  sources: ReadonlyArray<EventEmitter>,
  ms = 60_000
): Promise<void> =>
  new Promise((resolve, reject) => {
    const test = () => {
      if (!check()) return
      done()
      resolve()
    }
    const timer = setTimeout(() => {
      done()
      reject(new Error(`timed out waiting for ${what}`))
    }, ms)
    const done = () => {
      clearTimeout(timer)
      for (const source of sources) source.off("data", test)
    }
    for (const source of sources) source.on("data", test)
    test()
  })

const freePort = () => Effect.runPromise(Services.freePort)

describe("NodeMcpServer.runMain", () => {
  it("stdio: answers on stdout, exits 0 when the input ends", async () => {
    const server = run("stdio")
    server.child.stdin!.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      }) + "\n"
    )
    await until(() => server.stdout().includes("\"id\":1"), "the initialize answer", [server.child.stdout!])
    server.child.stdin!.end()
    const { code } = await server.exited
    assert.strictEqual(code, 0, server.stderr())
    assert.strictEqual(JSON.parse(server.stdout().trim()).result.serverInfo.name, "run-main-fixture")
  })

  it("a failing layer: one line on stderr, nothing on stdout, exit 1", async () => {
    const server = run("failing-stdio")
    const { code } = await server.exited
    assert.strictEqual(code, 1)
    assert.strictEqual(server.stdout(), "")
    const lines = server.stderr().trim().split("\n")
    assert.strictEqual(lines.length, 1, server.stderr())
    assert.match(lines[0]!, /^fixture: .*RUN_MAIN_FIXTURE_TOKEN/)
  })

  it("a missing Config.redacted value: one line naming the variable (not <redacted>), exit 1", async () => {
    const server = runWith({ MCP_REQUEST_STATE_KEY: undefined }, "state-key-stdio")
    const { code } = await server.exited
    assert.strictEqual(code, 1)
    assert.strictEqual(server.stdout(), "")
    assert.strictEqual(server.stderr(), "fixture: MCP_REQUEST_STATE_KEY is missing\n")
  })

  it("an empty requestStateKey: refused in one line that says the minimum, exit 1", async () => {
    const server = runWith({ MCP_REQUEST_STATE_KEY: "" }, "state-key-stdio")
    const { code } = await server.exited
    assert.strictEqual(code, 1)
    assert.strictEqual(server.stdout(), "")
    assert.strictEqual(
      server.stderr(),
      "fixture: requestStateKey must be at least 32 bytes (got 0): make one with openssl rand -base64 32\n"
    )
  })

  it("a port in use: one line naming the port, exit 1", async () => {
    const port = await freePort()
    const taken = net.createServer().listen(port, "127.0.0.1")
    await new Promise((resolve) => taken.once("listening", resolve))
    try {
      const server = run("http", String(port))
      const { code } = await server.exited
      assert.strictEqual(code, 1)
      assert.strictEqual(server.stderr().trim(), `fixture: port ${port} is already in use (EADDRINUSE)`)
      assert.strictEqual(server.stdout(), "")
    } finally {
      taken.close()
    }
  })

  it("http: announces where it listens, logs each request at Debug, and SIGTERM ends it gracefully at once", async () => {
    const port = await freePort()
    const server = run("http", String(port))
    try {
      const url = `http://127.0.0.1:${port}/mcp`
      await until(() => server.stderr().includes(`listening on ${url}`), "the listening line", [server.child.stderr!])

      // A session, with its standalone GET stream open.
      const init = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        })
      })
      const session = init.headers.get("mcp-session-id")!
      await init.text()
      await openSession(url, session) // its standalone stream stays open

      // A stateless call, then a listen held open.
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" }
      }
      const modern = (id: number, method: string, params: object, extra: Record<string, string> = {}) =>
        fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": method,
            ...extra
          },
          body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })
        })
      const sum = await (await modern(2, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }, {
        "mcp-name": "add"
      })).json()
      assert.deepStrictEqual(sum.result.content, [{ type: "text", text: "3" }])
      await until(
        () => /effect-mcp: tools\/call add ok in [\d.]+ ms/.test(server.stderr()),
        "the request's log line",
        [server.child.stderr!]
      )

      const listen = await modern(3, "subscriptions/listen", { notifications: { toolsListChanged: true } })
      const reader = listen.body!.getReader()
      let streamed = ""
      const chunks = new EventEmitter()
      const reading = (async () => {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return
          streamed += new TextDecoder().decode(value)
          chunks.emit("data")
        }
      })()
      await until(
        () => streamed.includes("acknowledged") || streamed.includes("\"id\""),
        "the listen's acknowledgement",
        [chunks]
      )

      const signalled = performance.now()
      server.child.kill("SIGTERM")
      const { at, code } = await server.exited
      await reading.catch(() => undefined)
      assert.strictEqual(code, 0, server.stderr())
      // The listen was answered as complete before the stream closed.
      assert.include(streamed, "\"resultType\":\"complete\"")
      assert.isBelow(at - signalled, 1_000, "exit after SIGTERM")
    } finally {
      if (server.child.exitCode === null) server.child.kill("SIGKILL")
    }
  })
  // Issue 35, item 25 (an idle server was seen taking about 2 s to exit on SIGINT): not here, about
  // 0.1 s with and without an idle keep-alive connection, before the item's fixes too. The time was
  // the last OTLP export's, with telemetry on: test/telemetry/Shutdown.test.ts holds that, by what
  // the collector receives. This one holds only what a user sees here: exit 0, the idle connection
  // closed by the server (a busy one would be cut after a second of grace, an idle one is closed at
  // once: a difference of time, which this does not measure).
  it("http: SIGINT on an idle server with an idle keep-alive connection exits 0 and closes it", async () => {
    const port = await freePort()
    const server = run("http", String(port))
    const sockets: Array<net.Socket> = []
    try {
      const url = `http://127.0.0.1:${port}/mcp`
      await until(() => server.stderr().includes(`listening on ${url}`), "the listening line", [server.child.stderr!])
      const socket = net.connect(port, "127.0.0.1")
      sockets.push(socket)
      let received = ""
      socket.on("data", (chunk) => (received += chunk))
      socket.on("error", () => undefined)
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
      await new Promise((resolve) => socket.once("connect", resolve))
      const initialize = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      })
      socket.write(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
          `accept: application/json, text/event-stream\r\ncontent-length: ${initialize.length}\r\n\r\n${initialize}`
      )
      // Answered, and the connection kept open, idle.
      await until(() => received.includes("serverInfo"), "the answer", [socket])
      server.child.kill("SIGINT")
      const exited = await Promise.race([
        server.exited,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000))
      ])
      assert.isDefined(exited, "the server did not exit within 20 s of SIGINT")
      assert.strictEqual(exited!.code, 0, server.stderr())
      await closed
    } finally {
      for (const socket of sockets) socket.destroy()
      if (server.child.exitCode === null) server.child.kill("SIGKILL")
    }
  })

  it("http: SIGTERM with connections answering nothing and an open stream closes them at once, exit 0", async () => {
    const port = await freePort()
    const server = run("http", String(port))
    const sockets: Array<net.Socket> = []
    try {
      const url = `http://127.0.0.1:${port}/mcp`
      await until(() => server.stderr().includes(`listening on ${url}`), "the listening line", [server.child.stderr!])
      /** A raw connection that has sent `text`; resolves when the server closes it. */
      const connection = async (text: string) => {
        const socket = net.connect(port, "127.0.0.1")
        sockets.push(socket)
        let received = ""
        socket.on("data", (chunk) => (received += chunk))
        socket.on("error", () => undefined)
        const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
        await new Promise((resolve) => socket.once("connect", resolve))
        if (text !== "") socket.write(text)
        return { socket, closed, received: () => received }
      }
      const initialize = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      })
      // One that never sent a byte, one halfway through its headers (Node counts both busy), and
      // a keep-alive one idle after its answer.
      const fresh = await connection("")
      const halfway = await connection("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: app")
      const keepAlive = await connection(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
          `accept: application/json, text/event-stream\r\ncontent-length: ${initialize.length}\r\n\r\n${initialize}`
      )
      await until(
        () => keepAlive.received().includes("serverInfo"),
        "the keep-alive connection's answer",
        [keepAlive.socket]
      )
      const session = /mcp-session-id: (\S+)/i.exec(keepAlive.received())![1]!
      // And the session's standalone SSE stream, open.
      const standalone = await openSession(url, session)
      const reader = standalone.body!.getReader()
      const streamEnded = (async () => {
        for (;;) if ((await reader.read()).done) return "ended"
      })().catch(() => "cut")

      const signalled = performance.now()
      server.child.kill("SIGTERM")
      const { at, code } = await server.exited
      assert.strictEqual(code, 0, server.stderr())
      // The stream was ended by the server, not cut by the process going away.
      assert.strictEqual(await streamEnded, "ended")
      await Promise.all([fresh.closed, halfway.closed, keepAlive.closed])
      // Idle connections are closed at once, not after the 1-second grace period of busy ones.
      assert.isBelow(at - signalled, 1_000, "exit after SIGTERM")
    } finally {
      for (const socket of sockets) socket.destroy()
      if (server.child.exitCode === null) server.child.kill("SIGKILL")
    }
  })
})
