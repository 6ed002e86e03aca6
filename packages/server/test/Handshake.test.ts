import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Prompt from "../src/Prompt.js"
import * as Resource from "../src/Resource.js"
import * as Tool from "../src/Tool.js"
import { connect, handshakeRevisions } from "./utils/TestClient.js"

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(text)
)

const Plain = Prompt.make("plain", {}, () => Effect.succeed("hello"))

const Completed = Prompt.make("completed", {
  arguments: Schema.Struct({ language: Schema.String }),
  complete: { language: (value) => Effect.succeed(["go", "rust"].filter((l) => l.startsWith(value))) }
}, ({ language }) => Effect.succeed(`write ${language}`))

const serverInfo = {
  name: "handshake-server",
  version: "1.2.3",
  title: "Handshake Server",
  description: "A server for handshake tests",
  websiteUrl: "https://example.com",
  icons: [{ src: "https://example.com/icon.png", mimeType: "image/png" }]
}

describe("Handshake: version negotiation", () => {
  for (const revision of handshakeRevisions) {
    it.scoped(`echoes ${revision}`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: [Echo] })
        const result = yield* client.initializeOnly(revision)
        assert.strictEqual(result.protocolVersion, revision)
        assert.isUndefined(validate(revision, "InitializeResult", result))
      }))
  }

  it.scoped("an unknown version gets 2025-11-25", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      const result = yield* client.initializeOnly("2099-01-01")
      assert.strictEqual(result.protocolVersion, "2025-11-25")
    }))

  it.scoped("the stateless revision is not negotiated by initialize: 2025-11-25", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      assert.strictEqual((yield* client.initializeOnly("2026-07-28")).protocolVersion, "2025-11-25")
    }))

  it.scoped("offers only the configured revisions: an unknown version gets the newest of them", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo], revisions: ["2024-11-05", "2025-03-26"] })
      assert.strictEqual((yield* client.initializeOnly("2025-11-25")).protocolVersion, "2025-03-26")
    }))

  it.scoped("a session negotiates its own version", () =>
    Effect.gen(function*() {
      const a = yield* connect({ serverInfo, tools: [Echo] })
      assert.strictEqual((yield* a.initializeOnly("2024-11-05")).protocolVersion, "2024-11-05")
      const b = yield* connect({ serverInfo, tools: [Echo] })
      assert.strictEqual((yield* b.initializeOnly("2025-06-18")).protocolVersion, "2025-06-18")
    }))
})

describe("Handshake: capabilities from the registry", () => {
  it.scoped("tools only: tools and logging, no prompts, resources or completions", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      const { capabilities } = yield* client.initializeOnly("2025-11-25")
      assert.deepStrictEqual(capabilities, { logging: {}, tools: { listChanged: true } })
    }))

  it.scoped("prompts without completions: no completions capability", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts: [Plain] })
      const { capabilities } = yield* client.initializeOnly("2025-11-25")
      assert.deepStrictEqual(capabilities, { logging: {}, prompts: { listChanged: true } })
    }))

  it.scoped("resources: subscribe and listChanged", () =>
    Effect.gen(function*() {
      const client = yield* connect({
        serverInfo,
        resources: [Resource.make("test://a", {}, Effect.succeed("a"))]
      })
      const { capabilities } = yield* client.initializeOnly("2025-11-25")
      assert.deepStrictEqual(capabilities, { logging: {}, resources: { subscribe: true, listChanged: true } })
    }))

  for (const revision of handshakeRevisions) {
    const expected = revision !== "2024-11-05"
    it.scoped(`completions registered at ${revision}: completions ${expected ? "declared" : "absent"}`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, prompts: [Plain, Completed] })
        const { capabilities } = yield* client.initializeOnly(revision)
        assert.strictEqual("completions" in capabilities, expected)
        assert.deepStrictEqual(capabilities.prompts, { listChanged: true })
        assert.isUndefined(capabilities.tools)
      }))
  }

  it.scoped("template completions also declare completions", () =>
    Effect.gen(function*() {
      const client = yield* connect({
        serverInfo,
        resources: [
          Resource.template("test://t/{id}", {
            name: "t",
            complete: { id: () => Effect.succeed(["1"]) }
          }, () => Effect.succeed("t"))
        ]
      })
      const { capabilities } = yield* client.initializeOnly("2025-06-18")
      assert.deepStrictEqual(capabilities.completions, {})
    }))

  it.scoped("an empty server declares what the capabilities option asks for", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, capabilities: { tools: true, prompts: true } })
      const { capabilities } = yield* client.initializeOnly("2025-11-25")
      assert.deepStrictEqual(capabilities, {
        logging: {},
        prompts: { listChanged: true },
        tools: { listChanged: true }
      })
    }))
})

describe("Handshake: serverInfo and instructions", () => {
  it.scoped("2024-11-05 and 2025-03-26: name and version only", () =>
    Effect.gen(function*() {
      for (const revision of ["2024-11-05", "2025-03-26"] as const) {
        const client = yield* connect({ serverInfo, tools: [Echo] })
        const result = yield* client.initializeOnly(revision)
        assert.deepStrictEqual(result.serverInfo, { name: "handshake-server", version: "1.2.3" })
      }
    }))

  it.scoped("2025-06-18: title, no icons, description or websiteUrl", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      const result = yield* client.initializeOnly("2025-06-18")
      assert.deepStrictEqual(result.serverInfo, {
        name: "handshake-server",
        version: "1.2.3",
        title: "Handshake Server"
      })
    }))

  it.scoped("2025-11-25: everything", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      const result = yield* client.initializeOnly("2025-11-25")
      assert.deepStrictEqual(result.serverInfo, serverInfo)
      assert.isUndefined(validate("2025-11-25", "InitializeResult", result))
    }))

  it.scoped("instructions when configured, none otherwise", () =>
    Effect.gen(function*() {
      const withInstructions = yield* connect({ serverInfo, tools: [Echo], instructions: "Use echo to echo." })
      assert.strictEqual((yield* withInstructions.initializeOnly("2024-11-05")).instructions, "Use echo to echo.")
      const without = yield* connect({ serverInfo, tools: [Echo] })
      assert.isFalse("instructions" in (yield* without.initializeOnly("2024-11-05")))
    }))
})

describe("Handshake: phases", () => {
  it.scoped("before initialize: ping is served, tools/list is -32600 (not initialized) with its id", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      assert.deepStrictEqual(yield* client.call("ping"), { jsonrpc: "2.0", id: 1, result: {} })
      const response = yield* client.call("tools/list")
      assert.strictEqual(response.id, 2)
      assert.deepStrictEqual(response.error, {
        code: -32600,
        message: "Session not initialized: send initialize before tools/list"
      })
    }))

  for (const revision of handshakeRevisions) {
    it.scoped(`${revision}: a request before initialize, or before initialized, says so (-32600) with its id`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: [Echo], revisions: [revision] })
        const params = { name: "echo", arguments: { text: "x" } }
        yield* client.send({ jsonrpc: "2.0", id: "early", method: "tools/call", params })
        assert.deepStrictEqual(yield* client.next, {
          jsonrpc: "2.0",
          id: "early",
          error: { code: -32600, message: "Session not initialized: send initialize before tools/call" }
        })
        // A name no revision has is still an unknown method.
        assert.deepStrictEqual(yield* client.error("no/such/method"), {
          code: -32601,
          message: "Method not found: no/such/method"
        })
        yield* client.initializeOnly(revision)
        yield* client.quiet
        for (const method of ["tools/list", "tools/call", "logging/setLevel"]) {
          const response = yield* client.call(method, { ...params, level: "info" })
          assert.isNumber(response.id)
          assert.deepStrictEqual(response.error, {
            code: -32600,
            message: `Session not initialized: send notifications/initialized before ${method}`
          }, method)
        }
        yield* client.notify("notifications/initialized")
        assert.deepStrictEqual((yield* client.result("tools/call", params)).content, [{ type: "text", text: "x" }])
      }))
  }

  it.scoped("a second initialize is -32600, before and after notifications/initialized", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      yield* client.initializeOnly("2025-06-18")
      const again = yield* client.error("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "c", version: "1" }
      })
      assert.strictEqual(again.code, -32600)
      yield* client.notify("notifications/initialized")
      const afterReady = yield* client.error("initialize", {
        protocolVersion: "2024-11-05",
        capabilities: {},
        clientInfo: { name: "c", version: "1" }
      })
      assert.strictEqual(afterReady.code, -32600)
      // The session keeps its negotiated version.
      const call = yield* client.result("tools/call", { name: "echo", arguments: { text: "still here" } })
      assert.deepStrictEqual(call.content, [{ type: "text", text: "still here" }])
    }))

  it.scoped("after notifications/initialized: the methods of the negotiated revision", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      yield* client.initialize("2025-06-18")
      assert.strictEqual((yield* client.result("tools/list")).tools.length, 1)
      assert.deepStrictEqual(yield* client.result("logging/setLevel", { level: "info" }), {})
      assert.deepStrictEqual(yield* client.result("ping"), {})
    }))

  it.scoped("methods of other revisions, or without a capability, are -32601", () =>
    Effect.gen(function*() {
      // The handshake era only (a dual server, the default, serves server/discover statelessly).
      const client = yield* connect({ serverInfo, tools: [Echo], revisions: handshakeRevisions })
      yield* client.initialize("2025-06-18")
      assert.strictEqual((yield* client.error("tasks/list")).code, -32601)
      assert.strictEqual((yield* client.error("server/discover", {})).code, -32601)
      // No prompts registered: no prompts capability, no prompts methods.
      assert.strictEqual((yield* client.error("prompts/list")).code, -32601)
      assert.strictEqual((yield* client.error("resources/list")).code, -32601)
      assert.strictEqual(
        (yield* client.error("completion/complete", {
          ref: { type: "ref/prompt", name: "x" },
          argument: { name: "a", value: "" }
        })).code,
        -32601
      )
      // Methods only the server sends.
      assert.strictEqual((yield* client.error("roots/list")).code, -32601)
      assert.strictEqual((yield* client.error("no/such/method")).code, -32601)
    }))

  it.scoped("invalid params of a served method: -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      yield* client.initialize("2025-11-25")
      assert.strictEqual((yield* client.error("logging/setLevel", { level: "loud" })).code, -32602)
      assert.strictEqual((yield* client.error("tools/call", { arguments: {} })).code, -32602)
    }))
})

describe("Handshake: batches", () => {
  it.scoped("2025-03-26 after initialization: one array response", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      yield* client.initialize("2025-03-26")
      yield* client.send([
        { jsonrpc: "2.0", id: "a", method: "ping" },
        { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "echo", arguments: { text: "batched" } } },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "nobody" } },
        { jsonrpc: "2.0", id: "c", method: "tasks/list" }
      ])
      const responses = yield* client.next
      assert.isArray(responses)
      assert.strictEqual(responses.length, 3)
      const byId = new Map<unknown, any>(responses.map((r: any) => [r.id, r]))
      assert.deepStrictEqual(byId.get("a").result, {})
      assert.deepStrictEqual(byId.get("b").result, { content: [{ type: "text", text: "batched" }] })
      assert.strictEqual(byId.get("c").error.code, -32601)
      yield* client.quiet
    }))

  it.scoped("2025-03-26 before initialization: -32600 (initialize must not be batched)", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo] })
      yield* client.send([{
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "c", version: "1" } }
      }])
      const response = yield* client.next
      assert.isFalse(Array.isArray(response))
      assert.deepStrictEqual([response.id, response.error.code], [null, -32600])
    }))

  for (const revision of ["2024-11-05", "2025-06-18", "2025-11-25"] as const) {
    it.scoped(`${revision}: rejected with -32600`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: [Echo] })
        yield* client.initialize(revision)
        yield* client.send([{ jsonrpc: "2.0", id: 1, method: "ping" }])
        const response = yield* client.next
        assert.isFalse(Array.isArray(response))
        assert.deepStrictEqual([response.id, response.error.code], [null, -32600])
        yield* client.quiet
      }))
  }
})
