/**
 * Issue 35, item 1: what a running task holds in memory is counted against the task store's byte
 * bounds (`TaskRecord.held`), and it is only what the task needs: its decoded arguments (not what
 * the tool's schema dropped), its request's `_meta`, and its runner. Over the in-memory wire, JSON
 * text in and out, both revisions. (The memory itself, under a small heap, is measured by
 * `test/hostile/TaskMemory.test.ts`.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as McpServer from "../src/McpServer.js"
import * as TaskStore from "../src/TaskStore.js"
import * as Tool from "../src/Tool.js"
import { attach, clientInfo, meta } from "./utils/TestClient.js"

const TASKS = "io.modelcontextprotocol/tasks"
const withTasks = { extensions: { [TASKS]: {} } }
const p = (params: Record<string, unknown>) => ({
  ...params,
  _meta: meta({ "io.modelcontextprotocol/clientInfo": clientInfo }, withTasks)
})

/** Waits until cancelled, keeping its label (the handler reads it at the end). */
const Wait = Tool.make("wait", {
  parameters: Schema.Struct({ label: Schema.optional(Schema.String) }),
  task: "optional"
}, ({ label }) => Effect.as(Effect.never, label ?? ""))

const server = (options: TaskStore.MemoryOptions) =>
  Effect.gen(function*() {
    const store = yield* TaskStore.makeMemory(options)
    const made = yield* McpServer.make({
      serverInfo: { name: "tasks-held", version: "1.0.0" },
      revisions: ["2025-11-25", "2026-07-28"] as const,
      tools: [Wait]
    }).pipe(Effect.provideService(TaskStore.TaskStore, store))
    return { client: yield* attach(made), store }
  })

const held = (store: TaskStore.Service, taskId: string) =>
  Effect.map(store.get(taskId), (found) => Option.getOrThrow(found).held ?? 0)

describe("what a running task holds, counted (issue 35, item 1)", () => {
  it.scoped("2026-07-28: the arguments the schema drops are not held; those it keeps are, and _meta", () =>
    Effect.gen(function*() {
      const { client, store } = yield* server({})
      const big = "x".repeat(200_000)
      const dropped = yield* client.result("tools/call", p({ name: "wait", arguments: { extra: big } }))
      const kept = yield* client.result("tools/call", p({ name: "wait", arguments: { label: big } }))
      const plain = yield* client.result("tools/call", p({ name: "wait", arguments: {} }))
      assert.strictEqual(dropped.resultType, "task")
      const [d, k, n] = [
        yield* held(store, dropped.taskId),
        yield* held(store, kept.taskId),
        yield* held(store, plain.taskId)
      ]
      // The runner itself is counted (a fiber, its McpRequest, its entries: about 8 KiB)...
      assert.isAtLeast(n, 8_000)
      assert.isBelow(n, 16_000)
      // ...the dropped argument is not (the task never had it)...
      assert.isBelow(d - n, 100)
      // ...the label is, whole.
      assert.isAtLeast(k - n, 200_000)
      // Ended, a task's runner is gone: it holds nothing more (its record alone is counted).
      yield* client.result("tasks/cancel", p({ taskId: kept.taskId }))
      const after = Option.getOrThrow(yield* store.get(kept.taskId))
      assert.strictEqual(after.status, "cancelled")
      assert.strictEqual(TaskStore.heldBy(after), 0)
    }))

  it.scoped("2026-07-28: running tasks fill the store's bytes: the next is refused with its id, one ended frees room", () =>
    Effect.gen(function*() {
      // 160 KiB: room for a score of running tasks, not the hundreds of records it would keep.
      const { client } = yield* server({ maxBytes: 160 * 1024 })
      const created: Array<string> = []
      let refused: any
      for (let i = 0; i < 100 && refused === undefined; i++) {
        const { response } = yield* client.exchange("tools/call", p({ name: "wait", arguments: {} }))
        if (response.result?.resultType === "task") created.push(response.result.taskId)
        else refused = response
      }
      assert.isDefined(refused, "100 running tasks fitted in 160 KiB")
      assert.isAtLeast(created.length, 10)
      assert.isAtMost(created.length, 25)
      assert.strictEqual(refused.id, created.length + 1)
      assert.strictEqual(refused.error.code, -32603)
      assert.strictEqual(refused.error.message, "The task store is full: try again later")
      // Once one ended, another fits.
      yield* client.result("tasks/cancel", p({ taskId: created[0] }))
      const again = yield* client.result("tools/call", p({ name: "wait", arguments: {} }))
      assert.strictEqual(again.resultType, "task")
    }))

  it.scoped("2025-11-25: a session's task holds its runner and its arguments, not the message", () =>
    Effect.gen(function*() {
      const { client, store } = yield* server({})
      yield* client.initialize("2025-11-25", {})
      const big = "x".repeat(200_000)
      const dropped = yield* client.result("tools/call", { name: "wait", arguments: { extra: big }, task: {} })
      const kept = yield* client.result("tools/call", { name: "wait", arguments: { label: big }, task: {} })
      const d = yield* held(store, dropped.task.taskId)
      const k = yield* held(store, kept.task.taskId)
      assert.isAtLeast(d, 8_000)
      assert.isBelow(d, 16_000)
      assert.isAtLeast(k - d, 200_000)
    }))
})
