/**
 * Stopping while what a process talks to answers nothing (paused with SIGSTOP: its connections
 * stay open, as when it is cut off by the network); issue 35, item 25. Both did not stop before:
 *
 * - the demo server (apps/everything, built) with its shared state on a real redis-server
 *   (`--redis`), Redis paused: each UNSUBSCRIBE and the QUIT of the subscription connection
 *   waited with no bound; now each goodbye to Redis gets `closeTimeout` (about 1 s in all);
 * - `mcp proxy` (apps/cli, built) over HTTP in front of the demo in the handshake era, the demo
 *   paused: the DELETE of the upstream session waited with no bound (its 2-second timeout could
 *   not interrupt a finalizer); now it gets its 2 seconds.
 *
 * Exits are awaited for at most 20 seconds: a guard against a hang, not a measure.
 */
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const everything = path.join(root, "apps/everything/dist/main.js")
const mcpMain = path.join(root, "apps/cli/dist/main.js")

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
    }).pipe(Effect.timeout(Duration.seconds(20)))
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
    "mcp proxy over HTTP, SIGINT while its upstream (handshake) answers nothing: exit 0",
    () =>
      Effect.gen(function*() {
        const upstreamPort = yield* Services.freePort
        const upstreamUrl = `http://127.0.0.1:${upstreamPort}/mcp`
        const upstream = yield* started([everything, "http", "--port", String(upstreamPort)], upstreamUrl)
        const port = yield* Services.freePort
        const proxy = yield* started(
          [mcpMain, "proxy", upstreamUrl, "--era", "handshake", "--port", String(port), "--serve", "handshake"],
          "mcp proxy: serving"
        )
        yield* opened(`http://127.0.0.1:${port}/mcp`)
        upstream.child.kill("SIGSTOP")
        proxy.child.kill("SIGINT")
        const code = yield* exitOf(proxy.child, proxy.stderr)
        upstream.child.kill("SIGCONT")
        assert.strictEqual(code, 0, proxy.stderr())
      }),
    60_000
  )
})
