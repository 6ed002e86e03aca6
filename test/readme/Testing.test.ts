import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { McpServer } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AppLive } from "./services.js"

// The server and a client of it in one process: no ports, no child processes.
const TestClient = McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" } }).pipe(
  Layer.provide(McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(AppLive))))
)

describe("the app", () => {
  it.effect("counts", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.callTool("increment", { by: 2 })
      const result = yield* client.callTool("increment", { by: 3 })
      assert.deepStrictEqual(result.structuredContent, { count: 5 })
      const read = yield* client.readResource("counter://value")
      assert.deepStrictEqual(read.contents, [{ uri: "counter://value", mimeType: "text/plain", text: "5" }])
    }).pipe(Effect.provide(TestClient)))

  it.effect("refuses a count that is not positive, saying why", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool("increment", { by: 0 })
      assert.isTrue(result.isError)
      assert.deepStrictEqual(result.content, [{
        type: "text",
        text: "Invalid arguments for tool increment: by: expected an integer greater than 0, got 0"
      }])
    }).pipe(Effect.provide(TestClient)))
})
