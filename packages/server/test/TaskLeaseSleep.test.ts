/**
 * The renewal of running tasks' leases sleeps while this instance runs no task: an idle server (a
 * gateway with no task running) has no timer of it pending, instead of one waking every 10 s for
 * ever. While a task runs its lease is renewed as before; once it ends (and the store let its
 * record go at its TTL) nothing of the tasks runtime is pending again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as McpServer from "../src/McpServer.js"
import * as TaskStore from "../src/TaskStore.js"
import * as Tool from "../src/Tool.js"
import { attach } from "./utils/TestClient.js"

/** The sleeps pending on the test clock, once every fiber woken has run. */
const pending = Effect.zipRight(Effect.yieldNow(), Effect.map(TestClock.sleeps(), Chunk.size))
const pass = (millis: number) => Effect.zipRight(TestClock.adjust(`${millis} millis`), Effect.yieldNow())

describe("tasks: lease renewal", () => {
  it.scoped("sleeps while no task runs, renews a running task's lease, then sleeps again", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const Hold = Tool.make("hold", { task: "optional" }, () => Effect.as(Deferred.await(release), "released"))
      const store = yield* TaskStore.makeMemory()
      const server = yield* McpServer.make({
        serverInfo: { name: "lease-sleep", version: "1.0.0" },
        tools: [Hold]
      }).pipe(Effect.provideService(TaskStore.TaskStore, store))
      const client = yield* attach(server)
      yield* client.initialize("2025-11-25", { tasks: {} })

      // No task: no timer pending, also a minute later (before: the renewal's, every 10 s).
      assert.strictEqual(yield* pending, 0)
      yield* pass(60_000)
      assert.strictEqual(yield* pending, 0)

      const { response } = yield* client.exchange("tools/call", { name: "hold", task: { ttl: 20_000 } })
      const taskId: string = response.result.task.taskId
      yield* pass(10)
      const leaseOf = Effect.map(store.get(taskId), (record) => Option.getOrThrow(record).lease?.expiresAt)
      const first = yield* leaseOf
      assert.strictEqual(first, 60_000 + 30_000)
      // Running: renewed a third of a lease after it started, to a lease from then.
      yield* pass(10_000)
      assert.strictEqual(yield* leaseOf, 70_000 + 30_000)

      // Done, and its record gone at its TTL: nothing pending again.
      yield* Deferred.succeed(release, undefined)
      yield* pass(10)
      yield* pass(10_000)
      assert.isTrue(Option.isNone(yield* store.get(taskId)))
      assert.strictEqual(yield* pending, 0)
      yield* pass(60_000)
      assert.strictEqual(yield* pending, 0)
    }))
})
