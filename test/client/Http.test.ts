/**
 * Our client over Streamable HTTP (`McpClientTransport.layerHttp` on `FetchHttpClient`) against
 * our server (`NodeMcpServer.layerHttp`): `auto` picks the stateless era on a dual endpoint and
 * falls back to a session on a handshake-only one; multi-round trips, progress over SSE, and a
 * stateless call cancelled by closing its response stream.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { Revision } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

const freePort = Services.freePort

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const Ask = Tool.make("ask", { failure: Schema.String }, () =>
  Effect.map(
    McpRequest.elicit("name", {
      mode: "form",
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } }
    }).pipe(Effect.mapError((e) => e.message)),
    (answer) => `hello ${answer.content?.name}`
  ))

/** Progress 1 of 2; the answer once the caller saw it (`seen`: its `onProgress` runs on a fiber of its own). */
const Steps = (seen: Deferred.Deferred<void>) =>
  Tool.make("steps", {}, () =>
    Effect.zipRight(
      Effect.zipRight(McpRequest.progress(1, 2), Deferred.await(seen)),
      Effect.succeed("done")
    ))

/**
 * 2025-11-25 polling: the answer's stream is closed first; the answer comes once the client
 * resumed it (`resumed`: it sent its GET with Last-Event-ID).
 */
const Poll = (resumed: Deferred.Deferred<void>) =>
  Tool.make("poll", {}, () =>
    Effect.gen(function*() {
      yield* McpRequest.progress(1, 2)
      yield* Effect.flatMap(McpRequest.McpRequest, (request) => request.closeSseStream)
      yield* Deferred.await(resumed)
      return "after the poll"
    }))

/** Arguments mirrored in headers (x-mcp-header): the server refuses a call without them (-32020). */
const Region = Tool.make("region", {
  parameters: Schema.Struct({
    region: Schema.String.annotations({ jsonSchema: { "x-mcp-header": "Region" } }),
    count: Schema.Number.annotations({ jsonSchema: { type: "integer", "x-mcp-header": "Count" } })
  })
}, ({ count, region }) => Effect.succeed(`${count} in ${region}`))

/** An annotation on a type no header can carry: not offered to the user. */
const Broken = Tool.make("broken", {
  parameters: Schema.Struct({
    tags: Schema.Array(Schema.String).annotations({ jsonSchema: { type: "array", "x-mcp-header": "Tags" } })
  })
}, () => Effect.succeed("never"))

/** A server on a free port serving `revisions`, and a client of it. */
const connect = (revisions: ReadonlyArray<Revision.Revision>, tools: ReadonlyArray<Tool.Tool<any>> = []) =>
  Effect.map(connectTo(revisions, tools), ({ client }) => client)

const connectTo = (
  revisions: ReadonlyArray<Revision.Revision>,
  tools: ReadonlyArray<Tool.Tool<any>> = [],
  httpClient: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer
) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const server = yield* Layer.build(
      NodeMcpServer.layerHttp({ port }).pipe(
        Layer.provideMerge(McpServer.layer({
          serverInfo: { name: "http-client-test", version: "1.0.0" },
          tools: [Add, Ask, ...tools],
          revisions,
          requestStateKey: Redacted.make("the requestState key of the http client test")
        }))
      )
    )
    const context = yield* Layer.build(
      McpClient.layer({
        clientInfo: { name: "http-test", version: "1.0.0" },
        handlers: {
          elicitation: () => Effect.succeed({ action: "accept" as const, content: { name: "Ada" } })
        }
      }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
        Layer.provide(httpClient)
      )
    )
    return {
      client: Effect.runSync(Effect.provide(McpClient.McpClient, context)),
      server: Effect.runSync(Effect.provide(McpServer.McpServer, server))
    }
  })

describe("McpClient over Streamable HTTP against NodeMcpServer.layerHttp", () => {
  for (
    const [name, revisions, era] of [
      ["dual endpoint", [...Revision.handshake, "2026-07-28"], "stateless"],
      ["stateless-only endpoint", ["2026-07-28"], "stateless"],
      ["handshake-only endpoint", Revision.handshake, "handshake"]
    ] as const
  ) {
    it.scopedLive(`${name}: auto speaks the ${era} era`, () =>
      Effect.gen(function*() {
        const progressed = yield* Deferred.make<void>()
        const c = yield* connect(revisions, [Steps(progressed)])
        assert.strictEqual(c.era, era)
        assert.deepStrictEqual((yield* c.listTools).map((t) => t.name), ["add", "ask", "steps"])
        assert.deepStrictEqual((yield* c.callTool("add", { a: 1, b: 2 })).structuredContent, { sum: 3 })
        const asked = yield* c.callTool("ask")
        assert.deepStrictEqual(asked.content, [{ type: "text", text: "hello Ada" }])
        const seen = yield* Ref.make(0)
        const done = yield* c.callTool("steps", {}, {
          onProgress: () => Effect.zipRight(Ref.update(seen, (n) => n + 1), Deferred.succeed(progressed, void 0))
        })
        assert.deepStrictEqual(done.content, [{ type: "text", text: "done" }])
        assert.strictEqual(yield* Ref.get(seen), 1)
      }))
  }

  it.scopedLive("interrupting a call cancels it on the server, in both eras", () =>
    Effect.gen(function*() {
      for (const revisions of [Revision.handshake, ["2026-07-28"] as const]) {
        const started = yield* Deferred.make<void>()
        const cancelled = yield* Deferred.make<void>()
        const Hang = Tool.make("hang", {}, () =>
          Effect.zipRight(Deferred.succeed(started, void 0), Effect.never).pipe(
            Effect.onInterrupt(() => Deferred.succeed(cancelled, void 0))
          ))
        const c = yield* connect(revisions, [Hang])
        const call = yield* Effect.fork(c.callTool("hang"))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(call)
        yield* Deferred.await(cancelled).pipe(Effect.timeout("5 seconds"))
        assert.deepStrictEqual((yield* c.callTool("add", { a: 2, b: 2 })).structuredContent, { sum: 4 })
      }
    }))

  it.scopedLive("a session: list changes on the standalone GET stream; a polled answer resumed with Last-Event-ID", () =>
    Effect.gen(function*() {
      // What the client's HttpClient sees: the standalone GET answered, a GET that resumes a stream sent.
      const standalone = yield* Deferred.make<void>()
      const resumed = yield* Deferred.make<void>()
      const watching = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, (client) =>
          client.pipe(
            HttpClient.tapRequest((request) =>
              request.method === "GET" && request.headers["last-event-id"] !== undefined
                ? Deferred.succeed(resumed, void 0)
                : Effect.void
            ),
            HttpClient.tap((response) =>
              response.request.method === "GET" && response.status === 200
                ? Deferred.succeed(standalone, void 0)
                : Effect.void
            )
          ))
      ).pipe(Layer.provide(FetchHttpClient.layer))
      const { client: c, server } = yield* connectTo(Revision.handshake, [Poll(resumed)], watching)
      const changed = yield* Effect.fork(
        Stream.runHead(Stream.filter(c.notifications, (n) => n.method === "notifications/tools/list_changed"))
      )
      yield* Deferred.await(standalone)
      yield* server.addTool(Tool.make("later", {}, () => Effect.succeed("ok")))
      assert.strictEqual(Option.isSome(yield* Fiber.join(changed).pipe(Effect.timeout("5 seconds"))), true)
      const polled = yield* c.callTool("poll", {}, { onProgress: () => Effect.void })
      assert.deepStrictEqual(polled.content, [{ type: "text", text: "after the poll" }])
    }))

  it.scopedLive("2026-07-28: Mcp-Param headers mirror x-mcp-header arguments; a tool with a broken one is not offered", () =>
    Effect.gen(function*() {
      const c = yield* connect(["2026-07-28"], [Region, Broken])
      const names = (yield* c.listTools).map((t) => t.name)
      assert.include(names, "region")
      assert.notInclude(names, "broken")
      const result = yield* c.callTool("region", { region: "Zürich", count: 3 })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "3 in Zürich" }])
    }))

  it.scopedLive("legacy HTTP+SSE (2024-11-05): the endpoint event, answers and asks on the stream", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      yield* Layer.build(
        NodeMcpServer.layerHttp({ port }).pipe(
          Layer.provide(McpServer.layer({
            serverInfo: { name: "sse-client-test", version: "1.0.0" },
            tools: [Add, Ask]
          }))
        )
      )
      const context = yield* Layer.build(
        McpClient.layer({
          clientInfo: { name: "sse-test", version: "1.0.0" },
          era: "handshake",
          handlers: { elicitation: () => Effect.succeed({ action: "accept" as const, content: { name: "Ada" } }) }
        }).pipe(
          Layer.provide(McpClientTransport.layerSse({ url: `http://127.0.0.1:${port}/sse` })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      const c = Effect.runSync(Effect.provide(McpClient.McpClient, context))
      assert.strictEqual(c.era, "handshake")
      assert.deepStrictEqual((yield* c.callTool("add", { a: 5, b: 6 })).structuredContent, { sum: 11 })
      assert.deepStrictEqual((yield* c.callTool("ask")).content, [{ type: "text", text: "hello Ada" }])
    }))

  it.scopedLive("a session the server forgot (404) is renewed: initialize again, then the call", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const url = `http://127.0.0.1:${port}/mcp`
      yield* Layer.build(
        NodeMcpServer.layerHttp({ port }).pipe(
          Layer.provide(McpServer.layer({
            serverInfo: { name: "renew-test", version: "1.0.0" },
            tools: [Add]
          }))
        )
      )
      // The session ids the server hands out, as the client's HttpClient sees them.
      const sessions: Array<string> = []
      const recording = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, (client) =>
          HttpClient.tap(client, (response) =>
            Effect.sync(() => {
              const id = response.headers["mcp-session-id"]
              if (id !== undefined && !sessions.includes(id)) sessions.push(id)
            })))
      ).pipe(Layer.provide(FetchHttpClient.layer))
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "renew-test", version: "1.0.0" }, era: "handshake" }).pipe(
          Layer.provide(McpClientTransport.layerHttp({ url })),
          Layer.provide(recording)
        )
      )
      const c = Effect.runSync(Effect.provide(McpClient.McpClient, context))
      assert.deepStrictEqual((yield* c.callTool("add", { a: 1, b: 1 })).structuredContent, { sum: 2 })
      // Someone ends the session behind the client's back: its next requests meet 404.
      yield* Effect.promise(() =>
        fetch(url, {
          method: "DELETE",
          headers: { "mcp-session-id": sessions[0], "mcp-protocol-version": "2025-11-25" }
        })
      )
      const after = yield* Effect.all([c.callTool("add", { a: 2, b: 2 }), c.callTool("add", { a: 3, b: 3 })], {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(after.map((r) => r.structuredContent), [{ sum: 4 }, { sum: 6 }])
      assert.strictEqual(sessions.length, 2, "one new session for both requests")
    }))
})
