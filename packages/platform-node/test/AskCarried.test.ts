/**
 * Issue 36: a 2025-11-25 task's ask carried in another session (`Ask.carryChecked`). With a token,
 * a task belongs to its holder, and a `tasks/result` from another session of the same holder is
 * where the task's asks go while it waits. That session's client must declare what the ask needs
 * too: a session that did not declare elicitation is never sent an `elicitation/create`; the ask is
 * refused (-32021's error, nothing sent), and the task ends with that failure. At the wire, JSON
 * text in and out over Streamable HTTP. (Without the check, the waiting `tasks/result` of the
 * session that cannot answer carries the ask first.)
 */
import { AuthInfo, McpRequest, McpServer, TokenVerifier, Tool } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as NodeMcpServer from "../src/NodeMcpServer.js"
import { ACCEPT, freePort, readAll, SseReader } from "./utils/http.js"

const RELATED = "io.modelcontextprotocol/related-task"

const Confirm = Tool.make("confirm", { task: "required", failure: Schema.String }, () =>
  McpRequest.elicit("confirm", {
    message: "Sure?",
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
  }).pipe(
    Effect.map((answer) => `answered ${answer.action}`),
    Effect.mapError((error) => `${error._tag}: ${error.message}`)
  ))

let runtime: ManagedRuntime.ManagedRuntime<never, unknown>
let url = ""

beforeAll(async () => {
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  // A verifier of one's own: the token's text is its subject (its holder).
  const verifier = TokenVerifier.make((token) =>
    Effect.sync(() =>
      new AuthInfo.AuthInfo({
        subject: token,
        clientId: Option.none(),
        scopes: [],
        expiresAt: Option.none(),
        audience: [url],
        issuer: Option.none(),
        claims: {},
        token: Redacted.make(token)
      })
    )
  )
  runtime = ManagedRuntime.make(
    NodeMcpServer.layerHttp({
      port,
      auth: { resource: url, authorizationServers: ["https://issuer.example"], verifier }
    }).pipe(
      Layer.provide(McpServer.layer({
        serverInfo: { name: "ask-carried", version: "1.0.0" },
        tools: [Confirm],
        taskPollInterval: "50 millis"
      }))
    )
  )
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
})

/** A 2025-11-25 session of the holder of `token`, declaring `capabilities`. */
const session = async (token: string, capabilities: Record<string, unknown>) => {
  const controller = new AbortController()
  let id = 0
  let sessionId = ""
  const post = (body: unknown) =>
    fetch(url, {
      method: "POST",
      headers: {
        accept: ACCEPT,
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        ...(sessionId === "" ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" })
      },
      body: JSON.stringify(body),
      signal: controller.signal
    })
  const initialized = await post({
    jsonrpc: "2.0",
    id: ++id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "ask-carried", version: "1" } }
  })
  assert.strictEqual(initialized.status, 200, await initialized.clone().text())
  sessionId = initialized.headers.get("mcp-session-id")!
  await initialized.text()
  assert.strictEqual((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 202)
  return {
    send: (method: string, params: unknown, requestId: string | number = ++id) =>
      post({ jsonrpc: "2.0", id: requestId, method, params }),
    call: async (method: string, params: unknown) => readAll(await post({ jsonrpc: "2.0", id: ++id, method, params })),
    close: () => controller.abort()
  }
}

/**
 * What a response carries up to its answer, or up to an ask (an ask's answer would be awaited:
 * reading on would wait for ever).
 */
const untilAnswerOrAsk = async (response: Response): Promise<Array<any>> => {
  if (response.headers.get("content-type")?.startsWith("application/json")) return readAll(response)
  const reader = new SseReader(response)
  const messages: Array<any> = []
  for (;;) {
    const message = await reader.message(20_000)
    messages.push(message)
    if (message.id !== undefined && (message.method === undefined || message.method === "elicitation/create")) {
      await reader.cancel()
      return messages
    }
  }
}

describe("a task's ask carried in another session of its holder (Ask.carryChecked)", () => {
  it("the other session did not declare elicitation: it is sent nothing; the ask fails, and so the task", async () => {
    const asker = await session("ann", { elicitation: {}, tasks: { list: {}, cancel: {} } })
    const other = await session("ann", { tasks: { list: {}, cancel: {} } })
    try {
      const created = await asker.call("tools/call", { name: "confirm", arguments: {}, task: { ttl: 60_000 } })
      const taskId = created.at(-1)?.result?.task?.taskId
      assert.isString(taskId, JSON.stringify(created))
      // The holder's other session waits for the task: the task's ask would go to its stream.
      const messages = await untilAnswerOrAsk(await other.send("tasks/result", { taskId }, "result-other"))
      assert.deepStrictEqual(messages.filter((m) => m.method === "elicitation/create"), [], JSON.stringify(messages))
      const answer = messages.at(-1)
      assert.strictEqual(answer.result.isError, true, JSON.stringify(answer))
      assert.strictEqual(
        answer.result.content[0].text,
        "MissingRequiredClientCapability: The client did not declare the elicitation capability"
      )
      assert.deepStrictEqual(answer.result._meta[RELATED], { taskId })
      const task = (await asker.call("tasks/get", { taskId })).at(-1).result
      assert.strictEqual(task.status, "failed")
    } finally {
      asker.close()
      other.close()
    }
  })
})
