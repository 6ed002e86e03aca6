/**
 * Issue 36: an answer to an ask (sampling, elicitation, roots) that does not decode is refused in
 * one wording in every era (`Ask.invalidAnswer`): a handshake server→client request answered
 * wrongly, a 2026-07-28 retry whose `inputResponses` do not decode, a task's input answered wrongly
 * (2026-07-28 `tasks/update`, 2025-11-25 the request tagged with the task). And a plain ask is
 * never answered by a `CreateTaskResult` (2025-11-25's catalog admits one for a task-augmented
 * request; the server never sends its asks so). At the wire, JSON text in and out.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as McpRequest from "../src/McpRequest.js"
import * as Tool from "../src/Tool.js"
import type { TestClient } from "./utils/TestClient.js"
import { connect, meta } from "./utils/TestClient.js"

const serverInfo = { name: "ask-answers", version: "1.0.0" }

const form = {
  message: "Who are you?",
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } } }
}

const samplingParams = {
  messages: [{ role: "user" as const, content: { type: "text" as const, text: "What is 2+2?" } }],
  maxTokens: 16
}

/** A failed ask becomes the tool's own failure (its isError result): its message. */
const failure = Schema.String
const told = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (error) => error.message)

const Name = Tool.make(
  "name",
  { failure, task: "optional" },
  () => told(Effect.map(McpRequest.elicit("name", form), (answer) => `hello ${answer.content?.name}`))
)

const Sample = Tool.make(
  "sample",
  { failure },
  () => told(Effect.map(McpRequest.sample("s", samplingParams), (answer) => JSON.stringify(answer)))
)

const Roots = Tool.make(
  "roots",
  { failure },
  () => told(Effect.map(McpRequest.roots("roots"), (roots) => JSON.stringify(roots)))
)

const options = {
  serverInfo,
  revisions: ["2025-06-18", "2025-11-25", "2026-07-28"] as const,
  taskPollInterval: "250 millis" as const,
  tools: [Name, Sample, Roots]
}

/** Calls `tool` in a handshake session, answers the server's request with `result`: the tool's result. */
const answeredWith = (client: TestClient, tool: string, method: string, result: unknown) =>
  Effect.gen(function*() {
    yield* client.send({ jsonrpc: "2.0", id: `call-${tool}`, method: "tools/call", params: { name: tool } })
    const request = yield* client.next
    assert.strictEqual(request.method, method)
    yield* client.send({ jsonrpc: "2.0", id: request.id, result })
    const response = yield* client.next
    assert.strictEqual(response.id, `call-${tool}`)
    return response.result
  })

const TASKS = "io.modelcontextprotocol/tasks"

describe("an answer that does not decode: one wording in every era", () => {
  it.scoped("handshake: a server→client request's result that does not decode", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* client.initialize("2025-06-18", { elicitation: {}, sampling: {}, roots: {} })
      const elicited = yield* answeredWith(client, "name", "elicitation/create", { action: "maybe" })
      assert.strictEqual(elicited.isError, true)
      assert.match(elicited.content[0].text, /^Invalid answer to elicitation\/create: /)
      const sampled = yield* answeredWith(client, "sample", "sampling/createMessage", { role: "assistant" })
      assert.match(sampled.content[0].text, /^Invalid answer to sampling\/createMessage: /)
      const roots = yield* answeredWith(client, "roots", "roots/list", { roots: "none" })
      assert.match(roots.content[0].text, /^Invalid answer to roots\/list: /)
    }))

  it.scoped("2026-07-28: a retry whose inputResponses do not decode", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const params = { name: "name", arguments: {}, _meta: meta({}, { elicitation: {} }) }
      const first = yield* client.result("tools/call", params)
      assert.strictEqual(first.resultType, "input_required")
      const done = yield* client.result("tools/call", {
        ...params,
        // Well-formed as an input response (the params decode), not as an elicitation's answer.
        inputResponses: { name: { roots: [] } },
        requestState: first.requestState
      })
      assert.strictEqual(done.isError, true)
      assert.match(done.content[0].text, /^Invalid answer to elicitation\/create \(inputResponses\.name\): /)
    }))

  it.scoped("2026-07-28: a task's input answered wrongly by tasks/update (-32602, the task waits on)", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const p = (params: Record<string, unknown>) => ({
        ...params,
        _meta: meta({}, { elicitation: {}, extensions: { [TASKS]: {} } })
      })
      const task = yield* client.result("tools/call", p({ name: "name" }))
      assert.strictEqual(task.resultType, "task")
      let waiting = yield* client.result("tasks/get", p({ taskId: task.taskId }))
      for (let i = 0; i < 100 && waiting.status !== "input_required"; i++) {
        yield* TestClock.adjust("10 millis")
        waiting = yield* client.result("tasks/get", p({ taskId: task.taskId }))
      }
      assert.deepStrictEqual(Object.keys(waiting.inputRequests), ["name"])
      const bad = yield* client.error(
        "tasks/update",
        p({ taskId: task.taskId, inputResponses: { name: { roots: [] } } })
      )
      assert.strictEqual(bad.code, -32602)
      assert.match(bad.message, /^Invalid answer to elicitation\/create \(inputResponses\.name\): /)
      assert.strictEqual((yield* client.result("tasks/get", p({ taskId: task.taskId }))).status, "input_required")
    }))

  it.scoped("2025-11-25: a task's ask (tagged with the task) answered wrongly", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* client.initialize("2025-11-25", { elicitation: {}, tasks: {} })
      const created = yield* client.exchange("tools/call", { name: "name", task: {} })
      const taskId = created.response.result.task.taskId
      yield* client.send({ jsonrpc: "2.0", id: "result-1", method: "tasks/result", params: { taskId } })
      let answer: any
      while (answer === undefined) {
        const message = yield* client.next
        if (message.method === "elicitation/create") {
          assert.deepStrictEqual(message.params._meta["io.modelcontextprotocol/related-task"], { taskId })
          yield* client.send({ jsonrpc: "2.0", id: message.id, result: { action: "maybe" } })
        }
        if (message.id === "result-1") answer = message
      }
      assert.strictEqual(answer.result.isError, true)
      assert.match(answer.result.content[0].text, /^Invalid answer to elicitation\/create: /)
    }))
})

describe("a plain ask is never answered by a task", () => {
  const at = "2026-01-01T00:00:00Z"
  const created = { task: { taskId: "t-1", status: "working", createdAt: at, lastUpdatedAt: at, ttl: null } }

  it.scoped("2025-11-25: a CreateTaskResult answering sampling/createMessage or elicitation/create is invalid", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* client.initialize("2025-11-25", { elicitation: {}, sampling: {} })
      const sampled = yield* answeredWith(client, "sample", "sampling/createMessage", created)
      assert.strictEqual(sampled.isError, true, JSON.stringify(sampled))
      assert.match(sampled.content[0].text, /^Invalid answer to sampling\/createMessage: /)
      const elicited = yield* answeredWith(client, "name", "elicitation/create", created)
      assert.strictEqual(elicited.isError, true, JSON.stringify(elicited))
      assert.match(elicited.content[0].text, /^Invalid answer to elicitation\/create: /)
    }))
})
