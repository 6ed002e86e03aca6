/**
 * The server's own gauges and counters (metrics forced on, no tracer needed): sessions held,
 * tasks by status, refusals by reason; and the session duration histograms once a session ends.
 * The operation histogram's labels: a server's own tools and prompts and the protocol's methods,
 * `_OTHER` for anything else a peer names; a client's, at most 1,000 sets.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { MemoryTransport, Revision, Telemetry } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { PassThrough } from "node:stream"

const Build = Tool.make(
  "build",
  { task: { support: "required", start: "immediately" } },
  () => Effect.as(Effect.sleep("20 millis"), "built")
)

/** The value of gauge or counter `name` with `tags` (all of them), from Effect's registry. */
const valueOf = (name: string, tags: Record<string, string> = {}) =>
  Effect.map(Metric.snapshot, (pairs) => {
    const found = pairs.find((p) =>
      p.metricKey.name === name &&
      Object.entries(tags).every(([k, v]) => p.metricKey.tags.some((t) => t.key === k && t.value === v))
    )
    const state = found?.metricState as { readonly value?: number; readonly count?: number } | undefined
    return state?.value ?? state?.count
  })

/**
 * Checks `holds` every 50 ms until it is true: the gauges are sampled by the server once a second,
 * with nothing to wait on from outside. The guard (30 s) bounds only a sample that never comes; the
 * asserts after it say what was found.
 */
const sampled = (holds: Effect.Effect<boolean>) =>
  holds.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("50 millis") }),
    Effect.timeout("30 seconds"),
    Effect.ignore
  )

describe("Telemetry: the server's own metrics", () => {
  it.scopedLive("sessions, tasks by status, refusals; the session histograms when a session ends", () =>
    Effect.gen(function*() {
      const port = yield* Services.freePort
      yield* Layer.build(
        NodeMcpServer.layerHttp({ port }).pipe(
          Layer.provide(McpServer.layer({
            serverInfo: { name: "metrics", version: "1.0.0" },
            tools: [Build],
            revisions: [...Revision.handshake, "2026-07-28"]
          }))
        )
      )
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        McpClient.layer({ clientInfo: { name: "metrics-client", version: "1.0.0" }, era: "handshake" }).pipe(
          Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
          Layer.provide(FetchHttpClient.layer)
        ),
        scope
      )
      const client = yield* Effect.provide(McpClient.McpClient, context)
      // A task, followed to its end.
      const task = yield* client.callTool("build", {}, { task: true })
      const statuses = Chunk.toReadonlyArray(yield* Stream.runCollect(task.status))
      assert.strictEqual(statuses.at(-1)?.status, "completed")
      // Sampled once a second.
      yield* sampled(Effect.map(
        Effect.all([
          valueOf("mcp.server.sessions"),
          valueOf("mcp.server.tasks", { "mcp.task.status": "completed" }),
          valueOf("mcp.server.tasks", { "mcp.task.status": "working" }),
          valueOf("mcp.server.listens")
        ]),
        ([sessions, completed, working, listens]) => sessions === 1 && completed === 1 && working === 0 && listens === 0
      ))
      assert.strictEqual(yield* valueOf("mcp.server.sessions"), 1)
      assert.strictEqual(yield* valueOf("mcp.server.tasks", { "mcp.task.status": "completed" }), 1)
      assert.strictEqual(yield* valueOf("mcp.server.tasks", { "mcp.task.status": "working" }), 0)
      assert.strictEqual(yield* valueOf("mcp.server.listens"), 0)
      // A request for a session that is not there: refused, counted by reason.
      const before = (yield* valueOf("mcp.server.refused", { reason: "unknown_session" })) ?? 0
      const refused = yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": "nobody",
            "mcp-protocol-version": "2025-11-25"
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
        })
      )
      assert.strictEqual(refused.status, 404)
      assert.strictEqual(yield* valueOf("mcp.server.refused", { reason: "unknown_session" }), before + 1)
      // The client's session ends (DELETE), and so does the server's.
      const clientSessions = (yield* valueOf("mcp.client.session.duration")) ?? 0
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* valueOf("mcp.client.session.duration"), clientSessions + 1)
      yield* sampled(Effect.map(
        Effect.all([
          valueOf("mcp.server.sessions"),
          valueOf("mcp.server.session.duration", { "network.transport": "tcp" })
        ]),
        ([sessions, ended]) => sessions === 0 && (ended ?? 0) >= 1
      ))
      assert.strictEqual(yield* valueOf("mcp.server.sessions"), 0)
      assert.isAtLeast((yield* valueOf("mcp.server.session.duration", { "network.transport": "tcp" })) ?? 0, 1)
    }).pipe(Effect.provide(Telemetry.layer({ metrics: true }))))
})

describe("Telemetry: the operation histogram's label sets are bounded", () => {
  it.scopedLive("a peer naming tools, prompts and methods the server does not have adds one _OTHER series, not one each", () =>
    Effect.gen(function*() {
      const Echo = Tool.make("echo", {}, () => Effect.succeed("echoed"))
      const server = yield* McpServer.make({
        serverInfo: { name: "bounded", version: "1.0.0" },
        tools: [Build, Echo],
        revisions: ["2026-07-28"]
      })
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(server.serve(protocol))
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
      }
      const operations = Effect.map(
        Metric.snapshot,
        (pairs) => pairs.filter((p) => p.metricKey.name === "mcp.server.operation.duration")
      )
      const before = new Set((yield* operations).map((p) => p.metricKey))
      let id = 0
      const ask = (method: string, params: Record<string, unknown>) =>
        Effect.gen(function*() {
          const sent = id++
          yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent, method, params: { ...params, _meta: meta } }))
          const answer = JSON.parse(yield* remote.read)
          assert.strictEqual(answer.id, sent)
          return answer
        })
      for (let i = 0; i < 1_500; i++) yield* ask("tools/call", { name: `bounded-nothing-${i}`, arguments: {} })
      yield* ask("tools/call", { name: "x".repeat(100_000), arguments: {} })
      yield* ask("prompts/get", { name: "no-such-prompt" })
      yield* ask(`custom/${"y".repeat(100_000)}`, {})
      const echoed = yield* ask("tools/call", { name: "echo", arguments: {} })
      assert.isDefined(echoed.result)

      const added = (yield* operations).filter((p) => !before.has(p.metricKey))
      const tags = (p: (typeof added)[number]) => Object.fromEntries(p.metricKey.tags.map((t) => [t.key, t.value]))
      // The unknown calls, the too-long one among them: one series. The prompt and the method: one each.
      // The server's own tool: its name.
      assert.deepStrictEqual(
        added.map(tags).map((t) => [t["mcp.method.name"], t["gen_ai.tool.name"] ?? t["gen_ai.prompt.name"]]).sort(),
        [["_OTHER", undefined], ["prompts/get", "_OTHER"], ["tools/call", "_OTHER"], ["tools/call", "echo"]]
      )
      const other = added.find((p) => tags(p)["gen_ai.tool.name"] === "_OTHER")!
      assert.strictEqual((other.metricState as unknown as { readonly count: number }).count, 1_501)
    }).pipe(Effect.provide(Telemetry.layer({ metrics: true }))))

  it.scopedLive("a client calling a new name each time adds at most 1,000 series; the rest are _OTHER", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make({
        serverInfo: { name: "bounded", version: "1.0.0" },
        tools: [Build],
        revisions: Revision.handshake
      })
      const toServer = new PassThrough()
      const toClient = new PassThrough()
      yield* Effect.forkScoped(server.serve(NodeMcpServer.protocol(toServer, toClient)))
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "bounded-client", version: "1.0.0" } }).pipe(
          Layer.provide(McpClientTransport.layerProtocol(NodeMcpServer.protocol(toClient, toServer)))
        )
      )
      const client = yield* Effect.provide(McpClient.McpClient, context)
      const series = Effect.map(
        Metric.snapshot,
        (pairs) => pairs.filter((p) => p.metricKey.name === "mcp.client.operation.duration").length
      )
      const before = yield* series
      for (let i = 0; i < 1_500; i++) yield* Effect.flip(client.callTool(`called-${i}`))
      const added = (yield* series) - before
      assert.isAtMost(added, 1_000 + 2)
      assert.isAtLeast(added, 1_000 - 2)
    }).pipe(Effect.provide(Telemetry.layer({ metrics: true }))))
})
