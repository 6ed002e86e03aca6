/**
 * A 2025-11-25 task call's progress past its answer (under the client's `task-progress-N` token),
 * flooded by a server at a slow `onProgress`: told one at a time, at most 16 waiting, newest kept,
 * as a call's progress is. Before, each notification forked its own `onProgress`: 2,000 of them
 * to a blocked `onProgress` had hundreds running at once.
 */
import { McpClient } from "@effect-mcp/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { NodeMcpClient } from "../src/index.js"

// A 2025-11-25 server whose task call answers with a task, then sends 2,000 progress
// notifications under the call's token, then a tools/list_changed (the test's sign that the flood
// is all read).
const server = `
const out = (m) => process.stdout.write(JSON.stringify(m) + "\\n")
const now = new Date().toISOString()
const task = { taskId: "t1", status: "working", createdAt: now, lastUpdatedAt: now, ttl: 60000, pollInterval: 60000 }
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line)
  if (id === undefined || method === undefined) return
  if (method === "initialize") {
    return out({ jsonrpc: "2.0", id, result: { protocolVersion: "2025-11-25",
      capabilities: { tools: { listChanged: true }, tasks: { requests: { tools: { call: {} } } } },
      serverInfo: { name: "flood", version: "1" } } })
  }
  if (method === "tools/call") {
    out({ jsonrpc: "2.0", id, result: { task } })
    const progressToken = params._meta.progressToken
    const related = { "io.modelcontextprotocol/related-task": { taskId: "t1" } }
    for (let i = 0; i < 2000; i++) {
      out({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: i, total: 1999, _meta: related } })
    }
    return out({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
  }
  if (method === "tasks/get") return out({ jsonrpc: "2.0", id, result: task })
})
`

describe("a 2025-11-25 task's progress", () => {
  it.scopedLive(
    "2,000 notifications at a blocked onProgress: one runs, at most 16 wait, the newest kept",
    () =>
      Effect.gen(function*() {
        const context = yield* Layer.build(
          McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake" }).pipe(
            Layer.provide(
              NodeMcpClient.layerStdio({ command: process.execPath, args: ["-e", server], stderr: "ignore" })
            )
          )
        )
        const client = Context.get(context, McpClient.McpClient)
        const open = yield* Deferred.make<void>()
        const last = yield* Deferred.make<void>()
        const flooded = yield* Deferred.make<void>()
        yield* client.notifications.pipe(
          Stream.filter((notification) => notification.method === "notifications/tools/list_changed"),
          Stream.runForEach(() => Deferred.succeed(flooded, undefined)),
          Effect.forkScoped
        )
        let running = 0
        let most = 0
        let told = 0
        yield* client.callTool("job", {}, {
          task: true,
          onProgress: (progress) =>
            Effect.gen(function*() {
              running++
              told++
              most = Math.max(most, running)
              // Blocked until the whole flood was read.
              yield* Deferred.await(open)
              running--
              if (progress.progress === 1999) yield* Deferred.succeed(last, undefined)
            })
        })
        yield* Deferred.await(flooded)
        yield* Deferred.succeed(open, undefined)
        // The newest is kept: the last progress is told.
        yield* Deferred.await(last)
        assert.strictEqual(most, 1)
        // The first, then at most 16 that waited (more only if the flood outran nothing).
        assert.isAtMost(told, 17)
      }),
    60_000
  )
})
