import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { McpServer } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Server } from "./greet.js"

// The server and a client of it in one process: no ports, no child processes.
const TestClient = McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" } }).pipe(
  Layer.provide(McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(Server))))
)

describe("greet", () => {
  it.effect("greets by name", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool("greet", { name: "Ada" })
      assert.deepStrictEqual(result.structuredContent, { greeting: "hello Ada" })
    }).pipe(Effect.provide(TestClient)))

  it.effect("fails as the tool declares", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool("greet", { name: "" })
      assert.isTrue(result.isError)
    }).pipe(Effect.provide(TestClient)))
})
