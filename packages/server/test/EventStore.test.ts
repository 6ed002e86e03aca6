import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as EventStore from "../src/EventStore.js"

const event = (stream: string, seq: number) => ({ id: EventStore.eventId(stream, seq), data: `${stream}:${seq}` })

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
})
