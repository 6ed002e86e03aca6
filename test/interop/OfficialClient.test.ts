/**
 * Interop: the official TypeScript SDK client (`@modelcontextprotocol/client` 2.4.0) talks to
 * the demo server (`apps/everything`) over stdio, spawning `node apps/everything/dist/main.js
 * stdio` (built by `tsc -b` before the tests run). One client negotiates 2025-11-25 and drives
 * every feature; two more are pinned to 2025-03-26 and 2024-11-05.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = path.join(root, "apps/everything/dist/main.js")

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

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

/** Resolves with the first value `take` accepts, or rejects after `ms`. */
const waitFor = <A>(what: string, ms = 5000) => {
  let resolve!: (a: A) => void
  const promise = new Promise<A>((res, reject) => {
    resolve = res
    setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms).unref()
  })
  return { promise, resolve }
}

interface Connection {
  readonly client: Client
  readonly transport: StdioClientTransport
  /** Every message the client received, in order, as the transport handed it over. */
  readonly received: Array<any>
  /** What the server wrote on stderr (for failure messages). */
  readonly stderr: () => string
}

const connect = async (client: Client): Promise<Connection> => {
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "tsc -b tsconfig.json" first`)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main, "stdio"],
    cwd: root,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk) => (stderr += String(chunk)))
  await client.connect(transport)
  const received: Array<any> = []
  const deliver = transport.onmessage!
  transport.onmessage = (message) => {
    received.push(message)
    deliver(message)
  }
  return { client, transport, received, stderr: () => stderr }
}

const close = async (connection: Connection | undefined) => {
  if (connection === undefined) return
  await connection.client.close().catch(() => undefined)
  await connection.transport.close().catch(() => undefined)
}

const textOf = (result: any): string => result.content[0].text

describe("official Client 2.4.0 ↔ apps/everything over stdio, 2025-11-25", () => {
  let connection: Connection | undefined
  const logs: Array<any> = []
  const updated: Array<string> = []
  const toolListChanges: Array<ReadonlyArray<string>> = []
  const asked: Array<{ readonly method: string; readonly params: any }> = []
  let onUpdated: ((uri: string) => void) | undefined
  let onToolsChanged: ((names: ReadonlyArray<string>) => void) | undefined

  const client = () => connection!.client

  beforeAll(async () => {
    const client = new Client({ name: "interop", version: "1.0.0" }, {
      capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error) return
            const names = (tools ?? []).map((t) => t.name)
            toolListChanges.push(names)
            onToolsChanged?.(names)
          }
        }
      }
    })
    client.setRequestHandler("sampling/createMessage", async (request) => {
      asked.push({ method: "sampling/createMessage", params: request.params })
      return {
        role: "assistant",
        content: { type: "text", text: "This is a test response from the client" },
        model: "test-model",
        stopReason: "endTurn"
      }
    })
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push({ method: "elicitation/create", params: request.params })
      return { action: "accept", content: { username: "testuser", email: "test@example.com" } }
    })
    client.setRequestHandler("roots/list", async () => {
      asked.push({ method: "roots/list", params: {} })
      return { roots: [{ uri: "file:///test/root", name: "Test Root" }] }
    })
    client.setNotificationHandler("notifications/message", (notification) => {
      logs.push(notification.params)
    })
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri)
      onUpdated?.(notification.params.uri)
    })
    client.onerror = () => undefined
    connection = await connect(client)
  })

  afterAll(() => close(connection))

  it("handshake: negotiates 2025-11-25, sees the server and its capabilities", () => {
    assert.strictEqual(client().getNegotiatedProtocolVersion(), "2025-11-25")
    assert.strictEqual(client().getServerVersion()?.name, "effect-mcp-everything")
    const capabilities = client().getServerCapabilities()
    assert.deepStrictEqual(capabilities?.resources, { subscribe: true, listChanged: true })
    assert.deepStrictEqual(capabilities?.tools, { listChanged: true })
    assert.deepStrictEqual(capabilities?.prompts, { listChanged: true })
    assert.deepStrictEqual(capabilities?.logging, {})
    assert.deepStrictEqual(capabilities?.completions, {})
    assert.isString(client().getInstructions())
  })

  it("listTools: every fixture; json_schema_2020_12_tool's inputSchema verbatim", async () => {
    const { tools } = await client().listTools()
    const names = tools.map((t) => t.name)
    for (const name of [...fixtureTools, "add", "echo", "longRunning", "editTools", "listRoots"]) {
      assert.include(names, name)
    }
    const raw = tools.find((t) => t.name === "json_schema_2020_12_tool")
    assert.deepStrictEqual<unknown>(raw?.inputSchema, jsonSchema2020_12)
    assert.deepStrictEqual(tools.find((t) => t.name === "add")?.outputSchema?.required, ["sum"])
  })

  it("callTool: text (no arguments), image, audio, embedded resource", async () => {
    assert.strictEqual(
      textOf(await client().callTool({ name: "test_simple_text" })),
      "This is a simple text response for testing."
    )
    const image = await client().callTool({ name: "test_image_content", arguments: {} })
    assert.deepStrictEqual(image.content, [{ type: "image", data: PNG, mimeType: "image/png" }])
    const audio = await client().callTool({ name: "test_audio_content", arguments: {} })
    assert.deepStrictEqual(audio.content, [{ type: "audio", data: WAV, mimeType: "audio/wav" }])
    const embedded = await client().callTool({ name: "test_embedded_resource", arguments: {} })
    assert.deepStrictEqual(embedded.content, [{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content."
      }
    }])
  })

  it("callTool add: structuredContent { sum } that fits the outputSchema", async () => {
    const result = await client().callTool({ name: "add", arguments: { a: 1, b: 2 } })
    assert.deepStrictEqual(result.structuredContent, { sum: 3 })
    assert.isUndefined(result.isError)
  })

  it("callTool test_error_handling: an isError result", async () => {
    const result = await client().callTool({ name: "test_error_handling", arguments: {} })
    assert.isTrue(result.isError)
    assert.strictEqual(textOf(result), "This tool intentionally returns an error for testing")
  })

  it("callTool with onprogress: 0, 50, 100 of 100 before the result", async () => {
    const progress: Array<[number, number | undefined]> = []
    connection!.received.length = 0
    await client().callTool({ name: "test_tool_with_progress", arguments: {} }, {
      onprogress: (p) => progress.push([p.progress, p.total])
    })
    // All three arrive, in order, before the response...
    const wire = connection!.received.map((m) =>
      m.method === "notifications/progress" ? [m.params.progress, m.params.total] : "response"
    )
    assert.deepStrictEqual(wire, [[0, 100], [50, 100], [100, 100], "response"])
    // ...but the SDK runs notification handlers a microtask late and responses at once, so a
    // progress read in the same chunk as the response (the last one, here) reaches no handler.
    assert.isAtLeast(progress.length, 2)
    assert.deepStrictEqual<unknown>(progress, [[0, 100], [50, 100], [100, 100]].slice(0, progress.length))
  })

  it("callTool longRunning: cancelled with an AbortSignal, the session goes on", async () => {
    const controller = new AbortController()
    const progressed = waitFor<void>("the first progress of longRunning")
    const call = client().callTool({ name: "longRunning", arguments: { duration: 5, steps: 50 } }, {
      signal: controller.signal,
      onprogress: () => progressed.resolve()
    })
    await progressed.promise
    controller.abort("enough")
    let rejected = false
    await call.catch(() => (rejected = true))
    assert.isTrue(rejected)
    // The server read the cancellation before it answers this ping (stdin is read in order).
    assert.deepStrictEqual(await client().ping(), {})
    connection!.received.length = 0
    // The server stopped it: no more progress (it came every 100 millis) and no result. A later
    // event shows it: another longRunning (without progress) takes 300 millis of the server's own
    // clock, in which the first one would have sent two or three progress notifications.
    const later = await client().callTool({ name: "longRunning", arguments: { duration: 0.3, steps: 3 } })
    assert.include(textOf(later), "3 steps")
    assert.deepStrictEqual(connection!.received.map((m) => m.method ?? "response"), ["response"])
  })

  it("listResources, readResource (text, blob, template)", async () => {
    const { resources } = await client().listResources()
    assert.includeMembers(resources.map((r) => r.uri), [
      "test://static-text",
      "test://static-binary",
      "test://watched-resource"
    ])
    const { resourceTemplates } = await client().listResourceTemplates()
    assert.deepStrictEqual(resourceTemplates.map((t) => t.uriTemplate), ["test://template/{id}/data"])
    const text = await client().readResource({ uri: "test://static-text" })
    assert.deepStrictEqual(text.contents, [{
      uri: "test://static-text",
      mimeType: "text/plain",
      text: "This is the content of the static text resource."
    }])
    const blob = await client().readResource({ uri: "test://static-binary" })
    assert.deepStrictEqual(blob.contents, [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG }])
    const template = await client().readResource({ uri: "test://template/123/data" })
    assert.strictEqual(template.contents[0]?.uri, "test://template/123/data")
    assert.include((template.contents[0] as { text: string }).text, "123")
  })

  it("listPrompts, getPrompt with arguments", async () => {
    const { prompts } = await client().listPrompts()
    assert.includeMembers(prompts.map((p) => p.name), [
      "test_simple_prompt",
      "test_prompt_with_arguments",
      "test_prompt_with_embedded_resource",
      "test_prompt_with_image"
    ])
    const result = await client().getPrompt({
      name: "test_prompt_with_arguments",
      arguments: { arg1: "testValue1", arg2: "testValue2" }
    })
    assert.deepStrictEqual(result.messages, [{
      role: "user",
      content: { type: "text", text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" }
    }])
    const image = await client().getPrompt({ name: "test_prompt_with_image" })
    assert.deepStrictEqual(image.messages[0]?.content, { type: "image", data: PNG, mimeType: "image/png" })
    const embedded = await client().getPrompt({
      name: "test_prompt_with_embedded_resource",
      arguments: { resourceUri: "test://example-resource" }
    })
    assert.strictEqual(embedded.messages[0]?.content.type, "resource")
  })

  it("complete: arg1 of test_prompt_with_arguments", async () => {
    const result = await client().complete({
      ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
      argument: { name: "arg1", value: "test" }
    })
    assert.deepStrictEqual(result.completion.values, ["test", "testValue1", "testing"])
  })

  it("setLoggingLevel, then the tool's logs arrive as notifications/message", async () => {
    assert.deepStrictEqual(await client().setLoggingLevel("debug"), {})
    logs.length = 0
    await client().callTool({ name: "test_tool_with_logging", arguments: {} })
    assert.deepStrictEqual(logs.map((l) => [l.level, l.data]), [
      ["info", "Tool execution started"],
      ["info", "Tool processing data"],
      ["info", "Tool execution completed"]
    ])
  })

  it("subscribeResource, then resources/updated when the resource changes", async () => {
    assert.deepStrictEqual(await client().subscribeResource({ uri: "test://watched-resource" }), {})
    const notified = waitFor<string>("notifications/resources/updated")
    onUpdated = notified.resolve
    await client().callTool({ name: "updateWatchedResource", arguments: {} })
    assert.strictEqual(await notified.promise, "test://watched-resource")
    assert.deepStrictEqual(await client().unsubscribeResource({ uri: "test://watched-resource" }), {})
  })

  it("tools/list_changed after a live edit: the client refreshes its list", async () => {
    const added = waitFor<ReadonlyArray<string>>("a tools list with dynamic")
    onToolsChanged = (names) => names.includes("dynamic") && added.resolve(names)
    await client().callTool({ name: "editTools", arguments: { action: "add" } })
    assert.include(await added.promise, "dynamic")
    assert.strictEqual(
      textOf(await client().callTool({ name: "dynamic", arguments: {} })),
      "This tool was added at runtime."
    )
    const removed = waitFor<ReadonlyArray<string>>("a tools list without dynamic")
    onToolsChanged = (names) => !names.includes("dynamic") && removed.resolve(names)
    await client().callTool({ name: "editTools", arguments: { action: "remove" } })
    assert.notInclude(await removed.promise, "dynamic")
  })

  it("test_sampling: the client's sampling handler answers", async () => {
    asked.length = 0
    const result = await client().callTool({ name: "test_sampling", arguments: { prompt: "Test prompt for sampling" } })
    assert.strictEqual(textOf(result), "LLM response: This is a test response from the client")
    assert.deepStrictEqual(asked, [{
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: "Test prompt for sampling" } }],
        maxTokens: 100
      }
    }])
  })

  it("test_elicitation: the client's elicitation handler answers", async () => {
    asked.length = 0
    const result = await client().callTool({
      name: "test_elicitation",
      arguments: { message: "Please provide your information" }
    })
    assert.strictEqual(
      textOf(result),
      "User response: action=accept, content={\"username\":\"testuser\",\"email\":\"test@example.com\"}"
    )
    assert.strictEqual(asked[0]?.method, "elicitation/create")
    assert.deepStrictEqual(asked[0]?.params.requestedSchema.required, ["username", "email"])
  })

  it("listRoots: the client's roots handler answers", async () => {
    const result = await client().callTool({ name: "listRoots", arguments: {} })
    assert.deepStrictEqual(result.structuredContent, { roots: [{ uri: "file:///test/root", name: "Test Root" }] })
  })
})

for (const revision of ["2025-03-26", "2024-11-05"] as const) {
  describe(`official Client 2.4.0 pinned to ${revision}`, () => {
    let connection: Connection | undefined
    const client = () => connection!.client
    const logs: Array<any> = []
    const updated: Array<string> = []
    const asked: Array<string> = []
    let onUpdated: ((uri: string) => void) | undefined
    let onToolsChanged: ((names: ReadonlyArray<string>) => void) | undefined

    beforeAll(async () => {
      const client = new Client({ name: `interop-${revision}`, version: "1.0.0" }, {
        supportedProtocolVersions: [revision],
        capabilities: { sampling: {}, roots: { listChanged: true } },
        listChanged: {
          tools: { onChanged: (error, tools) => error || onToolsChanged?.((tools ?? []).map((t) => t.name)) }
        }
      })
      client.setRequestHandler("sampling/createMessage", async () => {
        asked.push("sampling/createMessage")
        return {
          role: "assistant",
          content: { type: "text", text: "This is a test response from the client" },
          model: "test-model",
          stopReason: "endTurn"
        }
      })
      client.setRequestHandler("roots/list", async () => {
        asked.push("roots/list")
        return { roots: [{ uri: "file:///test/root", name: "Test Root" }] }
      })
      client.setNotificationHandler("notifications/message", (notification) => {
        logs.push(notification.params)
      })
      client.setNotificationHandler("notifications/resources/updated", (notification) => {
        updated.push(notification.params.uri)
        onUpdated?.(notification.params.uri)
      })
      client.onerror = () => undefined
      connection = await connect(client)
    })

    it("complete, logging, subscriptions and list_changed", async () => {
      const completion = await client().complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "test" }
      })
      assert.deepStrictEqual(completion.completion.values, ["test", "testValue1", "testing"])
      assert.deepStrictEqual(await client().setLoggingLevel("warning"), {})
      logs.length = 0
      await client().callTool({ name: "test_tool_with_logging", arguments: {} })
      assert.deepStrictEqual(logs, [], "info logs are below the warning level")
      assert.deepStrictEqual(await client().subscribeResource({ uri: "test://watched-resource" }), {})
      const notified = waitFor<string>("notifications/resources/updated")
      onUpdated = notified.resolve
      await client().callTool({ name: "updateWatchedResource", arguments: {} })
      assert.strictEqual(await notified.promise, "test://watched-resource")
      const added = waitFor<ReadonlyArray<string>>("a tools list with dynamic")
      onToolsChanged = (names) => names.includes("dynamic") && added.resolve(names)
      await client().callTool({ name: "editTools", arguments: { action: "add" } })
      assert.include(await added.promise, "dynamic")
      await client().callTool({ name: "editTools", arguments: { action: "remove" } })
    })

    it("answers sampling and roots; elicitation does not exist in this revision", async () => {
      asked.length = 0
      const sampled = await client().callTool({ name: "test_sampling", arguments: { prompt: "hi" } })
      assert.strictEqual(textOf(sampled), "LLM response: This is a test response from the client")
      const roots = await client().callTool({ name: "listRoots", arguments: {} })
      assert.include(textOf(roots), "file:///test/root")
      assert.deepStrictEqual(asked, ["sampling/createMessage", "roots/list"])
      const elicited = await client().callTool({ name: "test_elicitation", arguments: { message: "who?" } })
      assert.isTrue(elicited.isError)
      assert.deepStrictEqual(asked, ["sampling/createMessage", "roots/list"], "nothing was asked")
    })

    afterAll(() => close(connection))

    it(`negotiates ${revision}`, () => {
      assert.strictEqual(client().getNegotiatedProtocolVersion(), revision)
      assert.strictEqual(client().getServerVersion()?.name, "effect-mcp-everything")
    })

    it("listTools, callTool, readResource, getPrompt", async () => {
      const { tools } = await client().listTools()
      assert.includeMembers(tools.map((t) => t.name), fixtureTools)
      for (const tool of tools) assert.isUndefined(tool.outputSchema)
      assert.strictEqual(
        textOf(await client().callTool({ name: "echo", arguments: { message: "hi" } })),
        "Echo: hi"
      )
      const add = await client().callTool({ name: "add", arguments: { a: 1, b: 2 } })
      assert.deepStrictEqual(JSON.parse(textOf(add)), { sum: 3 })
      const text = await client().readResource({ uri: "test://static-text" })
      assert.strictEqual(
        (text.contents[0] as { text: string }).text,
        "This is the content of the static text resource."
      )
      const prompt = await client().getPrompt({
        name: "test_prompt_with_arguments",
        arguments: { arg1: "a", arg2: "b" }
      })
      assert.deepStrictEqual(prompt.messages[0]?.content, {
        type: "text",
        text: "Prompt with arguments: arg1='a', arg2='b'"
      })
    })

    it(revision === "2024-11-05" ? "audio is not sent as an audio block" : "audio is an audio block", async () => {
      const { content } = await client().callTool({ name: "test_audio_content", arguments: {} })
      if (revision === "2024-11-05") {
        assert.deepStrictEqual(content.map((c) => c.type), ["text"])
      } else {
        assert.deepStrictEqual(content, [{ type: "audio", data: WAV, mimeType: "audio/wav" }])
      }
    })
  })
}
