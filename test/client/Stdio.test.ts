/**
 * Our client over stdio (`NodeMcpClient.layerStdio`), spawning `apps/everything`: `auto` picks
 * the stateless era on the dual default and the handshake era on `--era handshake`; the demo's
 * multi-round-trip tools are driven to their results by the handlers; the child exits when the
 * layer is released. A child slow to start (`fixtures/slow-start.mjs`) is not taken for a
 * handshake-only server; one that ignores `server/discover` is.
 */
import { ClientError, McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
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
) => connectTo([main, "stdio", ...args], options, {}, key)

/** The client on `node <args>`. */
const connectTo = (
  args: ReadonlyArray<string>,
  options: Partial<McpClient.Options> = {},
  stdio: Partial<NodeMcpClient.StdioOptions> = {},
  key = "the requestState key of the stdio client test"
) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "stdio-test", version: "1.0.0" }, handlers, ...options }).pipe(
        Layer.provide(
          NodeMcpClient.layerStdio({
            command: process.execPath,
            args,
            cwd: root,
            stderr: "ignore",
            env: { ...process.env, MCP_REQUEST_STATE_KEY: key },
            ...stdio
          })
        )
      )
    ),
    (context) => Effect.runSync(Effect.provide(McpClient.McpClient, context))
  )

/** `fixtures/slow-start.mjs`: the demo started once `gate` opens (see there). */
const slowStart = (gate: string, ...rest: ReadonlyArray<string>) => [
  path.join(root, "test/client/fixtures/slow-start.mjs"),
  gate,
  ...rest,
  "--",
  main,
  "stdio"
]

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

  // Failed before the probe's timeout ran from the child's start: today's client gave up at 1 s
  // (the TestClock moved 30 s), sent `initialize` and settled on the handshake era.
  it.scoped("auto on a child slow to start, silent until told: the stateless era", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slow-start-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const gate = path.join(dir, "go")
      const probed = yield* Deferred.make<void>()
      const connecting = yield* Effect.fork(connectTo(slowStart(gate), { probeTimeout: "1 second" }, {
        startTimeout: "1 minute",
        stderr: (line) => line === "received server/discover" && Deferred.unsafeDone(probed, Exit.void)
      }))
      yield* Deferred.await(probed)
      // The probe has been sent and the child has written nothing: far past `probeTimeout`, short of
      // `startTimeout`.
      yield* TestClock.adjust("30 seconds")
      fs.writeFileSync(gate, "")
      const c = yield* Fiber.join(connecting)
      assert.strictEqual(c.era, "stateless")
      const sum = yield* c.callTool("add", { a: 20, b: 22 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
    }))

  // Failed before the probe was heard after its timeout: the child starts only once the client has
  // given up waiting (its `initialize` came); it then answers both, and today's client, which had
  // cancelled the probe, settled on the handshake era. Real time: the child's start is the event,
  // and it comes only once the probe's timeout (from `startTimeout`, 0 here) is over.
  it.scopedLive("auto on a child that starts only after the probe timed out: the stateless era", () =>
    Effect.gen(function*() {
      const c = yield* connectTo(slowStart("initialize"), { probeTimeout: "2 seconds" }, { startTimeout: 0 })
      assert.strictEqual(c.era, "stateless")
      assert.strictEqual(c.revision, "2026-07-28")
      const sum = yield* c.callTool("add", { a: 20, b: 22 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
    }))

  // A handshake-only server that never answers `server/discover` (the demo in the handshake era,
  // the probe never passed on): the handshake era, after the probe's timeout and as long again once
  // `initialize` is answered. Real time: the outcome does not depend on it (no answer ever comes).
  it.scopedLive("auto on a handshake-only server that ignores server/discover: the handshake era", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const called = yield* Deferred.make<void>()
      const c = yield* connectTo(
        [...slowStart("now", "--drop", "server/discover"), "--era", "handshake"],
        { probeTimeout: "200 millis" },
        {
          startTimeout: 0,
          stderr: (line) => {
            received.push(line)
            if (line === "received tools/call") Deferred.unsafeDone(called, Exit.void)
          }
        }
      )
      assert.strictEqual(c.era, "handshake")
      assert.strictEqual(c.revision, "2025-11-25")
      const sum = yield* c.callTool("add", { a: 20, b: 22 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
      // The probe was cancelled before the session began.
      yield* Deferred.await(called)
      assert.deepStrictEqual(received.slice(0, 4), [
        "received server/discover",
        "received initialize",
        "received notifications/cancelled",
        "received notifications/initialized"
      ])
    }))
})
