/**
 * The in-memory test kit (`McpClientTransport.layerMemory`) when the server cannot serve: its
 * failure (a layer refusing duplicate names, a service that cannot start) is the client's error,
 * at once and naming it, not a request that waits for an answer nobody will send.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { McpServer, Tool } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"

const Echo = Tool.make("echo", {}, () => Effect.succeed("echo"))

const clientOf =
  (serve: (protocol: Parameters<typeof McpServer.serve>[0]) => Effect.Effect<void, unknown>) =>
  (era: McpClient.Options["era"]) =>
    McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" }, ...(era !== undefined ? { era } : {}) }).pipe(
      Layer.provide(McpClientTransport.layerMemory(serve))
    )

const duplicates = clientOf((protocol) =>
  McpServer.serve(protocol).pipe(
    Effect.provide(McpServer.layer({ serverInfo: { name: "broken", version: "1.0.0" }, tools: [Echo, Echo] }))
  )
)

describe("the test kit, when the server fails", () => {
  for (const era of [undefined, "handshake", "stateless"] as const) {
    it.effect(
      `a server layer refusing a duplicate tool name fails the client at once (era ${era ?? "auto"})`,
      () =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(Effect.scoped(Layer.build(duplicates(era))))
          assert.strictEqual(error._tag, "TransportClosed")
          assert.include(error.message, "the server failed: Duplicate tool name \"echo\": each may be given only once")
        }),
      2_000
    )
  }

  // The server's layer merged with another still being built: when the server's fails, the other
  // is interrupted, and the failure's cause holds both (it is not an interruption of the kit).
  for (const era of [undefined, "handshake", "stateless"] as const) {
    it.effect(
      `a server layer failing beside another layer still building fails the client at once, naming it (era ${
        era ?? "auto"
      })`,
      () =>
        Effect.gen(function*() {
          class Warm extends Context.Tag("Warm")<Warm, void>() {}
          // Never ready under the TestClock: cut short when the server's layer fails.
          const warming = Layer.effect(Warm, Effect.sleep("1 hour"))
          const app = Layer.merge(
            McpServer.layer({ serverInfo: { name: "broken", version: "1.0.0" }, tools: [Echo, Echo] }),
            warming
          )
          const layer = clientOf((protocol) => McpServer.serve(protocol).pipe(Effect.provide(app)))(era)
          const error = yield* Effect.flip(Effect.scoped(Layer.build(layer)))
          assert.strictEqual(error._tag, "TransportClosed")
          assert.match(
            error.message,
            /^Transport closed before \S+ was answered; the server failed: Duplicate tool name "echo": each may be given only once/
          )
        }),
      2_000
    )
  }

  it.effect("a server that fails with a typed error: the client's error names it", () =>
    Effect.gen(function*() {
      const layer = clientOf(() => Effect.fail({ _tag: "ConfigError", message: "DATABASE_URL is not set" }))
      const error = yield* Effect.flip(Effect.scoped(Layer.build(layer(undefined))))
      assert.strictEqual(error._tag, "TransportClosed")
      assert.include(error.message, "the server failed: DATABASE_URL is not set")
    }), 2_000)

  it.effect(
    "a server that fails after serving: the client's next call fails at once, naming it",
    () =>
      Effect.gen(function*() {
        // Serves the handshake, then its layer's service fails.
        const layer = clientOf((protocol) =>
          Effect.raceFirst(
            McpServer.serve(protocol).pipe(
              Effect.provide(McpServer.layer({ serverInfo: { name: "s", version: "1.0.0" }, tools: [Echo] }))
            ),
            Effect.zipRight(Effect.sleep("1 second"), Effect.dieMessage("the cache went away"))
          )
        )("handshake")
        const error = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          assert.include((yield* client.listTools).map((t) => t.name), "echo")
          yield* TestClock.adjust("1 second")
          return yield* Effect.flip(client.listTools)
        }).pipe(Effect.provide(layer))
        assert.strictEqual(error._tag, "TransportClosed")
        assert.include(
          error.message,
          "Transport closed before tools/list was answered; the server failed: the cache went away"
        )
      }),
    2_000
  )
})
