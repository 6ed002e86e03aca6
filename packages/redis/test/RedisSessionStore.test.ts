/**
 * The Redis session store on a real redis-server, below the HTTP layer: a record read back as
 * written, the changes a session missed (from the bus's log, all of them once the log no longer
 * reaches back), the frames kept for a GET stream nobody holds (bounded per session and across
 * sessions, and gone with the session).
 */
import { EventStore, NotificationBus } from "@effect-mcp/server"
import type { SessionStore } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisEventStore from "../src/RedisEventStore.js"
import * as RedisNotificationBus from "../src/RedisNotificationBus.js"
import * as RedisSessionStore from "../src/RedisSessionStore.js"
import * as Losses from "./utils/losses.js"

const record = (id: string, subject?: string): SessionStore.SessionRecord => ({
  id,
  legacy: false,
  subject,
  state: { phase: "ready", revision: "2025-11-25", capabilities: { tools: { listChanged: true } }, note: "ü ✓" }
})

const on = (url: string, options: RedisSessionStore.Options = {}) =>
  Effect.gen(function*() {
    const redis = yield* RedisConnection.make({ url })
    const store = yield* Effect.provideService(RedisSessionStore.make(options), RedisConnection.RedisConnection, redis)
    return { redis, store }
  })

describe("RedisSessionStore", () => {
  it.scopedLive("a record reads back as written (its subject, its state), and goes with remove", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { store } = yield* on(server.url)
      const created = yield* store.create(record("a", "sub\nject ü"), { ttlMillis: 60_000, maxSessions: 10 })
      assert.isTrue(created)
      assert.deepStrictEqual(yield* store.get("a"), Option.some(record("a", "sub\nject ü")))
      yield* store.update("a", { phase: "ready", revision: "2025-06-18" }, 60_000)
      const updated = yield* store.get("a")
      assert.deepStrictEqual(
        Option.map(updated, (r) => [r.subject, r.state]),
        Option.some(["sub\nject ü", {
          phase: "ready",
          revision: "2025-06-18"
        }])
      )
      assert.isTrue(yield* store.touch("a", 60_000))
      yield* store.remove("a")
      assert.isTrue(Option.isNone(yield* store.get("a")))
      assert.isFalse(yield* store.touch("a", 60_000))
    }))

  it.scopedLive("a record that does not decode is lost alone: get finds nothing, counted and logged; the others read on", () =>
    Losses.withWarnings((warnings) =>
      Effect.gen(function*() {
        const server = yield* Services.redisServer()
        const { redis, store } = yield* on(server.url)
        for (const id of ["a", "b", "c"]) {
          assert.isTrue(yield* store.create(record(id), { ttlMillis: 60_000, maxSessions: 10 }))
        }
        const before = yield* Losses.lost("session")
        // A subject longer than the record; a state that is not deflated JSON.
        yield* redis.use((r) => r.set("mcp:session.v2:b", "0 0-0 40\nshort", "KEEPTTL"))
        yield* redis.use((r) => r.set("mcp:session.v2:c", "0 0-0 0\n{\"phase\":\"ready\"}", "KEEPTTL"))
        assert.isTrue(Option.isNone(yield* store.get("b")))
        assert.isTrue(Option.isNone(yield* store.get("c")))
        assert.deepStrictEqual(yield* store.get("a"), Option.some(record("a")))
        assert.strictEqual((yield* Losses.lost("session")) - before, 2)
        // Logged at once; the next loss within 10 seconds is counted, and told with the next warning.
        assert.isTrue(
          warnings.some((warning) => warning.includes("session record read from Redis (mcp:session.v2:b)")),
          warnings.join("\n")
        )
      })
    ))

  it.scopedLive("maxSessions counts the live sessions over every instance; an expired one leaves room, and its events", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { redis, store } = yield* on(server.url)
      const other = (yield* on(server.url)).store
      assert.isTrue(yield* store.create(record("a"), { ttlMillis: 300, maxSessions: 2 }))
      assert.isTrue(yield* other.create(record("b"), { ttlMillis: 60_000, maxSessions: 2 }))
      assert.isFalse(yield* other.create(record("c"), { ttlMillis: 60_000, maxSessions: 2 }))
      const events = yield* Effect.provideService(RedisEventStore.make(), RedisConnection.RedisConnection, redis)
      yield* events.append("a", { id: EventStore.eventId("x", 0), data: "data" })
      assert.deepStrictEqual(yield* redis.use((r) => r.zrange("mcp:events.v2:held", "0", "-1")), ["a"])
      // Once a has expired (Redis's clock), c fits, and a leaves the event store's sums.
      yield* Effect.retry(
        Effect.filterOrFail(other.create(record("c"), { ttlMillis: 60_000, maxSessions: 2 }), (ok) => ok, () => "full"),
        Schedule.intersect(Schedule.recurs(50), Schedule.spaced(50))
      )
      assert.deepStrictEqual(yield* redis.use((r) => r.zrange("mcp:sessions", "0", "-1")), ["b", "c"])
      assert.deepStrictEqual(yield* redis.use((r) => r.zrange("mcp:events.v2:held", "0", "-1")), [])
      assert.strictEqual(yield* events.bytes(), 0)
    }))

  it.scopedLive("missed: the changes logged after the session's cursor, each as published; all once the log was cut past it", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { redis, store } = yield* on(server.url)
      const bus = yield* Effect.provideService(
        RedisNotificationBus.make({ changeLog: 3 }),
        RedisConnection.RedisConnection,
        redis
      )
      const missed = store.missed!
      yield* bus.publish(NotificationBus.listChanged("prompts"))
      yield* store.create(record("a"), { ttlMillis: 60_000, maxSessions: 10 })
      // What came before the session is not its.
      assert.deepStrictEqual(yield* missed("a"), [])
      yield* bus.publish(NotificationBus.listChanged("tools"))
      yield* bus.publish(NotificationBus.resourceUpdated("file:///a"))
      assert.deepStrictEqual(yield* missed("a"), [
        NotificationBus.listChanged("tools"),
        NotificationBus.resourceUpdated("file:///a")
      ])
      // The log keeps 3: two more, and what the session missed first is gone from it.
      yield* bus.publish(NotificationBus.listChanged("resources"))
      yield* bus.publish(NotificationBus.listChanged("resources"))
      assert.strictEqual(yield* missed("a"), "all")
      // A session that is gone missed nothing.
      assert.deepStrictEqual(yield* missed("nobody"), [])
    }))

  it.scopedLive("frames for a GET stream nobody holds: the newest kept per session, none past the sum, gone with it", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { redis, store } = yield* on(server.url, { maxPendingBytes: 250, maxPendingTotalBytes: 400 })
      for (const id of ["a", "b", "c"]) yield* store.create(record(id), { ttlMillis: 60_000, maxSessions: 10 })
      const frame = (n: number) => JSON.stringify({ jsonrpc: "2.0", method: "x", params: { n, pad: "p".repeat(60) } })
      for (let n = 0; n < 5; n++) yield* store.toStandalone("a", frame(n))
      // a keeps its newest within 250 bytes; b fills the rest of the 400, c gets nothing kept.
      for (let n = 0; n < 5; n++) yield* store.toStandalone("b", frame(n))
      yield* store.toStandalone("c", frame(0))
      const bytes = (id: string) => redis.use((r) => r.get(`mcp:pending-bytes:${id}`).then(Number))
      const [a, b, c] = [yield* bytes("a"), yield* bytes("b"), yield* bytes("c")]
      assert.isAtMost(a, 250)
      assert.isAtMost(a + b + c, 400)
      assert.strictEqual(c, 0)
      // Taken by the next holder, in order, the newest.
      const held = yield* Effect.scoped(
        Effect.flatMap(store.holdStandalone("a"), (frames) => Queue.takeAll(frames))
      )
      const taken = Array.from(held).map((f) => JSON.parse(f).params.n)
      assert.isAtLeast(taken.length, 1)
      assert.deepStrictEqual(taken, Array.from({ length: taken.length }, (_, i) => 5 - taken.length + i))
      assert.strictEqual(yield* redis.use((r) => r.get("mcp:pending:total").then(Number)), b)
      // A session that ends takes its frames with it, from the sum too.
      yield* store.remove("b")
      assert.strictEqual(yield* redis.use((r) => r.get("mcp:pending:total").then(Number)), 0)
      assert.deepStrictEqual(yield* redis.use((r) => r.keys("mcp:pending*")), ["mcp:pending:total"])
    }))

  it.scopedLive("frames kept for a GET stream are counted in UTF-8 bytes, as Redis holds them, one frame's bound too", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { redis, store } = yield* on(server.url, { maxPendingFrameLength: 200 })
      yield* store.create(record("a"), { ttlMillis: 60_000, maxSessions: 10 })
      const frame = (text: string) => JSON.stringify({ jsonrpc: "2.0", method: "x", params: { text } })
      const bytes = redis.use((r) => r.get("mcp:pending-bytes:a").then(Number))
      // 100 characters of "€" are 300 bytes: over the bound of one frame, not kept (by its length, 140, it was).
      yield* store.toStandalone("a", frame("€".repeat(100)))
      assert.strictEqual(yield* bytes, 0)
      // 50 of "é" are 100 bytes: kept, and counted as such.
      const kept = frame("é".repeat(50))
      yield* store.toStandalone("a", kept)
      assert.strictEqual(yield* bytes, Buffer.byteLength(kept))
      assert.strictEqual(yield* redis.use((r) => r.get("mcp:pending:total").then(Number)), Buffer.byteLength(kept))
    }))
})
