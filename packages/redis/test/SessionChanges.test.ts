/**
 * A follower of the session store's `changes` that falls behind (an instance busy elsewhere) holds
 * no more than its bound, and loses no session's state: a session's newer change replaces the
 * one not taken, and one whose state was let go is read again from Redis (gone: its end).
 * Before the bound, every change waited in an unbounded PubSub (all 121 heard, 3 per session).
 */
import type { SessionStore } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisSessionStore from "../src/RedisSessionStore.js"

const on = (url: string, options: RedisSessionStore.Options = {}) =>
  Effect.gen(function*() {
    const redis = yield* RedisConnection.make({ url })
    return yield* Effect.provideService(RedisSessionStore.make(options), RedisConnection.RedisConnection, redis)
  })

const stateOf = (round: number) => ({ phase: "ready", round, pad: "x".repeat(4096) })

describe("RedisSessionStore changes", () => {
  it.scopedLive("a follower that falls behind holds its bound, and hears each session's newest state once", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const writer = yield* on(server.url)
      const follower = yield* on(server.url, { maxPendingChanges: 8, maxPendingChangeBytes: 16 * 1024 })
      const ids = Array.from({ length: 40 }, (_, i) => `s${i}`)
      for (const id of [...ids, "marker"]) {
        yield* writer.create({ id, legacy: false, subject: undefined, state: stateOf(0) }, {
          ttlMillis: 60_000,
          maxSessions: 100
        })
      }
      // An eager follower: once it hears the marker, the slow one has every change before it too.
      const markerHeard = yield* Deferred.make<void>()
      yield* Effect.forkScoped(
        Stream.runForEach(follower.changes, (change) =>
          change.id === "marker" && change.state?.round === 1
            ? Deferred.succeed(markerHeard, undefined)
            : Effect.void)
      )
      // A slow one: takes the first change, then nothing until the gate opens.
      const first = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const slow = yield* Effect.fork(Stream.runCollect(follower.changes.pipe(
        Stream.tap(() => Effect.zipRight(Deferred.succeed(first, undefined), Deferred.await(gate))),
        Stream.takeUntil((change: SessionStore.Change) => change.id === "marker" && change.state?.round === 1)
      )))
      // Subscribed only once the first change of a probe comes through.
      yield* writer.update("marker", stateOf(0), 60_000).pipe(
        Effect.zipRight(Deferred.await(first)),
        Effect.timeout("200 millis"),
        Effect.retry({ times: 100 }),
        Effect.orDie
      )
      for (let round = 1; round <= 3; round++) {
        for (const id of ids) yield* writer.update(id, stateOf(round), 60_000)
      }
      yield* writer.remove("s0")
      yield* writer.update("marker", stateOf(1), 60_000)
      yield* Deferred.await(markerHeard)
      yield* Deferred.succeed(gate, undefined)
      const heard = Array.from(yield* Fiber.join(slow)).filter((change) => change.id !== "marker")
      // 4 states held (16 KiB of 4 KiB each), the others read again: s38, s39 and s0 came held.
      assert.deepStrictEqual(heard.filter((change) => change.origin !== 0).map((change) => change.id), [
        "s38",
        "s39",
        "s0"
      ])
      // Once per session at most (the newest replaced the older), not 3 per session.
      const byId = new Map(heard.map((change) => [change.id, change] as const))
      assert.strictEqual(heard.length, byId.size)
      // Each session's newest state, whether it was held or read again; s0's end.
      assert.strictEqual(byId.get("s0")?.state, undefined)
      assert.isTrue(byId.has("s0"))
      for (const id of ids.slice(1)) assert.strictEqual(byId.get(id)?.state?.round, 3, id)
    }))
})
