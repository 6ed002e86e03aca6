/**
 * The proxy in one process: a handshake-only upstream (an `McpServer` on an in-memory
 * connection) served to a 2026-07-28 client through `Proxy.layerFrom`. What the upstream does is
 * observed on the upstream itself: a cancelled call is interrupted there, its asks reach the
 * downstream client as `input_required` rounds, its list changes and resource updates reach the
 * downstream subscription.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { Revision } from "@effect-mcp/core"
import { McpRequest, McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Proxy from "../src/Proxy.js"

const form = (message: string) => ({
  mode: "form" as const,
  message,
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } } }
})

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

/** Asks twice, one after the other: two `input_required` rounds downstream. */
const Greet = Tool.make("greet", { failure: Schema.String }, () =>
  Effect.gen(function*() {
    const first = yield* McpRequest.elicit("first", form("First name?"))
    const last = yield* McpRequest.elicit("last", form("Last name?"))
    return `hello ${first.content?.name} ${last.content?.name}`
  }).pipe(Effect.mapError((e) => e.message)))

const Doc = Resource.make("test://doc", { name: "doc", mimeType: "text/plain" }, Effect.succeed("the text"))
const Files = Resource.template("file:///{name}", { name: "files" }, ({ name }) => Effect.succeed(`file ${name}`))
const Hello = Prompt.make("hello", {
  description: "Greets",
  arguments: Schema.Struct({ who: Schema.String.annotations({ description: "Who to greet" }) })
}, ({ who }) => Effect.succeed(`Say hello to ${who}`))

/**
 * An upstream with a tool that waits until cancelled (and says when it started and when it was
 * cancelled), one that answers once the downstream caller saw its progress, and the proxy's client
 * of it.
 */
const setupWith = (upstreamEra: "handshake" | "stateless") =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const cancelled = yield* Deferred.make<void>()
    const progressed = yield* Deferred.make<void>()
    const kill = yield* Deferred.make<void>()
    const Hang = Tool.make("hang", {}, () =>
      Effect.zipRight(Deferred.succeed(started, void 0), Effect.never).pipe(
        Effect.onInterrupt(() => Deferred.succeed(cancelled, void 0))
      ))
    // Progress 1 of 2, then the answer once the caller saw it (its `onProgress` runs on a fiber of its own).
    const Steps = Tool.make("steps", {}, () =>
      Effect.zipRight(
        Effect.zipRight(McpRequest.progress(1, 2, "half way"), Deferred.await(progressed)),
        Effect.succeed("done")
      ))
    const upstreamContext = yield* Layer.build(McpServer.layer({
      serverInfo: { name: "upstream", version: "2.0.0" },
      revisions: upstreamEra === "handshake" ? Revision.handshake : ["2026-07-28"],
      tools: [Add, Greet, Steps, Hang],
      resources: [Doc, Files],
      prompts: [Hello]
    }))
    const upstream = Context.get(upstreamContext, McpServer.McpServer)
    const proxy = Proxy.layerFrom({ clientInfo: { name: "proxy", version: "0.1.0" }, era: upstreamEra }, {
      revisions: ["2026-07-28"]
    }).pipe(Layer.provide(McpClientTransport.layerMemory((protocol) =>
      // `kill` ends the upstream with a failure whose words are not for the downstream clients.
      Effect.raceFirst(
        upstream.serve(protocol),
        Effect.zipRight(Deferred.await(kill), Effect.fail(new Error("the upstream's own words: token=SECRET")))
      )
    )))
    const asked = yield* Ref.make<ReadonlyArray<string>>([])
    const downstreamContext = yield* Layer.build(
      McpClient.layer({
        clientInfo: { name: "downstream", version: "1.0.0" },
        era: "stateless",
        handlers: {
          elicitation: (params) =>
            Effect.as(Ref.update(asked, (all) => [...all, params.message]), {
              action: "accept" as const,
              content: { name: params.message.startsWith("First") ? "Ada" : "Lovelace" }
            })
        }
      }).pipe(
        Layer.provide(
          McpClientTransport.layerMemory((protocol) =>
            Effect.flatMap(McpServer.McpServer, (server) => server.serve(protocol)).pipe(Effect.provide(proxy))
          )
        )
      )
    )
    const client = Context.get(downstreamContext, McpClient.McpClient)
    return { client, upstream, started, cancelled, progressed, asked, kill }
  })

const setup = setupWith("handshake")

describe("Proxy: a handshake upstream served as 2026-07-28", () => {
  it.scopedLive("mirrors the upstream: info, tools, resources, templates, prompts; calls forwarded", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      assert.strictEqual(client.revision, "2026-07-28")
      assert.deepStrictEqual(Option.map(client.serverInfo, (i) => i.name), Option.some("upstream"))
      assert.deepStrictEqual((yield* client.listTools).map((t) => t.name).sort(), ["add", "greet", "hang", "steps"])
      const add = (yield* client.listTools).find((t) => t.name === "add")!
      assert.deepStrictEqual(add.outputSchema?.properties, { sum: { type: "number" } })
      assert.deepStrictEqual((yield* client.callTool("add", { a: 2, b: 40 })).structuredContent, { sum: 42 })
      const invalid = yield* client.callTool("add", { a: "two" })
      assert.isTrue(invalid.isError)

      assert.deepStrictEqual((yield* client.listResources).map((r) => r.uri), ["test://doc"])
      assert.deepStrictEqual((yield* client.listResourceTemplates).map((t) => t.uriTemplate), ["file:///{name}"])
      const doc = yield* client.readResource("test://doc")
      assert.deepStrictEqual(doc.contents, [{ uri: "test://doc", mimeType: "text/plain", text: "the text" }])
      const file = yield* client.readResource("file:///notes")
      assert.strictEqual((file.contents[0] as { readonly text: string }).text, "file notes")

      const prompt = (yield* client.listPrompts)[0]!
      assert.deepStrictEqual(prompt.arguments, [{ name: "who", description: "Who to greet", required: true }])
      const got = yield* client.getPrompt("hello", { who: "Ada" })
      assert.deepStrictEqual(got.messages[0]!.content, { type: "text", text: "Say hello to Ada" })
    }))

  it.scopedLive("an upstream that goes away is a -32603 for the call, without the upstream's own words", () =>
    Effect.gen(function*() {
      const { client, kill, started } = yield* setup
      const call = yield* Effect.fork(Effect.flip(client.callTool("hang", {})))
      yield* Deferred.await(started)
      yield* Deferred.succeed(kill, void 0)
      const error = yield* Fiber.join(call).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(error._tag, "InternalError")
      assert.strictEqual(error.message, "proxy: the upstream server closed before tools/call was answered")
      assert.notInclude(error.message, "SECRET")
    }))

  it.scopedLive("progress is forwarded; an interrupted call is cancelled upstream", () =>
    Effect.gen(function*() {
      const { cancelled, client, progressed, started } = yield* setup
      const seen: Array<string> = []
      const done = yield* client.callTool("steps", {}, {
        onProgress: (p) =>
          Effect.zipRight(
            Effect.sync(() => seen.push(`${p.progress}/${p.total} ${p.message}`)),
            Deferred.succeed(progressed, void 0)
          )
      })
      assert.deepStrictEqual(done.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(seen, ["1/2 half way"])

      const call = yield* Effect.fork(client.callTool("hang", {}))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(call)
      yield* Deferred.await(cancelled).pipe(Effect.timeout("2 seconds"))
    }))

  it.scopedLive("the upstream's asks reach the downstream client as input_required rounds", () =>
    Effect.gen(function*() {
      const { asked, client } = yield* setup
      const result = yield* client.callTool("greet", {})
      assert.deepStrictEqual(result.content, [{ type: "text", text: "hello Ada Lovelace" }])
      assert.deepStrictEqual(yield* Ref.get(asked), ["First name?", "Last name?"])
    }))

  it.scopedLive("with two requests in flight, the upstream's ask is refused, not guessed", () =>
    Effect.gen(function*() {
      const { asked, client, started } = yield* setup
      const hanging = yield* Effect.fork(client.callTool("hang", {}))
      yield* Deferred.await(started)
      const result = yield* client.callTool("greet", {})
      assert.isTrue(result.isError)
      assert.include(JSON.stringify(result.content), "2 requests are in flight")
      assert.deepStrictEqual(yield* Ref.get(asked), [])
      yield* Fiber.interrupt(hanging)
    }))

  it.scopedLive("list changes and resource updates reach the downstream subscription", () =>
    Effect.gen(function*() {
      const { client, upstream } = yield* setup
      const subscription = yield* client.subscribe({ toolsListChanged: true, resourceSubscriptions: ["test://doc"] })
      assert.isTrue(subscription.acknowledged.toolsListChanged)
      const next = yield* Stream.toPull(subscription.notifications)
      yield* upstream.addTool(Tool.make("added", {}, () => Effect.succeed("new")))
      const changed = yield* next.pipe(Effect.timeout("3 seconds"))
      assert.strictEqual(Chunk.unsafeHead(changed).method, "notifications/tools/list_changed")
      assert.include((yield* client.listTools).map((t) => t.name), "added")

      yield* upstream.resourceUpdated("test://doc")
      const updated = yield* next.pipe(Effect.timeout("3 seconds"))
      assert.strictEqual(Chunk.unsafeHead(updated).method, "notifications/resources/updated")
      assert.strictEqual((Chunk.unsafeHead(updated).params as { readonly uri: string }).uri, "test://doc")
    }))
})

describe("Proxy: a 2026-07-28 upstream", () => {
  it.scopedLive("each call's asks are its own rounds: routed to it, however many requests are in flight", () =>
    Effect.gen(function*() {
      const { asked, client, started } = yield* setupWith("stateless")
      const hanging = yield* Effect.fork(client.callTool("hang", {}))
      yield* Deferred.await(started)
      // Before: refused ("2 requests are in flight"), as for a handshake upstream.
      const [one, two] = yield* Effect.all([client.callTool("greet", {}), client.callTool("greet", {})], {
        concurrency: "unbounded"
      })
      for (const result of [one, two]) {
        assert.deepStrictEqual(result.content, [{ type: "text", text: "hello Ada Lovelace" }])
      }
      assert.deepStrictEqual([...(yield* Ref.get(asked))].sort(), [
        "First name?",
        "First name?",
        "Last name?",
        "Last name?"
      ])
      yield* Fiber.interrupt(hanging)
    }))
})
