/**
 * The stateless revision (2026-07-28) at the wire: the validation ladder, the result envelope,
 * `server/discover`, logging and progress per request, and dual-era serving on one connection.
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as McpRequest from "../src/McpRequest.js"
import * as Prompt from "../src/Prompt.js"
import * as Resource from "../src/Resource.js"
import * as Tool from "../src/Tool.js"
import { clientInfo, connect, meta } from "./utils/TestClient.js"

const serverInfo = { name: "stateless-test", version: "1.0.0" }

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const Chatty = Tool.make("chatty", {}, () =>
  Effect.gen(function*() {
    yield* McpRequest.progress(1, 2, "half")
    yield* McpRequest.log("debug", "a debug line")
    yield* McpRequest.log("warning", "a warning")
    yield* McpRequest.progress(2, 2)
    return "said"
  }))

const Doc = Resource.make("test://doc", { name: "doc", mimeType: "text/plain" }, Effect.succeed("the doc"))
const Hello = Prompt.make("hello", {}, () => Effect.succeed("hello"))

const statelessOnly = {
  serverInfo,
  tools: [Add, Chatty],
  resources: [Doc],
  prompts: [Hello],
  revisions: ["2026-07-28"]
} as const
const dual = {
  ...statelessOnly,
  revisions: ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
} as const

describe("Stateless: the validation ladder, every error with the request's id", () => {
  it.scoped("missing _meta or its required fields: -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect(statelessOnly)
      for (
        const params of [
          {},
          { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
          { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }
        ]
      ) {
        const response = yield* client.call("tools/list", params)
        assert.isNumber(response.id)
        assert.strictEqual(response.error.code, -32602, JSON.stringify(params))
      }
    }))

  it.scoped("an unsupported version: -32022 with supported and requested", () =>
    Effect.gen(function*() {
      const client = yield* connect(statelessOnly)
      const response = yield* client.call("tools/list", {
        _meta: meta({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" })
      })
      assert.strictEqual(response.error.code, -32022)
      assert.deepStrictEqual(response.error.data, { supported: ["2026-07-28"], requested: "2099-01-01" })
      assert.isUndefined(validate("2026-07-28", "UnsupportedProtocolVersionError", response))
    }))

  it.scoped("initialize in the stateless era's own shape is a method it does not have: -32601", () =>
    Effect.gen(function*() {
      for (const options of [statelessOnly, dual]) {
        const client = yield* connect(options)
        const error = yield* client.error("initialize", {
          protocolVersion: "2026-07-28",
          capabilities: {},
          clientInfo,
          _meta: meta()
        })
        assert.strictEqual(error.code, -32601)
      }
    }))

  it.scoped("on a dual connection, server/discover and subscriptions/listen without _meta are -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      for (const params of [undefined, {}, { _meta: {} }]) {
        assert.strictEqual((yield* client.error("server/discover", params)).code, -32602, JSON.stringify(params))
      }
      assert.strictEqual((yield* client.error("subscriptions/listen", {})).code, -32602)
    }))

  it.scoped("an unknown method: -32601; an unknown log level: -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect(statelessOnly)
      assert.strictEqual((yield* client.error("no/such", { _meta: meta() })).code, -32601)
      // ping and logging/setLevel are not 2026-07-28 methods.
      assert.strictEqual((yield* client.error("ping", { _meta: meta() })).code, -32601)
      assert.strictEqual(
        (yield* client.error("tools/list", { _meta: meta({ "io.modelcontextprotocol/logLevel": "loud" }) })).code,
        -32602
      )
    }))

  it.scoped("a handshake client reaching a stateless-only server is told what would work (-32022)", () =>
    Effect.gen(function*() {
      const client = yield* connect(statelessOnly)
      const error = yield* client.error("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo
      })
      assert.strictEqual(error.code, -32022)
      assert.deepStrictEqual(error.data, { supported: ["2026-07-28"], requested: "2025-11-25" })
    }))
})

describe("Stateless: results", () => {
  it.scoped("server/discover: the versions served, capabilities from the registry, serverInfo, cache hints", () =>
    Effect.gen(function*() {
      const client = yield* connect({ ...statelessOnly, instructions: "be kind" })
      const result = yield* client.result("server/discover", { _meta: meta() })
      assert.deepStrictEqual(result.supportedVersions, ["2026-07-28"])
      assert.deepStrictEqual(Object.keys(result.capabilities).sort(), ["logging", "prompts", "resources", "tools"])
      assert.strictEqual(result.instructions, "be kind")
      assert.strictEqual(result.resultType, "complete")
      assert.deepStrictEqual(result._meta["io.modelcontextprotocol/serverInfo"], serverInfo)
      assert.deepStrictEqual([result.ttlMs, result.cacheScope], [0, "public"])
      assert.isUndefined(validate("2026-07-28", "DiscoverResult", result))
    }))

  it.scoped("dual: discover lists all five revisions", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const result = yield* client.result("server/discover", { _meta: meta() })
      assert.deepStrictEqual(result.supportedVersions, dual.revisions)
    }))

  it.scoped("every result has resultType and serverInfo; the six cacheable ones ttlMs and cacheScope from the policy", () =>
    Effect.gen(function*() {
      const client = yield* connect({
        ...statelessOnly,
        cachePolicy: {
          "tools/list": { ttlMs: 60_000, cacheScope: "public" },
          "resources/read": { ttlMs: 5, cacheScope: "private" }
        }
      })
      const tools = yield* client.result("tools/list", { _meta: meta() })
      assert.deepStrictEqual([tools.resultType, tools.ttlMs, tools.cacheScope], ["complete", 60_000, "public"])
      assert.deepStrictEqual(tools.tools.map((t: any) => t.name), ["add", "chatty"])
      assert.isUndefined(validate("2026-07-28", "ListToolsResult", tools))
      const read = yield* client.result("resources/read", { uri: "test://doc", _meta: meta() })
      assert.deepStrictEqual([read.ttlMs, read.cacheScope], [5, "private"])
      assert.isUndefined(validate("2026-07-28", "ReadResourceResult", read))
      for (
        const [method, params, definition] of [
          ["prompts/list", {}, "ListPromptsResult"],
          ["resources/list", {}, "ListResourcesResult"],
          ["resources/templates/list", {}, "ListResourceTemplatesResult"]
        ] as const
      ) {
        const result = yield* client.result(method, { ...params, _meta: meta() })
        assert.deepStrictEqual([result.resultType, result.ttlMs, result.cacheScope], ["complete", 0, "public"], method)
        assert.isUndefined(validate("2026-07-28", definition, result), method)
      }
      const call = yield* client.result("tools/call", { name: "add", arguments: { a: 1, b: 2 }, _meta: meta() })
      assert.deepStrictEqual(call.structuredContent, { sum: 3 })
      assert.strictEqual(call.resultType, "complete")
      assert.isUndefined(call.ttlMs)
      assert.deepStrictEqual(call._meta["io.modelcontextprotocol/serverInfo"], serverInfo)
      assert.isUndefined(validate("2026-07-28", "CallToolResult", call))
      const prompt = yield* client.result("prompts/get", { name: "hello", _meta: meta() })
      assert.strictEqual(prompt.resultType, "complete")
      assert.isUndefined(validate("2026-07-28", "GetPromptResult", prompt))
    }))

  it.scoped("resource not found is -32602 in 2026-07-28", () =>
    Effect.gen(function*() {
      const client = yield* connect(statelessOnly)
      const error = yield* client.error("resources/read", { uri: "test://none", _meta: meta() })
      assert.strictEqual(error.code, -32602)
    }))

  it.scoped("logs only for a request that asked, at or above its level; progress on its own channel", () =>
    Effect.gen(function*() {
      const client = yield* connect(statelessOnly)
      const quiet = yield* client.exchange("tools/call", { name: "chatty", _meta: meta() })
      assert.deepStrictEqual(quiet.before, [])
      const asked = yield* client.exchange("tools/call", {
        name: "chatty",
        _meta: meta({ "io.modelcontextprotocol/logLevel": "info", progressToken: "p" })
      })
      assert.deepStrictEqual(asked.before.map((m) => m.method), [
        "notifications/progress",
        "notifications/message",
        "notifications/progress"
      ])
      assert.deepStrictEqual(asked.before[1].params, { level: "warning", data: "a warning" })
      assert.deepStrictEqual(asked.before[0].params, { progressToken: "p", progress: 1, total: 2, message: "half" })
      for (const notification of asked.before) {
        const name = notification.method === "notifications/progress"
          ? "ProgressNotification"
          : "LoggingMessageNotification"
        assert.isUndefined(validate("2026-07-28", name, notification))
      }
    }))

  it.scoped("two requests at once may declare different capabilities: nothing is kept between them", () =>
    Effect.gen(function*() {
      const client = yield* connect(statelessOnly)
      const first = yield* client.result("tools/list", { _meta: meta({}, { elicitation: {} }) })
      const second = yield* client.result("tools/list", { _meta: meta({}, {}) })
      assert.deepStrictEqual(first.tools, second.tools)
    }))
})

describe("Dual era on one connection", () => {
  it.scoped("a handshake session and stateless requests coexist; neither disturbs the other", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      // Stateless first: no session is begun by it.
      const modern = yield* client.result("tools/call", { name: "add", arguments: { a: 2, b: 2 }, _meta: meta() })
      assert.strictEqual(modern.resultType, "complete")
      const init = yield* client.initialize("2025-11-25")
      assert.strictEqual(init.protocolVersion, "2025-11-25")
      const legacy = yield* client.result("tools/call", { name: "add", arguments: { a: 1, b: 1 } })
      assert.isUndefined(legacy.resultType)
      assert.deepStrictEqual(legacy.structuredContent, { sum: 2 })
      // Stateless again, after the handshake: still stateless, the session untouched.
      const again = yield* client.result("tools/list", { _meta: meta() })
      assert.strictEqual(again.resultType, "complete")
      assert.deepStrictEqual(yield* client.result("ping"), {})
      // A version the server does not serve, in _meta: the stateless ladder answers.
      const error = yield* client.error("tools/list", {
        _meta: meta({ "io.modelcontextprotocol/protocolVersion": "2025-11-25" })
      })
      assert.strictEqual(error.code, -32022)
      assert.deepStrictEqual(error.data.supported, ["2026-07-28"])
    }))
})
