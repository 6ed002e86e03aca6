import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as RedisConnection from "../src/RedisConnection.js"

describe("RedisConnection", () => {
  it.scopedLive("commands, scripts and shared subscriptions on a real redis-server", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const redis = yield* RedisConnection.make({ url: server.url })
      assert.strictEqual(yield* redis.use((r) => r.set("k", "v")), "OK")
      const script: RedisConnection.Script = {
        name: "mcpTestEcho",
        numberOfKeys: 1,
        lua: "return redis.call('GET', KEYS[1]) .. ARGV[1]"
      }
      assert.strictEqual(yield* redis.eval(script, ["k"], ["!"]), "v!")
      const a = yield* redis.subscribe("ch")
      const b = yield* redis.subscribe("ch")
      yield* redis.use((r) => r.publish("ch", "hello"))
      assert.deepStrictEqual(yield* Queue.take(a), { _tag: "Message", payload: "hello" })
      assert.deepStrictEqual(yield* Queue.take(b), { _tag: "Message", payload: "hello" })
    }))

  it.scopedLive("Redis down: a command fails at once with RedisUnavailable; back: it works, subscribers hear Resubscribed", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const redis = yield* RedisConnection.make({ url: server.url, maxReconnectDelay: 100 })
      const queue = yield* redis.subscribe("ch")
      yield* server.kill
      yield* Effect.sleep(50)
      const started = Date.now()
      const exit = yield* Effect.exit(redis.use((r) => r.get("k")))
      assert.isTrue(Exit.isFailure(exit))
      assert.isBelow(Date.now() - started, 1_000)
      assert.isFalse(yield* redis.isReady)
      yield* server.start
      // Back within a few reconnection attempts.
      yield* Effect.retry(redis.use((r) => r.ping()), Schedule.intersect(Schedule.recurs(100), Schedule.spaced(50)))
      assert.deepStrictEqual(yield* Queue.take(queue), { _tag: "Resubscribed" })
      yield* redis.use((r) => r.publish("ch", "again"))
      assert.deepStrictEqual(yield* Queue.take(queue), { _tag: "Message", payload: "again" })
    }))

  it.live("no Redis at the URL: the layer fails with RedisUnavailable", () =>
    Effect.gen(function*() {
      const port = yield* Services.freePort
      const exit = yield* Effect.exit(
        Effect.scoped(RedisConnection.make({ url: `redis://127.0.0.1:${port}`, connectTimeout: 500 }))
      )
      assert.isTrue(Exit.isFailure(exit))
    }))
})
