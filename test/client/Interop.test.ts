/**
 * Our client against servers nobody here wrote, over stdio: the official SDK's `serveStdio`
 * (both eras: `auto` and each pin), and `@modelcontextprotocol/server-everything` (handshake
 * only: `auto` must fall back), whose sampling and elicitation asks our handlers answer, and
 * whose long operation is cancelled by interrupting the call.
 */
import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")
const everythingMain = path.join(path.dirname(everything), "dist/index.js")

const connect = (args: ReadonlyArray<string>, options: Partial<McpClient.Options> = {}) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "interop-test", version: "1.0.0" }, ...options }).pipe(
        Layer.provide(
          NodeMcpClient.layerStdio({ command: process.execPath, args, cwd: here, stderr: "ignore" })
        )
      )
    ),
    (context) => Effect.runSync(Effect.provide(McpClient.McpClient, context))
  )

describe("McpClient against the official SDK server (serveStdio)", () => {
  for (const era of ["auto", "stateless", "handshake"] as const) {
    it.scopedLive(`era ${era}`, () =>
      Effect.gen(function*() {
        const c = yield* connect([path.join(here, "fixtures/sdk-stdio-server.mjs")], { era })
        assert.strictEqual(c.era, era === "handshake" ? "handshake" : "stateless")
        assert.strictEqual(c.revision, era === "handshake" ? "2025-11-25" : "2026-07-28")
        assert.deepStrictEqual((yield* c.listTools).map((t) => t.name), ["add"])
        const sum = yield* c.callTool("add", { a: 2, b: 40 })
        assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
      }))
  }
})

describe("McpClient against @modelcontextprotocol/server-everything (handshake only)", () => {
  it.scopedLive("auto falls back to the handshake; the server's asks are answered by our handlers", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const c = yield* connect([everythingMain, "stdio"], {
        handlers: {
          sampling: () =>
            Effect.sync(() => {
              asked.push("sampling")
              return { role: "assistant" as const, model: "test-model", content: { type: "text" as const, text: "ok" } }
            }),
          elicitation: () =>
            Effect.sync(() => {
              asked.push("elicitation")
              return { action: "decline" as const }
            })
        }
      })
      assert.strictEqual(c.era, "handshake")
      const names = (yield* c.listTools).map((t) => t.name)
      assert.includeMembers(names, ["get-sum", "trigger-sampling-request", "trigger-elicitation-request"])
      const sum = yield* c.callTool("get-sum", { a: 1, b: 2 })
      assert.include(JSON.stringify(sum.content), "3")
      const sampled = yield* c.callTool("trigger-sampling-request", { prompt: "hi" })
      assert.include(JSON.stringify(sampled.content), "test-model")
      yield* c.callTool("trigger-elicitation-request", {})
      assert.deepStrictEqual(asked, ["sampling", "elicitation"])
    }))

  it.scopedLive("interrupting a long call cancels it; the session goes on", () =>
    Effect.gen(function*() {
      const c = yield* connect([everythingMain, "stdio"])
      const progressed = yield* Deferred.make<void>()
      const call = yield* Effect.fork(
        c.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, {
          onProgress: () => Deferred.succeed(progressed, void 0)
        })
      )
      yield* Deferred.await(progressed)
      yield* Fiber.interrupt(call)
      const sum = yield* c.callTool("get-sum", { a: 2, b: 2 })
      assert.include(JSON.stringify(sum.content), "4")
    }))
})
