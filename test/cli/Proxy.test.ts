/**
 * `mcp proxy` (apps/cli, built) in front of a handshake-only stdio server (apps/everything
 * `--era handshake`), served as 2026-07-28 over Streamable HTTP, and over stdio: our client in
 * the stateless era calls through it, gets progress, answers the upstream's elicitation as
 * `input_required` rounds, and hears the upstream's list changes and resource updates on a
 * `subscriptions/listen` stream.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { Services } from "@effect-mcp/test-support"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everything = Programs.demoMain
const upstream = `stdio:${process.execPath} ${everything} stdio --era handshake`

const freePort = Services.freePort

/** `node <args>` until the scope closes, once a line of its stderr includes `ready`. */
const spawnUntil = (args: ReadonlyArray<string>, ready: string) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] })),
      (child: ChildProcess) => Effect.sync(() => child.kill("SIGTERM"))
    )
    yield* Effect.async<void>((resume) => {
      let seen = ""
      child.stderr!.on("data", (chunk: Buffer) => {
        seen += chunk.toString()
        if (seen.includes(ready)) resume(Effect.void)
      })
    }).pipe(Effect.timeout(Duration.seconds(45)))
  })

/** `mcp proxy <upstream> --port P --serve stateless` until the scope closes; its URL once it serves. */
const proxyOverHttp = (of: string = upstream) =>
  Effect.gen(function*() {
    const port = yield* freePort
    yield* spawnUntil([mcpMain, "proxy", of, "--port", String(port), "--serve", "stateless"], "mcp proxy: serving")
    return `http://127.0.0.1:${port}/mcp`
  })

/** apps/everything over Streamable HTTP in the handshake era until the scope closes: its URL. */
const handshakeOverHttp = Effect.gen(function*() {
  const port = yield* freePort
  const url = `http://127.0.0.1:${port}/mcp`
  yield* spawnUntil([everything, "http", "--port", String(port), "--era", "handshake"], url)
  return url
})

const clientOn = (transport: Layer.Layer<McpClientTransport.McpClientTransport, unknown>, username = "ada") =>
  Effect.map(
    Layer.build(
      McpClient.layer({
        clientInfo: { name: "proxy-test", version: "1.0.0" },
        era: "stateless",
        handlers: {
          elicitation: () => Effect.succeed({ action: "accept" as const, content: { username, email: "a@b.c" } })
        }
      }).pipe(Layer.provide(transport))
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

describe("mcp proxy: a handshake-only stdio server served as 2026-07-28", () => {
  it.scopedLive(
    "over HTTP: calls, progress, elicitation rounds, cancellation, list changes and updates",
    () =>
      Effect.gen(function*() {
        const url = yield* proxyOverHttp()
        const client = yield* clientOn(
          McpClientTransport.layerHttp({ url }).pipe(Layer.provide(FetchHttpClient.layer))
        )
        assert.strictEqual(client.revision, "2026-07-28")
        const discovered = yield* client.discover
        assert.deepStrictEqual(discovered.supportedVersions, ["2026-07-28"])
        assert.includeMembers((yield* client.listTools).map((t) => t.name), ["add", "longRunning", "test_elicitation"])
        assert.deepStrictEqual((yield* client.callTool("add", { a: 20, b: 22 })).structuredContent, { sum: 42 })

        const progress: Array<number> = []
        yield* client.callTool("longRunning", { duration: 0.2, steps: 4 }, {
          onProgress: (p) => Effect.sync(() => progress.push(p.progress))
        })
        assert.deepStrictEqual(progress, [1, 2, 3, 4])

        const elicited = yield* client.callTool("test_elicitation", { message: "Who?" })
        assert.include(JSON.stringify(elicited.content), "ada")

        // Cancelled downstream (the response stream closed) once it runs upstream (its first
        // progress came back): the proxy goes on serving.
        const running = yield* Deferred.make<void>()
        const long = yield* Effect.fork(client.callTool("longRunning", { duration: 30, steps: 300 }, {
          onProgress: () => Deferred.succeed(running, void 0)
        }))
        yield* Deferred.await(running)
        yield* Fiber.interrupt(long)
        assert.deepStrictEqual((yield* client.callTool("add", { a: 1, b: 1 })).structuredContent, { sum: 2 })

        const subscription = yield* client.subscribe({
          toolsListChanged: true,
          resourceSubscriptions: ["test://watched-resource"]
        })
        const next = yield* Stream.toPull(subscription.notifications)
        yield* client.callTool("editTools", { action: "add" })
        const changed = yield* next.pipe(Effect.timeout("5 seconds"))
        assert.strictEqual(Chunk.unsafeHead(changed).method, "notifications/tools/list_changed")
        assert.include((yield* client.listTools).map((t) => t.name), "dynamic")

        yield* client.callTool("updateWatchedResource", {})
        const updated = yield* next.pipe(Effect.timeout("5 seconds"))
        assert.strictEqual(Chunk.unsafeHead(updated).method, "notifications/resources/updated")
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "over stdio: the proxy is the child process, and nothing but protocol reaches stdout",
    () =>
      Effect.gen(function*() {
        const client = yield* clientOn(
          NodeMcpClient.layerStdio({
            command: process.execPath,
            args: [mcpMain, "proxy", upstream, "--serve", "dual"],
            cwd: root,
            stderr: "ignore"
          })
        )
        assert.strictEqual(client.revision, "2026-07-28")
        assert.deepStrictEqual((yield* client.callTool("add", { a: 2, b: 3 })).structuredContent, { sum: 5 })
      }),
    { timeout: 120_000 }
  )
})

describe("mcp proxy: a handshake-only server over Streamable HTTP", () => {
  it.scopedLive(
    "each upstream ask reaches the client whose call raised it (it comes on that call's stream), however many are in flight",
    () =>
      Effect.gen(function*() {
        const url = yield* proxyOverHttp(yield* handshakeOverHttp)
        const transport = McpClientTransport.layerHttp({ url }).pipe(Layer.provide(FetchHttpClient.layer))
        const ada = yield* clientOn(transport, "ada")
        const bob = yield* clientOn(transport, "bob")
        // A call of Ada's in flight all along: before, every ask was refused ("3 requests are in flight").
        const running = yield* Deferred.make<void>()
        const long = yield* Effect.fork(ada.callTool("longRunning", { duration: 30, steps: 300 }, {
          onProgress: () => Deferred.succeed(running, void 0)
        }))
        yield* Deferred.await(running)
        for (let round = 0; round < 3; round++) {
          const [forAda, forBob] = yield* Effect.all([
            ada.callTool("test_elicitation", { message: "Who?" }),
            bob.callTool("test_elicitation", { message: "Who?" })
          ], { concurrency: "unbounded" })
          assert.notOk(forAda.isError, JSON.stringify(forAda.content))
          assert.notOk(forBob.isError, JSON.stringify(forBob.content))
          assert.include(JSON.stringify(forAda.content), "ada")
          assert.notInclude(JSON.stringify(forAda.content), "bob")
          assert.include(JSON.stringify(forBob.content), "bob")
          assert.notInclude(JSON.stringify(forBob.content), "ada")
        }
        yield* Fiber.interrupt(long)
      }),
    { timeout: 120_000 }
  )
})
