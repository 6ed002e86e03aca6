/**
 * `NodeMcpClient.layerHttp`'s bounded pool cannot deadlock: a call answered over an SSE stream
 * holds its connection until its answer, and the session's GET stream holds one for the session,
 * while the client's answers to the server's asks, its notifications and cancellations go on
 * connections of their own. Before, they shared the bound: with `connections: 1` every request
 * after `initialize` hung; with 2, a call whose tool asks `roots/list` timed out.
 */
import { McpClient } from "@effect-mcp/client"
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { NodeMcpClient, NodeMcpServer } from "../src/index.js"

const Ask = Tool.make(
  "ask",
  { description: "asks the client its roots" },
  () => Effect.orDie(Effect.map(McpRequest.roots(), (roots) => `roots: ${roots.length}`))
)

const askWith = (connections: number) =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    yield* Layer.build(
      NodeMcpServer.layerHttp({ port }).pipe(
        Layer.provide(McpServer.layer({ serverInfo: { name: "s", version: "1" }, tools: [Ask] }))
      )
    )
    const context = yield* Layer.build(
      McpClient.layer({
        clientInfo: { name: "c", version: "1" },
        era: "handshake",
        handlers: { roots: Effect.succeed([{ uri: "file:///a" }]) }
      }).pipe(Layer.provide(NodeMcpClient.layerHttp({ url: `http://127.0.0.1:${port}/mcp` }, { connections })))
    )
    const client = Context.get(context, McpClient.McpClient)
    // Two asking calls at once: each holds a connection of the bound until its answer.
    const results = yield* Effect.all([
      client.callTool("ask", {}, { timeout: "20 seconds" }),
      client.callTool("ask", {}, { timeout: "20 seconds" })
    ], {
      concurrency: "unbounded"
    })
    for (const result of results) {
      assert.deepStrictEqual(result.content, [{ type: "text", text: "roots: 1" }])
    }
  })

describe("layerHttp's bounded pool and the server's asks", () => {
  it.scopedLive("connections: 1", () => askWith(1), 30_000)
  it.scopedLive("connections: 2", () => askWith(2), 30_000)
})
