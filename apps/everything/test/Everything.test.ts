/**
 * The demo server answers every conformance fixture the way the suite checks it (the
 * fixture inventory of conformance 0.2.0-alpha.12), over the in-memory transport.
 */
import { Tool } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as Everything from "../src/Everything.js"
import { open } from "./utils/Session.js"

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
  "test_reconnection"
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
  it.scopedLive("declares tools, resources (subscribe), prompts, logging and completions", () =>
    Effect.gen(function*() {
      const { initialize } = yield* open()
      assert.deepStrictEqual(initialize.capabilities, {
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
      for (const name of [...fixtureTools, "add", "echo", "longRunning", "editTools", "updateWatchedResource"]) {
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
      assert.strictEqual(error._tag, "InvalidArguments")
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
      assert.strictEqual((yield* Effect.flip(lookup.decode({ id: "x" })))._tag, "InvalidArguments")
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
