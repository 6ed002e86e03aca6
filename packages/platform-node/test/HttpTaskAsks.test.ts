/**
 * Issue 35, item 13: a 2025-11-25 task's asks over Streamable HTTP, at the wire. The revision
 * says a requestor picks a task's asks up on a `tasks/result`, and lets a server send on any
 * stream; ext-tasks 0.2.2 only polls `tasks/get` and never calls `tasks/result`, so an ask that
 * waited for one was never delivered. Now, with no `tasks/result` waiting, the ask goes on the
 * session's GET stream once the client polled the task, tagged with it (`_meta` related-task);
 * the answer POSTed back reaches the task. A client with no GET stream open still gets it on its
 * `tasks/result` (it waits for one), once; one that got it on the GET stream does not get it again there.
 *
 * Review of issue 35, finding 1: with no GET stream open, the ask was kept with the frames for a GET
 * stream (the newest 100), where the session's task status notifications pushed it out before the
 * `tasks/result` came: never delivered, the task stuck. An ask now waits for the `tasks/result`
 * itself, and goes on a GET stream only when one is open.
 */
import { McpRequest, McpServer, McpTask, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as NodeMcpServer from "../src/NodeMcpServer.js"
import { ACCEPT, freePort, readAll, SseReader } from "./utils/http.js"

const RELATED = "io.modelcontextprotocol/related-task"

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

/** A task that changes its status 150 times, then ends: 150 `notifications/tasks/status` for its session. */
const Chatty = Tool.make("chatty", { task: "required" }, () =>
  Effect.as(
    Effect.forEach(Array.from({ length: 150 }, (_, i) => i), (i) => McpTask.status(`step ${i}`), { discard: true }),
    "chatted"
  ))

let runtime: ManagedRuntime.ManagedRuntime<never, unknown>
let url = ""

beforeAll(async () => {
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  runtime = ManagedRuntime.make(
    NodeMcpServer.layerHttp({ port }).pipe(
      Layer.provide(McpServer.layer({
        serverInfo: { name: "task-asks", version: "1.0.0" },
        tools: [Confirm, Chatty],
        taskPollInterval: "50 millis"
      }))
    )
  )
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
})

/** A 2025-11-25 session spoken at the wire. */
const session = async () => {
  const controller = new AbortController()
  let id = 0
  let sessionId = ""
  const headers = (extra: Record<string, string> = {}) => ({
    accept: ACCEPT,
    "content-type": "application/json",
    ...(sessionId === "" ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }),
    ...extra
  })
  const post = (body: unknown) =>
    fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(body), signal: controller.signal })
  const initialized = await post({
    jsonrpc: "2.0",
    id: ++id,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {}, tasks: { list: {}, cancel: {} } },
      clientInfo: { name: "task-asks", version: "1" }
    }
  })
  sessionId = initialized.headers.get("mcp-session-id")!
  await initialized.text()
  assert.strictEqual((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 202)
  return {
    /** A request's response (JSON or SSE), raw. */
    send: (method: string, params: unknown, requestId: string | number = ++id) =>
      post({ jsonrpc: "2.0", id: requestId, method, params }),
    /** A request's messages, the answer last. */
    call: async (method: string, params: unknown) => readAll(await post({ jsonrpc: "2.0", id: ++id, method, params })),
    /** The answer to a request of the server (202). */
    answer: (requestId: unknown, result: unknown) => post({ jsonrpc: "2.0", id: requestId, result }),
    /** The session's GET stream. */
    get: async () => {
      const h: Record<string, string> = headers({ accept: "text/event-stream" })
      delete h["content-type"]
      const response = await fetch(url, { method: "GET", headers: h, signal: controller.signal })
      assert.strictEqual(response.status, 200)
      return new SseReader(response)
    },
    close: () => controller.abort()
  }
}

type Session = Awaited<ReturnType<typeof session>>

/** Starts `confirm` as a task: its id. */
const start = async (s: Session, file: string) => {
  const messages = await s.call("tools/call", { name: "confirm", arguments: { file }, task: { ttl: 60_000 } })
  const taskId = messages.at(-1)?.result?.task?.taskId
  assert.isString(taskId, JSON.stringify(messages))
  return taskId as string
}

/** The next message of `reader` for which `pick` holds (others, such as status notifications, skipped). */
const next = async (reader: SseReader, pick: (message: any) => boolean) => {
  for (;;) {
    const message = await reader.message(10_000)
    if (pick(message)) return message
  }
}

const isAsk = (message: any) => message.method === "elicitation/create"

describe("a 2025-11-25 task's asks over HTTP (issue 35, item 13)", () => {
  it("no tasks/result, ever: the ask comes on the GET stream, tagged; the answer reaches the task, polled to its result", async () => {
    const s = await session()
    try {
      const stream = await s.get()
      const taskId = await start(s, "a.txt")
      // It polls (the ask waits until its requestor refers to the task).
      assert.include(["working", "input_required"], (await s.call("tasks/get", { taskId })).at(-1).result.status)
      const ask = await next(stream, isAsk)
      assert.deepStrictEqual(ask.params._meta[RELATED], { taskId })
      assert.strictEqual(ask.params.message, "Delete a.txt?")
      assert.strictEqual((await s.answer(ask.id, { action: "accept", content: { confirm: true } })).status, 202)
      // As ext-tasks does: tasks/get until the task ended (its status notification says when).
      await next(stream, (m) => m.method === "notifications/tasks/status" && m.params.status === "completed")
      const task = (await s.call("tasks/get", { taskId })).at(-1).result
      assert.strictEqual(task.status, "completed")
      // The result, and nothing asked again.
      const result = await s.call("tasks/result", { taskId })
      assert.deepStrictEqual(result.filter(isAsk), [])
      assert.deepStrictEqual(result.at(-1).result.content, [{ type: "text", text: "deleted a.txt" }])
    } finally {
      s.close()
    }
  })

  it("no GET stream: the ask waits for the session's tasks/result and comes on its stream, once", async () => {
    const s = await session()
    try {
      const taskId = await start(s, "b.txt")
      // input_required: the ask is made (it waits for a way to the client).
      for (let i = 0; (await s.call("tasks/get", { taskId })).at(-1).result.status !== "input_required"; i++) {
        assert.isBelow(i, 200, "the task never asked")
      }
      const waiting = new SseReader(await s.send("tasks/result", { taskId }, "result-b"))
      const ask = await next(waiting, isAsk)
      assert.deepStrictEqual(ask.params._meta[RELATED], { taskId })
      assert.strictEqual((await s.answer(ask.id, { action: "accept", content: { confirm: true } })).status, 202)
      const rest = [ask, ...(await waiting.rest(10_000)).flatMap((f) => f.data ? [JSON.parse(f.data)] : [])]
      assert.strictEqual(rest.filter(isAsk).length, 1)
      const answer = rest.find((m) => m.id === "result-b")
      assert.deepStrictEqual(answer.result.content, [{ type: "text", text: "deleted b.txt" }])
      // A GET stream opened now gets what was kept for it (the task's status notifications, at once),
      // but not the ask: it was delivered on the tasks/result.
      const stream = await s.get()
      const kept: Array<any> = []
      while (!(await stream.quiet(300))) kept.push(await stream.message())
      assert.isAbove(kept.length, 0)
      assert.deepStrictEqual(kept.filter(isAsk), [])
    } finally {
      s.close()
    }
  })

  it("no GET stream, and 150 status notifications before the tasks/result: the ask still comes on it", async () => {
    const s = await session()
    try {
      const taskId = await start(s, "d.txt")
      for (let i = 0; (await s.call("tasks/get", { taskId })).at(-1).result.status !== "input_required"; i++) {
        assert.isBelow(i, 200, "the task never asked")
      }
      // Another task of the session changes its status 150 times meanwhile (each told on the session's
      // own stream, which nobody opened).
      const chatty = (await s.call("tools/call", { name: "chatty", arguments: {}, task: { ttl: 60_000 } })).at(-1)
        .result.task.taskId
      for (let i = 0; (await s.call("tasks/get", { taskId: chatty })).at(-1).result.status !== "completed"; i++) {
        assert.isBelow(i, 500, "the chatty task never ended")
      }
      const waiting = new SseReader(await s.send("tasks/result", { taskId }, "result-d"))
      const ask = await next(waiting, isAsk)
      assert.deepStrictEqual(ask.params._meta[RELATED], { taskId })
      assert.strictEqual((await s.answer(ask.id, { action: "accept", content: { confirm: true } })).status, 202)
      const answer = await next(waiting, (m) => m.id === "result-d")
      assert.deepStrictEqual(answer.result.content, [{ type: "text", text: "deleted d.txt" }])
    } finally {
      s.close()
    }
  })

  it("the ask came on the GET stream: a later tasks/result carries the result, not the ask again", async () => {
    const s = await session()
    try {
      const stream = await s.get()
      const taskId = await start(s, "c.txt")
      await s.call("tasks/get", { taskId })
      const ask = await next(stream, isAsk)
      const waiting = s.send("tasks/result", { taskId }, "result-c")
      // The tasks/result waits (the task asks); answered now, the task ends and it answers.
      assert.strictEqual((await s.answer(ask.id, { action: "decline" })).status, 202)
      const messages = await readAll(await waiting)
      assert.deepStrictEqual(messages.filter(isAsk), [])
      assert.deepStrictEqual(messages.at(-1).result.content, [{ type: "text", text: "kept" }])
      assert.deepStrictEqual(messages.at(-1).result._meta[RELATED], { taskId })
    } finally {
      s.close()
    }
  })
})
