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
      assert.deepStrictEqual(yield* store.after("y", EventStore.eventId("a", 0)), [])
    }))

  it.effect("keeps the newest events of a stream and the newest streams of a session", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxEventsPerStream: 2, maxStreamsPerSession: 2 })
      for (let seq = 1; seq <= 4; seq++) yield* store.append("x", event("a", seq))
      assert.deepStrictEqual((yield* store.after("x", EventStore.eventId("a", 0))).map((e) => e.data), ["a:3", "a:4"])
      yield* store.append("x", event("b", 1))
      yield* store.append("x", event("c", 1))
      assert.deepStrictEqual(yield* store.after("x", EventStore.eventId("a", 0)), [], "the oldest stream went")
      assert.strictEqual((yield* store.after("x", EventStore.eventId("c", 0))).length, 1)
    }))

  it.effect("forgets a whole session", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory()
      yield* store.append("x", event("a", 1))
      yield* store.append("x", event("b", 1))
      yield* store.clear("x")
      assert.deepStrictEqual(yield* store.after("x", EventStore.eventId("b", 0)), [])
    }))
})
