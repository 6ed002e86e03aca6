import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as EventStore from "../src/EventStore.js"

const event = (stream: string, seq: number) => ({ id: EventStore.eventId(stream, seq), data: `${stream}:${seq}` })

/** Why a resumption cannot be served, or "served" (a short failure message either way). */
const reasonOf = (after: Effect.Effect<ReadonlyArray<EventStore.Event>, EventStore.EventsUnavailable>) =>
  Effect.map(Effect.either(after), (result) => result._tag === "Left" ? result.left.reason : "served")

describe("EventStore (memory)", () => {
  it("event ids name their stream and position", () => {
    assert.deepStrictEqual(EventStore.parseEventId(EventStore.eventId("s_1", 7)), { streamId: "s_1", seq: 7 })
    assert.isUndefined(EventStore.parseEventId("nope"))
    assert.isUndefined(EventStore.parseEventId("s_x"))
  })

  it.effect("replays one stream after an id, never another", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory()
      for (const e of [event("a", 1), event("b", 1), event("a", 2), event("a", 3)]) yield* store.append("x", e)
      assert.deepStrictEqual((yield* store.after("x", EventStore.eventId("a", 1))).map((e) => e.data), ["a:2", "a:3"])
      // A stream the store never saw: not an empty replay but an error.
      const unknown = yield* Effect.flip(store.after("y", EventStore.eventId("a", 0)))
      assert.deepStrictEqual([unknown._tag, unknown.reason], ["EventsUnavailable", "unknown-stream"])
    }))

  it.effect("keeps the newest events of a stream and the newest streams of a session", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxEventsPerStream: 2, maxStreamsPerSession: 2 })
      for (let seq = 1; seq <= 4; seq++) yield* store.append("x", event("a", seq))
      // Events 1 and 2 were evicted: a replay after 0 or 1 has a gap, after 2 it is whole.
      assert.strictEqual((yield* Effect.flip(store.after("x", EventStore.eventId("a", 0)))).reason, "evicted")
      assert.strictEqual((yield* Effect.flip(store.after("x", EventStore.eventId("a", 1)))).reason, "evicted")
      assert.deepStrictEqual((yield* store.after("x", EventStore.eventId("a", 2))).map((e) => e.data), ["a:3", "a:4"])
      yield* store.append("x", event("b", 1))
      yield* store.append("x", event("c", 1))
      const gone = yield* Effect.flip(store.after("x", EventStore.eventId("a", 2)))
      assert.strictEqual(gone.reason, "unknown-stream", "the oldest stream went")
      assert.strictEqual((yield* store.after("x", EventStore.eventId("c", 0))).length, 1)
    }))

  it.effect("forgets a whole session", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory()
      yield* store.append("x", event("a", 1))
      yield* store.append("x", event("b", 1))
      yield* store.clear("x")
      assert.strictEqual((yield* Effect.flip(store.after("x", EventStore.eventId("b", 0)))).reason, "unknown-stream")
    }))

  it.effect("keeps at most maxBytesPerSession bytes per session, the oldest events evicted first", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxBytesPerSession: 3100 })
      const big = (stream: string, seq: number) => ({ id: EventStore.eventId(stream, seq), data: "x".repeat(1000) })
      yield* store.append("x", big("a", 1))
      yield* store.append("x", big("b", 1))
      yield* store.append("x", big("a", 2))
      // The fourth event of about 1000 bytes pushes the session over 3100 bytes: a:1, the oldest, goes.
      yield* store.append("x", big("b", 2))
      assert.strictEqual((yield* Effect.flip(store.after("x", EventStore.eventId("a", 0)))).reason, "evicted")
      assert.deepStrictEqual((yield* store.after("x", EventStore.eventId("a", 1))).map((e) => e.id), ["a_2"])
      assert.deepStrictEqual((yield* store.after("x", EventStore.eventId("b", 0))).map((e) => e.id), ["b_1", "b_2"])
      // Another session has a budget of its own.
      yield* store.append("y", big("a", 1))
      assert.strictEqual((yield* store.after("y", EventStore.eventId("a", 0))).length, 1)
    }))

  it.effect("an event larger than the budget is not kept: its resumption is a gap, not silence", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxBytesPerSession: 100 })
      yield* store.append("x", { id: EventStore.eventId("a", 1), data: "y".repeat(500) })
      assert.strictEqual((yield* Effect.flip(store.after("x", EventStore.eventId("a", 0)))).reason, "evicted")
    }))

  it.effect("maxBytes bounds all sessions: the largest give up their oldest events, a small one keeps its own", () =>
    Effect.gen(function*() {
      const maxBytes = 64 * 1024
      const store = yield* EventStore.makeMemory({ maxBytes })
      const big = Array.from({ length: 20 }, (_, i) => `big${i}`)
      /** A small session, then twenty of ten 1000-byte events each: about 240 KB wanted. */
      const fill = (each: Effect.Effect<void>) =>
        Effect.gen(function*() {
          yield* store.append("small", { id: EventStore.eventId("a", 1), data: "x".repeat(100) })
          for (const session of big) {
            for (let seq = 1; seq <= 10; seq++) {
              yield* store.append(session, { id: EventStore.eventId("a", seq), data: "y".repeat(1000) })
              yield* each
            }
          }
        })
      yield* fill(Effect.void)
      // Each big session lost its oldest events (a gap, an error) and kept its newest, as its
      // neighbours did; the small one kept all of its own.
      for (const session of big) {
        assert.strictEqual(yield* reasonOf(store.after(session, EventStore.eventId("a", 0))), "evicted")
        assert.deepStrictEqual((yield* store.after(session, EventStore.eventId("a", 8))).map((e) => e.id), [
          "a_9",
          "a_10"
        ])
      }
      assert.deepStrictEqual((yield* store.after("small", EventStore.eventId("a", 0))).map((e) => e.id), ["a_1"])
      // The store's count: the sum of its sessions', at least the data they hold, zero once cleared.
      let sum = yield* store.bytes("small")
      for (const session of big) {
        const bytes = yield* store.bytes(session)
        sum += bytes
        const newest = yield* store.after(session, EventStore.eventId("a", 8))
        assert.isAtLeast(bytes, newest.reduce((n, e) => n + e.data.length + e.id.length, 0))
      }
      assert.strictEqual(yield* store.bytes(), sum)
      for (const session of ["small", ...big]) yield* store.clear(session)
      assert.strictEqual(yield* store.bytes(), 0)
      // Filled again: the total is under maxBytes after every append, not only in the end.
      yield* fill(Effect.flatMap(store.bytes(), (bytes) => Effect.sync(() => assert.isAtMost(bytes, maxBytes))))
    }))

  it.effect("maxBytes: a session with no events left gives up its streams; resumption stays an error", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxBytes: 4000 })
      // Fifty streams of one priming event each: little data, but fifty records.
      for (let n = 0; n < 50; n++) yield* store.append("x", { id: EventStore.eventId(`s${n}`, 0), data: "" })
      // The oldest streams went whole: unknown. The newest kept their records: a resumption after
      // their priming event misses nothing, and is served (empty).
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("s0", 0))), "unknown-stream")
      assert.deepStrictEqual(yield* store.after("x", EventStore.eventId("s49", 0)), [])
      assert.isAtMost(yield* store.bytes(), 4000)
      // With less room than one event's records, nothing is kept, not even the session.
      const tiny = yield* EventStore.makeMemory({ maxBytes: 100 })
      yield* tiny.append("y", { id: EventStore.eventId("a", 1), data: "hi" })
      assert.strictEqual(yield* reasonOf(tiny.after("y", EventStore.eventId("a", 0))), "unknown-stream")
      assert.strictEqual(yield* tiny.bytes(), 0)
    }))

  it.effect("counts bytes as held: one a character for Latin-1 text, two beyond it", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxBytesPerSession: 1000 })
      // 600 Latin-1 characters: 600 bytes, kept.
      yield* store.append("x", { id: EventStore.eventId("a", 1), data: "é".repeat(600) })
      assert.strictEqual((yield* store.after("x", EventStore.eventId("a", 0))).length, 1)
      // 600 characters beyond Latin-1: 1200 bytes, over the budget, not kept.
      yield* store.append("x", { id: EventStore.eventId("b", 1), data: "€".repeat(600) })
      assert.strictEqual(yield* reasonOf(store.after("x", EventStore.eventId("b", 0))), "evicted")
    }))
})
