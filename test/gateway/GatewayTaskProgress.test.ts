/**
 * An upstream task's progress through `mcp gateway` (apps/cli, built), to the downstream client
 * whose call made the task. The upstream (`fixtures/progress-task-server.mjs`, 2025-11-25) sends
 * its task's progress after the task was made, with the call's progress token, which the revision
 * keeps valid for the task's life; the gateway's client hears it as the call's, and the gateway
 * tells it to its own client, with that client's token, tagged with the gateway's task: over stdio
 * and over Streamable HTTP (on the session's GET stream), to our client in the 2025-11-25 era.
 * (2026-07-28 carries no progress for tasks: nothing to pass on.) Before, the progress stopped at
 * the gateway: its client heard a call's progress only until the call was answered (with the
 * task), and a task of the gateway's made its progress its status message only.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import type { Peer } from "@effect-mcp/core"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { overHttp, overStdio, root } from "./support.js"

const fixture = path.join(root, "test/gateway/fixtures/progress-task-server.mjs")

const configFile = () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-task-progress-")), "gateway.json")
  writeFileSync(file, JSON.stringify({ mcpServers: { job: { command: process.execPath, args: [fixture] } } }))
  return file
}

/**
 * A task call of `job_progress_job` through the gateway: the two progress notifications its
 * `onProgress` hears while the task works (awaited as events, a guard against their never
 * coming), then the task finished upstream and its result.
 */
const progressOfTask = (client: McpClient.Service) =>
  Effect.gen(function*() {
    const heard = yield* Queue.unbounded<Peer.Progress>()
    const task = yield* client.callTool("job_progress_job", {}, {
      task: true,
      onProgress: (p) => Queue.offer(heard, p)
    })
    assert.isTrue(Option.isSome(task.taskId))
    const result = yield* Effect.fork(task.result)
    const progress = yield* Queue.takeN(heard, 2).pipe(
      Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the task's progress never came") })
    )
    yield* client.callTool("job_finish", {})
    const done = yield* Fiber.join(result)
    return {
      progress: [...progress].map(({ message, progress, total }) => ({ progress, total, message })),
      result: (done.content as ReadonlyArray<{ readonly text?: string }>)[0]?.text ?? ""
    }
  })

const expected = [
  { progress: 1, total: 2, message: "halfway" },
  { progress: 2, total: 2, message: "all but done" }
]

describe("mcp gateway: an upstream task's progress reaches the client whose call made the task", () => {
  it.scopedLive("over stdio (2025-11-25)", () =>
    Effect.gen(function*() {
      const client = yield* overStdio(configFile(), "gateway-task-progress-test")
      const { progress, result } = yield* progressOfTask(client)
      assert.deepStrictEqual(progress, expected)
      assert.strictEqual(result, "finished up-1")
    }), 60_000)

  it.scopedLive("over Streamable HTTP (2025-11-25, on the session's GET stream)", () =>
    Effect.gen(function*() {
      const gateway = yield* Effect.acquireRelease(
        Effect.promise(() => overHttp(configFile())),
        (g) => Effect.sync(g.stop)
      )
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "gateway-task-progress-test", version: "1.0.0" }, era: "handshake" })
          .pipe(
            Layer.provide(McpClientTransport.layerHttp({ url: gateway.url })),
            Layer.provide(FetchHttpClient.layer)
          )
      )
      const { progress, result } = yield* progressOfTask(Context.get(context, McpClient.McpClient))
      assert.deepStrictEqual(progress, expected)
      assert.strictEqual(result, "finished up-1")
    }), 60_000)
})
