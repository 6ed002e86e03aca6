/**
 * Our client over stdio (`NodeMcpClient.layerStdio`), spawning `apps/everything`: `auto` picks
 * the stateless era on the dual default and the handshake era on `--era handshake`; the demo's
 * multi-round-trip tools are driven to their results by the handlers; the child exits when the
 * layer is released.
 */
import { ClientError, McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = path.join(root, "apps/everything/dist/main.js")

const handlers: McpClient.Handlers = {
  elicitation: (params) =>
    Effect.succeed({
      action: "accept" as const,
      content: params.message.includes("color") ? { color: "green" } : { name: "Ada" }
    }),
  sampling: () =>
    Effect.succeed({ role: "assistant" as const, model: "test", content: { type: "text" as const, text: "Hello" } }),
  roots: Effect.succeed([{ uri: "file:///work", name: "work" }])
}

const connect = (
  args: ReadonlyArray<string>,
  options: Partial<McpClient.Options> = {},
  key = "the requestState key of the stdio client test"
) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "stdio-test", version: "1.0.0" }, handlers, ...options }).pipe(
        Layer.provide(
          NodeMcpClient.layerStdio({
            command: process.execPath,
            args: [main, "stdio", ...args],
            cwd: root,
            stderr: "ignore",
            env: { ...process.env, MCP_REQUEST_STATE_KEY: key }
          })
        )
      )
    ),
    (context) => Effect.runSync(Effect.provide(McpClient.McpClient, context))
  )

describe("McpClient over stdio against apps/everything", () => {
  for (const [args, era] of [[[], "stateless"], [["--era", "handshake"], "handshake"]] as const) {
    it.scopedLive(`auto on ${args.join(" ") || "the dual default"}: the ${era} era`, () =>
      Effect.gen(function*() {
        const c = yield* connect(args)
        assert.strictEqual(c.era, era)
        const tools = yield* c.listTools
        assert.include(tools.map((t) => t.name), "add")
        const sum = yield* c.callTool("add", { a: 20, b: 22 })
        assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
        yield* c.ping
      }))
  }

  it.scopedLive("multi-round trips to the end: several inputs at once, two rounds", () =>
    Effect.gen(function*() {
      const c = yield* connect([])
      const multiple = yield* c.callTool("test_input_required_result_multiple_inputs")
      assert.include(JSON.stringify(multiple.content), "Hello Ada")
      const rounds = yield* c.callTool("test_input_required_result_multi_round")
      assert.deepStrictEqual(rounds.content, [{ type: "text", text: "Ada's favorite color is green" }])
    }))

  it.scopedLive("a command that does not exist is a SpawnError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(NodeMcpClient.layerStdio({ command: "/nonexistent/mcp-server" }))
      )
      assert.strictEqual(error._tag, "SpawnError")
      assert.include(error.message, "/nonexistent/mcp-server")
    }))

  it.scopedLive("pinned to the stateless era against a handshake-only server: no fallback, the server's error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(connect(["--era", "handshake"], { era: "stateless" }))
      assert.strictEqual(error._tag, "MethodNotFound")
      assert.include(error.message, "server/discover")
    }))

  it.scopedLive("a declared capability without its handler: MissingHandler, naming the method", () =>
    Effect.gen(function*() {
      const c = yield* connect([], { handlers: {}, capabilities: { sampling: {} } })
      const error = yield* Effect.flip(c.callTool("test_input_required_result_sampling"))
      assert.instanceOf(error, ClientError.MissingHandler)
      assert.include(error.message, "sampling/createMessage")
    }))

  it.scopedLive("the demo with an empty MCP_REQUEST_STATE_KEY: refused at startup, its line in the client's error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(connect([], {}, ""))
      assert.strictEqual(error._tag, "TransportClosed")
      assert.include(error.message, "the server exited with code 1")
      assert.include(error.message, "requestStateKey must be at least 32 bytes (got 0)")
    }))
})
