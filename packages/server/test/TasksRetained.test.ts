/**
 * Issue 42, item 1: a working task holds its record, its decoded arguments, its `McpRequest` and
 * its handler's fiber, and nothing else. What made it a task witnesses the rest: `McpTask.detach`
 * as it was before the handler detached, held here by a `WeakRef` and checked after forced
 * collections (`--expose-gc`, set in this process) while the task is working, over the in-memory
 * wire (JSON text in and out), both revisions. It used to be kept by the task's `McpTask` for as
 * long as the task ran, and with it the Deferred its request was answered through and the context
 * of the launch's closures (the three Deferreds of a task, the closures over its request's part,
 * its settling frames on the handler's stack: 6 KB of 12 a task; see the closing note of issue 42).
 *
 * A structural test rather than a heap figure: whether an object is reachable does not depend on
 * the machine's load or the collector's timing once it ran, where bytes per task do (the bench,
 * `bench/src/tasks.ts`, prints those).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Scheduler from "effect/Scheduler"
import * as McpRequest from "../src/McpRequest.js"
import * as McpServer from "../src/McpServer.js"
import * as McpTask from "../src/McpTask.js"
import * as TaskStore from "../src/TaskStore.js"
import * as Tool from "../src/Tool.js"
import { collect } from "./utils/Heap.js"
import { attach, clientInfo, meta } from "./utils/TestClient.js"

const TASKS = "io.modelcontextprotocol/tasks"
const p = (params: Record<string, unknown>) => ({
  ...params,
  _meta: meta({ "io.modelcontextprotocol/clientInfo": clientInfo }, { extensions: { [TASKS]: {} } })
})

/** What the last call of `hold` let this test see, weakly. */
const seen: { detach?: WeakRef<object> } = {}

/** Detaches, then works until cancelled. */
const Hold = Tool.make("hold", { task: { support: "optional", start: "onDetach" } }, () =>
  Effect.gen(function*() {
    const task = Option.getOrThrow(yield* Effect.serviceOption(McpTask.McpTask))
    seen.detach = new WeakRef(task.detach)
    yield* task.detach
    return yield* Effect.never
  }))

/** The `_meta` each call of `metas` ran with. */
const metas: Array<unknown> = []

/** Notes the `_meta` its task runs with, detaches, then works until cancelled. */
const Metas = Tool.make("metas", { task: { support: "optional", start: "onDetach" } }, () =>
  Effect.gen(function*() {
    metas.push((yield* McpRequest.McpRequest).meta)
    yield* Option.getOrThrow(yield* Effect.serviceOption(McpTask.McpTask)).detach
    return yield* Effect.never
  }))

const server = Effect.gen(function*() {
  const made = yield* McpServer.make({
    serverInfo: { name: "tasks-retained", version: "1.0.0" },
    revisions: ["2025-11-25", "2026-07-28"] as const,
    tools: [Hold, Metas]
  }).pipe(Effect.provideService(TaskStore.TaskStore, yield* TaskStore.makeMemory({})))
  return yield* attach(made)
})

/** The fibers the server's scheduler scheduled a step of (each such fiber gets a runner of its own). */
const scheduled = new Set<number>()
const recording: Scheduler.Scheduler = {
  shouldYield: (fiber) => Scheduler.defaultScheduler.shouldYield(fiber),
  scheduleTask: (task, priority, fiber?: Fiber.RuntimeFiber<unknown, unknown>) => {
    if (fiber !== undefined) scheduled.add(fiber.id().id)
    Scheduler.defaultScheduler.scheduleTask(task, priority, fiber)
  }
}

/** The handler fibers of `waits`, by id. */
const waiting: Array<number> = []

/** Notes its fiber, then works until cancelled (a task from its start). */
const Waits = Tool.make("waits", { task: "optional" }, () =>
  Effect.flatMap(Effect.fiberId, (id) => {
    waiting.push(Array.from(FiberId.ids(id))[0])
    return Effect.never
  }))

/** The witnesses are gone while the task works. */
const released = Effect.gen(function*() {
  yield* collect
  assert.isDefined(seen.detach)
  assert.isUndefined(seen.detach!.deref(), "a working task keeps what made it one (McpTask.detach as it was)")
})

describe("what a working task keeps (issue 42, item 1)", () => {
  // Its handler's first step runs without a scheduler runner of its own (Effect 3.20+ keeps one per
  // fiber scheduled, about 0.2 KB, for as long as the fiber lives): one waiting on its first call
  // holds none. Before, every task's fiber was started through the scheduler, and held one.
  it.scoped("a handler waiting on its first call was never given a scheduler runner", () =>
    Effect.gen(function*() {
      const made = yield* McpServer.make({
        serverInfo: { name: "tasks-retained", version: "1.0.0" },
        revisions: ["2025-11-25", "2026-07-28"] as const,
        tools: [Waits]
      }).pipe(
        Effect.provideService(TaskStore.TaskStore, yield* TaskStore.makeMemory({})),
        Effect.withScheduler(recording)
      )
      const client = yield* attach(made)
      scheduled.clear()
      waiting.length = 0
      const created = yield* client.result("tools/call", p({ name: "waits", arguments: {} }))
      assert.strictEqual(created.resultType, "task")
      // Working, its handler at its wait.
      while (waiting.length === 0) yield* Effect.yieldNow()
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: created.taskId }))).status, "working")
      assert.isFalse(scheduled.has(waiting[0]), "the handler's fiber was scheduled through the server's scheduler")
      // The server's scheduler is the one its tasks run on past their first step.
      assert.isAbove(scheduled.size, 0)
      yield* client.result("tasks/cancel", p({ taskId: created.taskId }))
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: created.taskId }))).status, "cancelled")
    }))

  it.scoped("2026-07-28: not what made it a task", () =>
    Effect.gen(function*() {
      const client = yield* server
      const created = yield* client.result("tools/call", p({ name: "hold", arguments: {} }))
      assert.strictEqual(created.resultType, "task")
      yield* released
      // Working all the while, and still stopped by a cancel.
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: created.taskId }))).status, "working")
      yield* client.result("tasks/cancel", p({ taskId: created.taskId }))
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: created.taskId }))).status, "cancelled")
    }))

  // A 2026-07-28 request carries its client's capabilities and info in its `_meta`, and a task
  // keeps its request's: the tasks of one client keep one (frozen), not a copy each (0.2 KB a task).
  it.scoped("2026-07-28: the tasks of one client keep one _meta", () =>
    Effect.gen(function*() {
      const client = yield* server
      metas.length = 0
      const first = yield* client.result("tools/call", p({ name: "metas", arguments: {} }))
      const second = yield* client.result("tools/call", p({ name: "metas", arguments: {} }))
      assert.strictEqual(first.resultType, "task")
      assert.strictEqual(second.resultType, "task")
      assert.strictEqual(metas.length, 2)
      assert.deepStrictEqual(metas[0], p({})._meta)
      assert.strictEqual(metas[0], metas[1], "each task keeps a copy of its request's _meta")
      assert.isTrue(Object.isFrozen(metas[0]))
      for (const { taskId } of [first, second]) yield* client.result("tasks/cancel", p({ taskId }))
    }))

  it.scoped("2025-11-25: not what made it a task", () =>
    Effect.gen(function*() {
      const client = yield* server
      yield* client.initialize("2025-11-25", {})
      const created = yield* client.result("tools/call", { name: "hold", arguments: {}, task: {} })
      assert.strictEqual(created.task.status, "working")
      yield* released
      assert.strictEqual((yield* client.result("tasks/get", { taskId: created.task.taskId })).status, "working")
      yield* client.result("tasks/cancel", { taskId: created.task.taskId })
      // (Its session is told of the cancel too: `notifications/tasks/status`.)
      const { response } = yield* client.exchange("tasks/get", { taskId: created.task.taskId })
      assert.strictEqual(response.result.status, "cancelled")
    }))
})
