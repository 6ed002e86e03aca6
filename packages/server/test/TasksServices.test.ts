/**
 * Issue 42, item 1: a task's handler runs with the server's services, its `McpRequest` and its
 * `McpTask`, as any handler reads them (`yield*` of the Tags, a service provided inside it, the
 * context as a whole), and the server's services are read through one map for every task, not
 * copied into a map of each task's own (`Context.add`: about 0.4 KB a task with a dozen
 * services). Over the in-memory wire, JSON text in and out, both revisions.
 *
 * The sharing is counted as live `Map`s (`v8.queryObjects` after forced collections): whether a
 * task holds one does not depend on the machine's load, where bytes per task do (the bench,
 * `bench/src/tasks.ts`, prints those).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as v8 from "node:v8"
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

class Greeting extends Context.Tag("test/TasksServices/Greeting")<Greeting, string>() {}
class Inner extends Context.Tag("test/TasksServices/Inner")<Inner, number>() {}

/** What a handler of `reads` saw, each part as text. */
const reads: Array<Record<string, unknown>> = []

/** Reads its services every way a handler may, then detaches and reads them again as a task. */
const Reads = Tool.make("reads", {
  parameters: Schema.Struct({ label: Schema.String }),
  task: { support: "optional", start: "onDetach" }
}, ({ label }) =>
  Effect.gen(function*() {
    const read = (when: string) =>
      Effect.gen(function*() {
        const request = yield* McpRequest.McpRequest
        const task = Option.getOrThrow(yield* Effect.serviceOption(McpTask.McpTask))
        const context = yield* Effect.context<never>()
        const keys = Array.from(context.unsafeMap.keys())
        reads.push({
          label,
          when,
          greeting: yield* Greeting,
          method: request.method,
          revision: request.revision,
          taskId: Option.isSome(yield* task.taskId) ? "some" : "none",
          same: Context.unsafeGet(context, McpTask.McpTask) === task &&
            Context.unsafeGet(context, McpRequest.McpRequest) === request,
          keys: [Greeting.key, McpRequest.McpRequest.key, McpTask.McpTask.key].every((key) => keys.includes(key)),
          size: context.unsafeMap.size === keys.length,
          // A service provided inside the handler: the context is copied with it, the rest kept.
          inner: yield* Effect.provideService(
            Effect.gen(function*() {
              const inner = Option.getOrThrow(yield* Effect.serviceOption(McpTask.McpTask))
              return `${yield* Inner} ${(yield* McpRequest.McpRequest) === request} ${
                inner === task
              } ${yield* Greeting}`
            }),
            Inner,
            7
          )
        })
      })
    yield* read("before")
    yield* McpTask.detach
    yield* McpTask.status(`read ${label}`)
    yield* read("after")
    return label
  }))

/** Works until cancelled, counting the handlers at their wait. */
const waiting = { count: 0 }
const Waits = Tool.make(
  "waits",
  { task: "optional" },
  () => Effect.zipRight(Effect.sync(() => waiting.count++), Effect.never)
)

const server = Effect.gen(function*() {
  const made = yield* McpServer.make({
    serverInfo: { name: "tasks-services", version: "1.0.0" },
    revisions: ["2025-11-25", "2026-07-28"] as const,
    tools: [Reads, Waits]
  }).pipe(
    Effect.provideService(TaskStore.TaskStore, yield* TaskStore.makeMemory({})),
    Effect.provideService(Greeting, "hello")
  )
  return yield* attach(made)
})

const expected = (label: string, revision: string) =>
  ["before", "after"].map((when) => ({
    label,
    when,
    greeting: "hello",
    method: "tools/call",
    revision,
    taskId: when === "before" ? "none" : "some",
    same: true,
    keys: true,
    size: true,
    inner: "7 true true hello"
  }))

describe("a task's handler and its services (issue 42, item 1)", () => {
  it.scoped("2026-07-28: the server's, its McpRequest and its McpTask, every way a handler reads them", () =>
    Effect.gen(function*() {
      const client = yield* server
      reads.length = 0
      const created = yield* client.result("tools/call", p({ name: "reads", arguments: { label: "a" } }))
      assert.strictEqual(created.resultType, "task")
      let got = yield* client.result("tasks/get", p({ taskId: created.taskId }))
      while (got.status === "working") got = yield* client.result("tasks/get", p({ taskId: created.taskId }))
      assert.strictEqual(got.status, "completed")
      assert.strictEqual(got.statusMessage, "read a")
      assert.deepStrictEqual(reads, expected("a", "2026-07-28"))
    }))

  it.scoped("2025-11-25: the same", () =>
    Effect.gen(function*() {
      const client = yield* server
      yield* client.initialize("2025-11-25", {})
      reads.length = 0
      // (Its session is told of its status message, `notifications/tasks/status`, at any time.)
      const call = yield* client.exchange("tools/call", { name: "reads", arguments: { label: "b" }, task: {} })
      const { response } = yield* client.exchange("tasks/result", { taskId: call.response.result.task.taskId })
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "b" }])
      assert.deepStrictEqual(reads, expected("b", "2025-11-25"))
    }))

  it.scoped("the server's services are not copied for each working task", () =>
    Effect.gen(function*() {
      const client = yield* server
      const tasks = 100
      // The code of a task's path run once before counting.
      waiting.count = 0
      const warm = yield* client.result("tools/call", p({ name: "waits", arguments: {} }))
      while (waiting.count < 1) yield* Effect.yieldNow()
      yield* client.result("tasks/cancel", p({ taskId: warm.taskId }))
      yield* collect
      const before = v8.queryObjects(Map, { format: "count" }) as number
      waiting.count = 0
      const created = yield* Effect.forEach(
        Array.from({ length: tasks }),
        () => client.result("tools/call", p({ name: "waits", arguments: {} }))
      )
      while (waiting.count < tasks) yield* Effect.yieldNow()
      yield* collect
      const after = v8.queryObjects(Map, { format: "count" }) as number
      // One a task: its fiber's refs (as any fiber's). Each also held a copy of the server's
      // services with its two added.
      assert.isBelow(after - before, tasks * 1.5, `${after - before} more Maps for ${tasks} working tasks`)
      for (const { taskId } of created) yield* client.result("tasks/cancel", p({ taskId }))
    }))
})
