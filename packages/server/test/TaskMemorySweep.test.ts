/**
 * The in-memory task store's TTL sweep sleeps while the store holds no task: an idle server (a
 * gateway with no task running) is not woken every second by it. Once a task is kept, the sweep
 * runs again and removes it when its TTL is out; the store then sleeps again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as TaskMemory from "../src/internal/taskMemory.js"
import type * as TaskStore from "../src/TaskStore.js"

const record = (taskId: string, ttlMs: number): TaskStore.TaskRecord => ({
  taskId,
  owner: "owner",
  revision: "2025-11-25",
  method: "tools/call",
  name: "slow",
  status: "working",
  statusMessage: undefined,
  createdAt: 0,
  lastUpdatedAt: 0,
  ttlMs,
  pollIntervalMs: 1_000,
  inputRequests: {},
  inputResponses: {},
  outcome: undefined,
  cancelRequested: false,
  lease: undefined,
  version: 1
})

/** The sleeps pending on the test clock, once every fiber woken has run. */
const pending = Effect.zipRight(Effect.yieldNow(), Effect.map(TestClock.sleeps(), Chunk.size))

describe("TaskMemory sweep", () => {
  it.scoped("sleeps while empty, sweeps an expired task, then sleeps again", () =>
    Effect.gen(function*() {
      const store = yield* TaskMemory.make()
      // Nothing held: no timer of the store's pending, however long the server idles.
      assert.strictEqual(yield* pending, 0)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* pending, 0)

      const removed = yield* Deferred.make<string>()
      yield* Effect.forkScoped(
        store.follow((change) => change.record === undefined ? Deferred.succeed(removed, change.taskId) : Effect.void)
      )
      yield* Effect.yieldNow()
      yield* store.create({ ...record("t1", 2_500), createdAt: 60_000, lastUpdatedAt: 60_000 })
      // Held: the sweep sleeps until its next round.
      assert.strictEqual(yield* pending, 1)
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(yield* Deferred.await(removed), "t1")
      // Empty again: asleep for good.
      assert.strictEqual(yield* pending, 0)
    }))
})
