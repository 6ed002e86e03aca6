import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as McpRequest from "../src/McpRequest.js"
import * as Tool from "../src/Tool.js"
import type { TestClient } from "./utils/TestClient.js"
import { connect } from "./utils/TestClient.js"

const serverInfo = { name: "asking-server", version: "1.0.0" }

/** What an ask ended with, as the tool's text. */
const outcome = <A>(ask: Effect.Effect<A, McpRequest.ClientRequestError, McpRequest.McpRequest>) =>
  ask.pipe(
    Effect.map((value) => JSON.stringify({ ok: value })),
    Effect.catchAll((error) =>
      Effect.succeed(JSON.stringify({
        failed: error._tag,
        ...(error._tag === "MissingRequiredClientCapability" ? { required: error.requiredCapabilities } : {})
      }))
    )
  )

const samplingParams = {
  messages: [{ role: "user" as const, content: { type: "text" as const, text: "What is 2+2?" } }],
  maxTokens: 16
}

const Sample = Tool.make(
  "sample",
  { parameters: Schema.Struct({ timeout: Schema.optional(Schema.Boolean) }) },
  ({ timeout }) =>
    outcome(McpRequest.sample("k", samplingParams, timeout === true ? { timeout: "1 second" } : undefined))
)

const SampleWithTools = Tool.make("sample-with-tools", {}, () =>
  outcome(McpRequest.sample("k", {
    ...samplingParams,
    tools: [{ name: "calc", inputSchema: { type: "object" } }],
    toolChoice: { mode: "auto" }
  })))

const formParams = {
  mode: "form" as const,
  message: "Who are you?",
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] }
}

const ElicitForm = Tool.make("elicit-form", {}, () => outcome(McpRequest.elicit("k", formParams)))

const ElicitUrl = Tool.make("elicit-url", {}, () =>
  outcome(McpRequest.elicit("k", {
    mode: "url",
    message: "Sign in, please",
    url: "https://example.com/sign-in",
    elicitationId: "el-1"
  })))

const Roots = Tool.make("roots", {}, () => outcome(McpRequest.roots()))

const tools = [Sample, SampleWithTools, ElicitForm, ElicitUrl, Roots]

/** Calls a tool, expects the server's request `method` first, answers it with `answer`, returns the tool's text. */
const answered = (
  client: TestClient,
  tool: string,
  method: string,
  answer: (request: any) => unknown,
  args: Record<string, unknown> = {}
) =>
  Effect.gen(function*() {
    yield* client.send({
      jsonrpc: "2.0",
      id: `call-${tool}`,
      method: "tools/call",
      params: { name: tool, arguments: args }
    })
    const request = yield* client.next
    assert.strictEqual(request.method, method)
    assert.isDefined(request.id)
    yield* client.send({ jsonrpc: "2.0", id: request.id, ...(answer(request) as object) })
    const response = yield* client.next
    assert.strictEqual(response.id, `call-${tool}`)
    return { request, text: JSON.parse(response.result.content[0].text) }
  })

/** Calls a tool that must answer without asking the client anything. */
const unasked = (client: TestClient, tool: string) =>
  Effect.map(client.result("tools/call", { name: tool }), (result) => JSON.parse(result.content[0].text))

const sampled = { role: "assistant", content: { type: "text", text: "4" }, model: "test-model", stopReason: "endTurn" }

describe("Client requests: sampling", () => {
  for (const revision of ["2024-11-05", "2025-06-18", "2025-11-25"] as const) {
    it.scoped(`with the sampling capability (${revision}): sent, answered, decoded`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools })
        yield* client.initialize(revision, { sampling: {} })
        const { request, text } = yield* answered(client, "sample", "sampling/createMessage", () => ({
          result: sampled
        }))
        assert.deepStrictEqual(request.params, samplingParams)
        assert.isUndefined(validate(revision, "CreateMessageRequest", request))
        assert.deepStrictEqual(text, { ok: sampled })
      }))
  }

  it.scoped("without the capability: MissingRequiredClientCapability and nothing is sent", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-11-25", { roots: {} })
      assert.deepStrictEqual(yield* unasked(client, "sample"), {
        failed: "MissingRequiredClientCapability",
        required: { sampling: {} }
      })
    }))

  it.scoped("sampling with tools needs sampling.tools (2025-11-25)", () =>
    Effect.gen(function*() {
      const without = yield* connect({ serverInfo, tools })
      yield* without.initialize("2025-11-25", { sampling: {} })
      assert.strictEqual((yield* unasked(without, "sample-with-tools")).failed, "MissingRequiredClientCapability")
      const withTools = yield* connect({ serverInfo, tools })
      yield* withTools.initialize("2025-11-25", { sampling: { tools: {} } })
      const { request, text } = yield* answered(withTools, "sample-with-tools", "sampling/createMessage", () => ({
        result: sampled
      }))
      assert.deepStrictEqual(request.params.toolChoice, { mode: "auto" })
      assert.isUndefined(validate("2025-11-25", "CreateMessageRequest", request))
      assert.deepStrictEqual(text, { ok: sampled })
    }))

  it.scoped("the client's error reaches the handler as a typed error", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-06-18", { sampling: {} })
      const { text } = yield* answered(client, "sample", "sampling/createMessage", () => ({
        error: { code: -1, message: "User rejected sampling request" }
      }))
      assert.deepStrictEqual(text, { failed: "RpcError" })
    }))

  it.scoped("a result that does not fit the revision's schema is an InternalError", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-06-18", { sampling: {} })
      const { text } = yield* answered(client, "sample", "sampling/createMessage", () => ({
        result: { role: "assistant", content: { type: "text", text: "no model" } }
      }))
      assert.deepStrictEqual(text, { failed: "InternalError" })
    }))

  it.scoped("no answer in time: RequestTimeout, and the client is told the request is cancelled", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-06-18", { sampling: {} })
      yield* client.send({
        jsonrpc: "2.0",
        id: "slow",
        method: "tools/call",
        params: { name: "sample", arguments: { timeout: true } }
      })
      const request = yield* client.next
      assert.strictEqual(request.method, "sampling/createMessage")
      yield* TestClock.adjust("1001 millis")
      const messages = [yield* client.next, yield* client.next]
      const cancelled = messages.find((m) => m.method === "notifications/cancelled")
      const response = messages.find((m) => m.id === "slow")
      assert.strictEqual(cancelled.params.requestId, request.id)
      assert.deepStrictEqual(JSON.parse(response.result.content[0].text), { failed: "RequestTimeout" })
    }))

  it.scoped("cancelling the tool cancels its request to the client", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const Waiting = Tool.make("waiting", {}, () =>
        McpRequest.sample("k", samplingParams).pipe(
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
          Effect.as("sampled"),
          Effect.orDie
        ))
      const client = yield* connect({ serverInfo, tools: [Waiting] })
      yield* client.initialize("2025-11-25", { sampling: {} })
      yield* client.send({ jsonrpc: "2.0", id: "w", method: "tools/call", params: { name: "waiting" } })
      const request = yield* client.next
      assert.strictEqual(request.method, "sampling/createMessage")
      yield* client.notify("notifications/cancelled", { requestId: "w" })
      yield* Deferred.await(interrupted)
      const cancelled = yield* client.next
      assert.strictEqual(cancelled.method, "notifications/cancelled")
      assert.strictEqual(cancelled.params.requestId, request.id)
      // A late answer is ignored; nothing is sent for "w".
      yield* client.send({ jsonrpc: "2.0", id: request.id, result: sampled })
      yield* client.quiet
    }))
})

describe("Client requests: elicitation", () => {
  it.scoped("form mode at 2025-11-25: sent with its mode, answered", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-11-25", { elicitation: {} })
      const { request, text } = yield* answered(client, "elicit-form", "elicitation/create", () => ({
        result: { action: "accept", content: { name: "Ann" } }
      }))
      assert.deepStrictEqual(request.params, formParams)
      assert.isUndefined(validate("2025-11-25", "ElicitRequest", request))
      assert.deepStrictEqual(text, { ok: { action: "accept", content: { name: "Ann" } } })
    }))

  it.scoped("at 2025-06-18 the mode field is not sent", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-06-18", { elicitation: {} })
      const { request, text } = yield* answered(client, "elicit-form", "elicitation/create", () => ({
        result: { action: "decline" }
      }))
      assert.isFalse("mode" in request.params)
      assert.deepStrictEqual(request.params, {
        message: formParams.message,
        requestedSchema: formParams.requestedSchema
      })
      assert.isUndefined(validate("2025-06-18", "ElicitRequest", request))
      assert.deepStrictEqual(text, { ok: { action: "decline" } })
    }))

  it.scoped("URL mode needs elicitation.url: form-only clients are not asked", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-11-25", { elicitation: {} })
      assert.deepStrictEqual(yield* unasked(client, "elicit-url"), {
        failed: "MissingRequiredClientCapability",
        required: { elicitation: { url: {} } }
      })
      const formOnly = yield* connect({ serverInfo, tools })
      yield* formOnly.initialize("2025-11-25", { elicitation: { form: {} } })
      assert.deepStrictEqual((yield* unasked(formOnly, "elicit-url")).required, { elicitation: { url: {} } })
    }))

  it.scoped("URL mode with elicitation.url: sent as is", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-11-25", { elicitation: { url: {} } })
      const { request, text } = yield* answered(client, "elicit-url", "elicitation/create", () => ({
        result: { action: "accept" }
      }))
      assert.deepStrictEqual(request.params, {
        mode: "url",
        message: "Sign in, please",
        url: "https://example.com/sign-in",
        elicitationId: "el-1"
      })
      assert.isUndefined(validate("2025-11-25", "ElicitRequest", request))
      assert.deepStrictEqual(text, { ok: { action: "accept" } })
      // A URL-only client does not take forms.
      assert.deepStrictEqual(yield* unasked(client, "elicit-form"), {
        failed: "MissingRequiredClientCapability",
        required: { elicitation: { form: {} } }
      })
    }))

  it.scoped("URL mode does not exist at 2025-06-18", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-06-18", { elicitation: { url: {} } })
      assert.strictEqual((yield* unasked(client, "elicit-url")).failed, "MissingRequiredClientCapability")
    }))

  it.scoped("no elicitation before 2025-06-18, whatever the client declares", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-03-26", { elicitation: {} })
      assert.deepStrictEqual(yield* unasked(client, "elicit-form"), {
        failed: "MissingRequiredClientCapability",
        required: { elicitation: { form: {} } }
      })
    }))
})

describe("Client requests: roots", () => {
  it.scoped("fetched once, and again after notifications/roots/list_changed", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-06-18", { roots: { listChanged: true } })
      const first = yield* answered(client, "roots", "roots/list", () => ({
        result: { roots: [{ uri: "file:///one", name: "one" }] }
      }))
      assert.isUndefined(validate("2025-06-18", "ListRootsRequest", first.request))
      assert.deepStrictEqual(first.text, { ok: [{ uri: "file:///one", name: "one" }] })
      // Cached: nothing is asked.
      assert.deepStrictEqual(yield* unasked(client, "roots"), { ok: [{ uri: "file:///one", name: "one" }] })
      yield* client.notify("notifications/roots/list_changed")
      const second = yield* answered(client, "roots", "roots/list", () => ({
        result: { roots: [{ uri: "file:///two" }] }
      }))
      assert.deepStrictEqual(second.text, { ok: [{ uri: "file:///two" }] })
      assert.deepStrictEqual(yield* unasked(client, "roots"), { ok: [{ uri: "file:///two" }] })
    }))

  it.scoped("an answer asked for before notifications/roots/list_changed is not cached", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-06-18", { roots: { listChanged: true } })
      yield* client.send({ jsonrpc: "2.0", id: "call-roots", method: "tools/call", params: { name: "roots" } })
      const request = yield* client.next
      assert.strictEqual(request.method, "roots/list")
      // The list changes while the ask is in flight; the answer is the old list.
      yield* client.notify("notifications/roots/list_changed")
      yield* client.send({ jsonrpc: "2.0", id: request.id, result: { roots: [{ uri: "file:///old" }] } })
      const response = yield* client.next
      assert.deepStrictEqual(JSON.parse(response.result.content[0].text), { ok: [{ uri: "file:///old" }] })
      // Not cached: the next call asks again.
      const again = yield* answered(
        client,
        "roots",
        "roots/list",
        () => ({ result: { roots: [{ uri: "file:///new" }] } })
      )
      assert.deepStrictEqual(again.text, { ok: [{ uri: "file:///new" }] })
      assert.deepStrictEqual(yield* unasked(client, "roots"), { ok: [{ uri: "file:///new" }] })
    }))

  it.scoped("a client that cannot say the list changed is asked every time", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2024-11-05", { roots: {} })
      for (const uri of ["file:///a", "file:///b"]) {
        const { text } = yield* answered(client, "roots", "roots/list", () => ({ result: { roots: [{ uri }] } }))
        assert.deepStrictEqual(text, { ok: [{ uri }] })
      }
    }))

  it.scoped("without the roots capability: MissingRequiredClientCapability and nothing is sent", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools })
      yield* client.initialize("2025-11-25", { sampling: {} })
      assert.deepStrictEqual(yield* unasked(client, "roots"), {
        failed: "MissingRequiredClientCapability",
        required: { roots: {} }
      })
    }))
})
