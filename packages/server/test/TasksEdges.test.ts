/**
 * The tasks runtime at its edges (each found by a review, each failing before its fix): a request
 * interrupted as it detaches or as its handler is forked, a session that ends with tasks running, an ask that times out (both
 * revisions), keys that are built-in property names, the related task on every `tasks/result`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import * as TaskMemory from "../src/internal/taskMemory.js"
import * as Tasks from "../src/internal/tasks.js"
import * as McpRequest from "../src/McpRequest.js"
import * as McpServer from "../src/McpServer.js"
import * as McpTask from "../src/McpTask.js"
import * as TaskStore from "../src/TaskStore.js"
import * as Tool from "../src/Tool.js"
import { attach, clientInfo, meta, type TestClient } from "./utils/TestClient.js"

const serverInfo = { name: "tasks-edges", version: "1.0.0" }
const TASKS = "io.modelcontextprotocol/tasks"
const withTasks = { extensions: { [TASKS]: {} }, elicitation: {} }
const form = {
  message: "Q?",
  requestedSchema: { type: "object" as const, properties: { q: { type: "string" as const } } }
}

const p = (params: Record<string, unknown>, capabilities: Record<string, unknown> = withTasks) => ({
  ...params,
  _meta: meta({ "io.modelcontextprotocol/clientInfo": clientInfo }, capabilities)
})
const pass = (millis: number) => Effect.zipRight(TestClock.adjust(`${millis} millis`), Effect.yieldNow())

/** Asks with a 1 s timeout, gives up on it, then works on for a while. */
const Impatient = Tool.make("impatient", { task: "optional" }, () =>
  Effect.gen(function*() {
    yield* Effect.either(McpRequest.elicit("q", form, { timeout: "1 second" }))
    yield* McpTask.status("gave up asking")
    yield* Effect.sleep("30 seconds")
    return "done"
  }))

const Forever = (interrupted: Ref.Ref<number>) =>
  Tool.make(
    "forever",
    { task: "optional" },
    () => Effect.onInterrupt(Effect.as(Effect.never, "never"), () => Ref.update(interrupted, (n) => n + 1))
  )

const AskOnce = Tool.make(
  "ask_once",
  { task: "optional", failure: Schema.String },
  () => Effect.mapError(Effect.map(McpRequest.elicit("q", form), () => "answered"), (e) => e.message)
)

const server = (interrupted: Ref.Ref<number>, store?: TaskStore.Service) =>
  Effect.gen(function*() {
    const made = McpServer.make({
      serverInfo,
      revisions: ["2025-11-25", "2026-07-28"] as const,
      tools: [Impatient, Forever(interrupted), AskOnce]
    })
    return yield* (store === undefined ? made : made.pipe(Effect.provideService(TaskStore.TaskStore, store)))
  })

const exchange = (client: TestClient, method: string, params?: Record<string, unknown>) =>
  Effect.map(client.exchange(method, params), ({ response }) => response)

describe("tasks: edges", () => {
  // a 2026 ask that times out leaves its input request in the record: the task
  // reads input_required (asking "q") while its handler has moved on.
  it.scoped("2026-07-28: an ask that timed out is no longer an open input request", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const client = yield* attach(yield* server(interrupted))
      const task = yield* client.result("tools/call", p({ name: "impatient" }))
      yield* pass(2_000)
      yield* pass(10)
      const now = yield* client.result("tasks/get", p({ taskId: task.taskId }))
      assert.strictEqual(now.statusMessage, "gave up asking")
      assert.strictEqual(now.status, "working", JSON.stringify(now))
      assert.notProperty(now, "inputRequests")
    }))

  // a 2025-11-25 ask waits for a tasks/result outside its timeout:
  // with no tasks/result, `timeout` never fires and the task stays input_required forever.
  it.scoped("2025-11-25: an ask's timeout holds even when no tasks/result is waiting", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const client = yield* attach(yield* server(interrupted))
      yield* client.initialize("2025-11-25", { elicitation: {}, tasks: {} })
      const created = yield* exchange(client, "tools/call", { name: "impatient", task: {} })
      const taskId = created.result.task.taskId
      yield* pass(2_000)
      yield* pass(10)
      const now = yield* exchange(client, "tasks/get", { taskId })
      assert.strictEqual(now.result.statusMessage, "gave up asking", JSON.stringify(now.result))
      assert.strictEqual(now.result.status, "working")
    }))

  // the check of answers reads inherited properties: `constructor` is taken
  // for an asked key, so an unknown key is an error instead of being ignored (§11.2).
  it.scoped("2026-07-28: tasks/update ignores an unknown key, whatever its name", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const client = yield* attach(yield* server(interrupted))
      const task = yield* client.result("tools/call", p({ name: "ask_once" }))
      yield* pass(10)
      const response = yield* client.call(
        "tasks/update",
        p({ taskId: task.taskId, inputResponses: { constructor: { junk: true }, toString: 1 } })
      )
      assert.isUndefined(response.error, JSON.stringify(response.error))
    }))

  // tasks/result on a cancelled task answers an error without the
  // related-task `_meta` the 2025-11-25 tasks/result response MUST carry.
  it.scoped("2025-11-25: tasks/result of a cancelled task carries the related task", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const client = yield* attach(yield* server(interrupted))
      yield* client.initialize("2025-11-25", { tasks: {} })
      const created = yield* exchange(client, "tools/call", { name: "forever", task: {} })
      const taskId = created.result.task.taskId
      yield* exchange(client, "tasks/cancel", { taskId })
      const response = yield* exchange(client, "tasks/result", { taskId })
      assert.deepStrictEqual(
        response.error?.data?._meta?.["io.modelcontextprotocol/related-task"] ??
          response.result?._meta?.["io.modelcontextprotocol/related-task"],
        { taskId },
        JSON.stringify(response)
      )
    }))

  // No session end handling: a 2025-11-25 session's tasks (owner `session:…`, reachable by that
  // session only) run on and hold the store's slots for their TTL (client-chosen, up to 24 h)
  // after the session is gone. A client that opens sessions in turn fills `maxTasks` for everyone.
  it.scoped("2025-11-25: the tasks of a session that ended are stopped and free their slots", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const store = yield* TaskStore.makeMemory({ maxTasks: 2 })
      const mcp = yield* server(interrupted, store)
      const a = yield* attach(mcp)
      yield* a.initialize("2025-11-25", { tasks: {} })
      for (let i = 0; i < 2; i++) yield* exchange(a, "tools/call", { name: "forever", task: { ttl: 86_400_000 } })
      yield* a.remote.close
      yield* pass(1_000)
      yield* pass(1_000)
      const b = yield* attach(mcp)
      yield* b.initialize("2025-11-25", { tasks: {} })
      const created = yield* exchange(b, "tools/call", { name: "forever", task: {} })
      assert.isUndefined(created.error, JSON.stringify(created.error))
      assert.strictEqual(yield* Ref.get(interrupted), 2, "the ended session's handlers still run")
    }))

  // a task failed elsewhere (another instance found its lease lapsed while this one was cut off
  // from a shared store) kept its handler running here, for nothing.
  it.scoped("a task ended elsewhere (its lease lapsed) stops its handler here", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const store = yield* TaskStore.makeMemory()
      const client = yield* attach(yield* server(interrupted, store))
      const task = yield* client.result("tools/call", p({ name: "forever" }))
      yield* pass(10)
      const record = Option.getOrThrow(yield* store.get(task.taskId))
      assert.strictEqual(record.status, "working")
      const failed = yield* store.compareAndSet(task.taskId, record.version, {
        ...record,
        status: "failed",
        outcome: { _tag: "Error", error: { code: -32603, message: "The instance running this task was lost" } },
        lease: undefined,
        version: record.version + 1
      })
      assert.isTrue(failed)
      yield* pass(10)
      yield* pass(10)
      assert.strictEqual(yield* Ref.get(interrupted), 1)
    }))

  // a request interrupted after its handler detached (the task exists) but
  // before `start` saw it: the onExit leaves the handler running, and `asTask` is never forked.
  // Nobody settles the task (working until its TTL), nobody renews or watches it (tasks/cancel
  // cannot stop the handler), and `locals` / `sessions` / `told` keep its entries.
  it.scoped("onDetach: a request interrupted right after detach still leaves a task that ends", () =>
    Effect.gen(function*() {
      const store = yield* TaskMemory.make()
      const runtime = yield* Tasks.make(store, { ...Tasks.defaults, instance: "test" })
      const taskId = yield* Ref.make<string | undefined>(undefined)
      let starting: Fiber.RuntimeFiber<unknown, unknown> | undefined
      const tool = Tool.make(
        "late",
        { task: { support: "optional", start: "onDetach" } },
        () =>
          Effect.gen(function*() {
            yield* McpTask.detach
            yield* Ref.set(taskId, Option.getOrUndefined(yield* McpTask.taskId))
            // The request is cancelled now (a client's notifications/cancelled, a closed stream).
            yield* Fiber.interruptFork(starting!)
            yield* Effect.sleep("1 second")
            return "done"
          })
      )
      const request = {
        request: { jsonrpc: "2.0", id: 1, method: "tools/call" },
        id: 1,
        method: "tools/call",
        revision: "2026-07-28",
        era: "stateless",
        auth: Option.none(),
        taskOwner: "client:test@1",
        clientCapabilities: withTasks,
        sink: {},
        forTask() {
          return { asker: undefined, sink: {}, bytes: 0 }
        }
      } as any
      starting = yield* Effect.fork(runtime.start(tool as Tool.Tool, {}, request, undefined))
      yield* Fiber.await(starting)
      yield* pass(2_000)
      yield* pass(10)
      const id = yield* Ref.get(taskId)
      assert.isString(id)
      const record = yield* store.get(id!)
      assert.isTrue(Option.isSome(record))
      assert.strictEqual(Option.getOrThrow(record).status, "completed")
    }))

  // Issue 35 review, finding 8: the handler's fiber was forked, and tied to its request (the onExit
  // that stops it with the request) a step later. An interruption that came between the two left it
  // running, tied to nothing: an onDetach handler ran to its end, an immediately one became a task
  // whose id nobody learns, and neither is stopped when the server stops (not a task yet). Here the
  // interruption comes exactly there: as the handler's fiber is made (synchronously, in the
  // requesting fiber), a supervisor interrupts the fiber making it.
  it.scoped("a request interrupted as its handler's fiber is forked takes the handler with it", () =>
    Effect.gen(function*() {
      const store = yield* TaskMemory.make()
      const runners: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
      class InterruptAtFork extends Supervisor.AbstractSupervisor<void> {
        value = Effect.void
        override onStart<A, E, R>(
          context: Context.Context<R>,
          _effect: Effect.Effect<A, E, R>,
          _parent: Option.Option<Fiber.RuntimeFiber<any, any>>,
          fiber: Fiber.RuntimeFiber<A, E>
        ): void {
          // Only a handler's fiber starts with McpTask in its context.
          if (Option.isNone(Context.getOption(context as Context.Context<never>, McpTask.McpTask))) return
          runners.push(fiber)
          Option.map(Fiber.getCurrentFiber(), (requesting) => requesting.unsafeInterruptAsFork(FiberId.none))
        }
      }
      const runtime = yield* Effect.supervised(
        Tasks.make(store, { ...Tasks.defaults, instance: "test" }),
        new InterruptAtFork()
      )
      const request = {
        request: { jsonrpc: "2.0", id: 1, method: "tools/call" },
        id: 1,
        method: "tools/call",
        revision: "2026-07-28",
        era: "stateless",
        auth: Option.none(),
        taskOwner: "client:test@1",
        clientCapabilities: withTasks,
        sink: {},
        forTask() {
          return { asker: undefined, sink: {}, bytes: 0 }
        }
      } as any
      for (const start of ["onDetach", "immediately"] as const) {
        const tool = Tool.make(
          `waits_${start}`,
          { task: { support: "optional", start } },
          () => Effect.as(Effect.never, "never")
        )
        const requesting = yield* Effect.fork(runtime.start(tool as Tool.Tool, {}, request, undefined))
        assert.isTrue(Exit.isInterrupted(yield* Fiber.await(requesting)), start)
        assert.strictEqual(runners.length, 1, start)
        // By the time its request ended, the handler had ended too (before: still running, or not
        // even started yet, and left to run).
        const ended = runners.pop()!.unsafePoll()
        assert.isNotNull(ended, `${start}: the handler runs on, tied to nothing`)
        assert.isTrue(Exit.isInterrupted(ended!), start)
        assert.deepStrictEqual((yield* store.list("client:test@1", undefined, 10)).tasks, [], start)
      }
    }))
})
