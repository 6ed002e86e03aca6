/**
 * Tasks through `mcp gateway --config FILE` (apps/cli, built): a task call of an upstream's task tool
 * is a task of the gateway's own, made upstream as a task and followed there. The client sees the
 * gateway's task id (never the upstream's), which only its own session reaches; the upstream's
 * status messages, result and errors come through; cancelling cancels; an upstream gone loses its
 * tasks with a clear error, at once. Upstreams: our demo (its `slow_compute`, `protocol_error_job`)
 * and `@modelcontextprotocol/server-everything` (`simulate-research-query`, a task only); clients:
 * ours over stdio (2025-11-25), ours over HTTP (2026-07-28, the tasks extension; a task that elicits,
 * answered with its handler through `tasks/update`), the official SDK
 * 2.x client with `@modelcontextprotocol/ext-tasks` (a task that elicits, answered downstream), and two raw
 * 2025-11-25 sessions over HTTP, one guessing the other's task id. Failed before: the gateway's
 * tools ran no task (a task call was answered at once, `tasks/get` knew no task).
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as Programs from "../support/Programs.js"
import { overHttp, overStdio, root } from "./support.js"

const demoMain = Programs.demoMain
const require = createRequire(import.meta.url)
const everythingMain = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js"
)

/** A configuration of the demo (its pid written to a file) and server-everything. */
const configOf = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-tasks-"))
  const pidFile = path.join(dir, "pid")
  const file = path.join(dir, "gateway.json")
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        demo: { command: "sh", args: ["-c", `echo $$ > ${pidFile}; exec ${process.execPath} ${demoMain} stdio`] },
        evr: { command: process.execPath, args: [everythingMain, "stdio"] }
      }
    })
  )
  return { file, pid: () => Number(readFileSync(pidFile, "utf8").trim()) }
}

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  (result.content as ReadonlyArray<{ readonly text?: string }>).map((c) => c.text ?? "").join("")

describe("mcp gateway: tasks", () => {
  it.scopedLive(
    "over stdio (2025-11-25): created upstream, ids of the gateway's own, status, result, cancel, an upstream gone",
    () =>
      Effect.gen(function*() {
        const config = configOf()
        const client = yield* overStdio(config.file, "gateway-tasks-test")
        assert.strictEqual(client.revision, "2025-11-25")
        assert.deepStrictEqual(client.serverCapabilities.tasks?.requests?.tools?.call, {})
        const tools = new Map((yield* client.listTools).map((t) => [t.name, t]))
        assert.strictEqual(tools.get("demo_slow_compute")?.execution?.taskSupport, "optional")
        assert.strictEqual(tools.get("evr_simulate-research-query")?.execution?.taskSupport, "required")

        // A task of the demo's, to its end.
        const quick = yield* client.callTool("demo_slow_compute", { seconds: 0.1, label: "quick" }, { task: true })
        assert.isTrue(Option.isSome(quick.taskId))
        assert.strictEqual(text(yield* quick.result), "Computed quick in 0.1s")
        const id = Option.getOrThrow(quick.taskId)
        assert.strictEqual((yield* client.tasks.get(id)).status, "completed")
        assert.include((yield* client.tasks.list).map((t) => t.taskId), id)
        // An id the gateway did not give is unknown (-32602), whatever it looks like.
        const forged = yield* Effect.either(client.tasks.get(`${id}x`))
        assert.isTrue(Either.isLeft(forged), JSON.stringify(forged))
        assert.strictEqual(Either.isLeft(forged) ? forged.left._tag : "", "InvalidParams")

        // A task call the upstream answers at once (it runs no task for `add`) is answered at once here.
        const plain = yield* client.callTool("demo_add", { a: 1, b: 2 }, { task: true })
        assert.isTrue(Option.isNone(plain.taskId))
        assert.deepStrictEqual((yield* plain.result).structuredContent, { sum: 3 })

        // server-everything's task tool: its stages' status messages come through, then its report.
        // (Four stages of a second each, polled upstream every second and here every half: some are seen.)
        // Its status notifications (2025-11-25 `notifications/tasks/status`) name the gateway's task.
        const told = yield* Effect.fork(Stream.runCollect(Stream.takeUntil(
          Stream.filter(client.notifications, (n) => n.method === "notifications/tasks/status"),
          (n) => (n.params as { readonly status?: string }).status === "completed"
        )))
        const research = yield* client.callTool("evr_simulate-research-query", { topic: "gateways" }, { task: true })
        const [researched, statuses] = yield* Effect.all([research.result, Stream.runCollect(research.status)], {
          concurrency: 2
        })
        const notified = Chunk.toReadonlyArray(yield* Fiber.join(told).pipe(Effect.timeout("10 seconds")))
        assert.isAbove(notified.length, 0)
        assert.deepStrictEqual(
          notified.map((n) => (n.params as { readonly taskId?: string }).taskId),
          notified.map(() => Option.getOrThrow(research.taskId))
        )
        assert.include(text(researched), "# Research Report: gateways")
        const seen = Chunk.toReadonlyArray(statuses)
        assert.strictEqual(seen[seen.length - 1]!.status, "completed")
        const stages = [
          "Gathering sources...",
          "Analyzing content...",
          "Synthesizing findings...",
          "Generating report..."
        ]
        assert.isTrue(seen.some((s) => stages.includes(s.statusMessage ?? "")), JSON.stringify(seen))

        // A JSON-RPC error of the upstream's task is the gateway's task's.
        const crash = yield* client.callTool("demo_protocol_error_job", {}, { task: true })
        const crashed = yield* Effect.either(crash.result)
        assert.isTrue(Either.isLeft(crashed))
        assert.include(Either.isLeft(crashed) ? crashed.left.message : "", "The job crashed")

        // Cancelled through the gateway.
        const long = yield* client.callTool("demo_slow_compute", { seconds: 3600, label: "long" }, { task: true })
        yield* long.cancel
        assert.strictEqual((yield* client.tasks.get(Option.getOrThrow(long.taskId))).status, "cancelled")

        // Its upstream gone: the task fails at once, saying so.
        const lost = yield* client.callTool("demo_slow_compute", { seconds: 3600, label: "lost" }, { task: true })
        const working = yield* Stream.runHead(
          Stream.filter(lost.status, (s) => s.statusMessage === "computing lost for 3600s")
        )
        assert.isTrue(Option.isSome(working))
        process.kill(config.pid(), "SIGKILL")
        const failed = yield* Effect.either(lost.result.pipe(Effect.timeout("10 seconds")))
        assert.isTrue(Either.isLeft(failed))
        assert.include(Either.isLeft(failed) ? failed.left.message : "", "the upstream went away; its task is lost")
        assert.strictEqual((yield* client.tasks.get(Option.getOrThrow(lost.taskId))).status, "failed")
      }),
    120_000
  )

  it.scopedLive(
    "ids mapped: the client sees the gateway's id, not the upstream's; its cancel reaches the upstream's task",
    () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-task-ids-"))
        const file = path.join(dir, "gateway.json")
        const upstream = { command: process.execPath, args: [path.join(root, "test/gateway/fixtures/task-server.mjs")] }
        writeFileSync(file, JSON.stringify({ mcpServers: { a: upstream, b: upstream } }))
        const client = yield* overStdio(file, "gateway-task-ids-test")
        const first = yield* client.callTool("a_job", {}, { task: true })
        const second = yield* client.callTool("b_job", {}, { task: true })
        const ids = [first, second].map((t) => Option.getOrThrow(t.taskId))
        // Each upstream named its task up-1: the client sees two ids of the gateway's, neither of them.
        assert.notInclude(ids, "up-1")
        assert.notStrictEqual(ids[0], ids[1])
        yield* first.cancel
        assert.strictEqual((yield* client.tasks.get(ids[0]!)).status, "cancelled")
        // The cancel reached a's task, and only it; b's works on.
        const cancelledOf = (tool: string) => Effect.map(client.callTool(tool, {}), text)
        assert.strictEqual(
          yield* cancelledOf("a_cancelled").pipe(Effect.repeat({ until: (cancelled) => cancelled !== "" })),
          "up-1"
        )
        assert.strictEqual(yield* cancelledOf("b_cancelled"), "")
        assert.strictEqual((yield* client.tasks.get(ids[1]!)).status, "working")
      }),
    60_000
  )

  it(
    "over HTTP: ours in 2026-07-28 (the tasks extension); two raw 2025-11-25 sessions, one guessing the other's id; the SDK with ext-tasks, a task that asks",
    async () => {
      const config = configOf()
      const gateway = await overHttp(config.file)
      try {
        const url = gateway.url

        // Ours, stateless: the call is a task (the extension declared), followed to its result; a
        // task that asks is answered with the client's handler (its input requests, `tasks/update`).
        const [computed, confirmed] = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const context = yield* Layer.build(
            McpClient.layer({
              clientInfo: { name: "ours", version: "1.0.0" },
              era: "stateless",
              handlers: { elicitation: () => Effect.succeed({ action: "accept" as const, content: { confirm: true } }) }
            }).pipe(
              Layer.provide(McpClientTransport.layerHttp({ url })),
              Layer.provide(FetchHttpClient.layer)
            )
          )
          const client = Context.get(context, McpClient.McpClient)
          assert.strictEqual(client.revision, "2026-07-28")
          const task = yield* client.callTool("demo_slow_compute", { seconds: 0.1, label: "stateless" }, { task: true })
          assert.isTrue(Option.isSome(task.taskId))
          const asks = yield* client.callTool("demo_confirm_delete", { filename: "a.txt" }, { task: true })
          assert.isTrue(Option.isSome(asks.taskId))
          return [text(yield* task.result), text(yield* asks.result)] as const
        })))
        assert.strictEqual(computed, "Computed stateless in 0.1s")
        assert.strictEqual(confirmed, "Deleted a.txt")

        // Two sessions of the handshake era, on the wire.
        const session = async () => {
          let sessionId: string | undefined
          let next = 1
          const post = async (message: object) => {
            const response = await fetch(url, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                "mcp-protocol-version": "2025-11-25",
                ...(sessionId !== undefined ? { "mcp-session-id": sessionId } : {})
              },
              body: JSON.stringify({ jsonrpc: "2.0", ...message })
            })
            sessionId ??= response.headers.get("mcp-session-id") ?? undefined
            const body = await response.text()
            if (!("id" in message)) return undefined
            const messages = response.headers.get("content-type")?.startsWith("text/event-stream")
              ? body.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)))
              : [JSON.parse(body)]
            return messages.find((m) => m.id === (message as { id: number }).id && !("method" in m))
          }
          const request = (method: string, params: object) => post({ id: next++, method, params })
          await request("initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "1.0.0" }
          })
          await post({ method: "notifications/initialized" })
          return request
        }
        const a = await session()
        const b = await session()
        const created = await a("tools/call", {
          name: "demo_slow_compute",
          arguments: { seconds: 0.2, label: "mine" },
          task: { ttl: 60_000 }
        })
        const taskId: string = created.result.task.taskId
        assert.strictEqual(created.result.task.status, "working")
        // Another session guessing (or given) the id reaches nothing: unknown, not listed, not cancelled.
        assert.strictEqual((await b("tasks/get", { taskId })).error.code, -32602)
        assert.strictEqual((await b("tasks/cancel", { taskId })).error.code, -32602)
        assert.deepStrictEqual((await b("tasks/list", {})).result.tasks, [])
        assert.deepStrictEqual((await a("tasks/list", {})).result.tasks.map((t: { taskId: string }) => t.taskId), [
          taskId
        ])
        const result = await a("tasks/result", { taskId })
        assert.deepStrictEqual(result.result.content, [{ type: "text", text: "Computed mine in 0.2s" }])
        assert.deepStrictEqual(result.result._meta["io.modelcontextprotocol/related-task"], { taskId })

        // The official SDK's client with ext-tasks: a task of the demo's that asks, answered downstream.
        const sdk = new Client(
          { name: "ext-tasks-through-gateway", version: "1.0.0" },
          { capabilities: { elicitation: {}, tasks: { list: {}, cancel: {} } } }
        )
        await sdk.connect(new StreamableHTTPClientTransport(new URL(url)))
        const asked: Array<any> = []
        const tasks = createTaskSessionFromClient(sdk, {
          endpointId: "gateway",
          onInputRequest: async (request: any) => {
            asked.push(request)
            return { action: "accept", content: { confirm: true } } as any
          }
        })
        try {
          const execution = await tasks.callTool("demo_confirm_delete", { filename: "notes.txt" }, {
            task: { preference: "require" }
          })
          assert.strictEqual(execution.kind, "task")
          const { outcome } = await execution.settle()
          assert.deepStrictEqual((resultFromTaskOutcome(outcome) as any).content, [
            { type: "text", text: "Deleted notes.txt" }
          ])
          assert.deepStrictEqual(asked.map((r) => r.params.message), ["Delete notes.txt?"])
        } finally {
          await tasks.close()
          await sdk.close()
        }
      } finally {
        await gateway.stop()
      }
    },
    90_000
  )
})
