import { McpError } from "@effect-mcp/core"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as McpRequest from "../src/McpRequest.js"
import * as Tool from "../src/Tool.js"
import { connect, handshakeRevisions } from "./utils/TestClient.js"

const serverInfo = { name: "tools-server", version: "1.0.0" }

const named = (name: string) =>
  Tool.make(name, { description: `the ${name} tool` }, () => Effect.succeed(`I am ${name}`))

const Echo = Tool.make("echo", {
  title: "Echo",
  description: "Echoes its text",
  parameters: Schema.Struct({ text: Schema.String, times: Schema.optional(Schema.Int) }),
  annotations: { readOnlyHint: true },
  icons: [{ src: "https://example.com/echo.png" }]
}, ({ text, times }) => Effect.succeed(text.repeat(times ?? 1)))

const Weather = Tool.make("weather", {
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Number, at: Schema.DateFromString })
}, ({ city }) => Effect.succeed({ city, celsius: 21.5, at: new Date("2025-01-02T03:04:05.000Z") }))

class Refused extends Schema.TaggedError<Refused>()("Refused", { reason: Schema.String, retryable: Schema.Boolean }) {}

const Guarded = Tool.make(
  "guarded",
  {
    parameters: Schema.Struct({ allow: Schema.Boolean }),
    failure: Refused
  },
  ({ allow }) => allow ? Effect.succeed("allowed") : Effect.fail(new Refused({ reason: "not today", retryable: false }))
)

const Boom = Tool.make("boom", {}, () => Effect.die(new Error("a bug in the tool")))

const Liar = Tool.make(
  "liar",
  { success: Schema.Struct({ n: Schema.Number }) },
  () => Effect.succeed({ n: "not a number" } as any)
)

const Picky = Tool.make("picky", {}, () => Effect.fail(new McpError.InvalidParams({ message: "picky says no" })))

const Media = Tool.make("media", {}, () =>
  Effect.succeed(
    [
      { type: "text", text: "look" },
      { type: "image", data: "aW1hZ2U=", mimeType: "image/png" },
      { type: "audio", data: "YXVkaW8=", mimeType: "audio/wav" },
      { type: "resource_link", uri: "test://linked", name: "linked" },
      { type: "resource", resource: { uri: "test://embedded", text: "inside", mimeType: "text/plain" } }
    ] as const
  ))

const all = [Echo, Weather, Guarded, Boom, Liar, Picky, Media]

describe("Tools: tools/list", () => {
  it.scoped("sorted by name", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: ["zeta", "alpha", "mid", "beta"].map(named) })
      yield* client.initialize("2025-11-25")
      const { nextCursor, tools } = yield* client.result("tools/list")
      assert.deepStrictEqual(tools.map((t: any) => t.name), ["alpha", "beta", "mid", "zeta"])
      assert.isUndefined(nextCursor)
    }))

  it.scoped("pagination: every tool exactly once, in order, the last page without nextCursor", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 8 }, (_, i) => `tool-${String.fromCharCode(104 - i)}`)
      const client = yield* connect({ serverInfo, tools: names.map(named), pageSize: 3 })
      yield* client.initialize("2025-06-18")
      const seen: Array<string> = []
      const sizes: Array<number> = []
      let cursor: string | undefined = undefined
      do {
        const page: any = yield* client.result("tools/list", cursor === undefined ? {} : { cursor })
        assert.isUndefined(validate("2025-06-18", "ListToolsResult", page))
        sizes.push(page.tools.length)
        seen.push(...page.tools.map((t: any) => t.name))
        cursor = page.nextCursor
        if (cursor !== undefined) assert.isString(cursor)
      } while (cursor !== undefined && sizes.length < 10)
      assert.deepStrictEqual(sizes, [3, 3, 2])
      assert.deepStrictEqual(seen, [...names].sort())
    }))

  it.scoped("pagination: a cursor still works when the tool it points after is removed", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: ["a", "b", "c", "d"].map(named), pageSize: 2 })
      yield* client.initialize("2025-11-25")
      const first = yield* client.result("tools/list")
      assert.deepStrictEqual(first.tools.map((t: any) => t.name), ["a", "b"])
      assert.isTrue(yield* client.server.removeTool("b"))
      const second = yield* client.exchange("tools/list", { cursor: first.nextCursor })
      assert.deepStrictEqual(second.response.result.tools.map((t: any) => t.name), ["c", "d"])
      assert.isUndefined(second.response.result.nextCursor)
    }))

  it.scoped("an invalid cursor is -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo], pageSize: 1 })
      yield* client.initialize("2025-11-25")
      const error = yield* client.error("tools/list", { cursor: "%% not a cursor %%" })
      assert.strictEqual(error.code, -32602)
      // The session goes on.
      assert.strictEqual((yield* client.result("tools/list")).tools.length, 1)
    }))

  it.scoped("definitions are shaped for the revision and validate against the official schema", () =>
    Effect.gen(function*() {
      for (const revision of handshakeRevisions) {
        const client = yield* connect({ serverInfo, tools: all })
        yield* client.initialize(revision)
        const result = yield* client.result("tools/list")
        assert.isUndefined(validate(revision, "ListToolsResult", result), revision)
        const echo = result.tools.find((t: any) => t.name === "echo")
        const weather = result.tools.find((t: any) => t.name === "weather")
        assert.strictEqual(echo.description, "Echoes its text")
        assert.strictEqual(echo.inputSchema.type, "object")
        assert.deepStrictEqual(echo.inputSchema.required, ["text"])
        assert.strictEqual("title" in echo, revision >= "2025-06-18", `title at ${revision}`)
        assert.strictEqual("annotations" in echo, revision >= "2025-03-26", `annotations at ${revision}`)
        assert.strictEqual("icons" in echo, revision >= "2025-11-25", `icons at ${revision}`)
        assert.strictEqual("outputSchema" in weather, revision >= "2025-06-18", `outputSchema at ${revision}`)
        if (revision >= "2025-06-18") assert.strictEqual(weather.outputSchema.type, "object")
      }
    }))
})

describe("Tools: tools/call", () => {
  it.scoped("text result", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: all })
      yield* client.initialize("2024-11-05")
      const result = yield* client.result("tools/call", { name: "echo", arguments: { text: "ab", times: 3 } })
      assert.deepStrictEqual(result, { content: [{ type: "text", text: "ababab" }] })
      assert.isUndefined(validate("2024-11-05", "CallToolResult", result))
    }))

  for (const revision of ["2025-06-18", "2025-11-25"] as const) {
    it.scoped(`structured output at ${revision}: structuredContent (encoded) and the same JSON as text`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: all })
        yield* client.initialize(revision)
        const result = yield* client.result("tools/call", { name: "weather", arguments: { city: "Oslo" } })
        const expected = { city: "Oslo", celsius: 21.5, at: "2025-01-02T03:04:05.000Z" }
        assert.deepStrictEqual(result.structuredContent, expected)
        assert.strictEqual(result.content.length, 1)
        assert.strictEqual(result.content[0].type, "text")
        assert.deepStrictEqual(JSON.parse(result.content[0].text), expected)
        assert.isUndefined(result.isError)
        assert.isUndefined(validate(revision, "CallToolResult", result))
      }))
  }

  for (const revision of ["2024-11-05", "2025-03-26"] as const) {
    it.scoped(`structured output at ${revision}: text only, no structuredContent`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: all })
        yield* client.initialize(revision)
        const result = yield* client.result("tools/call", { name: "weather", arguments: { city: "Oslo" } })
        assert.isFalse("structuredContent" in result)
        assert.deepStrictEqual(JSON.parse(result.content[0].text), {
          city: "Oslo",
          celsius: 21.5,
          at: "2025-01-02T03:04:05.000Z"
        })
        assert.isUndefined(validate(revision, "CallToolResult", result))
      }))
  }

  it.scoped("invalid arguments at 2025-11-25: an isError result the model can read", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: all })
      yield* client.initialize("2025-11-25")
      const result = yield* client.result("tools/call", { name: "echo", arguments: { text: 5 } })
      assert.isTrue(result.isError)
      assert.strictEqual(result.content[0].type, "text")
      assert.include(result.content[0].text, "echo")
      assert.include(result.content[0].text, "text")
      assert.isUndefined(validate("2025-11-25", "CallToolResult", result))
      const missing = yield* client.result("tools/call", { name: "echo" })
      assert.isTrue(missing.isError)
    }))

  for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18"] as const) {
    it.scoped(`invalid arguments at ${revision}: -32602`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: all })
        yield* client.initialize(revision)
        const error = yield* client.error("tools/call", { name: "echo", arguments: { text: 5 } })
        assert.strictEqual(error.code, -32602)
        assert.include(error.message, "echo")
        assert.strictEqual((yield* client.error("tools/call", { name: "echo", arguments: {} })).code, -32602)
      }))
  }

  for (const revision of handshakeRevisions) {
    it.scoped(`unknown tool at ${revision}: -32602`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: all })
        yield* client.initialize(revision)
        const error = yield* client.error("tools/call", { name: "nope", arguments: {} })
        assert.strictEqual(error.code, -32602)
        assert.include(error.message, "nope")
      }))
  }

  it.scoped("a typed failure with a failure schema: isError with the encoded failure", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: all })
      yield* client.initialize("2025-06-18")
      const result = yield* client.result("tools/call", { name: "guarded", arguments: { allow: false } })
      assert.isTrue(result.isError)
      assert.strictEqual(result.content.length, 1)
      assert.deepStrictEqual(JSON.parse(result.content[0].text), {
        _tag: "Refused",
        reason: "not today",
        retryable: false
      })
      assert.isUndefined(validate("2025-06-18", "CallToolResult", result))
      const ok = yield* client.result("tools/call", { name: "guarded", arguments: { allow: true } })
      assert.deepStrictEqual(ok, { content: [{ type: "text", text: "allowed" }] })
    }))

  it.scoped("a wire error from the handler is that error", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: all })
      yield* client.initialize("2025-11-25")
      const error = yield* client.error("tools/call", { name: "picky" })
      assert.deepStrictEqual([error.code, error.message], [-32602, "picky says no"])
    }))

  it.scoped("a handler that dies: -32603 without the defect's text, and the next request is served", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: all })
      yield* client.initialize("2025-11-25")
      const error = yield* client.error("tools/call", { name: "boom" })
      assert.strictEqual(error.code, -32603)
      assert.notInclude(error.message, "a bug in the tool")
      const next = yield* client.result("tools/call", { name: "echo", arguments: { text: "alive" } })
      assert.deepStrictEqual(next.content, [{ type: "text", text: "alive" }])
    }))

  it.scoped("a result that does not fit the success schema: -32603", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: all })
      yield* client.initialize("2025-11-25")
      assert.strictEqual((yield* client.error("tools/call", { name: "liar" })).code, -32603)
      yield* client.quiet
    }))

  it.scoped("raw content the protocol cannot carry: -32603, for blocks and for whole results", () =>
    Effect.gen(function*() {
      const badBlocks = Tool.make("bad-blocks", {}, () => Effect.succeed([{ type: "nope" }] as any))
      const badResult = Tool.make(
        "bad-result",
        {},
        () => Effect.succeed({ content: [{ type: "text", text: 1 }] } as any)
      )
      const client = yield* connect({ serverInfo, tools: [badBlocks, badResult] })
      yield* client.initialize("2025-11-25")
      assert.strictEqual((yield* client.error("tools/call", { name: "bad-blocks" })).code, -32603)
      assert.strictEqual((yield* client.error("tools/call", { name: "bad-result" })).code, -32603)
      yield* client.quiet
    }))

  it.scoped("content blocks a revision cannot carry are rendered as text", () =>
    Effect.gen(function*() {
      const types: Record<string, ReadonlyArray<string>> = {}
      for (const revision of handshakeRevisions) {
        const client = yield* connect({ serverInfo, tools: all })
        yield* client.initialize(revision)
        const result = yield* client.result("tools/call", { name: "media" })
        assert.isUndefined(validate(revision, "CallToolResult", result), revision)
        types[revision] = result.content.map((c: any) => c.type)
        if (revision === "2024-11-05") {
          assert.deepStrictEqual(result.content[2], { type: "text", text: "[audio: audio/wav]" })
        }
        if (revision === "2025-03-26") {
          assert.deepStrictEqual(result.content[2], { type: "audio", data: "YXVkaW8=", mimeType: "audio/wav" })
          assert.deepStrictEqual(result.content[3], { type: "text", text: "test://linked" })
        }
      }
      assert.deepStrictEqual(types, {
        "2024-11-05": ["text", "image", "text", "text", "resource"],
        "2025-03-26": ["text", "image", "audio", "text", "resource"],
        "2025-06-18": ["text", "image", "audio", "resource_link", "resource"],
        "2025-11-25": ["text", "image", "audio", "resource_link", "resource"]
      })
    }))

  it.scoped("the handler reads its request: id, revision, client info and capabilities", () =>
    Effect.gen(function*() {
      const Who = Tool.make("who", {}, () =>
        Effect.map(McpRequest.McpRequest, (request) =>
          JSON.stringify({
            id: request.id,
            method: request.method,
            revision: request.revision,
            era: request.era,
            client: request.clientInfo._tag === "Some" ? request.clientInfo.value.name : null,
            roots: request.clientCapabilities.roots ?? null
          })))
      const client = yield* connect({ serverInfo, tools: [Who] })
      yield* client.initialize("2025-03-26", { roots: { listChanged: true } })
      yield* client.send({ jsonrpc: "2.0", id: "who-1", method: "tools/call", params: { name: "who" } })
      const response = yield* client.next
      assert.strictEqual(response.id, "who-1")
      assert.deepStrictEqual(JSON.parse(response.result.content[0].text), {
        id: "who-1",
        method: "tools/call",
        revision: "2025-03-26",
        era: "handshake",
        client: "test-client",
        roots: { listChanged: true }
      })
    }))
})

const Chatty = Tool.make("chatty", {}, () =>
  Effect.gen(function*() {
    yield* McpRequest.log("debug", "d", "chatty")
    yield* McpRequest.log("info", { step: 1 }, "chatty")
    yield* McpRequest.log("warning", "w", "chatty")
    yield* McpRequest.log("error", ["e"])
    return "done"
  }))

describe("Tools: logging", () => {
  it.scoped("before logging/setLevel every level is sent; after it only levels at or above it", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Chatty] })
      yield* client.initialize("2025-06-18")
      const before = yield* client.exchange("tools/call", { name: "chatty" })
      assert.deepStrictEqual(before.before, [
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "debug", data: "d", logger: "chatty" } },
        {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", data: { step: 1 }, logger: "chatty" }
        },
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", data: "w", logger: "chatty" } },
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "error", data: ["e"] } }
      ])
      assert.deepStrictEqual(yield* client.result("logging/setLevel", { level: "warning" }), {})
      const after = yield* client.exchange("tools/call", { name: "chatty" })
      assert.deepStrictEqual(after.before.map((m) => m.params.level), ["warning", "error"])
      assert.deepStrictEqual(after.response.result.content, [{ type: "text", text: "done" }])
      yield* client.result("logging/setLevel", { level: "emergency" })
      assert.deepStrictEqual((yield* client.exchange("tools/call", { name: "chatty" })).before, [])
      yield* client.result("logging/setLevel", { level: "debug" })
      assert.strictEqual((yield* client.exchange("tools/call", { name: "chatty" })).before.length, 4)
    }))

  it.scoped("every logging notification validates against the official schema", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Chatty] })
      yield* client.initialize("2024-11-05")
      const { before } = yield* client.exchange("tools/call", { name: "chatty" })
      assert.strictEqual(before.length, 4)
      for (const message of before) {
        assert.isUndefined(validate("2024-11-05", "LoggingMessageNotification", message))
      }
    }))
})

const Progressive = Tool.make("progressive", {}, () =>
  Effect.gen(function*() {
    yield* McpRequest.progress(1, 2, "half way")
    yield* McpRequest.progress(2, 2)
    return "done"
  }))

describe("Tools: progress", () => {
  it.scoped("sent with the request's progressToken", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Progressive] })
      yield* client.initialize("2025-06-18")
      const { before, response } = yield* client.exchange("tools/call", {
        name: "progressive",
        _meta: { progressToken: "tok-1" }
      })
      assert.deepStrictEqual(before, [
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "tok-1", progress: 1, total: 2, message: "half way" }
        },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok-1", progress: 2, total: 2 } }
      ])
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "done" }])
      for (const message of before) assert.isUndefined(validate("2025-06-18", "ProgressNotification", message))
    }))

  it.scoped("a numeric token (0) is kept; 2024-11-05 has no message", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Progressive] })
      yield* client.initialize("2024-11-05")
      const { before } = yield* client.exchange("tools/call", { name: "progressive", _meta: { progressToken: 0 } })
      assert.deepStrictEqual(before.map((m) => m.params), [
        { progressToken: 0, progress: 1, total: 2 },
        { progressToken: 0, progress: 2, total: 2 }
      ])
      for (const message of before) assert.isUndefined(validate("2024-11-05", "ProgressNotification", message))
    }))

  it.scoped("none when the request had no token", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Progressive] })
      yield* client.initialize("2025-11-25")
      const response = yield* client.call("tools/call", { name: "progressive" })
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "done" }])
    }))
})

describe("Tools: cancellation", () => {
  it.scoped("notifications/cancelled interrupts a running tool; nothing is sent for it", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const Hang = Tool.make("hang", {}, () =>
        Deferred.succeed(started, undefined).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
          Effect.as("never")
        ))
      const client = yield* connect({ serverInfo, tools: [Hang, Echo] })
      yield* client.initialize("2025-11-25")
      yield* client.send({ jsonrpc: "2.0", id: "long", method: "tools/call", params: { name: "hang" } })
      yield* Deferred.await(started)
      yield* client.notify("notifications/cancelled", { requestId: "long", reason: "user gave up" })
      yield* Deferred.await(interrupted)
      // The next message on the wire answers the next request: nothing for "long".
      const next = yield* client.call("tools/call", { name: "echo", arguments: { text: "after" } })
      assert.deepStrictEqual(next.result.content, [{ type: "text", text: "after" }])
      yield* client.quiet
    }))

  it.scoped("cancelling another id leaves the tool running", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const Gate = Tool.make("gate", {}, () =>
        Deferred.succeed(started, undefined).pipe(Effect.zipRight(Deferred.await(release)), Effect.as("released")))
      const client = yield* connect({ serverInfo, tools: [Gate] })
      yield* client.initialize("2025-06-18")
      yield* client.send({ jsonrpc: "2.0", id: 41, method: "tools/call", params: { name: "gate" } })
      yield* Deferred.await(started)
      yield* client.notify("notifications/cancelled", { requestId: 42 })
      yield* client.notify("notifications/cancelled", { requestId: "41" })
      yield* client.quiet
      yield* Deferred.succeed(release, undefined)
      const response = yield* client.next
      assert.strictEqual(response.id, 41)
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "released" }])
    }))
})

describe("Tools: names", () => {
  it("a name outside the 2025-11-25 rule is refused when the tool is defined", () => {
    for (const name of ["", "with space", "a/b", "x".repeat(129), "ünï"]) {
      assert.throws(() => Tool.make(name, {}, () => Effect.succeed("x")), /Invalid tool name/)
    }
    for (const name of ["get_weather", "a.b-c", "x".repeat(128)]) {
      assert.strictEqual(Tool.make(name, {}, () => Effect.succeed("x")).name, name)
    }
  })
})
