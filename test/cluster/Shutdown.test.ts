/**
 * The demo server (apps/everything, built) with its shared state on a real redis-server
 * (`--redis`), stopped by SIGINT while that Redis answers nothing (paused: its connections stay
 * open, as when it is cut off by the network). Issue 35, item 25: it did not stop (each
 * UNSUBSCRIBE and the QUIT of the subscription connection waited with no bound); now it exits 0,
 * each goodbye to Redis given `closeTimeout` (about 1 s in all, measured).
 *
 * The exit is awaited for at most 20 seconds: a guard against a hang, not a measure.
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

describe("the demo with --redis, stopping", () => {
  it.scopedLive("SIGINT while Redis answers nothing: exit 0", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const port = yield* Services.freePort
      const url = `http://127.0.0.1:${port}/mcp`
      const child: ChildProcess = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [everything, "http", "--port", String(port), "--redis", redis.url], {
            cwd: root,
            stdio: ["ignore", "ignore", "pipe"]
          })
        ),
        (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
      )
      let stderr = ""
      child.stderr!.on("data", (chunk: Buffer) => stderr += chunk.toString())
      yield* Effect.async<void>((resume) => {
        const check = () => stderr.includes(url) && resume(Effect.void)
        check()
        child.stderr!.on("data", check)
      }).pipe(Effect.timeout(Duration.seconds(20)))
      // A session, kept in Redis.
      const response = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
          })
        })
      )
      assert.strictEqual(response.status, 200)
      assert.isNotNull(response.headers.get("mcp-session-id"))
      yield* Effect.promise(() => response.text())

      yield* redis.pause
      child.kill("SIGINT")
      const code = yield* Effect.async<number | null>((resume) => {
        if (child.exitCode !== null) return resume(Effect.succeed(child.exitCode))
        child.once("exit", (code) => resume(Effect.succeed(code)))
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.seconds(20),
          onTimeout: () => new Error(`still running 20 seconds after SIGINT:\n${stderr}`)
        })
      )
      yield* redis.resume
      assert.strictEqual(code, 0, stderr)
    }), 60_000)
})
