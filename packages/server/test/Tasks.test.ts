/**
 * Tasks at the wire, both revisions: the 2026-07-28 `io.modelcontextprotocol/tasks` extension
 * (server-directed creation, `tasks/get` with the outcome inlined, `tasks/update`, `tasks/cancel`,
 * `notifications/tasks` on a listen, -32021 gates) and the 2025-11-25 experimental tasks
 * (`params.task`, `tasks/get|result|list|cancel`, `notifications/tasks/status`, asks tagged
 * with the related task). What the server sends is checked against the official schemas.
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as McpRequest from "../src/McpRequest.js"
import * as McpServer from "../src/McpServer.js"
import * as McpTask from "../src/McpTask.js"
import * as TaskStore from "../src/TaskStore.js"
import * as Tool from "../src/Tool.js"
import { attach, clientInfo, connect, meta, type TestClient } from "./utils/TestClient.js"

const serverInfo = { name: "tasks-test", version: "1.0.0" }
const TASKS = "io.modelcontextprotocol/tasks"
const withTasks = { extensions: { [TASKS]: {} }, elicitation: {} }

const form = (message: string, field: string) => ({
  message,
  requestedSchema: { type: "object" as const, properties: { [field]: { type: "string" as const } } }
})

const Sleepy = Tool.make("sleepy", {
  parameters: Schema.Struct({ seconds: Schema.Number }),
  task: "optional"
}, ({ seconds }) =>
  Effect.gen(function*() {
    yield* McpTask.status("sleeping")
    yield* Effect.sleep(`${seconds} seconds`)
    return `slept ${seconds}s`
  }))

const OnlyTask = Tool.make("only_task", { task: "required" }, () => Effect.succeed("done"))

const ToolError = Tool.make(
  "tool_error",
  { task: "optional" },
  () => Effect.succeed({ content: [{ type: "text" as const, text: "no" }], isError: true })
)

const Crash = Tool.make("crash", { task: "optional" }, () => Effect.die(new Error("boom")))

const Ask = Tool.make("ask", { task: "optional", failure: Schema.String }, () =>
  Effect.mapError(
    Effect.map(
      Effect.all([McpRequest.elicit("a", form("A?", "a")), McpRequest.elicit("b", form("B?", "b"))], {
        concurrency: 2
      }),
      ([a, b]) => `${a.content?.a}+${b.content?.b}`
    ),
    (error) => error.message
  ))

const Detaching = Tool.make("detaching", {
  task: { support: "required", start: "onDetach" },
  failure: Schema.String
}, () =>
  Effect.gen(function*() {
    const answer = yield* Effect.mapError(McpRequest.elicit("name", form("Name?", "name")), (e) => e.message)
    yield* McpTask.detach
    yield* Effect.sleep("1 second")
    return `hello ${answer.content?.name}`
  }))

/** Works a second, then asks (a tasks/result may be waiting by then). */
const Later = Tool.make("later", { task: "optional", failure: Schema.String }, () =>
  Effect.gen(function*() {
    yield* Effect.sleep("1 second")
    const answer = yield* Effect.mapError(McpRequest.elicit("name", form("Name?", "name")), (e) => e.message)
    return `later ${answer.content?.name}`
  }))

const options = (interrupted: Ref.Ref<number>) => ({
  serverInfo,
  revisions: ["2025-11-25", "2026-07-28"] as const,
  taskPollInterval: "250 millis" as const,
  tools: [
    Sleepy,
    OnlyTask,
    ToolError,
    Crash,
    Ask,
    Later,
    Detaching,
    Tool.make(
      "cancellable",
      { task: "optional" },
      () => Effect.onInterrupt(Effect.as(Effect.never, "never"), () => Ref.update(interrupted, (n) => n + 1))
    )
  ]
})

/** A 2026-07-28 request's params: `_meta` with the request's capabilities (the extension by default). */
const p = (params: Record<string, unknown>, capabilities: Record<string, unknown> = withTasks, who = clientInfo) => ({
  ...params,
  _meta: meta({ "io.modelcontextprotocol/clientInfo": who }, capabilities)
})

/** A server message, valid against the schema set's definition. */
const valid = (set: "2026-07-28" | "2025-11-25" | "ext-tasks-draft", definition: string, message: unknown) => {
  assert.isUndefined(validate(set, definition, message), JSON.stringify(message))
  return message as any
}

/** Lets forked task fibers run (and `seconds` of the test clock pass). */
const pass = (millis: number) => Effect.zipRight(TestClock.adjust(`${millis} millis`), Effect.yieldNow())

/** Polls `tasks/get` (2026-07-28) until `predicate` holds, letting the test clock run. */
const until = (client: TestClient, taskId: string, predicate: (task: any) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const task = yield* client.result("tasks/get", p({ taskId }))
      if (predicate(task)) return task
      yield* pass(50)
    }
    return assert.fail(`task ${taskId} never got there`)
  })

const setup = Effect.gen(function*() {
  const interrupted = yield* Ref.make(0)
  const client = yield* connect(options(interrupted))
  return { client, interrupted }
})

describe("tasks, the 2026-07-28 extension", () => {
  it.scoped("server/discover declares the extension, not a v1 tasks slot", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const discover = yield* client.result("server/discover", p({}))
      assert.deepStrictEqual(discover.capabilities.extensions?.[TASKS], {})
      assert.isUndefined(discover.capabilities.tasks)
    }))

  it.scoped("a call that declares the extension gets a flat task, there before the answer, then its result inlined", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const created = yield* client.call("tools/call", p({ name: "sleepy", arguments: { seconds: 2 } }))
      valid("ext-tasks-draft", "CreateTaskResult", created.result)
      const task = created.result
      assert.strictEqual(task.resultType, "task")
      assert.strictEqual(task.status, "working")
      assert.isString(task.taskId)
      assert.isAtLeast(task.taskId.length, 20)
      assert.strictEqual(task.pollIntervalMs, 250)
      assert.isNumber(task.ttlMs)
      for (const absent of ["task", "ttl", "pollInterval", "result", "requestState", "inputRequests"]) {
        assert.notProperty(task, absent)
      }
      // At once: tasks/get finds it.
      const working = yield* client.call("tasks/get", p({ taskId: task.taskId }))
      valid("ext-tasks-draft", "GetTaskResult", working.result)
      assert.strictEqual(working.result.resultType, "complete")
      assert.strictEqual(working.result.status, "working")
      assert.strictEqual(working.result.statusMessage, "sleeping")
      yield* pass(2_000)
      const done = yield* until(client, task.taskId, (t) => t.status === "completed")
      valid("ext-tasks-draft", "GetTaskResult", done)
      assert.deepStrictEqual(done.result.content, [{ type: "text", text: "slept 2s" }])
      assert.notProperty(done.result._meta ?? {}, "io.modelcontextprotocol/related-task")
    }))

  it.scoped("without the extension: an optional tool runs as a plain call, a required one is -32021 naming it", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const plain = yield* client.exchange("tools/call", p({ name: "only_task" }, {}))
      const error = plain.response.error
      assert.strictEqual(error.code, -32021)
      assert.deepStrictEqual(error.data.requiredCapabilities, { extensions: { [TASKS]: {} } })
      const fiber = yield* Effect.fork(
        client.result("tools/call", p({ name: "sleepy", arguments: { seconds: 1 } }, {}))
      )
      yield* pass(1_000)
      const result = yield* fiber.await.pipe(Effect.flatten)
      assert.strictEqual(result.resultType, "complete")
      assert.deepStrictEqual(result.content, [{ type: "text", text: "slept 1s" }])
      assert.notProperty(result, "taskId")
    }))

  it.scoped("tasks methods refuse a request without the extension (-32021); tasks/result and tasks/list do not exist", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      for (
        const [method, params] of [["tasks/get", { taskId: "x" }], ["tasks/cancel", { taskId: "x" }], [
          "tasks/update",
          { taskId: "x", inputResponses: {} }
        ]] as const
      ) {
        const error = yield* client.error(method, p(params, {}))
        assert.strictEqual(error.code, -32021, method)
      }
      assert.strictEqual((yield* client.error("tasks/result", p({ taskId: "x" }))).code, -32601)
      assert.strictEqual((yield* client.error("tasks/list", p({}))).code, -32601)
    }))

  it.scoped("an unknown task, and another client's, are -32602, whatever name the other gives itself", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options(yield* Ref.make(0)))
      const client = yield* attach(server)
      assert.strictEqual((yield* client.error("tasks/get", p({ taskId: "nope" }))).code, -32602)
      const task = yield* client.result("tools/call", p({ name: "sleepy", arguments: { seconds: 5 } }))
      // Another client (a connection of its own) that learnt the id, under this client's very name.
      const stranger = yield* attach(server)
      for (const method of ["tasks/get", "tasks/cancel"]) {
        assert.strictEqual((yield* stranger.error(method, p({ taskId: task.taskId }))).code, -32602)
      }
      // Still working: the stranger's cancel did nothing.
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: task.taskId }))).status, "working")
    }))

  it.scoped("a tool error completes the task with isError; a defect fails it with -32603", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const a = yield* client.result("tools/call", p({ name: "tool_error" }))
      const b = yield* client.result("tools/call", p({ name: "crash" }))
      const toolError = yield* until(client, a.taskId, (t) => t.status !== "working")
      assert.strictEqual(toolError.status, "completed")
      assert.isTrue(toolError.result.isError)
      const crashed = yield* until(client, b.taskId, (t) => t.status !== "working")
      valid("ext-tasks-draft", "GetTaskResult", crashed)
      assert.strictEqual(crashed.status, "failed")
      assert.deepStrictEqual(crashed.error, { code: -32603, message: "Internal error" })
      assert.notProperty(crashed, "result")
    }))

  it.scoped("tasks/cancel interrupts the handler and acks empty, and again on an ended task", () =>
    Effect.gen(function*() {
      const { client, interrupted } = yield* setup
      const task = yield* client.result("tools/call", p({ name: "cancellable" }))
      yield* pass(10)
      const ack = yield* client.call("tasks/cancel", p({ taskId: task.taskId }))
      valid("ext-tasks-draft", "CancelTaskResult", ack.result)
      assert.deepStrictEqual(Object.keys(ack.result).sort(), ["_meta", "resultType"])
      yield* until(client, task.taskId, (t) => t.status === "cancelled")
      yield* pass(10)
      assert.strictEqual(yield* Ref.get(interrupted), 1)
      const again = yield* client.result("tasks/cancel", p({ taskId: task.taskId }))
      assert.strictEqual(again.resultType, "complete")
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: task.taskId }))).status, "cancelled")
    }))

  it.scoped("asks become input requests: answered one at a time by tasks/update, checked, unknown keys ignored", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const task = yield* client.result("tools/call", p({ name: "ask" }))
      const waiting = yield* until(client, task.taskId, (t) => Object.keys(t.inputRequests ?? {}).length === 2)
      valid("ext-tasks-draft", "GetTaskResult", waiting)
      assert.strictEqual(waiting.status, "input_required")
      assert.deepStrictEqual(Object.keys(waiting.inputRequests).sort(), ["a", "b"])
      assert.strictEqual(waiting.inputRequests.a.method, "elicitation/create")
      // A malformed answer to an open request is this update's error; the task waits on.
      const bad = yield* client.error("tasks/update", p({ taskId: task.taskId, inputResponses: { a: { nope: 1 } } }))
      assert.strictEqual(bad.code, -32602)
      const ack = yield* client.result(
        "tasks/update",
        p({
          taskId: task.taskId,
          inputResponses: { a: { action: "accept", content: { a: "x" } }, zzz: { junk: true } }
        })
      )
      assert.deepStrictEqual(Object.keys(ack).sort(), ["_meta", "resultType"])
      const half = yield* client.result("tasks/get", p({ taskId: task.taskId }))
      assert.strictEqual(half.status, "input_required")
      assert.deepStrictEqual(Object.keys(half.inputRequests), ["b"])
      yield* client.result(
        "tasks/update",
        p({ taskId: task.taskId, inputResponses: { b: { action: "accept", content: { b: "y" } } } })
      )
      const done = yield* until(client, task.taskId, (t) => t.status === "completed")
      assert.deepStrictEqual(done.result.content, [{ type: "text", text: "x+y" }])
    }))

  it.scoped("start onDetach: the first round is a multi-round trip of the request; the retry becomes the task", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const first = yield* client.result("tools/call", p({ name: "detaching" }))
      valid("2026-07-28", "InputRequiredResult", first)
      assert.strictEqual(first.resultType, "input_required")
      assert.notProperty(first, "taskId")
      const second = yield* client.result(
        "tools/call",
        p({
          name: "detaching",
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: first.requestState
        })
      )
      valid("ext-tasks-draft", "CreateTaskResult", second)
      assert.strictEqual(second.resultType, "task")
      assert.notProperty(second, "requestState")
      yield* pass(1_000)
      const done = yield* until(client, second.taskId, (t) => t.status === "completed")
      assert.deepStrictEqual(done.result.content, [{ type: "text", text: "hello Ada" }])
    }))

  it.scoped("notifications/tasks reach the listen that follows the task (its owner only), tagged with the subscription", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const task = yield* client.result("tools/call", p({ name: "sleepy", arguments: { seconds: 1 } }))
      yield* client.send({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: p({ notifications: { taskIds: [task.taskId] } })
      })
      const ack = yield* client.next
      assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
      assert.deepStrictEqual(ack.params.notifications, { taskIds: [task.taskId] })
      yield* pass(1_000)
      const note = yield* client.next
      valid("ext-tasks-draft", "TaskStatusNotification", note)
      assert.strictEqual(note.method, "notifications/tasks")
      assert.strictEqual(note.params.taskId, task.taskId)
      assert.strictEqual(note.params.status, "completed")
      assert.deepStrictEqual(note.params.result.content, [{ type: "text", text: "slept 1s" }])
      assert.strictEqual(note.params._meta["io.modelcontextprotocol/subscriptionId"], "listen-1")
    }))

  it.scoped("taskIds in a listen without the extension is -32021", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const error = yield* client.error("subscriptions/listen", p({ notifications: { taskIds: ["x"] } }, {}))
      assert.strictEqual(error.code, -32021)
    }))

  it.scoped("a task is swept one ttl after its creation, its handler stopped", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const client = yield* connect({
        ...options(interrupted),
        taskTtl: "10 seconds"
      })
      const task = yield* client.result("tools/call", p({ name: "cancellable" }))
      assert.strictEqual(task.ttlMs, 10_000)
      yield* pass(9_000)
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: task.taskId }))).status, "working")
      yield* pass(2_000)
      yield* pass(1_000)
      assert.strictEqual((yield* client.error("tasks/get", p({ taskId: task.taskId }))).code, -32602)
      assert.strictEqual(yield* Ref.get(interrupted), 1)
    }))

  it.scoped("the store's bounds: past the tasks one owner may keep, a call is refused with a clear error", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const store = yield* TaskStore.makeMemory({ maxTasksPerOwner: 2 })
      const server = yield* McpServer.make(options(interrupted)).pipe(Effect.provideService(TaskStore.TaskStore, store))
      const client = yield* attach(server)
      yield* client.result("tools/call", p({ name: "cancellable" }))
      yield* client.result("tools/call", p({ name: "cancellable" }))
      const refused = yield* client.error("tools/call", p({ name: "cancellable" }))
      assert.strictEqual(refused.code, -32603)
      assert.match(refused.message, /Too many tasks/)
      // Another name is the same client: held back too.
      const renamed = yield* client.error(
        "tools/call",
        p({ name: "cancellable" }, withTasks, { name: "b", version: "1" })
      )
      assert.match(renamed.message, /Too many tasks/)
      // Another client (its own connection), under the same name, is not held back.
      const other = yield* (yield* attach(server)).result("tools/call", p({ name: "cancellable" }))
      assert.strictEqual(other.resultType, "task")
    }))

  it.scoped("the owner's bound counts its cancelled tasks until their TTL: the refusal says so, not to cancel", () =>
    Effect.gen(function*() {
      // A client that cancelled every task it had was told to cancel some (which frees no place: a
      // task is kept, finished or cancelled, until its time to live ends).
      const interrupted = yield* Ref.make(0)
      const store = yield* TaskStore.makeMemory({ maxTasksPerOwner: 2 })
      const server = yield* McpServer.make(options(interrupted)).pipe(Effect.provideService(TaskStore.TaskStore, store))
      const client = yield* attach(server)
      for (let i = 0; i < 2; i++) {
        const created = yield* client.result("tools/call", p({ name: "cancellable" }))
        yield* client.result("tasks/cancel", p({ taskId: created.taskId }))
      }
      const refused = yield* client.error("tools/call", p({ name: "cancellable" }))
      assert.strictEqual(refused.code, -32603)
      assert.match(refused.message, /Too many tasks are kept for this client/)
      assert.match(refused.message, /until its time to live ends/)
      assert.notMatch(refused.message, /cancel them/)
    }))
})

describe("tasks, 2025-11-25", () => {
  /** A request's response (a task's status notifications may come before it). */
  const call = (client: TestClient, params: Record<string, unknown>, method = "tools/call") =>
    Effect.map(client.exchange(method, params), ({ response }) => response)
  const result = (client: TestClient, method: string, params?: Record<string, unknown>) =>
    Effect.map(client.exchange(method, params), ({ response }) => {
      assert.isUndefined(response.error, JSON.stringify(response.error))
      return response.result
    })
  const error = (client: TestClient, method: string, params?: Record<string, unknown>) =>
    Effect.map(client.exchange(method, params), ({ response }) => {
      assert.isDefined(response.error, JSON.stringify(response.result))
      return response.error
    })

  const session = Effect.gen(function*() {
    const { client, interrupted } = yield* setup
    const init = yield* client.initialize("2025-11-25", { elicitation: {}, tasks: {} })
    return { client, interrupted, init }
  })

  it.scoped("the tasks capability, execution.taskSupport in tools/list", () =>
    Effect.gen(function*() {
      const { client, init } = yield* session
      assert.deepStrictEqual(init.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } })
      const tools = yield* call(client, {}, "tools/list")
      valid("2025-11-25", "JSONRPCResultResponse", tools)
      const byName = new Map(tools.result.tools.map((t: any) => [t.name, t]))
      assert.deepStrictEqual((byName.get("sleepy") as any).execution, { taskSupport: "optional" })
      assert.deepStrictEqual((byName.get("only_task") as any).execution, { taskSupport: "required" })
    }))

  it.scoped("params.task makes a task (nested, ttl asked for); tasks/result blocks until it ends, tagged", () =>
    Effect.gen(function*() {
      const { client } = yield* session
      const created = yield* call(client, { name: "sleepy", arguments: { seconds: 3 }, task: { ttl: 60_000 } })
      valid("2025-11-25", "JSONRPCResultResponse", created)
      const task = created.result.task
      valid("2025-11-25", "Task", task)
      assert.strictEqual(task.status, "working")
      assert.strictEqual(task.ttl, 60_000)
      assert.strictEqual(task.pollInterval, 250)
      const get = yield* result(client, "tasks/get", { taskId: task.taskId })
      valid("2025-11-25", "GetTaskResult", get)
      const waiting = yield* Effect.fork(client.exchange("tasks/result", { taskId: task.taskId }))
      yield* pass(3_000)
      const { before, response } = yield* waiting.await.pipe(Effect.flatten)
      valid("2025-11-25", "JSONRPCResultResponse", response)
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "slept 3s" }])
      assert.deepStrictEqual(response.result._meta["io.modelcontextprotocol/related-task"], { taskId: task.taskId })
      // Its status changes reach the session (the last may come after the answer).
      const statuses = before.filter((m) => m.method === "notifications/tasks/status")
      while (!statuses.some((m) => m.params.status === "completed")) statuses.push(yield* client.next)
      for (const m of statuses) valid("2025-11-25", "TaskStatusNotification", m)
      assert.deepStrictEqual(statuses.map((m) => m.params.taskId), statuses.map(() => task.taskId))
    }))

  it.scoped("a required tool without params.task is -32601; isError fails the task, tasks/result still gives the result", () =>
    Effect.gen(function*() {
      const { client } = yield* session
      assert.strictEqual((yield* error(client, "tools/call", { name: "only_task" })).code, -32601)
      const created = (yield* call(client, { name: "tool_error", task: {} })).result
      const { response } = yield* client.exchange("tasks/result", { taskId: created.task.taskId })
      assert.isTrue(response.result.isError)
      const after = yield* result(client, "tasks/get", { taskId: created.task.taskId })
      assert.strictEqual(after.status, "failed")
    }))

  it.scoped("tasks/list pages this session's tasks only; tasks/cancel cancels, and a finished task is -32602", () =>
    Effect.gen(function*() {
      const { client, interrupted, init: _ } = yield* session
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((yield* call(client, { name: "cancellable", task: {} })).result.task.taskId)
      const other = yield* attach(client.server)
      yield* other.initialize("2025-11-25", { tasks: {} })
      yield* call(other, { name: "cancellable", task: {} })
      const listed = yield* call(client, {}, "tasks/list")
      valid("2025-11-25", "JSONRPCResultResponse", listed)
      assert.deepStrictEqual(listed.result.tasks.map((t: any) => t.taskId).sort(), [...ids].sort())
      assert.strictEqual((yield* result(other, "tasks/list")).tasks.length, 1)
      assert.strictEqual((yield* error(other, "tasks/get", { taskId: ids[0] })).code, -32602)
      const cancelled = yield* call(client, { taskId: ids[0] }, "tasks/cancel")
      valid("2025-11-25", "JSONRPCResultResponse", cancelled)
      assert.strictEqual(cancelled.result.status, "cancelled")
      yield* pass(10)
      assert.strictEqual(yield* Ref.get(interrupted), 1)
      assert.strictEqual((yield* error(client, "tasks/cancel", { taskId: ids[0] })).code, -32602)
      assert.strictEqual((yield* error(client, "tasks/list", { cursor: "bogus" })).code, -32602)
    }))

  // Issue 35, item 13: a requestor that only polls tasks/get (ext-tasks 0.2.2) never calls
  // tasks/result; on a connection of one stream (stdio, this in-memory pair) the asks go at once,
  // once the requestor showed it knows the task (its first tasks/get).
  it.scoped("a task's asks, with no tasks/result waiting, reach a client that polls, tagged; a later tasks/result sends none again", () =>
    Effect.gen(function*() {
      const { client } = yield* session
      const created = yield* client.exchange("tools/call", { name: "ask", arguments: {}, task: {} })
      const taskId = created.response.result.task.taskId
      // Nothing is asked before the client could know the task.
      assert.deepStrictEqual(created.before.filter((message) => message.method === "elicitation/create"), [])
      const polled = yield* client.exchange("tasks/get", { taskId })
      assert.strictEqual(polled.response.result.status, "input_required")
      const asks: Array<any> = polled.before.filter((message) => message.method === "elicitation/create")
      while (asks.length < 2) {
        const message = yield* client.next
        if (message.method === "elicitation/create") asks.push(message)
      }
      for (const ask of asks) {
        valid("2025-11-25", "ElicitRequest", ask)
        assert.deepStrictEqual(ask.params._meta["io.modelcontextprotocol/related-task"], { taskId })
      }
      // A tasks/result now: the asks were delivered, so its stream carries none of them again.
      yield* client.send({ jsonrpc: "2.0", id: "result-1", method: "tasks/result", params: { taskId } })
      for (const ask of asks) {
        const field = Object.keys(ask.params.requestedSchema.properties)[0]
        yield* client.send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { [field]: field } } })
      }
      let answer: any
      while (answer === undefined) {
        const message = yield* client.next
        assert.notStrictEqual(message.method, "elicitation/create", JSON.stringify(message))
        if (message.id === "result-1") answer = message
      }
      assert.deepStrictEqual(answer.result.content, [{ type: "text", text: "a+b" }])
      assert.deepStrictEqual(answer.result._meta["io.modelcontextprotocol/related-task"], { taskId })
    }))

  it.scoped("a task's asks reach a client that never refers to the task, a few poll intervals after they are made", () =>
    Effect.gen(function*() {
      const { client } = yield* session
      const created = (yield* call(client, { name: "ask", arguments: {}, task: {} })).result
      const taskId = created.task.taskId
      // No tasks/get, no tasks/result (another instance may serve them): the asks go all the same.
      yield* pass(1_000)
      const asks: Array<any> = []
      while (asks.length < 2) {
        const message = yield* client.next
        if (message.method === "elicitation/create") asks.push(message)
      }
      for (const ask of asks) {
        assert.deepStrictEqual(ask.params._meta["io.modelcontextprotocol/related-task"], { taskId })
      }
    }))

  it.scoped("a task's ask made while a tasks/result waits goes to it, once", () =>
    Effect.gen(function*() {
      const { client } = yield* session
      const created = (yield* call(client, { name: "later", arguments: {}, task: {} })).result
      const taskId = created.task.taskId
      yield* client.send({ jsonrpc: "2.0", id: "result-2", method: "tasks/result", params: { taskId } })
      yield* pass(1_000)
      const asks: Array<any> = []
      let answer: any
      while (answer === undefined) {
        const message = yield* client.next
        if (message.method === "elicitation/create") {
          asks.push(message)
          assert.deepStrictEqual(message.params._meta["io.modelcontextprotocol/related-task"], { taskId })
          yield* client.send({ jsonrpc: "2.0", id: message.id, result: { action: "accept", content: { name: "Ann" } } })
        }
        if (message.id === "result-2") answer = message
      }
      assert.strictEqual(asks.length, 1)
      assert.deepStrictEqual(answer.result.content, [{ type: "text", text: "later Ann" }])
    }))
})
