/**
 * The demo's `--redis-prefix` (apps/everything, built): two deployments of it on one redis-server,
 * each under a prefix of its own, share nothing: a session made on one is unknown to the other
 * (404), and every key either wrote is under its prefix, none under the default `mcp:`. Before
 * the flag the demo refused it ("--redis-prefix is not an option"), and two deployments on one
 * Redis shared every session.
 */
import { RedisConnection } from "@effect-mcp/redis"
import { HttpWire, Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const demoMain = Programs.demoMain

/** The demo over HTTP on the Redis at `redis` under `prefix`: its endpoint, once it said so; stopped with the scope. */
const demo = (redis: string, prefix: string) =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(
          process.execPath,
          [demoMain, "http", "--port", String(port), "--redis", redis, "--redis-prefix", prefix],
          {
            cwd: root,
            env: { ...process.env, MCP_REQUEST_STATE_KEY: "k".repeat(48) },
            stdio: ["ignore", "ignore", "pipe"]
          }
        )
      ),
      (child) =>
        Effect.async<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGTERM")
        })
    )
    yield* Effect.async<void, Error>((resume) => {
      let stderr = ""
      child.stderr!.on("data", (chunk) => {
        stderr += chunk
        if (stderr.includes(`http://127.0.0.1:${port}/mcp`)) resume(Effect.void)
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`the demo exited ${code}: ${stderr}`))))
    }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the demo did not start") }))
    return `http://127.0.0.1:${port}/mcp`
  })

const initialize = async (url: string) => {
  const response = await fetch(url, {
    method: "POST",
    headers: HttpWire.handshakeHeaders(undefined),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "prefix-test", version: "1" } }
    })
  })
  await response.text()
  assert.strictEqual(response.status, 200)
  return response.headers.get("mcp-session-id")!
}

const initialized = (url: string, session: string) =>
  fetch(url, {
    method: "POST",
    headers: HttpWire.handshakeHeaders(session),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
  }).then((response) => response.status)

describe("the demo's --redis-prefix", () => {
  it.scopedLive(
    "two deployments on one Redis under prefixes of their own: no shared session, every key under its prefix",
    () =>
      Effect.gen(function*() {
        const redis = yield* Services.redisServer()
        const [a, b] = yield* Effect.all([demo(redis.url, "one:"), demo(redis.url, "two:")], { concurrency: 2 })
        const [one, two] = yield* Effect.promise(() => Promise.all([initialize(a), initialize(b)]))
        yield* Effect.promise(async () => {
          assert.strictEqual(await initialized(a, one), 202)
          assert.strictEqual(await initialized(b, two), 202)
          assert.strictEqual(await initialized(b, one), 404)
          assert.strictEqual(await initialized(a, two), 404)
        })
        const connection = yield* RedisConnection.make({ url: redis.url })
        const keys = yield* Effect.promise(async () => {
          const all: Array<string> = []
          let cursor = "0"
          do {
            const [next, some] = await connection.redis.scan(cursor, "COUNT", 1000)
            all.push(...some)
            cursor = next
          } while (cursor !== "0")
          return all
        })
        assert.deepStrictEqual(keys.filter((key) => !key.startsWith("one:") && !key.startsWith("two:")), [])
        assert.isTrue(keys.some((key) => key.startsWith("one:") && key.includes(one)), keys.join(" "))
        assert.isTrue(keys.some((key) => key.startsWith("two:") && key.includes(two)), keys.join(" "))
      }),
    60_000
  )
})
