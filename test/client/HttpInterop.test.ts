/**
 * Our client over HTTP against servers nobody here wrote:
 *
 * - the official SDK's `createMcpHandler` (2.4.0, serving the handshake era too with
 *   `legacy: "stateless"`), mounted in-process as the fetch our `HttpClient` uses: `auto` and each
 *   pin, and a stateless call cancelled by closing its response;
 * - `@modelcontextprotocol/server-everything` over Streamable HTTP (handshake only: `auto` must
 *   fall back to a session), its sampling ask answered by our handler and its long operation
 *   cancelled;
 * - `@modelcontextprotocol/server-everything` over the legacy HTTP+SSE transport: the client is
 *   given the `/sse` URL and nothing else, and falls back to it by itself.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { Services } from "@effect-mcp/test-support"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { type ChildProcess, spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as z from "zod"

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")
const everythingMain = path.join(path.dirname(everything), "dist/index.js")

/** What a test expects of the next `slow` call: the SDK server's tool says when it started and when it was aborted. */
interface SlowCall {
  readonly started: Deferred.Deferred<void>
  readonly aborted: Deferred.Deferred<void>
}

/** The `slow` calls the tests wait for, taken in order by the SDK server's tool. */
const slowCalls: Array<SlowCall> = []

const sdkServer = () => {
  const server = new McpServer({ name: "sdk-http-fixture", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool("add", {
    description: "Add two numbers",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() })
  }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }))
  server.registerTool("slow", { description: "Waits until cancelled" }, (ctx) =>
    new Promise((resolve) => {
      const call = slowCalls.shift()
      const signal = (ctx as { readonly mcpReq?: { readonly signal?: AbortSignal } }).mcpReq?.signal
      signal?.addEventListener("abort", () => {
        if (call !== undefined) Deferred.unsafeDone(call.aborted, Exit.void)
        resolve({ content: [{ type: "text", text: "cancelled" }] })
      })
      if (call !== undefined) Deferred.unsafeDone(call.started, Exit.void)
      setTimeout(() => resolve({ content: [{ type: "text", text: "late" }] }), 10_000).unref()
    }))
  return server
}

const handler = createMcpHandler(sdkServer, { legacy: "stateless" })

/** The SDK handler as the `fetch` of our client's HttpClient: no socket between them. */
const sdkFetch: typeof globalThis.fetch = (input, init) =>
  handler.fetch(input instanceof Request ? input : new Request(input, init))

const connect = (
  transport: Layer.Layer<McpClientTransport.McpClientTransport>,
  options: Partial<McpClient.Options> = {}
) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "http-interop-test", version: "1.0.0" }, ...options }).pipe(
        Layer.provide(transport)
      )
    ),
    (context) => Effect.runSync(Effect.provide(McpClient.McpClient, context))
  )

const sdkTransport = McpClientTransport.layerHttp({ url: "http://sdk.test/mcp" }).pipe(
  Layer.provide(FetchHttpClient.layer),
  Layer.provide(Layer.succeed(FetchHttpClient.Fetch, sdkFetch))
)

describe("McpClient against the official SDK's createMcpHandler (in-process fetch)", () => {
  for (const era of ["auto", "stateless", "handshake"] as const) {
    it.scopedLive(`era ${era}`, () =>
      Effect.gen(function*() {
        const c = yield* connect(sdkTransport, { era })
        assert.strictEqual(c.era, era === "handshake" ? "handshake" : "stateless")
        assert.deepStrictEqual((yield* c.listTools).map((t) => t.name), ["add", "slow"])
        const sum = yield* c.callTool("add", { a: 2, b: 40 })
        assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
      }))
  }

  it.scopedLive("2026-07-28: interrupting a call closes its response, and the SDK aborts the handler", () =>
    Effect.gen(function*() {
      const c = yield* connect(sdkTransport, { era: "stateless" })
      const slow: SlowCall = { started: yield* Deferred.make<void>(), aborted: yield* Deferred.make<void>() }
      slowCalls.push(slow)
      const call = yield* Effect.fork(c.callTool("slow", {}))
      yield* Deferred.await(slow.started)
      yield* Fiber.interrupt(call)
      yield* Deferred.await(slow.aborted).pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error("the SDK did not abort the handler") })
      )
      const sum = yield* c.callTool("add", { a: 1, b: 1 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 2 })
    }))
})

const freePort = Services.freePort

/** server-everything on a free port in `mode`, until the scope closes; its port once it listens. */
const everythingOver = (mode: "streamableHttp" | "sse") =>
  Effect.gen(function*() {
    const port = yield* freePort
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [everythingMain, mode], {
          env: { ...process.env, PORT: String(port) },
          stdio: ["ignore", "ignore", "pipe"]
        })
      ),
      (child: ChildProcess) => Effect.sync(() => child.kill("SIGKILL"))
    )
    yield* Effect.async<void>((resume) => {
      let seen = ""
      child.stderr!.on("data", (chunk: Buffer) => {
        seen += chunk.toString()
        if (/listening on port|running on port/i.test(seen)) resume(Effect.void)
      })
    }).pipe(Effect.timeout(Duration.seconds(45)))
    return port
  })

const fetchTransport = (url: string) => McpClientTransport.layerHttp({ url }).pipe(Layer.provide(FetchHttpClient.layer))

describe("McpClient against @modelcontextprotocol/server-everything over HTTP (handshake only)", () => {
  it.scopedLive(
    "Streamable HTTP: auto falls back to a session; sampling answered; a long call cancelled",
    () =>
      Effect.gen(function*() {
        const port = yield* everythingOver("streamableHttp")
        const c = yield* connect(fetchTransport(`http://127.0.0.1:${port}/mcp`), {
          handlers: {
            sampling: () =>
              Effect.succeed({
                role: "assistant" as const,
                model: "http-model",
                content: { type: "text" as const, text: "ok" }
              })
          }
        })
        assert.strictEqual(c.era, "handshake")
        assert.includeMembers((yield* c.listTools).map((t) => t.name), ["get-sum", "trigger-sampling-request"])
        const sampled = yield* c.callTool("trigger-sampling-request", { prompt: "hi" })
        assert.include(JSON.stringify(sampled.content), "http-model")
        const progressed = yield* Deferred.make<void>()
        const call = yield* Effect.fork(
          c.callTool("trigger-long-running-operation", { duration: 30, steps: 30 }, {
            onProgress: () => Deferred.succeed(progressed, void 0)
          })
        )
        yield* Deferred.await(progressed)
        yield* Fiber.interrupt(call)
        const sum = yield* c.callTool("get-sum", { a: 2, b: 3 })
        assert.include(JSON.stringify(sum.content), "5")
      }),
    { timeout: 30_000 }
  )

  it.scopedLive(
    "legacy HTTP+SSE: given the /sse URL, the client falls back to the SSE transport by itself",
    () =>
      Effect.gen(function*() {
        const port = yield* everythingOver("sse")
        const c = yield* connect(fetchTransport(`http://127.0.0.1:${port}/sse`))
        assert.strictEqual(c.era, "handshake")
        const sum = yield* c.callTool("get-sum", { a: 20, b: 22 })
        assert.include(JSON.stringify(sum.content), "42")
        assert.isAbove((yield* c.listResources).length, 0)
      }),
    { timeout: 30_000 }
  )
})
