/**
 * The 2025-11-25 experimental tasks against a client nobody here wrote: `@modelcontextprotocol/sdk`
 * 1.x's `client.experimental.tasks`, over Streamable HTTP, on our server. It creates a task and
 * streams its status to the result, polls and lists, gets a result by `tasks/result`, cancels a
 * running task, and answers an elicitation the task asks (on the session's GET stream, at once).
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, McpTask, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const Slow = Tool.make("slow", {
  parameters: Schema.Struct({ millis: Schema.Number }),
  task: "optional"
}, ({ millis }) =>
  Effect.gen(function*() {
    yield* McpTask.status(`working for ${millis} ms`)
    yield* Effect.sleep(`${millis} millis`)
    return `done after ${millis} ms`
  }))

const Forever = Tool.make("forever", { task: "required" }, () => Effect.as(Effect.never, "never"))

const Confirm = Tool.make("confirm", {
  parameters: Schema.Struct({ file: Schema.String }),
  task: "required",
  failure: Schema.String
}, ({ file }) =>
  McpRequest.elicit("confirm", {
    message: `Delete ${file}?`,
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
  }).pipe(
    Effect.map((answer) => answer.action === "accept" && answer.content?.confirm === true ? `deleted ${file}` : "kept"),
    Effect.mapError((error) => error.message)
  ))

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

let runtime: ManagedRuntime.ManagedRuntime<never, unknown>
let url: URL

beforeAll(async () => {
  const port = await freePort()
  url = new URL(`http://127.0.0.1:${port}/mcp`)
  runtime = ManagedRuntime.make(
    NodeMcpServer.layerHttp({ port }).pipe(
      Layer.provide(McpServer.layer({
        serverInfo: { name: "v1-tasks", version: "1.0.0" },
        tools: [Slow, Forever, Confirm],
        taskPollInterval: "50 millis"
      }))
    )
  )
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
})

const connect = async () => {
  const client = new Client(
    { name: "sdk-v1-tasks", version: "1.0.0" },
    { capabilities: { elicitation: {}, tasks: { list: {}, cancel: {} } } }
  )
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

describe("the official SDK 1.x client's experimental tasks", () => {
  it("creates a task, follows its status to the result, gets it again with tasks/result, lists it", async () => {
    const client = await connect()
    try {
      assert.deepStrictEqual(client.getServerCapabilities()?.tasks?.requests?.tools?.call, {})
      const kinds: Array<string> = []
      let taskId: string | undefined
      let result: any
      for await (
        const message of client.experimental.tasks.callToolStream(
          { name: "slow", arguments: { millis: 300 } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } }
        )
      ) {
        kinds.push(message.type)
        if (message.type === "taskCreated") taskId = message.task.taskId
        if (message.type === "result") result = message.result
        if (message.type === "error") assert.fail(String(message.error))
      }
      assert.isString(taskId)
      assert.strictEqual(kinds[0], "taskCreated")
      assert.include(kinds, "taskStatus")
      assert.strictEqual(kinds[kinds.length - 1], "result")
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done after 300 ms" }])
      const task = await client.experimental.tasks.getTask(taskId!)
      assert.strictEqual(task.status, "completed")
      assert.strictEqual(task.ttl, 60_000)
      const again = await client.experimental.tasks.getTaskResult(taskId!, CallToolResultSchema)
      assert.deepStrictEqual(again.content, result.content)
      const listed = await client.experimental.tasks.listTasks()
      assert.include(listed.tasks.map((t) => t.taskId), taskId)
    } finally {
      await client.close()
    }
  })

  it("cancels a running task: tasks/cancel answers it cancelled, and a second cancel is refused", async () => {
    const client = await connect()
    try {
      let taskId: string | undefined
      for await (
        const message of client.experimental.tasks.callToolStream(
          { name: "forever", arguments: {} },
          CallToolResultSchema,
          {
            task: {}
          }
        )
      ) {
        if (message.type === "taskCreated") {
          taskId = message.task.taskId
          break
        }
      }
      assert.isString(taskId)
      assert.strictEqual((await client.experimental.tasks.getTask(taskId!)).status, "working")
      const cancelled = await client.experimental.tasks.cancelTask(taskId!)
      assert.strictEqual(cancelled.status, "cancelled")
      assert.strictEqual((await client.experimental.tasks.getTask(taskId!)).status, "cancelled")
      let refused: any
      try {
        await client.experimental.tasks.cancelTask(taskId!)
      } catch (error) {
        refused = error
      }
      assert.strictEqual(refused?.code, -32602)
    } finally {
      await client.close()
    }
  })

  it("answers the task's elicitation, which arrives tagged with the task, and gets the result", async () => {
    const client = await connect()
    const asked: Array<any> = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params)
      return { action: "accept", content: { confirm: true } }
    })
    try {
      let result: any
      const statuses: Array<string> = []
      for await (
        const message of client.experimental.tasks.callToolStream(
          { name: "confirm", arguments: { file: "notes.txt" } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } }
        )
      ) {
        if (message.type === "taskStatus") statuses.push(message.task.status)
        if (message.type === "result") result = message.result
        if (message.type === "error") assert.fail(String(message.error))
      }
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(asked[0].message, "Delete notes.txt?")
      assert.isString(asked[0]._meta?.["io.modelcontextprotocol/related-task"]?.taskId)
      // The ask goes at once on the session's GET stream (no tasks/result waits when the task asks),
      // which this client opens: answered there, the task may be working again by its first poll.
      assert.includeMembers(["working", "input_required", "completed"], statuses)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "deleted notes.txt" }])
    } finally {
      await client.close()
    }
  })
})
