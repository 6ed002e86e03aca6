import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisState from "../src/RedisState.js"
import * as Waits from "./utils/waits.js"

/**
 * Closes `scope` (in a fiber of its own: a finalizer cannot be interrupted) and waits for it at
 * most 20 seconds, a guard against a hang, not a timing: did it close?
 */
const closes = (scope: Scope.CloseableScope) =>
  Effect.gen(function*() {
    const closing = yield* Effect.forkDaemon(Scope.close(scope, Exit.void))
    return Option.isSome(yield* Effect.timeoutOption(Fiber.await(closing), "20 seconds"))
  })

/** Once the connection has ended (closed for good): at most 20 seconds, as above. */
const ended = (redis: RedisConnection.Service["redis"]) =>
  Effect.async<void>((resume) => {
    if (redis.status === "end") return resume(Effect.void)
    redis.once("end", () => resume(Effect.void))
  }).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the connection did not end") }))

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
      assert.deepStrictEqual(yield* a.take, { _tag: "Message", payload: "hello" })
      assert.deepStrictEqual(yield* b.take, { _tag: "Message", payload: "hello" })
    }))

  it.scopedLive("Redis down: a command fails at once with RedisUnavailable; back: it works, subscribers hear Resubscribed", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const redis = yield* RedisConnection.make({ url: server.url, maxReconnectDelay: 100, ...Waits.slowCommands })
      const queue = yield* redis.subscribe("ch")
      yield* server.kill
      yield* Waits.down(redis)
      // Refused, not queued: a command held for Redis would wait for its timeout (a minute).
      const exit = yield* Waits.atOnce(Effect.exit(redis.use((r) => r.get("k"))), "a command")
      assert.isTrue(Exit.isFailure(exit))
      assert.isFalse(yield* redis.isReady)
      yield* server.start
      // Back within a few reconnection attempts.
      yield* Waits.eventually(redis.use((r) => r.ping()))
      assert.deepStrictEqual(yield* queue.take, { _tag: "Resubscribed" })
      yield* redis.use((r) => r.publish("ch", "again"))
      assert.deepStrictEqual(yield* queue.take, { _tag: "Message", payload: "again" })
    }))

  // Issue 35, item 25: a server with --redis did not stop while its Redis answered nothing (each
  // UNSUBSCRIBE and the QUIT of the subscription connection waited for as long, with no bound).
  it.scopedLive("Redis paused (connections open, nothing answered): the connection is released anyway", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const scope = yield* Scope.make()
      const connection = yield* Scope.extend(RedisConnection.make({ url: server.url }), scope)
      yield* Scope.extend(connection.subscribe("a"), scope)
      yield* Scope.extend(connection.subscribe("b"), scope)
      yield* server.pause
      assert.isTrue(yield* closes(scope), "the scope did not close while Redis was paused")
      yield* ended(connection.redis)
      yield* server.resume
    }))

  it.scopedLive("Redis paused: every shared part is released anyway (RedisState, as a stopping server)", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(RedisState.layer({ url: server.url }), scope)
      const connection = yield* Effect.provide(RedisConnection.RedisConnection, context)
      yield* server.pause
      assert.isTrue(yield* closes(scope), "the scope did not close while Redis was paused")
      yield* ended(connection.redis)
      yield* server.resume
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
