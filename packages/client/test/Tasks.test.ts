/**
 * Tasks on the client, at the wire, in both revisions: against our server in memory (2025-11-25
 * `params.task`, `tasks/get|result|list|cancel` and the task's asks on `tasks/result`; 2026-07-28
 * the tasks extension declared per request, `tasks/get|update|cancel`, the status heard on a
 * `subscriptions/listen`), and against a scripted server that asks for no pause between polls and
 * repeats its input requests. Every message the client sends is checked against the official
 * schemas.
 */
import { ClientError, McpClient, McpClientTransport, McpError } from "@effect-mcp/client"
import { JsonRpc, type Transport } from "@effect-mcp/core"
import { McpRequest, McpServer, McpTask, Tool } from "@effect-mcp/server"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"

const TASKS = "io.modelcontextprotocol/tasks"
type Revision = "2025-11-25" | "2026-07-28"

const Sleepy = Tool.make("sleepy", {
  parameters: Schema.Struct({ seconds: Schema.Number }),
  task: "optional"
}, ({ seconds }) =>
  Effect.gen(function*() {
    yield* McpTask.status("sleeping")
    yield* Effect.sleep(`${seconds} seconds`)
    return `slept ${seconds}s`
  }))

const ToolError = Tool.make(
  "tool_error",
  { task: "optional" },
  () => Effect.as(Effect.sleep("1 second"), { content: [{ type: "text" as const, text: "no" }], isError: true })
)

const Failing = Tool.make(
  "failing",
  { task: "optional" },
  () =>
    Effect.zipRight(Effect.sleep("1 second"), Effect.fail(new McpError.InternalError({ message: "The job crashed" })))
)

const Confirm = Tool.make("confirm", {
  parameters: Schema.Struct({ file: Schema.String }),
  task: "optional",
  failure: Schema.String
}, ({ file }) =>
  McpRequest.elicit("confirm", {
    message: `Delete ${file}?`,
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
  }).pipe(
    Effect.map((answer) => answer.content?.confirm === true ? `Deleted ${file}` : `Kept ${file}`),
    Effect.mapError((error) => error.message)
  ))

const Plain = Tool.make("plain", {}, () => Effect.succeed("plain answer"))

/** The official schema definition of what the client sends, by method (`undefined`: a response). */
const definitionOf = (revision: Revision, message: any): readonly [string, string] => {
  const method: string | undefined = message.method
  if (method === undefined) return [revision, "error" in message ? "JSONRPCErrorResponse" : "JSONRPCResultResponse"]
  const byMethod: Record<string, readonly [string, string]> = revision === "2025-11-25"
    ? {
      "initialize": [revision, "InitializeRequest"],
      "notifications/initialized": [revision, "InitializedNotification"],
      "notifications/cancelled": [revision, "CancelledNotification"],
      "tools/call": [revision, "CallToolRequest"],
      "tasks/get": [revision, "GetTaskRequest"],
      "tasks/result": [revision, "GetTaskPayloadRequest"],
      "tasks/list": [revision, "ListTasksRequest"],
      "tasks/cancel": [revision, "CancelTaskRequest"]
    }
    : {
      "server/discover": [revision, "DiscoverRequest"],
      "tools/call": [revision, "CallToolRequest"],
      "subscriptions/listen": [revision, "SubscriptionsListenRequest"],
      "notifications/cancelled": [revision, "CancelledNotification"],
      "tasks/get": ["ext-tasks-draft", "GetTaskRequest"],
      "tasks/update": ["ext-tasks-draft", "UpdateTaskRequest"],
      "tasks/cancel": ["ext-tasks-draft", "CancelTaskRequest"]
    }
  const found = byMethod[method]
  if (found === undefined) return assert.fail(`the client sent ${method}, which this test does not expect`)
  return found
}

/** Every message the client sent is valid; in 2026-07-28 each tasks request declares the extension. */
const checkSent = (revision: Revision, sent: ReadonlyArray<any>) => {
  for (const message of sent) {
    const [set, definition] = definitionOf(revision, message)
    assert.isUndefined(
      validate(set as "2025-11-25", definition, message),
      `${definition}: ${JSON.stringify(message)}`
    )
    if (revision === "2026-07-28" && typeof message.method === "string" && message.method.startsWith("tasks/")) {
      const declared = message.params._meta["io.modelcontextprotocol/clientCapabilities"]
      assert.deepStrictEqual(declared.extensions?.[TASKS], {}, JSON.stringify(message))
    }
  }
}

/** The server's end of the connection, every message the client sends kept in `sent`. */
const tapped = (protocol: Transport.Protocol, sent: Array<any>): Transport.Protocol => ({
  ...protocol,
  run: (receiver) =>
    protocol.run({
      ...receiver,
      receive: (client, inbound, context) => {
        if (inbound._tag === "Single") sent.push(JSON.parse(JSON.stringify(inbound.message)))
        receiver.receive(client, inbound, context)
      }
    })
})

/** A client of our server in `revision`, its elicitations answered `confirm` (and counted). */
const ours = (revision: Revision) =>
  Effect.gen(function*() {
    const sent: Array<any> = []
    const interrupted = yield* Ref.make(0)
    const elicited: Array<any> = []
    const Cancellable = Tool.make(
      "cancellable",
      { task: "optional" },
      () => Effect.onInterrupt(Effect.as(Effect.never, "never"), () => Ref.update(interrupted, (n) => n + 1))
    )
    const server = McpServer.layer({
      serverInfo: { name: "tasks", version: "1.0.0" },
      revisions: [revision],
      taskPollInterval: "200 millis",
      tools: [Sleepy, ToolError, Failing, Confirm, Plain, Cancellable]
    })
    const context = yield* Layer.build(
      McpClient.layer({
        clientInfo: { name: "t", version: "1" },
        era: revision === "2025-11-25" ? "handshake" : "stateless",
        declareTasks: true,
        handlers: {
          elicitation: (params) =>
            Effect.sync(() => {
              elicited.push(params)
              return { action: "accept" as const, content: { confirm: true } }
            })
        }
      }).pipe(
        Layer.provide(McpClientTransport.layerMemory((protocol) =>
          McpServer.serve(tapped(protocol, sent)).pipe(Effect.provide(server))
        ))
      )
    )
    return { client: Context.get(context, McpClient.McpClient), sent, interrupted, elicited }
  })

/** Runs `effect` while the test clock moves on, 50 ms at a time (the server's sleeps, the client's polls). */
const drive = <A, E>(effect: Effect.Effect<A, E>, steps = 600) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    for (let i = 0; i < steps; i++) {
      const exit = yield* Fiber.poll(fiber)
      if (Option.isSome(exit)) return yield* exit.value
      yield* TestClock.adjust("50 millis")
    }
    yield* Fiber.interrupt(fiber)
    return assert.fail("never done")
  })

/** Lets the test clock run `millis` (forked fibers with it). */
const pass = (millis: number) =>
  Effect.gen(function*() {
    for (let t = 0; t < millis; t += 50) yield* TestClock.adjust("50 millis")
  })

const text = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((c) => c.type === "text" ? (c as unknown as { readonly text: string }).text : "").join("")

const idOf = (task: McpClient.Task) => Option.getOrThrow(task.taskId)

describe.each(["2025-11-25", "2026-07-28"] as const)("tasks in %s, against our server", (revision) => {
  it.scoped("a task call: created working, its status followed to completed, its result", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* ours(revision)
      const task = yield* client.callTool("sleepy", { seconds: 2 }, { task: true })
      const created = Option.getOrThrow(task.created)
      assert.strictEqual(created.status, "working")
      assert.strictEqual(created.pollIntervalMs, 200)
      assert.isNumber(created.ttlMs)
      const statuses = Chunk.toReadonlyArray(yield* drive(Stream.runCollect(task.status)))
      assert.strictEqual(statuses[statuses.length - 1]!.status, "completed")
      assert.strictEqual(statuses[0]!.statusMessage, "sleeping")
      for (const s of statuses) assert.strictEqual(s.taskId, idOf(task))
      const result = yield* drive(task.result)
      assert.strictEqual(text(result), "slept 2s")
      const call = sent.find((m) => m.method === "tools/call")
      if (revision === "2025-11-25") {
        assert.deepStrictEqual(call.params.task, {})
        assert.isTrue(sent.some((m) => m.method === "tasks/result"))
        const init = sent.find((m) => m.method === "initialize")
        assert.deepStrictEqual(init.params.capabilities.tasks, { list: {}, cancel: {} })
      } else {
        assert.notProperty(call.params, "task")
        assert.deepStrictEqual(call.params._meta["io.modelcontextprotocol/clientCapabilities"].extensions, {
          [TASKS]: {}
        })
        // Heard on a listen for the task, not polled.
        const listen = sent.find((m) => m.method === "subscriptions/listen")
        assert.deepStrictEqual(listen.params.notifications, { taskIds: [idOf(task)] })
        assert.isAtMost(sent.filter((m) => m.method === "tasks/get").length, 3)
      }
      checkSent(revision, sent)
    }))

  it.scoped("an isError result is the task's result (2025-11-25: the task failed; 2026-07-28: completed)", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* ours(revision)
      const task = yield* client.callTool("tool_error", {}, { task: true })
      const result = yield* drive(task.result)
      assert.isTrue(result.isError)
      assert.strictEqual(text(result), "no")
      const info = yield* client.tasks.get(idOf(task))
      assert.strictEqual(info.status, revision === "2025-11-25" ? "failed" : "completed")
      checkSent(revision, sent)
    }))

  it.scoped("a task that fails with an error: TaskFailed, naming the task, with the server's error", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* ours(revision)
      const task = yield* client.callTool("failing", undefined, { task: true })
      const error = yield* Effect.flip(drive(task.result))
      assert.strictEqual(error._tag, "TaskFailed")
      const failed = error as ClientError.TaskFailed
      assert.strictEqual(failed.taskId, idOf(task))
      assert.strictEqual(failed.error._tag, "InternalError")
      assert.include(failed.error.message, "The job crashed")
      checkSent(revision, sent)
    }))

  it.scoped("cancel: the handler stops, the status ends cancelled, result is TaskCancelled", () =>
    Effect.gen(function*() {
      const { client, interrupted, sent } = yield* ours(revision)
      const task = yield* client.callTool("cancellable", undefined, { task: true })
      const waiting = yield* Effect.fork(Effect.flip(task.result))
      yield* pass(200)
      yield* task.cancel
      const error = yield* drive(Fiber.join(waiting))
      assert.strictEqual(error._tag, "TaskCancelled")
      assert.strictEqual((error as ClientError.TaskCancelled).taskId, idOf(task))
      assert.strictEqual(yield* Ref.get(interrupted), 1)
      const statuses = yield* drive(Stream.runCollect(task.status))
      assert.deepStrictEqual(Chunk.toReadonlyArray(statuses).map((s) => s.status), ["cancelled"])
      checkSent(revision, sent)
    }))

  it.scoped("interrupting the wait for the result leaves the task running; with cancelOnInterrupt it is cancelled", () =>
    Effect.gen(function*() {
      const { client, interrupted, sent } = yield* ours(revision)
      const kept = yield* client.callTool("cancellable", undefined, { task: true })
      const waiting = yield* Effect.fork(kept.result)
      yield* pass(300)
      yield* Fiber.interrupt(waiting)
      yield* pass(300)
      assert.strictEqual((yield* client.tasks.get(idOf(kept))).status, "working")
      assert.strictEqual(yield* Ref.get(interrupted), 0)
      assert.isFalse(sent.some((m) => m.method === "tasks/cancel"))

      const dropped = yield* client.callTool("cancellable", undefined, { task: true, cancelOnInterrupt: true })
      const again = yield* Effect.fork(dropped.result)
      yield* pass(300)
      yield* Fiber.interrupt(again)
      yield* pass(300)
      assert.strictEqual((yield* client.tasks.get(idOf(dropped))).status, "cancelled")
      assert.strictEqual(yield* Ref.get(interrupted), 1)
      assert.strictEqual((yield* client.tasks.get(idOf(kept))).status, "working")
      checkSent(revision, sent)
    }))

  it.scoped("the task's elicitation is answered by the client's handler, once", () =>
    Effect.gen(function*() {
      const { client, elicited, sent } = yield* ours(revision)
      const task = yield* client.callTool("confirm", { file: "a.txt" }, { task: true })
      const result = yield* drive(task.result)
      assert.strictEqual(text(result), "Deleted a.txt")
      assert.strictEqual(elicited.length, 1)
      assert.strictEqual(elicited[0].message, "Delete a.txt?")
      if (revision === "2025-11-25") {
        // Asked on the tasks/result stream: the client's answer to the server's request.
        assert.isTrue(sent.some((m) => m.method === undefined && m.result?.action === "accept"))
        assert.isFalse(sent.some((m) => m.method === "tasks/update"))
      } else {
        const updates = sent.filter((m) => m.method === "tasks/update")
        assert.strictEqual(updates.length, 1)
        assert.deepStrictEqual(updates[0].params.inputResponses, {
          confirm: { action: "accept", content: { confirm: true } }
        })
        assert.strictEqual(updates[0].params.taskId, idOf(task))
      }
      checkSent(revision, sent)
    }))

  it.scoped("a tool that does not run as a task: its result at once, a handle already done", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* ours(revision)
      const task = yield* client.callTool("plain", undefined, { task: true })
      assert.isTrue(Option.isNone(task.taskId))
      assert.strictEqual(text(yield* task.result), "plain answer")
      assert.strictEqual(Chunk.size(yield* Stream.runCollect(task.status)), 0)
      assert.isFalse(sent.some((m) => typeof m.method === "string" && m.method.startsWith("tasks/")))
      checkSent(revision, sent)
    }))

  it.scoped("tasks.handle takes a task up by its id; tasks.get and tasks.cancel by id", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* ours(revision)
      const first = yield* client.callTool("sleepy", { seconds: 1 }, { task: true })
      const again = yield* client.tasks.handle(idOf(first))
      assert.strictEqual(idOf(again), idOf(first))
      assert.strictEqual(text(yield* drive(again.result)), "slept 1s")
      const other = yield* client.callTool("cancellable", undefined, { task: true })
      yield* client.tasks.cancel(idOf(other))
      assert.strictEqual((yield* client.tasks.get(idOf(other))).status, "cancelled")
      const unknown = yield* Effect.flip(client.tasks.handle("no-such-task"))
      assert.strictEqual(unknown._tag, "InvalidParams")
      checkSent(revision, sent)
    }))

  it.scoped("tasks.list: the session's tasks in 2025-11-25; EraMismatch in 2026-07-28, nothing sent", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* ours(revision)
      const a = yield* client.callTool("cancellable", undefined, { task: true })
      const b = yield* client.callTool("cancellable", undefined, { task: true })
      if (revision === "2025-11-25") {
        const listed = yield* client.tasks.list
        assert.deepStrictEqual(listed.map((t) => t.taskId).sort(), [idOf(a), idOf(b)].sort())
        assert.deepStrictEqual(listed.map((t) => t.status), ["working", "working"])
      } else {
        const error = yield* Effect.flip(client.tasks.list)
        assert.strictEqual(error._tag, "EraMismatch")
        assert.isFalse(sent.some((m) => m.method === "tasks/list"))
      }
      checkSent(revision, sent)
    }))
})

describe("tasks in 2025-11-25: the server's tasks requests to its requestor", () => {
  it.scoped("this client runs no tasks of its own: tasks/list is empty, a task id is unknown (-32602)", () =>
    Effect.gen(function*() {
      const sent: Array<any> = []
      const answered: Array<any> = []
      // A server that asks the client about its tasks once the session is open.
      const server = (protocol: Transport.Protocol) =>
        protocol.run({
          receive: (_client, inbound) => {
            if (inbound._tag !== "Single") return
            const message = inbound.message as any
            sent.push(message)
            if (message.method === "initialize") {
              Effect.runSync(protocol.send(
                0,
                JsonRpc.success(message.id, {
                  protocolVersion: "2025-11-25",
                  capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
                  serverInfo: { name: "asker", version: "1" }
                })
              ))
            } else if (message.method === "notifications/initialized") {
              Effect.runSync(protocol.send(0, JsonRpc.request("s1", "tasks/list", {})))
              Effect.runSync(protocol.send(0, JsonRpc.request("s2", "tasks/get", { taskId: "x" })))
            } else if (message.method === undefined) answered.push(message)
          },
          disconnect: () => {},
          responseClosed: () => {},
          fail: () => {}
        })
      yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake", declareTasks: true }).pipe(
          Layer.provide(McpClientTransport.layerMemory(server))
        )
      )
      for (let i = 0; i < 100 && answered.length < 2; i++) yield* Effect.yieldNow()
      assert.deepStrictEqual(answered.find((m) => m.id === "s1")?.result, { tasks: [] })
      assert.strictEqual(answered.find((m) => m.id === "s2")?.error?.code, -32602)
      checkSent("2025-11-25", sent)
    }))
})

// ---------------------------------------------------------------------------- a hostile server

/**
 * A 2026-07-28 server (no listens) whose task asks for no pause between polls and lives `ttlMs`;
 * its `tasks/get` answers with `answer(n)`, n the number of the poll. Every request is counted.
 */
const scripted = (ttlMs: number, answer: (n: number) => Record<string, unknown>) =>
  Effect.gen(function*() {
    const sent: Array<any> = []
    const task = {
      taskId: "t-1",
      createdAt: "2026-01-01T00:00:00.000Z",
      lastUpdatedAt: "2026-01-01T00:00:00.000Z",
      ttlMs,
      pollIntervalMs: 0
    }
    let polls = 0
    const server = (protocol: Transport.Protocol) =>
      protocol.run({
        receive: (_client, inbound) => {
          if (inbound._tag !== "Single") return
          const message = inbound.message as any
          sent.push(message)
          const reply = (result: Record<string, unknown>) =>
            Effect.runSync(protocol.send(0, JsonRpc.success(message.id, result)))
          switch (message.method) {
            case "server/discover":
              return reply({
                resultType: "complete",
                supportedVersions: ["2026-07-28"],
                capabilities: { tools: {} },
                ttlMs: 0,
                cacheScope: "public",
                _meta: { "io.modelcontextprotocol/serverInfo": { name: "hostile", version: "1" } }
              })
            case "tools/call":
              return reply({ resultType: "task", ...task, status: "working" })
            case "tasks/get":
              // A client that never pauses would poll on without end: it gets an end to fail the test on.
              return reply({
                resultType: "complete",
                ...task,
                ...(++polls > 1_000 ? { status: "completed", result: { content: [] } } : answer(polls))
              })
            case "tasks/update":
            case "tasks/cancel":
              return reply({ resultType: "complete" })
          }
        },
        disconnect: () => {},
        responseClosed: () => {},
        fail: () => {}
      })
    const context = yield* Layer.build(
      McpClient.layer({
        clientInfo: { name: "t", version: "1" },
        era: "stateless",
        handlers: { elicitation: () => Effect.succeed({ action: "accept" as const, content: { ok: true } }) }
      }).pipe(Layer.provide(McpClientTransport.layerMemory(server)))
    )
    return { client: Context.get(context, McpClient.McpClient), sent, polls: () => polls }
  })

describe("tasks against a hostile server", () => {
  it.scoped("a poll interval of 0 is held to 50 ms, and the wait ends with the task's ttl (TaskExpired)", () =>
    Effect.gen(function*() {
      const { client, polls, sent } = yield* scripted(2_000, () => ({ status: "working" }))
      const task = yield* client.callTool("job", undefined, { task: true })
      const error = yield* Effect.flip(drive(task.result))
      assert.strictEqual(error._tag, "TaskExpired")
      assert.strictEqual((error as ClientError.TaskExpired).ttlMs, 2_000)
      // 2 seconds at one poll per 50 ms at most (and not none).
      assert.isAtMost(polls(), 2_000 / 50 + 1)
      assert.isAtLeast(polls(), 10)
      checkSent("2026-07-28", sent)
    }))

  it.scoped("an input request still open on later polls is answered once, beside the new ones", () =>
    Effect.gen(function*() {
      const ask = (message: string) => ({
        method: "elicitation/create",
        params: { mode: "form", message, requestedSchema: { type: "object", properties: {} } }
      })
      const { client, sent } = yield* scripted(60_000, (n) =>
        n < 3
          ? { status: "input_required", inputRequests: { k: ask("k?") } }
          : n < 6
          ? { status: "input_required", inputRequests: { k: ask("k?"), j: ask("j?") } }
          : { status: "completed", result: { content: [{ type: "text", text: "done" }] } })
      const task = yield* client.callTool("job", undefined, { task: true })
      const result = yield* drive(task.result)
      assert.strictEqual(text(result), "done")
      const updates = sent.filter((m) => m.method === "tasks/update")
      const accepted = { action: "accept", content: { ok: true } }
      assert.deepStrictEqual(updates.map((u) => u.params.inputResponses), [{ k: accepted }, { j: accepted }])
      assert.isAtLeast(sent.filter((m) => m.method === "tasks/get").length, 6)
      checkSent("2026-07-28", sent)
    }))
})
