/**
 * The demo server answers every conformance fixture the way the suite checks it (the
 * fixture inventory of conformance 0.2.0-alpha.12), over the in-memory transport: the
 * 2025-11-25 fixtures in handshake sessions, the 2026-07-28 ones as stateless requests, both
 * on the default (dual-era) server.
 */
import { Tool } from "@effect-mcp/server"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as Everything from "../src/Everything.js"
import { connect, meta, open, type Session } from "./utils/Session.js"

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

/** The suite's `json_schema_2020_12_tool` inputSchema, which must come back verbatim. */
const jsonSchema2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } }
    }
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" }
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false
}

/** The tools of the 2026-07-28 requirement set. */
const statelessFixtureTools = [
  "test_input_required_result_elicitation",
  "test_input_required_result_sampling",
  "test_input_required_result_list_roots",
  "test_input_required_result_request_state",
  "test_input_required_result_multiple_inputs",
  "test_input_required_result_multi_round",
  "test_input_required_result_tampered_state",
  "test_input_required_result_capabilities",
  "test_missing_capability",
  "test_streaming_elicitation",
  "test_logging_tool",
  "test_trigger_tool_change",
  "test_trigger_prompt_change",
  "test_custom_header"
]

const fixtureTools = [
  "test_simple_text",
  "test_image_content",
  "test_audio_content",
  "test_embedded_resource",
  "test_multiple_content_types",
  "test_tool_with_logging",
  "test_error_handling",
  "test_tool_with_progress",
  "test_sampling",
  "test_elicitation",
  "test_elicitation_sep1034_defaults",
  "test_elicitation_sep1330_enums",
  "json_schema_2020_12_tool",
  "test_reconnection",
  ...statelessFixtureTools
]

/** Waits (yielding to the server's fibers) until something sleeps until `at` on the TestClock. */
const sleepingUntil = (at: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10_000; i++) {
      if (Chunk.some(yield* TestClock.sleeps(), (t) => t === at)) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`nothing sleeps until ${at} on the TestClock`)
  })

const clientCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } }

const call = (name: string, args?: unknown, meta?: unknown) => ({
  name,
  ...(args !== undefined ? { arguments: args } : {}),
  ...(meta !== undefined ? { _meta: meta } : {})
})

describe("Everything: handshake", () => {
  it.scopedLive("declares tools (as tasks too), resources (subscribe), prompts, logging and completions", () =>
    Effect.gen(function*() {
      const { initialize } = yield* open()
      assert.deepStrictEqual(initialize.capabilities, {
        // MCP Apps: the server has a view (Counter.ts).
        extensions: { "io.modelcontextprotocol/ui": {} },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true }
      })
      assert.strictEqual(initialize.serverInfo.name, "effect-mcp-everything")
      assert.isString(initialize.instructions)
    }))

  it.scopedLive("ping and logging/setLevel return exactly {}", () =>
    Effect.gen(function*() {
      const session = yield* open()
      assert.deepStrictEqual(yield* session.result("ping"), {})
      assert.deepStrictEqual(yield* session.result("logging/setLevel", { level: "info" }), {})
    }))
})

describe("Everything: tools", () => {
  it.scopedLive("lists every fixture with a name, a description and an object inputSchema", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const { tools } = yield* session.result("tools/list")
      const names = tools.map((t: any) => t.name)
      for (
        const name of [...fixtureTools, "about", "add", "echo", "longRunning", "editTools", "updateWatchedResource"]
      ) {
        assert.include(names, name)
      }
      for (const tool of tools) {
        assert.match(tool.name, /^[A-Za-z0-9_.-]{1,128}$/)
        assert.isString(tool.description)
        assert.strictEqual(tool.inputSchema.type, "object")
      }
      const raw = tools.find((t: any) => t.name === "json_schema_2020_12_tool")
      assert.deepStrictEqual(raw.inputSchema, jsonSchema2020_12)
    }))

  it.scopedLive("test_simple_text, called without arguments", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const result = yield* session.result("tools/call", { name: "test_simple_text" })
      assert.deepStrictEqual(result, {
        content: [{ type: "text", text: "This is a simple text response for testing." }]
      })
    }))

  it.scopedLive("test_image_content, test_audio_content (audio/wav), test_embedded_resource", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const image = yield* session.result("tools/call", call("test_image_content", {}))
      assert.deepStrictEqual(image.content, [{ type: "image", data: PNG, mimeType: "image/png" }])
      const audio = yield* session.result("tools/call", call("test_audio_content", {}))
      assert.deepStrictEqual(audio.content, [{ type: "audio", data: WAV, mimeType: "audio/wav" }])
      const embedded = yield* session.result("tools/call", call("test_embedded_resource", {}))
      assert.deepStrictEqual(embedded.content, [{
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content."
        }
      }])
    }))

  it.scopedLive("test_multiple_content_types: text, image and resource", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const { content } = yield* session.result("tools/call", call("test_multiple_content_types", {}))
      assert.deepStrictEqual(content.map((c: any) => c.type), ["text", "image", "resource"])
      assert.strictEqual(content[0].text, "Multiple content types test:")
      assert.deepStrictEqual(content[2].resource, {
        uri: "test://mixed-content-resource",
        mimeType: "application/json",
        text: "{\"test\":\"data\",\"value\":123}"
      })
    }))

  it.scopedLive("test_tool_with_logging: three info logs after setLevel debug", () =>
    Effect.gen(function*() {
      const session = yield* open()
      assert.deepStrictEqual(yield* session.result("logging/setLevel", { level: "debug" }), {})
      const { before, response } = yield* session.exchange("tools/call", call("test_tool_with_logging", {}))
      assert.isUndefined(response.result.isError)
      assert.deepStrictEqual(
        before.filter((m) => m.method === "notifications/message").map((m) => m.params),
        [
          { level: "info", data: "Tool execution started" },
          { level: "info", data: "Tool processing data" },
          { level: "info", data: "Tool execution completed" }
        ]
      )
    }))

  it.scopedLive("test_tool_with_logging: nothing below the level (setLevel error)", () =>
    Effect.gen(function*() {
      const session = yield* open()
      yield* session.result("logging/setLevel", { level: "error" })
      const { before } = yield* session.exchange("tools/call", call("test_tool_with_logging", {}))
      assert.deepStrictEqual(before, [])
    }))

  it.scopedLive("test_error_handling: an isError result, not a JSON-RPC error", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const result = yield* session.result("tools/call", call("test_error_handling", {}))
      assert.deepStrictEqual(result, {
        content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
        isError: true
      })
    }))

  it.scopedLive("test_tool_with_progress: 0, 50, 100 of 100 echoing the token", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const { before } = yield* session.exchange(
        "tools/call",
        call("test_tool_with_progress", {}, { progressToken: "progress-test-1" })
      )
      const progress = before.filter((m) => m.method === "notifications/progress").map((m) => m.params)
      assert.deepStrictEqual(progress.map((p) => [p.progressToken, p.progress, p.total]), [
        ["progress-test-1", 0, 100],
        ["progress-test-1", 50, 100],
        ["progress-test-1", 100, 100]
      ])
    }))

  it.scopedLive("test_sampling: sampling/createMessage with the prompt, then the client's text", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", clientCapabilities)
      const asked: Array<any> = []
      const result = yield* session.result(
        "tools/call",
        call("test_sampling", { prompt: "Test prompt for sampling" }),
        (request) => {
          asked.push(request)
          return {
            role: "assistant",
            content: { type: "text", text: "This is a test response from the client" },
            model: "test-model",
            stopReason: "endTurn"
          }
        }
      )
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(asked[0].method, "sampling/createMessage")
      assert.deepStrictEqual(asked[0].params, {
        messages: [{ role: "user", content: { type: "text", text: "Test prompt for sampling" } }],
        maxTokens: 100
      })
      assert.deepStrictEqual(result.content, [{
        type: "text",
        text: "LLM response: This is a test response from the client"
      }])
    }))

  it.scopedLive("test_sampling without the sampling capability: an isError result", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const result = yield* session.result("tools/call", call("test_sampling", { prompt: "hi" }))
      assert.isTrue(result.isError)
    }))

  it.scopedLive("test_elicitation: the username/email form, then the answer", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", clientCapabilities)
      const asked: Array<any> = []
      const result = yield* session.result(
        "tools/call",
        call("test_elicitation", { message: "Please provide your information" }),
        (request) => {
          asked.push(request)
          return { action: "accept", content: { username: "testuser", email: "test@example.com" } }
        }
      )
      assert.strictEqual(asked[0].method, "elicitation/create")
      assert.deepStrictEqual(asked[0].params, {
        message: "Please provide your information",
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" }
          },
          required: ["username", "email"]
        }
      })
      assert.strictEqual(
        result.content[0].text,
        "User response: action=accept, content={\"username\":\"testuser\",\"email\":\"test@example.com\"}"
      )
    }))

  it.scopedLive("test_elicitation_sep1034_defaults: a default for every primitive type", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", clientCapabilities)
      const asked: Array<any> = []
      const result = yield* session.result("tools/call", call("test_elicitation_sep1034_defaults", {}), (request) => {
        asked.push(request)
        return { action: "accept", content: { age: 25, score: 88, status: "inactive", verified: false } }
      })
      const schema = asked[0].params.requestedSchema
      assert.deepStrictEqual(schema.required, [])
      const pick = (p: any) => ({ type: p.type, default: p.default, ...(p.enum ? { enum: p.enum } : {}) })
      assert.deepStrictEqual(pick(schema.properties.name), { type: "string", default: "John Doe" })
      assert.deepStrictEqual(pick(schema.properties.age), { type: "integer", default: 30 })
      assert.deepStrictEqual(pick(schema.properties.score), { type: "number", default: 95.5 })
      assert.deepStrictEqual(pick(schema.properties.status), {
        type: "string",
        default: "active",
        enum: ["active", "inactive", "pending"]
      })
      assert.deepStrictEqual(pick(schema.properties.verified), { type: "boolean", default: true })
      assert.include(result.content[0].text, "action=accept")
    }))

  it.scopedLive("test_elicitation_sep1330_enums: the five enum shapes", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", clientCapabilities)
      const asked: Array<any> = []
      yield* session.result("tools/call", call("test_elicitation_sep1330_enums", {}), (request) => {
        asked.push(request)
        return {
          action: "accept",
          content: {
            untitledSingle: "option1",
            titledSingle: "value1",
            legacyEnum: "opt1",
            untitledMulti: ["option1", "option2"],
            titledMulti: ["value1", "value2"]
          }
        }
      })
      const p = asked[0].params.requestedSchema.properties
      assert.strictEqual(p.untitledSingle.type, "string")
      assert.isArray(p.untitledSingle.enum)
      assert.isUndefined(p.untitledSingle.oneOf)
      assert.isUndefined(p.untitledSingle.enumNames)
      assert.strictEqual(p.titledSingle.type, "string")
      assert.isUndefined(p.titledSingle.enum)
      assert.isAbove(p.titledSingle.oneOf.length, 0)
      for (const option of p.titledSingle.oneOf) {
        assert.isString(option.const)
        assert.isString(option.title)
      }
      assert.deepStrictEqual(p.legacyEnum, {
        type: "string",
        description: "Select one option (legacy)",
        enum: ["opt1", "opt2", "opt3"],
        enumNames: ["Option One", "Option Two", "Option Three"]
      })
      assert.strictEqual(p.untitledMulti.type, "array")
      assert.deepStrictEqual(p.untitledMulti.items, { type: "string", enum: ["option1", "option2", "option3"] })
      assert.deepStrictEqual([p.untitledMulti.minItems, p.untitledMulti.maxItems], [1, 3])
      assert.strictEqual(p.titledMulti.type, "array")
      assert.isUndefined(p.titledMulti.items.enum)
      for (const option of p.titledMulti.items.anyOf) {
        assert.isString(option.const)
        assert.isString(option.title)
      }
    }))

  it.scopedLive("json_schema_2020_12_tool: arguments decoded by its parameters", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const ok = yield* session.result("tools/call", call("json_schema_2020_12_tool", { name: "Ada", phone: "1" }))
      assert.strictEqual(ok.content[0].text, "JSON Schema 2020-12 tool called with: {\"name\":\"Ada\",\"phone\":\"1\"}")
      const bad = yield* session.result("tools/call", call("json_schema_2020_12_tool", { contactMethod: "fax" }))
      assert.isTrue(bad.isError)
    }))

  it.scopedLive("test_reconnection answers", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const result = yield* session.result("tools/call", call("test_reconnection", {}))
      assert.isAbove(result.content[0].text.length, 0)
    }))
})

describe("Everything: resources", () => {
  it.scopedLive("lists the static and watched resources and the template", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const { resources } = yield* session.result("resources/list")
      assert.deepStrictEqual(
        resources.map((r: any) => [r.uri, r.name, r.mimeType]),
        [
          ["test://static-binary", "static-binary", "image/png"],
          ["test://static-text", "static-text", "text/plain"],
          ["test://user-context", "user-context", "text/plain"],
          ["test://watched-resource", "watched-resource", "text/plain"]
        ]
      )
      const { resourceTemplates } = yield* session.result("resources/templates/list")
      assert.deepStrictEqual(resourceTemplates.map((t: any) => t.uriTemplate), ["test://template/{id}/data"])
    }))

  it.scopedLive("reads test://static-text, test://static-binary and test://template/123/data", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const text = yield* session.result("resources/read", { uri: "test://static-text" })
      assert.deepStrictEqual(text.contents, [{
        uri: "test://static-text",
        text: "This is the content of the static text resource.",
        mimeType: "text/plain"
      }])
      const binary = yield* session.result("resources/read", { uri: "test://static-binary" })
      assert.deepStrictEqual(binary.contents, [{ uri: "test://static-binary", blob: PNG, mimeType: "image/png" }])
      const template = yield* session.result("resources/read", { uri: "test://template/123/data" })
      assert.strictEqual(template.contents[0].uri, "test://template/123/data")
      assert.deepStrictEqual(JSON.parse(template.contents[0].text), {
        id: "123",
        templateTest: true,
        data: "Data for ID: 123"
      })
    }))

  it.scopedLive("subscribe and unsubscribe test://watched-resource return {}", () =>
    Effect.gen(function*() {
      const session = yield* open()
      assert.deepStrictEqual(yield* session.result("resources/subscribe", { uri: "test://watched-resource" }), {})
      assert.deepStrictEqual(yield* session.result("resources/unsubscribe", { uri: "test://watched-resource" }), {})
    }))

  it.scopedLive("updateWatchedResource: subscribers get resources/updated and read the new version", () =>
    Effect.gen(function*() {
      const session = yield* open()
      yield* session.result("resources/subscribe", { uri: "test://watched-resource" })
      const { contents: [before] } = yield* session.result("resources/read", { uri: "test://watched-resource" })
      yield* session.result("tools/call", call("updateWatchedResource", {}))
      const updated = yield* session.next
      assert.deepStrictEqual(updated, {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "test://watched-resource" }
      })
      const { contents: [after] } = yield* session.result("resources/read", { uri: "test://watched-resource" })
      assert.notStrictEqual(after.text, before.text)
    }))
})

describe("Everything: prompts and completions", () => {
  it.scopedLive("lists the four prompts; test_prompt_with_arguments requires arg1 and arg2", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const { prompts } = yield* session.result("prompts/list")
      assert.deepStrictEqual(prompts.map((p: any) => p.name), [
        "test_input_required_result_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_simple_prompt"
      ])
      for (const prompt of prompts) assert.isString(prompt.description)
      const withArguments = prompts.find((p: any) => p.name === "test_prompt_with_arguments")
      assert.deepStrictEqual(withArguments.arguments.map((a: any) => [a.name, a.required]), [
        ["arg1", true],
        ["arg2", true]
      ])
    }))

  it.scopedLive("test_simple_prompt and test_prompt_with_arguments", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const simple = yield* session.result("prompts/get", { name: "test_simple_prompt" })
      assert.deepStrictEqual(simple.messages, [{
        role: "user",
        content: { type: "text", text: "This is a simple prompt for testing." }
      }])
      const withArguments = yield* session.result("prompts/get", {
        name: "test_prompt_with_arguments",
        arguments: { arg1: "testValue1", arg2: "testValue2" }
      })
      assert.deepStrictEqual(withArguments.messages, [{
        role: "user",
        content: { type: "text", text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" }
      }])
      const { response } = yield* session.exchange("prompts/get", {
        name: "test_prompt_with_arguments",
        arguments: { arg1: "only one" }
      })
      assert.strictEqual(response.error.code, -32602)
    }))

  it.scopedLive("test_prompt_with_embedded_resource and test_prompt_with_image", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const embedded = yield* session.result("prompts/get", {
        name: "test_prompt_with_embedded_resource",
        arguments: { resourceUri: "test://example-resource" }
      })
      assert.deepStrictEqual(embedded.messages, [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: "test://example-resource",
              mimeType: "text/plain",
              text: "Embedded resource content for testing."
            }
          }
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } }
      ])
      const image = yield* session.result("prompts/get", { name: "test_prompt_with_image" })
      assert.deepStrictEqual(image.messages, [
        { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } }
      ])
    }))

  it.scopedLive("completes arg1 of test_prompt_with_arguments from what was typed", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const ref = { type: "ref/prompt", name: "test_prompt_with_arguments" }
      const test = yield* session.result("completion/complete", { ref, argument: { name: "arg1", value: "test" } })
      assert.deepStrictEqual(test.completion, { values: ["test", "testValue1", "testing"], total: 3, hasMore: false })
      const none = yield* session.result("completion/complete", { ref, argument: { name: "arg1", value: "zzz" } })
      assert.deepStrictEqual(none.completion.values, [])
      const arg2 = yield* session.result("completion/complete", { ref, argument: { name: "arg2", value: "t" } })
      assert.deepStrictEqual(arg2.completion.values, [])
    }))
})

describe("Everything: the other tools", () => {
  it.scopedLive("add: text and structuredContent { sum }, with an outputSchema", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const result = yield* session.result("tools/call", call("add", { a: 1, b: 2 }))
      assert.deepStrictEqual(result.structuredContent, { sum: 3 })
      assert.deepStrictEqual(JSON.parse(result.content[0].text), { sum: 3 })
      const { tools } = yield* session.result("tools/list")
      assert.deepStrictEqual(tools.find((t: any) => t.name === "add").outputSchema.required, ["sum"])
      const bad = yield* session.result("tools/call", call("add", { a: "1", b: 2 }))
      assert.isTrue(bad.isError)
    }))

  it.scopedLive("echo", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const result = yield* session.result("tools/call", call("echo", { message: "hi" }))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Echo: hi" }])
    }))

  it.scopedLive("longRunning: progress per step, then the result", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const { before, response } = yield* session.exchange(
        "tools/call",
        call("longRunning", { duration: 0.1, steps: 4 }, { progressToken: 7 })
      )
      assert.deepStrictEqual(before.map((m) => [m.params.progress, m.params.total]), [[1, 4], [2, 4], [3, 4], [4, 4]])
      assert.include(response.result.content[0].text, "4 steps")
    }))

  it.scoped("longRunning: cancelled, it is answered by nobody", () =>
    Effect.gen(function*() {
      // On the TestClock: a step every 100 millis, and time moves only when the test says.
      const session = yield* open()
      const id = yield* session.nextId
      const start = yield* Clock.currentTimeMillis
      yield* session.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: call("longRunning", { duration: 2, steps: 20 }, { progressToken: "p" })
      })
      yield* sleepingUntil(start + 100)
      yield* TestClock.adjust("100 millis")
      const first = yield* session.next
      assert.strictEqual(first.method, "notifications/progress")
      yield* session.notify("notifications/cancelled", { requestId: id, reason: "test" })
      // The ping is answered after the cancellation was read; then the whole duration passes.
      const { before: beforePing } = yield* session.exchange("ping")
      yield* TestClock.adjust("5 seconds")
      const { before: afterAll } = yield* session.exchange("ping")
      const before = [...beforePing, ...afterAll]
      assert.isTrue(before.every((m) => m.method === "notifications/progress"), JSON.stringify(before))
      assert.isAtMost(before.length, 1)
    }))

  it.scopedLive("editTools: add and remove the tool dynamic, with tools/list_changed", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const added = yield* session.result("tools/call", call("editTools", { action: "add" }))
      assert.strictEqual(added.content[0].text, "Added the tool dynamic")
      assert.strictEqual((yield* session.next).method, "notifications/tools/list_changed")
      const { tools } = yield* session.result("tools/list")
      assert.include(tools.map((t: any) => t.name), "dynamic")
      const dynamic = yield* session.result("tools/call", call("dynamic", {}))
      assert.strictEqual(dynamic.content[0].text, "This tool was added at runtime.")
      yield* session.result("tools/call", call("editTools", { action: "remove" }))
      assert.strictEqual((yield* session.next).method, "notifications/tools/list_changed")
      const after = yield* session.result("tools/list")
      assert.notInclude(after.tools.map((t: any) => t.name), "dynamic")
    }))

  it.scopedLive("listRoots asks the client for its roots", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", clientCapabilities)
      const result = yield* session.result(
        "tools/call",
        call("listRoots", {}),
        () => ({ roots: [{ uri: "file:///test/root", name: "Test Root" }] })
      )
      assert.deepStrictEqual(result.structuredContent, { roots: [{ uri: "file:///test/root", name: "Test Root" }] })
    }))
})

describe("Everything: older revisions", () => {
  it.scopedLive("2024-11-05: audio becomes text; add has no structuredContent", () =>
    Effect.gen(function*() {
      const session = yield* open("2024-11-05")
      const audio = yield* session.result("tools/call", call("test_audio_content", {}))
      assert.deepStrictEqual(audio.content.map((c: any) => c.type), ["text"])
      const add = yield* session.result("tools/call", call("add", { a: 2, b: 2 }))
      assert.isUndefined(add.structuredContent)
      assert.deepStrictEqual(JSON.parse(add.content[0].text), { sum: 4 })
    }))

  it.scopedLive("2025-03-26: audio is an audio block", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-03-26")
      const audio = yield* session.result("tools/call", call("test_audio_content", {}))
      assert.deepStrictEqual(audio.content, [{ type: "audio", data: WAV, mimeType: "audio/wav" }])
    }))
})

describe("Tool.make: a raw inputSchema", () => {
  const raw = {
    type: "object",
    properties: { id: { type: "string" } },
    required: ["id"],
    additionalProperties: false,
    $defs: { unused: { type: "number" } }
  } as const

  it.effect("alone: published verbatim, the handler gets the arguments as sent", () =>
    Effect.gen(function*() {
      const lookup = Tool.make("lookup", { inputSchema: raw }, (args) => Effect.succeed(JSON.stringify(args)))
      assert.deepStrictEqual(lookup.definition.inputSchema, raw)
      const args = yield* lookup.decode({ id: "x", extra: [1] })
      assert.deepStrictEqual(args, { id: "x", extra: [1] })
      const result = yield* lookup.run(args)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "{\"id\":\"x\",\"extra\":[1]}" }])
      assert.deepStrictEqual(yield* lookup.decode(undefined), {})
      const error = yield* Effect.flip(lookup.decode("not an object"))
      assert.strictEqual(error._tag, "ArgumentsRejected")
    }))

  it.effect("with parameters: published verbatim, the arguments decoded by the parameters", () =>
    Effect.gen(function*() {
      const lookup = Tool.make(
        "lookup",
        { inputSchema: raw, parameters: Schema.Struct({ id: Schema.NumberFromString }) },
        ({ id }) => Effect.succeed(`id + 1 = ${id + 1}`)
      )
      assert.deepStrictEqual(lookup.definition.inputSchema, raw)
      const args = yield* lookup.decode({ id: "41" })
      assert.deepStrictEqual(args, { id: 41 })
      assert.deepStrictEqual((yield* lookup.run(args)).content, [{ type: "text", text: "id + 1 = 42" }])
      assert.strictEqual((yield* Effect.flip(lookup.decode({ id: "x" })))._tag, "ArgumentsRejected")
    }))

  it("without it: derived from the parameters", () => {
    const derived = Tool.make("d", { parameters: Schema.Struct({ n: Schema.Number }) }, () => Effect.succeed(""))
    assert.deepStrictEqual(derived.definition.inputSchema, {
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
      additionalProperties: false
    })
    assert.deepStrictEqual<unknown>(Everything.JsonSchema2020_12.definition.inputSchema, jsonSchema2020_12)
  })
})

// ---------------------------------------------------------------------------- 2026-07-28

const requestStateKey = Redacted.make("the requestState key of the everything tests")

/** The dual server (the default), with a fixed requestState key. */
const dual = connect({ requestStateKey })

/** What the conformance client declares by default. */
const declared = { sampling: {}, elicitation: {}, roots: { listChanged: true } }

/** Asserts that `value` is valid as the 2026-07-28 definition `name`. */
const valid = (name: string, value: unknown) => assert.isUndefined(validate("2026-07-28", name, value), name)

const accept = (content: Record<string, unknown>) => ({ action: "accept", content })
const sampled = (text: string) => ({
  role: "assistant",
  content: { type: "text", text },
  model: "test-model",
  stopReason: "endTurn"
})
const roots = { roots: [{ uri: "file:///test/root", name: "Test Root" }] }

interface Call {
  readonly capabilities?: Record<string, unknown>
  readonly arguments?: unknown
  readonly inputResponses?: unknown
  readonly requestState?: unknown
  readonly meta?: Record<string, unknown>
}

/** A stateless request; its response (valid as `definition`) and the messages before it. */
const stateless = (
  session: Session,
  method: string,
  params: Record<string, unknown>,
  call: Call,
  definition: string
) =>
  Effect.map(
    session.exchange(method, {
      ...params,
      ...(call.arguments !== undefined ? { arguments: call.arguments } : {}),
      ...(call.inputResponses !== undefined ? { inputResponses: call.inputResponses } : {}),
      ...(call.requestState !== undefined ? { requestState: call.requestState } : {}),
      _meta: meta(call.capabilities ?? declared, call.meta)
    }),
    (exchange) => {
      valid(exchange.response.error === undefined ? definition : "JSONRPCErrorResponse", exchange.response)
      return exchange
    }
  )

/** A stateless tools/call (arguments `{}` unless given): its response. */
const callTool = (session: Session, name: string, call: Call = {}) =>
  Effect.map(
    stateless(session, "tools/call", { name }, { arguments: {}, ...call }, "CallToolResultResponse"),
    ({ response }) => response
  )

/** The text of a complete tools/call result. */
const completed = (response: any): string => {
  assert.isUndefined(response.error, JSON.stringify(response.error))
  assert.strictEqual(response.result.resultType, "complete", JSON.stringify(response.result))
  return response.result.content[0].text
}

/** An input_required result: its input requests and state. */
const inputRequired = (response: any): { readonly inputRequests: any; readonly requestState: string } => {
  assert.isUndefined(response.error, JSON.stringify(response.error))
  assert.strictEqual(response.result.resultType, "input_required", JSON.stringify(response.result))
  valid("InputRequiredResult", response.result)
  assert.isUndefined(response.result.ttlMs)
  assert.isString(response.result.requestState)
  return response.result
}

const nameForm = (message: string, name = "name") => ({
  message,
  requestedSchema: { type: "object", properties: { [name]: { type: "string" } }, required: [name] }
})

describe("Everything: eras", () => {
  it("revisions per era; dual by default", () => {
    assert.deepStrictEqual(Everything.revisions("handshake"), ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
    assert.deepStrictEqual(Everything.revisions("stateless"), ["2026-07-28"])
    assert.deepStrictEqual(Everything.revisions("dual"), [
      "2024-11-05",
      "2025-03-26",
      "2025-06-18",
      "2025-11-25",
      "2026-07-28"
    ])
  })

  it.scopedLive("dual: server/discover lists every revision; a handshake session on the same connection", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const { response } = yield* stateless(session, "server/discover", {}, {}, "DiscoverResultResponse")
      assert.deepStrictEqual(response.result.supportedVersions, Everything.revisions("dual"))
      assert.deepStrictEqual(response.result.capabilities, {
        extensions: { "io.modelcontextprotocol/tasks": {}, "io.modelcontextprotocol/ui": {} },
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true }
      })
      assert.deepStrictEqual(response.result._meta["io.modelcontextprotocol/serverInfo"], Everything.serverInfo)
      assert.deepStrictEqual([response.result.ttlMs, response.result.cacheScope], [300_000, "public"])
      const init = yield* session.result("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" }
      })
      assert.strictEqual(init.protocolVersion, "2025-11-25")
    }))

  it.scopedLive("stateless only: initialize is told the versions served (-32022)", () =>
    Effect.gen(function*() {
      const session = yield* connect({ era: "stateless", requestStateKey })
      const { response } = yield* session.exchange("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" }
      })
      assert.strictEqual(response.error.code, -32022)
      assert.deepStrictEqual(response.error.data, { supported: ["2026-07-28"], requested: "2025-11-25" })
      const { response: discover } = yield* stateless(session, "server/discover", {}, {}, "DiscoverResultResponse")
      assert.deepStrictEqual(discover.result.supportedVersions, ["2026-07-28"])
    }))

  it.scopedLive("handshake only: a 2026-07-28 request is not served", () =>
    Effect.gen(function*() {
      const session = yield* connect({ era: "handshake" })
      const { response } = yield* session.exchange("server/discover", { _meta: meta() })
      assert.strictEqual(response.error.code, -32601)
    }))
})

describe("Everything: 2026-07-28 server-stateless, caching, resources", () => {
  it.scopedLive("tools/list: about first (it takes {}), a deterministic order, the Mcp-Param-Region tool", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const lists: Array<ReadonlyArray<string>> = []
      let tools: Array<any> = []
      for (let i = 0; i < 3; i++) {
        const { response } = yield* stateless(session, "tools/list", {}, {}, "ListToolsResultResponse")
        tools = response.result.tools
        lists.push(tools.map((t: any) => t.name))
      }
      assert.deepStrictEqual(lists[1], lists[0])
      assert.deepStrictEqual(lists[2], lists[0])
      for (const name of [...statelessFixtureTools, "json_schema_2020_12_tool"]) assert.include(lists[0], name)
      assert.strictEqual(lists[0][0], "about")
      const about = yield* callTool(session, "about")
      assert.include(completed(about), "2026-07-28 (the stateless era)")
      // The first tool with an x-mcp-header annotation, on a string property.
      const annotated = tools.find((t: any) =>
        Object.values(t.inputSchema.properties ?? {}).some((p: any) => p["x-mcp-header"] !== undefined)
      )
      assert.strictEqual(annotated.name, "test_custom_header")
      assert.deepStrictEqual(annotated.inputSchema, {
        type: "object",
        required: ["region"],
        properties: {
          region: {
            type: "string",
            description: "A region, mirrored in the Mcp-Param-Region header",
            "x-mcp-header": "Region"
          }
        },
        additionalProperties: false
      })
      for (const region of ["Hello", "SGVsbG8=", "=?base64?SGVsbG8="]) {
        assert.strictEqual(
          completed(yield* callTool(session, "test_custom_header", { arguments: { region } })),
          `Region: ${region}`
        )
      }
      const raw = tools.find((t: any) => t.name === "json_schema_2020_12_tool")
      assert.deepStrictEqual(raw.inputSchema, jsonSchema2020_12)
    }))

  it.scopedLive("caching: ttlMs and cacheScope on the lists and on reading the first resource", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const lists = [
        ["tools/list", "ListToolsResultResponse"],
        ["prompts/list", "ListPromptsResultResponse"],
        ["resources/list", "ListResourcesResultResponse"],
        ["resources/templates/list", "ListResourceTemplatesResultResponse"]
      ] as const
      // The demo serves a view (MCP Apps): its tools and resources are listed per client (a client
      // that renders no views is shown none), so those two lists are private whatever the policy says.
      const perClient = new Set(["tools/list", "resources/list"])
      for (const [method, definition] of lists) {
        const { response } = yield* stateless(session, method, {}, {}, definition)
        assert.deepStrictEqual(
          [response.result.ttlMs, response.result.cacheScope],
          [0, perClient.has(method) ? "private" : "public"],
          method
        )
      }
      const { response: listed } = yield* stateless(session, "resources/list", {}, {}, "ListResourcesResultResponse")
      const first = listed.result.resources[0].uri
      assert.strictEqual(first, "test://static-binary")
      const { response: read } = yield* stateless(
        session,
        "resources/read",
        { uri: first },
        {},
        "ReadResourceResultResponse"
      )
      assert.deepStrictEqual([read.result.resultType, read.result.ttlMs, read.result.cacheScope], [
        "complete",
        0,
        "public"
      ])
    }))

  it.scopedLive("sep-2164: an unknown resource is -32602 with its uri in data, never empty contents", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const uri = "test://nonexistent-resource-for-conformance-testing"
      const { response } = yield* stateless(session, "resources/read", { uri }, {}, "ReadResourceResultResponse")
      assert.strictEqual(response.error.code, -32602)
      assert.deepStrictEqual(response.error.data, { uri })
      valid("InvalidParamsError", response.error)
    }))

  it.scopedLive("test_missing_capability: -32021 naming sampling; declared, it samples in two rounds", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const refused = yield* callTool(session, "test_missing_capability", { capabilities: {} })
      assert.strictEqual(refused.error.code, -32021)
      assert.deepStrictEqual(refused.error.data, { requiredCapabilities: { sampling: {} } })
      assert.isNumber(refused.id)
      valid("MissingRequiredClientCapabilityError", refused)
      const first = inputRequired(
        yield* callTool(session, "test_missing_capability", { capabilities: { sampling: {} } })
      )
      assert.deepStrictEqual(Object.keys(first.inputRequests), ["completion"])
      const done = yield* callTool(session, "test_missing_capability", {
        capabilities: { sampling: {} },
        inputResponses: { completion: sampled("Hello!") },
        requestState: first.requestState
      })
      assert.strictEqual(completed(done), "LLM response: Hello!")
    }))

  it.scopedLive("removed and unknown methods: -32601 with the request's id", () =>
    Effect.gen(function*() {
      const session = yield* dual
      for (
        const method of ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method"]
      ) {
        const { response } = yield* session.exchange(method, { _meta: meta() })
        assert.strictEqual(response.error.code, -32601, method)
        assert.isNumber(response.id)
        valid("MethodNotFoundError", response.error)
      }
    }))

  it.scopedLive("_meta without its required fields: -32602 (over a stateless-only connection, or with a version)", () =>
    Effect.gen(function*() {
      const session = yield* connect({ era: "stateless", requestStateKey })
      for (
        const params of [
          {},
          { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
          { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }
        ]
      ) {
        const { response } = yield* session.exchange("server/discover", params)
        assert.strictEqual(response.error.code, -32602, JSON.stringify(params))
      }
      // On a dual connection a request is stateless when its _meta names a version.
      const both = yield* dual
      const { response } = yield* both.exchange("server/discover", {
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }
      })
      assert.strictEqual(response.error.code, -32602)
      const { response: served } = yield* both.exchange("server/discover", {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      })
      assert.strictEqual(served.result.resultType, "complete", "clientInfo is optional")
    }))

  it.scopedLive("test_streaming_elicitation: the response is the input_required result, nothing before it", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const { before, response } = yield* stateless(
        session,
        "tools/call",
        { name: "test_streaming_elicitation", arguments: {} },
        { capabilities: { elicitation: {} } },
        "CallToolResultResponse"
      )
      assert.deepStrictEqual(before, [])
      const { inputRequests, requestState } = inputRequired(response)
      assert.deepStrictEqual(inputRequests, {
        name: { method: "elicitation/create", params: nameForm("What is your name?") }
      })
      const done = yield* callTool(session, "test_streaming_elicitation", {
        capabilities: { elicitation: {} },
        inputResponses: { name: accept({ name: "Ann" }) },
        requestState
      })
      assert.strictEqual(completed(done), "Streaming elicitation: action=accept, name=Ann")
    }))

  it.scopedLive("test_logging_tool: no notifications/message unless the request sets a logLevel", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const quiet = yield* stateless(session, "tools/call", { name: "test_logging_tool" }, {}, "CallToolResultResponse")
      assert.deepStrictEqual(quiet.before, [])
      assert.strictEqual(completed(quiet.response), "Logging tool completed")
      const asked = yield* stateless(
        session,
        "tools/call",
        { name: "test_logging_tool" },
        { meta: { "io.modelcontextprotocol/logLevel": "info" } },
        "CallToolResultResponse"
      )
      assert.deepStrictEqual(asked.before.map((m) => m.params), [
        { level: "info", data: "Logging tool started" },
        { level: "info", data: "Logging tool finished" }
      ])
      for (const message of asked.before) valid("LoggingMessageNotification", message)
    }))

  it.scopedLive("test_trigger_tool_change and test_trigger_prompt_change add, then remove, what they change", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const names = (method: "tools/list" | "prompts/list") =>
        Effect.map(
          stateless(
            session,
            method,
            {},
            {},
            method === "tools/list" ? "ListToolsResultResponse" : "ListPromptsResultResponse"
          ),
          ({ response }) =>
            (method === "tools/list" ? response.result.tools : response.result.prompts).map((t: any) => t.name)
        )
      assert.strictEqual(completed(yield* callTool(session, "test_trigger_tool_change")), "Added the tool dynamic")
      assert.include(yield* names("tools/list"), "dynamic")
      assert.strictEqual(completed(yield* callTool(session, "test_trigger_tool_change")), "Removed the tool dynamic")
      assert.notInclude(yield* names("tools/list"), "dynamic")
      assert.strictEqual(
        completed(yield* callTool(session, "test_trigger_prompt_change")),
        "Added the prompt dynamic_prompt"
      )
      assert.include(yield* names("prompts/list"), "dynamic_prompt")
      const { response } = yield* stateless(
        session,
        "prompts/get",
        { name: "dynamic_prompt" },
        {},
        "GetPromptResultResponse"
      )
      assert.strictEqual(response.result.messages[0].content.text, "This prompt was added at runtime.")
      assert.strictEqual(
        completed(yield* callTool(session, "test_trigger_prompt_change")),
        "Removed the prompt dynamic_prompt"
      )
      assert.notInclude(yield* names("prompts/list"), "dynamic_prompt")
    }))

  it.scopedLive("the 2025-11-25 fixtures answer stateless requests too, with resultType", () =>
    Effect.gen(function*() {
      const session = yield* dual
      assert.strictEqual(
        completed(yield* callTool(session, "test_simple_text")),
        "This is a simple text response for testing."
      )
      const { response } = yield* stateless(
        session,
        "completion/complete",
        { ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "test" } },
        {},
        "CompleteResultResponse"
      )
      assert.deepStrictEqual(response.result.completion.values, ["test", "testValue1", "testing"])
      const { response: prompt } = yield* stateless(
        session,
        "prompts/get",
        { name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } },
        {},
        "GetPromptResultResponse"
      )
      assert.strictEqual(prompt.result.messages[0].content.text, "Prompt with arguments: arg1='a', arg2='b'")
    }))
})

describe("Everything: 2026-07-28 input-required-result-*", () => {
  it.scopedLive("basic-elicitation and result-type: user_name asked, then Hello, Alice!", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const first = inputRequired(yield* callTool(session, "test_input_required_result_elicitation"))
      assert.deepStrictEqual(first.inputRequests, {
        user_name: { method: "elicitation/create", params: nameForm("What is your name?") }
      })
      const done = yield* callTool(session, "test_input_required_result_elicitation", {
        inputResponses: { user_name: accept({ name: "Alice" }) },
        requestState: first.requestState
      })
      assert.strictEqual(completed(done), "Hello, Alice!")
      assert.isUndefined(done.result.ttlMs)
    }))

  it.scopedLive("basic-sampling: capital_question asked, then the LLM's answer", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const first = inputRequired(yield* callTool(session, "test_input_required_result_sampling"))
      assert.deepStrictEqual(first.inputRequests, {
        capital_question: {
          method: "sampling/createMessage",
          params: {
            messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
            maxTokens: 100
          }
        }
      })
      const done = yield* callTool(session, "test_input_required_result_sampling", {
        inputResponses: { capital_question: sampled("The capital of France is Paris.") },
        requestState: first.requestState
      })
      assert.strictEqual(completed(done), "LLM response: The capital of France is Paris.")
    }))

  it.scopedLive("basic-list-roots: client_roots asked, then the roots", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const first = inputRequired(yield* callTool(session, "test_input_required_result_list_roots"))
      assert.deepStrictEqual(first.inputRequests, { client_roots: { method: "roots/list" } })
      const done = yield* callTool(session, "test_input_required_result_list_roots", {
        inputResponses: { client_roots: roots },
        requestState: first.requestState
      })
      assert.strictEqual(completed(done), "Client roots: file:///test/root (Test Root)")
    }))

  it.scopedLive("request-state (low-level API): its own state comes back sealed; state-ok on the retry", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const first = inputRequired(yield* callTool(session, "test_input_required_result_request_state"))
      assert.deepStrictEqual(first.inputRequests, {
        confirm: {
          method: "elicitation/create",
          params: {
            message: "Please confirm",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
          }
        }
      })
      assert.notInclude(first.requestState, "awaiting-confirmation")
      const done = yield* callTool(session, "test_input_required_result_request_state", {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: first.requestState
      })
      assert.strictEqual(completed(done), "state-ok: confirmed=true")
      // The answer without the state: asked again.
      const again = yield* callTool(session, "test_input_required_result_request_state", {
        inputResponses: { confirm: accept({ ok: true }) }
      })
      assert.deepStrictEqual(Object.keys(inputRequired(again).inputRequests), ["confirm"])
      // Without elicitation declared, the low-level input request is refused.
      const refused = yield* callTool(session, "test_input_required_result_request_state", {
        capabilities: { sampling: {} }
      })
      assert.strictEqual(refused.error.code, -32021)
      assert.deepStrictEqual(refused.error.data, { requiredCapabilities: { elicitation: { form: {} } } })
    }))

  it.scopedLive("multiple-input-requests: elicitation, sampling and roots at once, then complete", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const first = inputRequired(yield* callTool(session, "test_input_required_result_multiple_inputs"))
      assert.deepStrictEqual(
        Object.entries(first.inputRequests).map(([key, request]: [string, any]) => [key, request.method]).sort(),
        [["client_roots", "roots/list"], ["greeting", "sampling/createMessage"], ["user_name", "elicitation/create"]]
      )
      const done = yield* callTool(session, "test_input_required_result_multiple_inputs", {
        inputResponses: {
          user_name: accept({ name: "Alice" }),
          greeting: sampled("Hello there!"),
          client_roots: roots
        },
        requestState: first.requestState
      })
      assert.strictEqual(completed(done), "Hello there! Alice; file:///test/root (Test Root)")
    }))

  it.scopedLive("multi-round: step1, then step2 with a new state, then complete", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const round1 = inputRequired(yield* callTool(session, "test_input_required_result_multi_round"))
      assert.deepStrictEqual(round1.inputRequests, {
        step1: { method: "elicitation/create", params: nameForm("Step 1: What is your name?") }
      })
      const round2 = inputRequired(
        yield* callTool(session, "test_input_required_result_multi_round", {
          inputResponses: { step1: accept({ name: "Alice" }) },
          requestState: round1.requestState
        })
      )
      assert.deepStrictEqual(round2.inputRequests, {
        step2: { method: "elicitation/create", params: nameForm("Step 2: What is your favorite color?", "color") }
      })
      assert.notStrictEqual(round2.requestState, round1.requestState)
      const done = yield* callTool(session, "test_input_required_result_multi_round", {
        inputResponses: { step2: accept({ color: "blue" }) },
        requestState: round2.requestState
      })
      assert.strictEqual(completed(done), "Alice's favorite color is blue")
    }))

  it.scopedLive("missing-input-response: a wrong key is asked again, no error", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const again = yield* callTool(session, "test_input_required_result_elicitation", {
        inputResponses: { wrong_key: accept({ data: "wrong" }) }
      })
      assert.deepStrictEqual(Object.keys(inputRequired(again).inputRequests), ["user_name"])
    }))

  it.scopedLive("ignore-extra-params: the right answer and unknown keys (no state) complete", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const done = yield* callTool(session, "test_input_required_result_elicitation", {
        inputResponses: {
          user_name: accept({ name: "Alice" }),
          unknown_extra_key: accept({ foo: "bar" }),
          another_unexpected: accept({ baz: 123 })
        }
      })
      assert.strictEqual(completed(done), "Hello, Alice!")
    }))

  // A first call was asked nothing: its answers count for the first round only (what the tool asks
  // with none), never for a later one, which is asked in its turn (issue 35).
  it.scopedLive("multi-round: every round's answer on a first call answers the first round only: step2 is asked", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const round2 = inputRequired(
        yield* callTool(session, "test_input_required_result_multi_round", {
          inputResponses: { step1: accept({ name: "NoState" }), step2: accept({ color: "blue" }) }
        })
      )
      assert.deepStrictEqual(Object.keys(round2.inputRequests), ["step2"])
      const done = yield* callTool(session, "test_input_required_result_multi_round", {
        inputResponses: { step1: accept({ name: "Mallory" }), step2: accept({ color: "green" }) },
        requestState: round2.requestState
      })
      assert.strictEqual(completed(done), "NoState's favorite color is green")
    }))

  it.scopedLive("validate-input: malformed inputResponses are JSON-RPC errors", () =>
    Effect.gen(function*() {
      const session = yield* dual
      for (const inputResponses of [{ user_name: 12345 }, null, "not a map"]) {
        const response = yield* callTool(session, "test_input_required_result_elicitation", { inputResponses })
        assert.strictEqual(response.error?.code, -32602, JSON.stringify(inputResponses))
      }
    }))

  it.scopedLive("unsupported-methods: tools/list and prompts/list never answer input_required", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const { response: tools } = yield* stateless(session, "tools/list", {}, {}, "ListToolsResultResponse")
      const { response: prompts } = yield* stateless(session, "prompts/list", {}, {}, "ListPromptsResultResponse")
      assert.strictEqual(tools.result.resultType, "complete")
      assert.strictEqual(prompts.result.resultType, "complete")
    }))

  it.scopedLive("tampered-state: a changed requestState is refused (-32602); the real one completes", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const first = inputRequired(yield* callTool(session, "test_input_required_result_tampered_state"))
      assert.deepStrictEqual(Object.keys(first.inputRequests), ["confirm"])
      const tampered = yield* callTool(session, "test_input_required_result_tampered_state", {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: `${first.requestState}-TAMPERED`
      })
      assert.strictEqual(tampered.error.code, -32602)
      valid("InvalidParamsError", tampered.error)
      const done = yield* callTool(session, "test_input_required_result_tampered_state", {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: first.requestState
      })
      assert.strictEqual(completed(done), "confirmed=true")
      // A state of another tool is refused too.
      const foreign = yield* callTool(session, "test_input_required_result_elicitation", {
        inputResponses: { user_name: accept({ name: "Eve" }) },
        requestState: first.requestState
      })
      assert.strictEqual(foreign.error.code, -32602)
    }))

  it.scopedLive("capability-check: only the declared kinds are asked for", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const samplingOnly = inputRequired(
        yield* callTool(session, "test_input_required_result_capabilities", { capabilities: { sampling: {} } })
      )
      assert.deepStrictEqual(
        Object.values(samplingOnly.inputRequests).map((request: any) => request.method),
        ["sampling/createMessage"]
      )
      const done = yield* callTool(session, "test_input_required_result_capabilities", {
        capabilities: { sampling: {} },
        inputResponses: { greeting: sampled("Hi") },
        requestState: samplingOnly.requestState
      })
      assert.strictEqual(completed(done), "greeting: Hi")
      const all = inputRequired(yield* callTool(session, "test_input_required_result_capabilities"))
      assert.deepStrictEqual(Object.keys(all.inputRequests).sort(), ["client_roots", "greeting", "user_name"])
      // URL mode only is no form.
      const urlOnly = yield* callTool(session, "test_input_required_result_capabilities", {
        capabilities: { elicitation: { url: {} } }
      })
      assert.match(completed(urlOnly), /nothing to ask/)
      const none = yield* callTool(session, "test_input_required_result_capabilities", { capabilities: {} })
      assert.match(completed(none), /nothing to ask/)
    }))

  it.scopedLive("non-tool-request: prompts/get asks user_context, then renders", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const first = yield* stateless(
        session,
        "prompts/get",
        { name: "test_input_required_result_prompt" },
        {},
        "GetPromptResultResponse"
      )
      const { inputRequests, requestState } = inputRequired(first.response)
      assert.deepStrictEqual(inputRequests, {
        user_context: {
          method: "elicitation/create",
          params: nameForm("What context should the prompt use?", "context")
        }
      })
      const done = yield* stateless(
        session,
        "prompts/get",
        { name: "test_input_required_result_prompt" },
        { inputResponses: { user_context: accept({ context: "test context" }) }, requestState },
        "GetPromptResultResponse"
      )
      assert.strictEqual(done.response.result.resultType, "complete")
      assert.deepStrictEqual(done.response.result.messages, [{
        role: "user",
        content: { type: "text", text: "Write a short story set in this context: test context" }
      }])
      // Without elicitation declared: -32021.
      const refused = yield* stateless(
        session,
        "prompts/get",
        { name: "test_input_required_result_prompt" },
        { capabilities: {} },
        "GetPromptResultResponse"
      )
      assert.strictEqual(refused.response.error.code, -32021)
    }))

  it.scopedLive("non-tool-request: resources/read of test://user-context asks user_context, then reads (never cached)", () =>
    Effect.gen(function*() {
      const session = yield* dual
      const uri = "test://user-context"
      const first = yield* stateless(session, "resources/read", { uri }, {}, "ReadResourceResultResponse")
      const { inputRequests, requestState } = inputRequired(first.response)
      assert.deepStrictEqual(Object.keys(inputRequests), ["user_context"])
      const done = yield* stateless(
        session,
        "resources/read",
        { uri },
        { inputResponses: { user_context: accept({ context: "a library" }) }, requestState },
        "ReadResourceResultResponse"
      )
      assert.deepStrictEqual(done.response.result.contents, [{
        uri,
        mimeType: "text/plain",
        text: "Context given by the user: a library"
      }])
      assert.deepStrictEqual([done.response.result.ttlMs, done.response.result.cacheScope], [0, "public"])
    }))
})

describe("Everything: the 2026-07-28 fixtures in a handshake session", () => {
  it.scopedLive("asks are server→client requests; the answer completes the call", () =>
    Effect.gen(function*() {
      const session = yield* open("2025-11-25", clientCapabilities)
      const asked: Array<any> = []
      const answer = (request: { readonly method: string; readonly params?: any }) => {
        asked.push(request)
        const fields = { ok: true, name: "Alice", color: "blue", context: "a library" } as Record<string, unknown>
        return request.method === "elicitation/create"
          ? accept(
            Object.fromEntries(Object.keys(request.params.requestedSchema.properties).map((k) => [k, fields[k]]))
          )
          : request.method === "sampling/createMessage"
          ? sampled("Hello there!")
          : roots
      }
      const text = (name: string) =>
        Effect.map(session.result("tools/call", call(name, {}), answer), (result) => {
          assert.isUndefined(result.resultType)
          assert.isUndefined(validate("2025-11-25", "CallToolResult", result))
          return result.content[0].text
        })
      assert.strictEqual(yield* text("test_input_required_result_elicitation"), "Hello, Alice!")
      assert.strictEqual(
        yield* text("test_input_required_result_request_state"),
        "state-ok: confirmed=true (a handshake session needs no requestState)"
      )
      assert.strictEqual(
        yield* text("test_input_required_result_multiple_inputs"),
        "Hello there! Alice; file:///test/root (Test Root)"
      )
      assert.strictEqual(yield* text("test_input_required_result_multi_round"), "Alice's favorite color is blue")
      assert.deepStrictEqual(asked.map((r) => r.method).slice(0, 2), ["elicitation/create", "elicitation/create"])
      for (const request of asked) assert.isUndefined(validate("2025-11-25", "JSONRPCRequest", request), request.method)
      const prompt = yield* session.result("prompts/get", { name: "test_input_required_result_prompt" }, answer)
      assert.strictEqual(prompt.messages[0].content.text, "Write a short story set in this context: a library")
    }))

  it.scopedLive("without the capability: -32021 as well", () =>
    Effect.gen(function*() {
      const session = yield* open()
      const { response } = yield* session.exchange("tools/call", call("test_missing_capability", {}))
      assert.strictEqual(response.error.code, -32021)
      assert.deepStrictEqual(response.error.data, { requiredCapabilities: { sampling: {} } })
    }))
})
