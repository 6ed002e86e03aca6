/**
 * The in-memory event store's bounds hold for the memory it keeps, not only for what `after` can
 * replay: events dropped by `maxEventsPerStream` or `maxStreamsPerSession` must not stay
 * referenced from the session's eviction list.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import * as EventStore from "../src/EventStore.js"

v8.setFlagsFromString("--expose-gc")
const gc: () => void = vm.runInNewContext("gc")

const heapAfterGc = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const payload = "x".repeat(1000)
/** A fresh 1000-character string each time (not shared with `payload`). */
const data = (i: number) => (payload + i).slice(0, 1000) + "!"

const MB = 1024 * 1024

describe("EventStore (memory) retains what it evicted", () => {
  it.effect("one long stream past maxEventsPerStream: memory stays bounded", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxEventsPerStream: 10 })
      const before = heapAfterGc()
      // A GET stream that carries 100k notifications over a session's life (~100 MB sent).
      for (let seq = 1; seq <= 100_000; seq++) {
        yield* store.append("session", { id: EventStore.eventId("standalone", seq), data: data(seq) })
      }
      const grown = (heapAfterGc() - before) / MB
      // 10 events of ~1 KB are kept: a few MB of slack at most.
      assert.isBelow(grown, 20, `the store holds ${grown.toFixed(0)} MB for 10 replayable events`)
      assert.strictEqual((yield* store.after("session", EventStore.eventId("standalone", 99_990))).length, 10)
    }))

  it.effect("many short streams past maxStreamsPerSession: memory stays bounded", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxStreamsPerSession: 10 })
      const before = heapAfterGc()
      // 100k POSTs that each streamed one event (progress, then a response as SSE).
      for (let n = 0; n < 100_000; n++) {
        yield* store.append("session", { id: EventStore.eventId(`s${n}`, 1), data: data(n) })
      }
      const grown = (heapAfterGc() - before) / MB
      assert.isBelow(grown, 20, `the store holds ${grown.toFixed(0)} MB for 10 replayable streams`)
    }))

  it.effect("many sessions each filling their budget: memory stays bounded by maxBytes", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxBytes: 8 * MB })
      const before = heapAfterGc()
      // 1,000 sessions of 100 events of ~1 KB (~100 MB wanted), each well under maxBytesPerSession.
      for (let s = 0; s < 1000; s++) {
        for (let seq = 1; seq <= 100; seq++) {
          yield* store.append(`session-${s}`, { id: EventStore.eventId("s0", seq), data: data(s * 100 + seq) })
        }
      }
      const grown = (heapAfterGc() - before) / MB
      assert.isBelow(grown, 16, `the store holds ${grown.toFixed(0)} MB under an 8 MiB maxBytes`)
    }))

  it.effect("many sessions of many tiny events: their records count, memory stays bounded by maxBytes", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.makeMemory({ maxBytes: 8 * MB })
      const before = heapAfterGc()
      // 1,000 sessions of 100 streams holding one priming event each: almost no data, 100k records.
      for (let s = 0; s < 1000; s++) {
        for (let n = 0; n < 100; n++) {
          yield* store.append(`session-${s}`, { id: EventStore.eventId(`s${n}`, 0), data: "" })
        }
      }
      const grown = (heapAfterGc() - before) / MB
      assert.isBelow(grown, 16, `the store holds ${grown.toFixed(0)} MB under an 8 MiB maxBytes`)
    }))
})
