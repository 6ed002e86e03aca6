/**
 * `McpClient.request`, typed by the catalog: a method's params and result in every revision, a
 * method of the other era refused locally (`EraMismatch`, nothing sent), and what a server sends
 * that is not JSON-RPC logged and dropped, never answered.
 */
import { ClientError, McpClient, McpClientTransport } from "@effect-mcp/client"
import { MemoryTransport } from "@effect-mcp/core"
import { McpServer, Tool } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

// Both eras on one server.
const server = McpServer.layer({
  serverInfo: { name: "adder", version: "1.0.0" },
  tools: [Add],
  revisions: ["2025-11-25", "2026-07-28"]
})

const clientLayer = (era: "handshake" | "stateless") =>
  McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" }, era }).pipe(
    Layer.provide(McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(server))))
  )

describe("McpClient.request", () => {
  for (const era of ["handshake", "stateless"] as const) {
    it.effect(`tools/call typed by the catalog: its content and structured value (${era})`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const result = yield* client.request("tools/call", { name: "add", arguments: { a: 2, b: 3 } })
        // `content` is typed: the content block union of every revision.
        const first = result.content[0]
        assert.strictEqual(first?.type === "text" ? JSON.parse(first.text).sum : undefined, 5)
        assert.deepStrictEqual(result.structuredContent, { sum: 5 })
        const listed = yield* client.request("tools/list", {})
        assert.deepStrictEqual(listed.tools.map((tool) => tool.name), ["add"])
        if (false as boolean) {
          // @ts-expect-error a misspelt field is a compile error
          yield* client.request("tools/call", { nme: "add" })
          // @ts-expect-error a method the catalog does not have is a compile error
          yield* client.request("tools/calls", { name: "add" })
          // @ts-expect-error initialize is the client's own
          yield* client.request("initialize", {})
        }
      }).pipe(Effect.provide(clientLayer(era))))
  }

  it.effect("server/discover of a handshake session: EraMismatch, nothing sent", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const viaRequest = yield* Effect.flip(client.request("server/discover", {}))
      const viaDiscover = yield* Effect.flip(client.discover)
      for (const error of [viaRequest, viaDiscover]) {
        assert.instanceOf(error, ClientError.EraMismatch)
        assert.strictEqual(
          error.message,
          "server/discover is a method of the stateless era (2026-07-28); this client speaks the handshake era with the server"
        )
      }
    }).pipe(Effect.provide(clientLayer("handshake"))))

  it.effect("logging/setLevel of a stateless server: EraMismatch, nothing sent", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.setLogLevel("debug"))
      assert.deepStrictEqual(error, new ClientError.EraMismatch({ method: "logging/setLevel", era: "stateless" }))
      assert.include(error.message, "logging/setLevel is a method of the handshake era")
    }).pipe(Effect.provide(clientLayer("stateless"))))

  it.effect("requestUnknown sends a method outside the catalog as given", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.requestUnknown("x-vendor/echo", { a: 1 }))
      assert.strictEqual(error._tag, "MethodNotFound")
    }).pipe(Effect.provide(clientLayer("handshake"))))
})

const initializeAnswer = (id: unknown) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "raw", version: "1.0.0" } }
  })

describe("what a server sends that is not JSON-RPC", () => {
  it.scoped("is dropped, never answered: the client's next frame is its answer to the server's ping", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      const connecting = yield* Effect.fork(
        Effect.provide(
          McpClient.McpClient,
          McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" }, era: "handshake" }).pipe(
            Layer.provide(McpClientTransport.layerProtocol(protocol))
          )
        )
      )
      const initialize = JSON.parse(yield* remote.read)
      assert.strictEqual(initialize.method, "initialize")
      // Garbage of every kind a hostile server may send: none of it is answered.
      yield* remote.write("this is not JSON")
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0" }))
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: 7, method: 12 }))
      yield* remote.write(JSON.stringify([{ jsonrpc: "2.0", id: 8 }]))
      yield* remote.write(JSON.stringify({
        jsonrpc: "2.0",
        id: initialize.id,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          serverInfo: { name: "hostile", version: "1.0.0" }
        }
      }))
      assert.strictEqual(JSON.parse(yield* remote.read).method, "notifications/initialized")
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: "p", method: "ping" }))
      assert.deepStrictEqual(JSON.parse(yield* remote.read), { jsonrpc: "2.0", id: "p", result: {} })
      yield* Fiber.interrupt(connecting)
    }))
})

describe("a stateless server's JSON-RPC requests", () => {
  it.scoped("are never answered: the stateless era asks in input_required results only", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      // Built in the test's scope: the client lives until the test ends.
      const connecting = yield* Effect.fork(
        Effect.map(
          Layer.build(
            McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" }, era: "stateless" }).pipe(
              Layer.provide(McpClientTransport.layerProtocol(protocol))
            )
          ),
          (context) => Context.get(context, McpClient.McpClient)
        )
      )
      const discover = JSON.parse(yield* remote.read)
      assert.strictEqual(discover.method, "server/discover")
      yield* remote.write(JSON.stringify({
        jsonrpc: "2.0",
        id: discover.id,
        result: {
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "public",
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {} },
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "raw", version: "1.0.0" } }
        }
      }))
      const client = yield* Fiber.join(connecting)
      assert.strictEqual(client.era, "stateless")
      // A ping and a sampling request, as a session's server would send: dropped.
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: "p", method: "ping" }))
      yield* remote.write(JSON.stringify({
        jsonrpc: "2.0",
        id: "s",
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 1 }
      }))
      // The next frame from the client is its own request, not an answer to those.
      const listing = yield* Effect.fork(client.listTools)
      const next = JSON.parse(yield* remote.read)
      assert.strictEqual(next.method, "tools/list")
      yield* Fiber.interrupt(listing)
    }))
})

describe("a session's asks the client did not declare", () => {
  it.scoped("sampling with tools, declared without sampling.tools: refused, the handler never called", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      let called = 0
      const connecting = yield* Effect.fork(
        Effect.provide(
          McpClient.McpClient,
          McpClient.layer({
            clientInfo: { name: "test", version: "1.0.0" },
            era: "handshake",
            handlers: {
              sampling: () => {
                called++
                return Effect.succeed({
                  role: "assistant" as const,
                  content: { type: "text" as const, text: "hi" },
                  model: "m"
                })
              }
            }
          }).pipe(Layer.provide(McpClientTransport.layerProtocol(protocol)))
        )
      )
      const initialize = JSON.parse(yield* remote.read)
      assert.deepStrictEqual(initialize.params.capabilities, { sampling: {} })
      yield* remote.write(initializeAnswer(initialize.id))
      yield* remote.read // notifications/initialized
      const ask = (id: string, tools: boolean) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "sampling/createMessage",
          params: {
            messages: [{ role: "user", content: { type: "text", text: "hello" } }],
            maxTokens: 10,
            ...(tools ? { tools: [{ name: "t", inputSchema: { type: "object" } }] } : {})
          }
        })
      yield* remote.write(ask("with-tools", true))
      const refused = JSON.parse(yield* remote.read)
      assert.strictEqual(refused.id, "with-tools")
      assert.strictEqual(refused.error.code, -32601)
      assert.include(refused.error.message, "This client did not declare {\"sampling\":{\"tools\":{}}}")
      assert.strictEqual(called, 0)
      yield* remote.write(ask("plain", false))
      const answered = JSON.parse(yield* remote.read)
      assert.strictEqual(answered.id, "plain")
      assert.strictEqual(answered.result.model, "m")
      assert.strictEqual(called, 1)
      yield* Fiber.interrupt(connecting)
    }))
})

describe("the client's notifications", () => {
  it.scoped("a subscriber that falls behind by more than maxQueuedNotifications loses the oldest, not the memory", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      const connecting = yield* Effect.fork(
        Effect.map(
          Layer.build(
            McpClient.layer({
              clientInfo: { name: "test", version: "1.0.0" },
              era: "handshake",
              maxQueuedNotifications: 3
            }).pipe(Layer.provide(McpClientTransport.layerProtocol(protocol)))
          ),
          (context) => Context.get(context, McpClient.McpClient)
        )
      )
      const initialize = JSON.parse(yield* remote.read)
      yield* remote.write(initializeAnswer(initialize.id))
      yield* remote.read // notifications/initialized
      const client = yield* Fiber.join(connecting)
      const log = (data: number) =>
        remote.write(
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data } })
        )
      // A reader that takes the first notification, then reads nothing until the gate opens.
      const first = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const reader = yield* Effect.fork(Stream.runCollect(Stream.take(
        Stream.tap(
          client.notifications,
          () => Effect.zipRight(Deferred.succeed(first, undefined), Deferred.await(gate))
        ),
        4
      )))
      yield* log(0)
      yield* Deferred.await(first)
      for (let i = 1; i <= 10; i++) yield* log(i)
      // A ping after them: once it is answered, all ten were taken in.
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: "p", method: "ping" }))
      assert.strictEqual(JSON.parse(yield* remote.read).id, "p")
      yield* Deferred.succeed(gate, undefined)
      const data = Array.from(yield* Fiber.join(reader), (n) => (n.params as { readonly data: number }).data)
      // The first, then the newest three: the seven between were dropped, not queued.
      assert.deepStrictEqual(data, [0, 8, 9, 10])
    }))

  it.scoped("a subscriber that falls behind by more than maxQueuedNotificationBytes loses the oldest, not the memory", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      const connecting = yield* Effect.fork(
        Effect.map(
          Layer.build(
            McpClient.layer({
              clientInfo: { name: "test", version: "1.0.0" },
              era: "handshake",
              maxQueuedNotificationBytes: 64 * 1024
            }).pipe(Layer.provide(McpClientTransport.layerProtocol(protocol)))
          ),
          (context) => Context.get(context, McpClient.McpClient)
        )
      )
      const initialize = JSON.parse(yield* remote.read)
      yield* remote.write(initializeAnswer(initialize.id))
      yield* remote.read // notifications/initialized
      const client = yield* Fiber.join(connecting)
      // 10 KiB each: 100 of them are 1 MiB, far under the count bound (10,000).
      const pad = "x".repeat(10 * 1024)
      const log = (data: number) =>
        remote.write(
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data, pad } })
        )
      const first = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const reader = yield* Effect.fork(Stream.runCollect(Stream.take(
        Stream.tap(
          client.notifications,
          () => Effect.zipRight(Deferred.succeed(first, undefined), Deferred.await(gate))
        ),
        7
      )))
      yield* log(0)
      yield* Deferred.await(first)
      for (let i = 1; i <= 100; i++) yield* log(i)
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: "p", method: "ping" }))
      assert.strictEqual(JSON.parse(yield* remote.read).id, "p")
      yield* Deferred.succeed(gate, undefined)
      const data = Array.from(yield* Fiber.join(reader), (n) => (n.params as { readonly data: number }).data)
      // The first, then the newest six (64 KiB of 10 KiB each): the 94 before them were dropped.
      assert.deepStrictEqual(data, [0, 95, 96, 97, 98, 99, 100])
    }))
})
