/**
 * The Redis event store on a real redis-server: replays whole or refused (unknown, evicted, a
 * lost append, Redis down), two processes on one Redis, the byte budgets (per session and across
 * sessions) and the bounds, `clear`, the TTL (its own, and a session record's), Redis killed and
 * back.
 */
import { EventStore } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Events from "../src/internal/events.js"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisEventStore from "../src/RedisEventStore.js"
import * as Waits from "./utils/waits.js"

const event = (stream: string, seq: number, data = `${stream}:${seq}`): EventStore.Event => ({
  id: EventStore.eventId(stream, seq),
  data
})

/** Why a resumption cannot be served, or "served". */
const reasonOf = (after: Effect.Effect<ReadonlyArray<EventStore.Event>, EventStore.EventsUnavailable>) =>
  Effect.map(Effect.either(after), (result) => result._tag === "Left" ? result.left.reason : "served")

const dataOf = (after: Effect.Effect<ReadonlyArray<EventStore.Event>, EventStore.EventsUnavailable>) =>
  Effect.map(after, (events) => events.map((e) => e.data))

/** A store on its own connection (one process of a deployment, say). */
const on = (url: string, options: RedisEventStore.Options = {}) =>
  Effect.flatMap(
    RedisConnection.make({ url, maxReconnectDelay: 100, ...Waits.slowCommands }),
    (redis) =>
      Effect.map(
        Effect.provideService(RedisEventStore.make(options), RedisConnection.RedisConnection, redis),
        (store) => ({ store, redis })
      )
  )

/** A store on its own connection (one process of a deployment, say). */
const storeOn = (url: string, options: RedisEventStore.Options = {}) =>
  Effect.map(on(url, options), ({ store }) => store)

/** Until Redis answers again. */
const back = (store: RedisEventStore.RedisEventStore) => Waits.eventually(store.bytes("any"), "Redis never came back")

describe("RedisEventStore", () => {
  it.scopedLive("replays a stream after an id: every later event, in order, never another stream's", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const store = yield* storeOn(server.url)
      yield* store.append("x", event("s0", 0, ""))
      for (const e of [event("s0", 1), event("s1", 0), event("s0", 2), event("s0", 3, "ünïcødé ✓")]) {
        yield* store.append("x", e)
      }
      const replay = yield* store.after("x", EventStore.eventId("s0", 0))
      assert.deepStrictEqual(replay, [event("s0", 1), event("s0", 2), event("s0", 3, "ünïcødé ✓")])
      assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("s0", 2))), ["ünïcødé ✓"])
      assert.deepStrictEqual(yield* store.after("x", EventStore.eventId("s0", 3)), [])
      assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("s1", 0))), [])
      // Another session's stream of the same name is another stream.
      assert.strictEqual(yield* reasonOf(store.after("y", EventStore.eventId("s0", 0))), "unknown-stream")
      // An event appended twice, or late, is kept once.
      yield* store.append("x", event("s0", 2, "again"))
      assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("s0", 1))), ["s0:2", "ünïcødé ✓"])
      // What Redis holds, as counted: the data in UTF-8 with its overhead, and each stream's.
      const bytes = ["", "s0:1", "s1:0", "s0:2", "ünïcødé ✓"]
        .reduce((sum, data) => sum + Events.eventBytes(Buffer.byteLength(data)), 2 * Events.streamOverhead)
      assert.strictEqual(yield* store.bytes("x"), bytes)
      assert.strictEqual(yield* store.bytes(), bytes + Events.sessionOverhead)
      assert.isAbove(yield* store.memoryUsage("x"), 0)
    }))

  it.scopedLive("two processes on one Redis: appended by one, resumed by the other", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const one = yield* storeOn(server.url)
      const other = yield* storeOn(server.url)
      yield* one.append("x", event("a", 0, ""))
      yield* one.append("x", event("a", 1))
      yield* other.append("x", event("b", 0, ""))
      yield* one.append("x", event("a", 2))
      assert.deepStrictEqual(yield* dataOf(other.after("x", EventStore.eventId("a", 0))), ["a:1", "a:2"])
      assert.deepStrictEqual(yield* dataOf(one.after("x", EventStore.eventId("b", 0))), [])
      // As a layer, on the connection of the context.
      const context = yield* Layer.build(
        RedisEventStore.layer().pipe(Layer.provide(RedisConnection.layer({ url: server.url })))
      )
      const viaLayer = Context.get(context, EventStore.EventStore)
      assert.deepStrictEqual(yield* dataOf(viaLayer.after("x", EventStore.eventId("a", 1))), ["a:2"])
    }))

  it.scopedLive("an unknown stream, session or id: refused as unknown-stream", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const store = yield* storeOn(server.url)
      yield* store.append("x", event("a", 0, ""))
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("b", 0))), "unknown-stream")
      assert.strictEqual(yield* reasonOf(store.after("nobody", EventStore.eventId("a", 0))), "unknown-stream")
      assert.strictEqual(yield* reasonOf(store.after("x", "not-an-id")), "unknown-stream")
      const error = yield* Effect.flip(store.after("x", EventStore.eventId("b", 0)))
      assert.include(error.message, "b_0")
    }))

  it.scopedLive("the byte budget: the session's oldest events go first; a resumption across them is refused, one after them served", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      // Three streams and three events of 1,000 bytes fit, not four.
      const one = Events.eventBytes(1000)
      const budget = 3 * Events.streamOverhead + 3 * one + 100
      const store = yield* storeOn(server.url, { maxBytesPerSession: budget })
      const big = (stream: string, seq: number) => event(stream, seq, String(seq).repeat(1000))
      yield* store.append("x", big("a", 0))
      yield* store.append("x", big("b", 0))
      yield* store.append("x", big("a", 1))
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 0))), "served")
      // A fourth: a_0, the oldest, goes.
      yield* store.append("x", big("b", 1))
      assert.isAtMost(yield* store.bytes("x"), budget)
      assert.strictEqual(yield* store.bytes("x"), 2 * Events.streamOverhead + 3 * one)
      assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("a", 0))), ["1".repeat(1000)])
      // Two more: b_0 and a_1 go; a resumption of a needing a_1 is refused, of b after b_0 served.
      yield* store.append("x", big("b", 2))
      yield* store.append("x", big("c", 0))
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 0))), "evicted")
      assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("a", 1))), [])
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("b", 0))), "served")
      assert.deepStrictEqual((yield* store.after("x", EventStore.eventId("b", 0))).map((e) => e.id), ["b_1", "b_2"])
      assert.strictEqual(yield* store.bytes("x"), 3 * Events.streamOverhead + 3 * one)
      // An event larger than the whole budget is not kept: resuming before it is refused.
      yield* store.append("x", event("d", 0, ""))
      yield* store.append("x", event("d", 1, "x".repeat(4000)))
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("d", 0))), "evicted")
      assert.isAtMost(yield* store.bytes("x"), budget)
    }))

  it.scopedLive(
    "what the budgets count is at least what Redis holds (MEMORY USAGE), whatever the events' size",
    () =>
      Effect.gen(function*() {
        const server = yield* Services.redisServer()
        const store = yield* storeOn(server.url, { maxBytesPerSession: 1e9, maxBytes: 1e10 })
        for (const [size, streams, events] of [[10, 100, 1], [180, 1, 1000], [2150, 1, 1000], [9000, 2, 200]]) {
          const session = `s${size}`
          for (let s = 0; s < streams; s++) {
            for (let seq = 0; seq < events; seq++) yield* store.append(session, event(`k${s}`, seq, "x".repeat(size)))
          }
          const counted = (yield* store.bytes(session)) + Events.sessionOverhead
          const held = yield* store.memoryUsage(session)
          assert.isAtMost(held, counted, `${streams} streams of ${events} events of ${size} bytes`)
          // Not wildly over either: the budget is not wasted.
          assert.isAbove(held, counted * 0.5, `${streams} streams of ${events} events of ${size} bytes`)
        }
      }),
    { timeout: 30_000 }
  )

  it.scopedLive("the newest events of a stream and the newest streams of a session", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const store = yield* storeOn(server.url, { maxEventsPerStream: 2, maxStreamsPerSession: 2 })
      for (let seq = 0; seq <= 3; seq++) yield* store.append("x", event("a", seq))
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 0))), "evicted")
      assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("a", 1))), ["a:2", "a:3"])
      yield* store.append("x", event("b", 0))
      yield* store.append("x", event("c", 0))
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 1))), "unknown-stream")
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("b", 0))), "served")
      assert.strictEqual(yield* store.bytes("x"), 2 * (Events.streamOverhead + Events.eventBytes("b:0".length)))
    }))

  it.scopedLive(
    "an append that never reached Redis is a gap: a resumption across it is refused, from any process",
    () =>
      Effect.gen(function*() {
        const server = yield* Services.redisServer({ persist: true })
        const { redis, store } = yield* on(server.url)
        // 2 is missing (lost): after 0 or 1 the replay would skip it.
        yield* store.append("x", event("a", 0, ""))
        yield* store.append("x", event("a", 1))
        yield* store.append("x", event("a", 3))
        assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 0))), "evicted")
        assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 1))), "evicted")
        assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("a", 2))), ["a:3"])
        // A client that saw further than the store knows: the appends in between were lost.
        assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 7))), "evicted")

        // The last append lost while Redis is down: nothing follows it to show the gap, yet it is refused.
        yield* store.append("x", event("b", 0, ""))
        yield* store.append("x", event("b", 1))
        yield* server.kill
        yield* Waits.down(redis)
        yield* store.append("x", event("b", 2))
        yield* server.start
        yield* back(store)
        assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("b", 1))), "evicted")
        // Recorded in Redis once it is back: another process refuses it too.
        const other = yield* storeOn(server.url)
        yield* Waits.until(
          Effect.map(reasonOf(other.after("x", EventStore.eventId("b", 1))), (reason) => reason === "evicted"),
          "the lost append was never recorded in Redis"
        )
        assert.strictEqual(yield* reasonOf(other.after("x", EventStore.eventId("b", 0))), "evicted")
      }),
    { timeout: 20_000 }
  )

  it.scopedLive("a replay that is not exactly the positions the stream holds (records changed under the store) is refused", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const store = yield* storeOn(server.url)
      for (let seq = 0; seq <= 2; seq++) yield* store.append("x", event("a", seq))
      // One entry more than its positions say.
      const redis = yield* RedisConnection.make({ url: server.url })
      yield* redis.use((r) => r.rpush("mcp:events.v2:{x}:s:a", "99:a:3"))
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 0))), "evicted")
    }))

  it.scopedLive("clear forgets every event of a session, and only of that one", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer({ persist: false })
      const store = yield* storeOn(server.url)
      yield* store.append("x", event("a", 0))
      yield* store.append("x", event("b", 0))
      yield* store.append("y", event("a", 0))
      yield* store.clear("x")
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("a", 0))), "unknown-stream")
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("b", 0))), "unknown-stream")
      assert.strictEqual(yield* reasonOf(store.after("y", EventStore.eventId("a", 0))), "served")
      assert.strictEqual(yield* store.bytes("x"), 0)
      // Only y's keys are left, and only y is counted across sessions.
      const redis = yield* RedisConnection.make({ url: server.url })
      const keys = (yield* redis.use((r) => r.keys("mcp:events.v2:{*"))).sort()
      assert.isTrue(keys.length > 0 && keys.every((key) => key.startsWith("mcp:events.v2:{y}:")), keys.join(", "))
      assert.deepStrictEqual(yield* redis.use((r) => r.zrange("mcp:events.v2:held", "0", "-1")), ["y"])
      assert.strictEqual(yield* store.bytes(), (yield* store.bytes("y")) + Events.sessionOverhead)
    }))

  it.scopedLive("ttl: a session's keys expire after its last append; an append keeps them; the sum forgets them", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const store = yield* storeOn(server.url, { ttl: "3 seconds" })
      yield* store.append("x", event("a", 0))
      yield* store.append("x", event("b", 0))
      const redis = yield* RedisConnection.make({ url: server.url })
      const ttls = yield* redis.use((r) =>
        r.keys("mcp:events.v2:{x}:*").then((keys) => Promise.all(keys.map((k) => r.pttl(k))))
      )
      assert.isTrue(ttls.length >= 4 && ttls.every((t) => t > 0 && t <= 3_000), ttls.join(", "))
      // Real time: Redis expires keys by its own clock. Half-way to a's expiry, b is appended to.
      yield* Waits.until(
        Effect.map(redis.use((r) => r.pttl("mcp:events.v2:{x}:s:a")), (ttl) => ttl < 1_500),
        "a's TTL never ran down"
      )
      yield* store.append("x", event("b", 1))
      // a: no append since, gone when its TTL runs out; b: appended to, kept 1.5 s longer.
      yield* Waits.until(
        Effect.map(reasonOf(store.after("x", EventStore.eventId("a", 0))), (reason) => reason === "unknown-stream"),
        "a's events never expired"
      )
      assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("b", 0))), ["b:1"])
      yield* Waits.until(
        Effect.map(reasonOf(store.after("x", EventStore.eventId("b", 0))), (reason) => reason === "unknown-stream"),
        "b's events never expired"
      )
      assert.deepStrictEqual(yield* redis.use((r) => r.keys("mcp:events.v2:{*")), [])
      // The next append anywhere prunes it from the sum across sessions.
      yield* store.append("y", event("a", 0))
      assert.strictEqual(yield* store.bytes(), (yield* store.bytes("y")) + Events.sessionOverhead)
      assert.deepStrictEqual(yield* redis.use((r) => r.zrange("mcp:events.v2:held", "0", "-1")), ["y"])
    }))

  it.scopedLive("with a session record on the same Redis, its events live as long as the record", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      // Its own ttl is an hour: the record's (2 seconds left) wins.
      const store = yield* storeOn(server.url, { ttl: "1 hour" })
      const redis = yield* RedisConnection.make({ url: server.url })
      yield* redis.use((r) => r.set("mcp:session.v2:x", "record", "PX", 2_000))
      yield* store.append("x", event("a", 0))
      yield* store.append("x", event("a", 1))
      const ttls = yield* redis.use((r) =>
        r.keys("mcp:events.v2:{x}:*").then((keys) => Promise.all(keys.map((k) => r.pttl(k))))
      )
      assert.isTrue(ttls.length >= 3 && ttls.every((t) => t > 1_000 && t <= 2_000), ttls.join(", "))
      // Without a record: its own.
      yield* store.append("y", event("a", 0))
      assert.isAbove(yield* redis.use((r) => r.pttl("mcp:events.v2:{y}:meta")), 3_000_000)
    }))

  it.scopedLive("the budget across sessions: the one holding the most is trimmed first; small ones keep theirs", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const one = Events.eventBytes(1000)
      const session = Events.sessionOverhead + Events.streamOverhead
      // Room for two sessions of 4 events and one of 1, not more.
      const maxBytes = 3 * session + 9 * one
      const store = yield* storeOn(server.url, { maxBytes })
      const other = yield* storeOn(server.url, { maxBytes })
      const big = (seq: number) => event("s", seq, String(seq % 10).repeat(1000))
      yield* store.append("small", big(0))
      for (let seq = 0; seq < 4; seq++) yield* store.append("a", big(seq))
      for (let seq = 0; seq < 4; seq++) yield* other.append("b", big(seq))
      assert.strictEqual(yield* store.bytes(), maxBytes)
      // Filling one session further trims the largest (itself): small keeps its one.
      for (let seq = 4; seq < 20; seq++) {
        yield* store.append("a", big(seq))
        assert.isAtMost(yield* store.bytes(), maxBytes)
      }
      assert.strictEqual(yield* reasonOf(store.after("small", EventStore.eventId("s", 0))), "served")
      assert.strictEqual(yield* store.bytes("small"), Events.streamOverhead + one)
      // a and b hold an equal share, each at most one event apart.
      const [a, b] = [yield* store.bytes("a"), yield* store.bytes("b")]
      assert.isAtMost(Math.abs(a - b), one)
      // a's newest events are kept, its oldest refused.
      assert.strictEqual(yield* reasonOf(store.after("a", EventStore.eventId("s", 16))), "served")
      assert.strictEqual(yield* reasonOf(store.after("a", EventStore.eventId("s", 0))), "evicted")
      // Cleared sessions leave the sum.
      yield* store.clear("a")
      yield* store.clear("b")
      assert.strictEqual(yield* store.bytes(), session + one)
    }))

  it.scopedLive(
    "Redis killed: after fails at once as unavailable, append and clear neither fail nor hang; back: it works",
    () =>
      Effect.gen(function*() {
        const server = yield* Services.redisServer({ persist: true })
        const { redis, store } = yield* on(server.url)
        yield* store.append("x", event("a", 0, ""))
        yield* server.kill
        yield* Waits.down(redis)
        // Refused, not queued: a command held for Redis would wait for its timeout (a minute).
        const failed = yield* Waits.atOnce(Effect.flip(store.after("x", EventStore.eventId("a", 0))), "after")
        assert.strictEqual(failed.reason, "unavailable")
        assert.strictEqual(failed.message, "The event store cannot be reached")
        const appended = yield* Waits.atOnce(Effect.exit(store.append("x", event("c", 0))), "append")
        const cleared = yield* Waits.atOnce(Effect.exit(store.clear("y")), "clear")
        assert.isTrue(Exit.isSuccess(appended) && Exit.isSuccess(cleared))
        yield* server.start
        yield* back(store)
        // Kept across the restart (appendonly), and appended to again.
        yield* store.append("x", event("a", 1))
        assert.deepStrictEqual(yield* dataOf(store.after("x", EventStore.eventId("a", 0))), ["a:1"])
        // What was appended while it was down is not there: unknown.
        assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("c", 0))), "unknown-stream")
      }),
    { timeout: 20_000 }
  )

  it.scopedLive("options must be positive integers", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const exit = yield* Effect.exit(storeOn(server.url, { maxEventsPerStream: 0 }))
      assert.isTrue(Exit.isFailure(exit))
    }))
})
