/**
 * Our client over stdio against a server that floods what it may send during a call: progress for
 * the call, and asks (its requests to the client). Before, each progress notification was a fiber
 * of its own running `onProgress`, and each ask a fiber running its handler, however many came and
 * however slow the callback: a server sending faster than the client takes grew the client without
 * end (the gateway, whose callbacks wait on a downstream client, died of it under a 64 MiB heap).
 * Now a call's progress is handed on one at a time (16 waiting at most, the newest kept), and the
 * server's requests answered at once are bounded (`maxServerRequests`): one past the bound gets a
 * JSON-RPC error with its id, at once.
 */
import { McpClient } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { NodeMcpClient } from "../src/index.js"

/** A handshake server (written by hand) whose `flood` sends 2,000 progress notifications, `asks` 300 `roots/list`. */
const server = `
const out = (m) => process.stdout.write(JSON.stringify(m) + "\\n")
const errors = []
let held
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params, error } = JSON.parse(line)
  if (method === undefined) {
    if (error !== undefined) errors.push({ id, message: error.message })
    if (held !== undefined && errors.length >= 200) { out(held(errors)); held = undefined }
    return
  }
  if (id === undefined) return
  const text = (t) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: t }] } })
  if (method === "initialize") {
    return out({ jsonrpc: "2.0", id, result: { protocolVersion: params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "flooding", version: "1" } } })
  }
  if (method === "tools/call" && params.name === "flood") {
    const token = params._meta.progressToken
    for (let i = 0; i < 2000; i++) {
      out({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: i, total: 1999 } })
    }
    return out(text("flooded"))
  }
  if (method === "tools/call" && params.name === "asks") {
    for (let i = 0; i < 300; i++) out({ jsonrpc: "2.0", id: "ask-" + i, method: "roots/list", params: {} })
    return out(text("asked"))
  }
  // Answered once 200 asks were refused (never, when none are).
  if (method === "tools/call" && params.name === "refused") {
    held = (all) => text(JSON.stringify(all))
    if (errors.length >= 200) { out(held(errors)); held = undefined }
    return
  }
  out({ jsonrpc: "2.0", id, error: { code: -32601, message: "no " + method } })
})
`

const clientOf = (handlers: McpClient.Handlers = {}) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" }, era: "handshake", handlers }).pipe(
        Layer.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: ["-e", server], stderr: "ignore" }))
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

describe("the client over stdio against a server flooding a call", () => {
  it.scopedLive("2,000 progress notifications to a slow onProgress: one at a time, the last one kept", () =>
    Effect.gen(function*() {
      const client = yield* clientOf()
      const open = yield* Deferred.make<void>()
      const last = yield* Deferred.make<void>()
      let running = 0
      let most = 0
      const seen: Array<number> = []
      const result = yield* client.callTool("flood", {}, {
        onProgress: (p) =>
          Effect.gen(function*() {
            running++
            most = Math.max(most, running)
            seen.push(p.progress)
            // The first waits until the flood is over: the rest pile up behind it.
            yield* Deferred.await(open)
            running--
            if (p.progress === 1999) yield* Deferred.succeed(last, void 0)
          })
      })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "flooded" }])
      yield* Deferred.succeed(open, void 0)
      yield* Deferred.await(last)
      // Before: 2,000 callbacks running at once.
      assert.strictEqual(most, 1)
      // The first, then at most 16 (the newest), in order, ending with the last.
      assert.isAtMost(seen.length, 17)
      assert.strictEqual(seen[0], 0)
      assert.strictEqual(seen.at(-1), 1999)
      assert.deepStrictEqual(seen, [...seen].sort((a, b) => a - b))
    }))

  it.scopedLive("300 asks a handler never answers: 100 run, the rest refused at once with their ids", () =>
    Effect.gen(function*() {
      let asked = 0
      const client = yield* clientOf({ roots: Effect.suspend(() => (asked++, Effect.never)) })
      assert.deepStrictEqual((yield* client.callTool("asks", {})).content, [{ type: "text", text: "asked" }])
      // Before: every ask ran (300 handlers waiting), none refused, so this was never answered.
      const refused = yield* client.callTool("refused", {}, { timeout: "20 seconds" })
      const errors = JSON.parse((refused.content[0] as { readonly text: string }).text) as ReadonlyArray<
        { readonly id: string; readonly message: string }
      >
      assert.strictEqual(errors.length, 200)
      assert.deepStrictEqual(errors.map((e) => e.id), Array.from({ length: 200 }, (_, i) => `ask-${i + 100}`))
      assert.match(
        errors[0]!.message,
        /100 of the server's requests already \(maxServerRequests\); roots\/list refused/
      )
      assert.strictEqual(asked, 100)
    }))
})
