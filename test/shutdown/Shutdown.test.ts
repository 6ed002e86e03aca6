/**
 * Stopping while what a process talks to answers nothing (its connections open, as when it is
 * paused or cut off by the network); issue 35, item 25. Neither stopped before:
 *
 * - the demo server (apps/everything, built) with its shared state on a real redis-server
 *   (`--redis`), Redis paused: each UNSUBSCRIBE and the QUIT of the subscription connection
 *   waited with no bound; now each goodbye to Redis gets `closeTimeout` (about 1 s in all);
 * - `mcp proxy` (apps/cli, built) over HTTP in front of a server in the handshake era that stops
 *   answering (an HTTP server of this test's): the `resources/unsubscribe` of what it followed
 *   waited for the request's timeout (a minute), the DELETE of the upstream session with no bound
 *   (their 2-second timeout could not interrupt a finalizer); now each gets its 2 seconds.
 *
 * Exits are awaited for at most 20 seconds: a guard against a hang, not a measure.
 */
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import type * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const everything = Programs.demoMain
const mcpMain = Programs.mcpMain

/** `node <args>` for the scope (killed at its end), once its stderr says `ready`: the child and its stderr. */
const started = (args: ReadonlyArray<string>, ready: string) =>
  Effect.gen(function*() {
    const child: ChildProcess = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] })),
      (child) =>
        Effect.sync(() => {
          if (child.exitCode !== null) return
          child.kill("SIGCONT")
          child.kill("SIGKILL")
        })
    )
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => stderr += chunk.toString())
    yield* Effect.async<void>((resume) => {
      const check = () => stderr.includes(ready) && resume(Effect.void)
      check()
      child.stderr!.on("data", check)
    }).pipe(Effect.timeout(Duration.seconds(45)))
    return { child, stderr: () => stderr }
  })

/** Its exit code, once it exits; a failure after 20 seconds (a hang guard, not a timing). */
const exitOf = (child: ChildProcess, stderr: () => string) =>
  Effect.async<number | null>((resume) => {
    if (child.exitCode !== null) return resume(Effect.succeed(child.exitCode))
    child.once("exit", (code) => resume(Effect.succeed(code)))
  }).pipe(
    Effect.timeoutFail({
      duration: Duration.seconds(20),
      onTimeout: () => new Error(`still running 20 seconds after SIGINT:\n${stderr()}`)
    })
  )

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
}

/** Waits until `found` holds (events of the test's own servers): at most 20 seconds. */
const until = (found: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !found(); i++) yield* Effect.sleep(Duration.millis(100))
    assert.isTrue(found(), "nothing arrived")
  })

/**
 * An upstream MCP server over HTTP, handshake era, with one subscribable resource and the
 * session's GET stream held open: it answers
 * until `silence()`, and from then on reads every request and answers none, as a server that is
 * paused or cut off looks. `seen`: the methods (and `GET`, `DELETE`) in order; `unanswered`: what
 * came after the silence.
 */
const silentUpstream = Effect.gen(function*() {
  const port = yield* Services.freePort
  const seen: Array<string> = []
  const unanswered: Array<string> = []
  let silent = false
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const message = request.method === "POST" ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined
      const what = message?.method ?? request.method ?? ""
      seen.push(what)
      if (silent) return void unanswered.push(what)
      // The session's own stream, open (and silent): what the upstream raises could arrive.
      if (request.method === "GET") {
        return void response.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders()
      }
      if (request.method === "DELETE") return void response.writeHead(200).end()
      if (message.id === undefined) return void response.writeHead(202).end()
      const results: Record<string, unknown> = {
        initialize: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
          serverInfo: { name: "upstream", version: "1" }
        },
        "tools/list": { tools: [] },
        "resources/list": { resources: [{ uri: "test://a", name: "a" }] },
        "resources/templates/list": { resourceTemplates: [] }
      }
      response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "upstream-session" })
      response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: results[message.method] ?? {} }))
    })
  })
  const sockets = new Set<net.Socket>()
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
    () =>
      Effect.sync(() => {
        for (const socket of sockets) socket.destroy()
        server.close()
      })
  )
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    unanswered,
    silence: () => void (silent = true)
  }
})

/** An initialize POSTed to `url`: a handshake session opened there. */
const opened = (url: string) =>
  Effect.gen(function*() {
    const response = yield* Effect.promise(() =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(initialize)
      })
    )
    assert.strictEqual(response.status, 200)
    assert.isNotNull(response.headers.get("mcp-session-id"))
    yield* Effect.promise(() => response.text())
  })

describe("stopping while what it talks to answers nothing", () => {
  it.scopedLive("the demo with --redis, SIGINT while Redis answers nothing: exit 0", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const port = yield* Services.freePort
      const url = `http://127.0.0.1:${port}/mcp`
      const demo = yield* started([everything, "http", "--port", String(port), "--redis", redis.url], url)
      // A session, kept in Redis.
      yield* opened(url)
      yield* redis.pause
      demo.child.kill("SIGINT")
      const code = yield* exitOf(demo.child, demo.stderr)
      yield* redis.resume
      assert.strictEqual(code, 0, demo.stderr())
    }), 60_000)

  it.scopedLive(
    "mcp proxy over HTTP, SIGINT while its upstream (handshake) answers nothing: exit 0, each goodbye sent",
    () =>
      Effect.gen(function*() {
        const upstream = yield* silentUpstream
        const port = yield* Services.freePort
        const proxy = yield* started(
          [mcpMain, "proxy", upstream.url, "--era", "handshake", "--port", String(port), "--serve", "handshake"],
          "mcp proxy: serving"
        )
        // The proxy follows its upstream: subscribed to its resource, then everything listed again.
        yield* until(() => upstream.seen.indexOf("tools/list", upstream.seen.indexOf("resources/subscribe")) > 0)
        upstream.silence()
        proxy.child.kill("SIGINT")
        const code = yield* exitOf(proxy.child, proxy.stderr)
        assert.strictEqual(code, 0, proxy.stderr())
        // Sent, and not waited for past their 2 seconds (before: a minute for the first, for ever for the DELETE).
        assert.includeMembers(upstream.unanswered, ["resources/unsubscribe", "DELETE"])
      }),
    60_000
  )
})
