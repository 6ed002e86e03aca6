/**
 * Our client against our server, in memory (`McpClientTransport.layerMemory`, the test kit):
 * both eras, `auto` picking each, the server's asks answered by handlers in the handshake era and
 * by the multi-round-trip driver in the stateless one, its limits, progress, cancellation and
 * notifications.
 */
import {
  ClientError,
  McpClient,
  McpClientTransport,
  McpError,
  McpSchema,
  Revision as ClientRevision
} from "@effect-mcp/client"
import { Revision } from "@effect-mcp/core"
import { McpRequest, McpServer, Prompt, Resource, Tool } from "@effect-mcp/server"
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
import * as TestClock from "effect/TestClock"

const form = (message: string) => ({
  mode: "form" as const,
  message,
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } } }
})

const Add = Tool.make("add", {
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

/** Two asks in parallel: one input_required round with both (stateless), two requests (handshake). */
const Greet = Tool.make("greet", { failure: Schema.String }, () =>
  Effect.gen(function*() {
    const [first, last] = yield* Effect.all([
      McpRequest.elicit("first", form("First name?")),
      McpRequest.elicit("last", form("Last name?"))
    ], { concurrency: "unbounded" })
    return `hello ${first.content?.name} ${last.content?.name}`
  }).pipe(Effect.mapError((e) => e.message)))

/** Asks again every round: never completes. */
const Forever = Tool.make("forever", {}, () =>
  Effect.gen(function*() {
    const n = Option.getOrElse(yield* McpRequest.requestState, () => "0")
    return yield* McpServer.inputRequired({
      inputRequests: { again: McpServer.elicitForm(form(`round ${n}?`)) },
      requestState: String(Number(n) + 1)
    })
  }))

const Sample = Tool.make("sample", { failure: Schema.String }, () =>
  Effect.map(
    McpRequest.sample("s", { messages: [], maxTokens: 10 }).pipe(Effect.mapError((e) => e.message)),
    (r) => `model ${r.model}`
  ))

/**
 * Progress 1 of 2; the answer once the caller saw it (`seen`): its `onProgress` runs on a fiber of
 * its own, and may run after the answer came.
 */
const Slow = (seen: Deferred.Deferred<void>) =>
  Tool.make("slow", {}, () =>
    Effect.zipRight(
      Effect.zipRight(McpRequest.progress(1, 2, "half"), Deferred.await(seen)),
      Effect.succeed("done")
    ))

const Doc = Resource.make("test://doc", { name: "doc" }, Effect.succeed("the text"))
const Hello = Prompt.make(
  "hello",
  { description: "Greets" },
  () => Effect.succeed([{ role: "user" as const, content: { type: "text" as const, text: "hi" } }])
)

const serverOptions = {
  serverInfo: { name: "client-test", version: "1.0.0" },
  tools: [Add, Greet, Forever, Sample],
  resources: [Doc],
  prompts: [Hello],
  requestStateKey: Redacted.make("a requestState key for the client tests")
} as const

const server = (revisions: ReadonlyArray<Revision.Revision>) =>
  McpClientTransport.layerMemory((protocol) =>
    McpServer.serve(protocol).pipe(
      Effect.provide(McpServer.layer({ ...serverOptions, revisions }))
    )
  )

const dual = [...Revision.handshake, "2026-07-28"] as const

const elicitation = (answers: Ref.Ref<ReadonlyArray<string>>) => (params: { readonly message: string }) =>
  Effect.as(
    Ref.update(answers, (all) => [...all, params.message]),
    { action: "accept" as const, content: { name: params.message.startsWith("First") ? "Ada" : "Lovelace" } }
  )

const client = (
  revisions: ReadonlyArray<Revision.Revision>,
  options: Partial<McpClient.Options> = {}
) =>
  Effect.gen(function*() {
    const asked = yield* Ref.make<ReadonlyArray<string>>([])
    const context = yield* Layer.build(
      McpClient.layer<never>({
        clientInfo: { name: "test-client", version: "1.0.0" },
        handlers: { elicitation: elicitation(asked) },
        ...options
      }).pipe(Layer.provide(server(revisions)))
    )
    return { client: Effect.runSync(Effect.provide(McpClient.McpClient, context)), asked }
  })

/**
 * Polls `effect` (yielding between tries) until `holds`: for what nothing announces. Dies after 5
 * seconds.
 */
const eventually = <A, E>(effect: Effect.Effect<A, E>, holds: (a: A) => boolean): Effect.Effect<A> =>
  Effect.zipRight(Effect.yieldNow(), effect).pipe(
    Effect.repeat({ until: holds }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the condition never held") }),
    Effect.orDie
  )

describe("McpClient against McpServer (in memory)", () => {
  for (
    const [name, revisions, era] of [
      ["handshake server, auto", Revision.handshake, "handshake"],
      ["stateless server, auto", ["2026-07-28"], "stateless"],
      ["dual server, auto", dual, "stateless"]
    ] as const
  ) {
    it.scoped(`${name}: picks the ${era} era and serves every method`, () =>
      Effect.gen(function*() {
        const { client: c } = yield* client(revisions)
        assert.strictEqual(c.era, era)
        assert.strictEqual(c.revision, era === "stateless" ? "2026-07-28" : "2025-11-25")
        assert.deepStrictEqual(Option.map(c.serverInfo, (i) => i.name), Option.some("client-test"))
        assert.isDefined(c.serverCapabilities.tools)
        const tools = yield* c.listTools
        assert.deepStrictEqual(tools.map((t) => t.name), ["add", "forever", "greet", "sample"])
        const sum = yield* c.callTool("add", { a: 2, b: 3 })
        assert.deepStrictEqual(sum.structuredContent, { sum: 5 })
        const read = yield* c.readResource("test://doc")
        assert.deepStrictEqual(read.contents[0], { uri: "test://doc", text: "the text" })
        assert.deepStrictEqual((yield* c.listResources).map((r) => r.uri), ["test://doc"])
        assert.deepStrictEqual((yield* c.listPrompts).map((p) => p.name), ["hello"])
        const prompt = yield* c.getPrompt("hello")
        assert.deepStrictEqual(prompt.messages[0].content, { type: "text", text: "hi" })
        yield* c.ping
      }))
  }

  it.scoped("a client pinned to the handshake era against a stateless-only server fails with a typed error naming both", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(client(["2026-07-28"], { era: "handshake" }))
      assert.strictEqual(error._tag, "VersionMismatch")
    }))

  it.scoped("the server's asks: real requests in a session, one input_required round statelessly", () =>
    Effect.gen(function*() {
      for (const revisions of [Revision.handshake, ["2026-07-28"] as const]) {
        const { asked, client: c } = yield* client(revisions)
        const result = yield* c.callTool("greet")
        assert.deepStrictEqual(result.content, [{ type: "text", text: "hello Ada Lovelace" }], c.era)
        assert.sameMembers([...yield* Ref.get(asked)], ["First name?", "Last name?"])
      }
    }))

  it.scoped("multi-round trips: a missing handler fails at once naming it; the round limit holds", () =>
    Effect.gen(function*() {
      // Declared, but no handler: the server asks, the client has nothing to answer with.
      const { client: c } = yield* client(["2026-07-28"], {
        maxRoundTrips: 3,
        capabilities: { sampling: {}, elicitation: { form: {} } }
      })
      const missing = yield* Effect.flip(c.callTool("sample"))
      assert.instanceOf(missing, ClientError.MissingHandler)
      assert.strictEqual((missing as ClientError.MissingHandler).handler, "sampling")
      const forever = yield* Effect.flip(c.callTool("forever"))
      assert.instanceOf(forever, ClientError.RoundTripsExceeded)
      assert.strictEqual((forever as ClientError.RoundTripsExceeded).rounds, 3)
    }))

  it.scoped("sampling answered by the handler in both eras", () =>
    Effect.gen(function*() {
      const sampling = () =>
        Effect.succeed({ role: "assistant" as const, model: "m-1", content: { type: "text" as const, text: "ok" } })
      for (const revisions of [Revision.handshake, ["2026-07-28"] as const]) {
        const { client: c } = yield* client(revisions, { handlers: { sampling } })
        const result = yield* c.callTool("sample")
        assert.deepStrictEqual(result.content, [{ type: "text", text: "model m-1" }])
      }
    }))

  it.scopedLive("progress reaches the caller", () =>
    Effect.gen(function*() {
      for (const revisions of [Revision.handshake, ["2026-07-28"] as const]) {
        const progressed = yield* Deferred.make<void>()
        const srv = yield* McpServer.make({
          serverInfo: serverOptions.serverInfo,
          tools: [Slow(progressed)],
          revisions
        })
        const context = yield* Layer.build(
          McpClient.layer({ clientInfo: { name: "test-client", version: "1.0.0" } }).pipe(
            Layer.provide(McpClientTransport.layerMemory((protocol) => srv.serve(protocol)))
          )
        )
        const c = Effect.runSync(Effect.provide(McpClient.McpClient, context))
        const seen = yield* Ref.make<ReadonlyArray<number>>([])
        const done = yield* c.callTool("slow", {}, {
          onProgress: (p) =>
            Effect.zipRight(Ref.update(seen, (all) => [...all, p.progress]), Deferred.succeed(progressed, void 0))
        })
        assert.deepStrictEqual(done.content, [{ type: "text", text: "done" }])
        assert.deepStrictEqual(yield* Ref.get(seen), [1])
      }
    }))

  it.scopedLive("interrupting a call cancels it on the wire: the server's handler is interrupted", () =>
    Effect.gen(function*() {
      for (const revisions of [Revision.handshake, ["2026-07-28"] as const]) {
        const started = yield* Deferred.make<void>()
        const cancelled = yield* Deferred.make<void>()
        const Hang = Tool.make("hang", {}, () =>
          Effect.zipRight(Deferred.succeed(started, void 0), Effect.never).pipe(
            Effect.onInterrupt(() => Deferred.succeed(cancelled, void 0))
          ))
        const srv = yield* McpServer.make({ serverInfo: serverOptions.serverInfo, tools: [Hang, Add], revisions })
        const context = yield* Layer.build(
          McpClient.layer({ clientInfo: { name: "test-client", version: "1.0.0" } }).pipe(
            Layer.provide(McpClientTransport.layerMemory((protocol) => srv.serve(protocol)))
          )
        )
        const c = Effect.runSync(Effect.provide(McpClient.McpClient, context))
        const call = yield* Effect.fork(c.callTool("hang"))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(call)
        yield* Deferred.await(cancelled)
        // The connection still serves.
        assert.deepStrictEqual((yield* c.callTool("add", { a: 1, b: 1 })).structuredContent, { sum: 2 })
      }
    }))

  it.scoped("a server error is the McpError it sent", () =>
    Effect.gen(function*() {
      for (const revisions of [Revision.handshake, ["2026-07-28"] as const]) {
        const { client: c } = yield* client(revisions)
        const error = yield* Effect.flip(c.readResource("test://missing"))
        assert.strictEqual(error._tag, c.era === "handshake" ? "ResourceNotFound" : "InvalidParams")
      }
    }))

  it.scopedLive("a session's notifications are a Stream: a tool added later is announced", () =>
    Effect.gen(function*() {
      const srv = yield* McpServer.make({ ...serverOptions, revisions: Revision.handshake })
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "test-client", version: "1.0.0" } }).pipe(
          Layer.provide(McpClientTransport.layerMemory((protocol) => srv.serve(protocol)))
        )
      )
      const c = Effect.runSync(Effect.provide(McpClient.McpClient, context))
      const changed = yield* Effect.fork(
        Stream.runHead(Stream.filter(c.notifications, (n) => n.method === "notifications/tools/list_changed"))
      )
      yield* Effect.yieldNow()
      yield* srv.addTool(Tool.make("later", {}, () => Effect.succeed("ok")))
      assert.isTrue(Option.isSome(yield* Fiber.join(changed)))
      assert.include((yield* c.listTools).map((t) => t.name), "later")
    }))
})

describe("McpClient.subscribe", () => {
  const connectTo = (revisions: ReadonlyArray<Revision.Revision>) =>
    Effect.gen(function*() {
      const srv = yield* McpServer.make({ ...serverOptions, revisions })
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "test-client", version: "1.0.0" } }).pipe(
          Layer.provide(McpClientTransport.layerMemory((protocol) => srv.serve(protocol)))
        )
      )
      return { srv, c: Effect.runSync(Effect.provide(McpClient.McpClient, context)) }
    })

  it.scopedLive("stateless: acknowledged first, then only what the filter asked for; a graceful close ends it", () =>
    Effect.gen(function*() {
      const { c, srv } = yield* connectTo(["2026-07-28"])
      const sub = yield* c.subscribe({ toolsListChanged: true, resourceSubscriptions: ["test://doc"] })
      assert.deepStrictEqual(sub.acknowledged, { toolsListChanged: true, resourceSubscriptions: ["test://doc"] })
      // Two have come (an unasked one, sent first, would be one of them): then the server closes.
      const two = yield* Deferred.make<void>()
      const count = yield* Ref.make(0)
      const got = yield* Effect.fork(Stream.runCollect(sub.notifications.pipe(
        Stream.tap(() =>
          Effect.flatMap(
            Ref.updateAndGet(count, (n) => n + 1),
            (n) => n === 2 ? Deferred.succeed(two, void 0) : Effect.void
          )
        )
      )))
      yield* srv.addPrompt(Prompt.make("unasked", {}, () => Effect.succeed("x")))
      yield* srv.addTool(Tool.make("later", {}, () => Effect.succeed("ok")))
      yield* srv.resourceUpdated("test://doc")
      yield* Deferred.await(two)
      assert.strictEqual(yield* srv.closeAllSubscriptions, 1)
      const methods = Array.from(yield* Fiber.join(got), (n) => n.method)
      assert.sameMembers(methods, ["notifications/tools/list_changed", "notifications/resources/updated"])
    }))

  it.scopedLive("stateless: closing the scope cancels the listen on the server", () =>
    Effect.gen(function*() {
      const { c, srv } = yield* connectTo(["2026-07-28"])
      yield* Effect.scoped(Effect.flatMap(c.subscribe({ toolsListChanged: true }), () =>
        Effect.map(srv.activeSubscriptions, (open) =>
          assert.strictEqual(open.length, 1))))
      // The cancellation reaches the server on its own fibers: nothing announces its end there.
      yield* eventually(srv.activeSubscriptions, (open) =>
        open.length === 0)
    }))

  it.scopedLive("a session: resources/subscribe for the URIs, the session's list changes", () =>
    Effect.gen(function*() {
      const { c, srv } = yield* connectTo(Revision.handshake)
      const sub = yield* c.subscribe({ toolsListChanged: true, resourceSubscriptions: ["test://doc"] })
      assert.deepStrictEqual(sub.acknowledged, { toolsListChanged: true, resourceSubscriptions: ["test://doc"] })
      // The subscription holds what comes from the moment it is made: nothing to wait for.
      const got = yield* Effect.fork(Stream.runCollect(Stream.take(sub.notifications, 2)))
      yield* srv.addTool(Tool.make("later", {}, () => Effect.succeed("ok")))
      yield* srv.resourceUpdated("test://doc")
      const methods = Array.from(yield* Fiber.join(got), (n) => n.method)
      assert.sameMembers(methods, ["notifications/tools/list_changed", "notifications/resources/updated"])
    }))
})

describe("McpClient response cache (2026-07-28)", () => {
  const connectCached = Effect.gen(function*() {
    const srv = yield* McpServer.make({
      ...serverOptions,
      revisions: ["2026-07-28"],
      cachePolicy: { "tools/list": { ttlMs: 60_000, cacheScope: "public" } }
    })
    const context = yield* Layer.build(
      McpClient.layer({ clientInfo: { name: "test-client", version: "1.0.0" } }).pipe(
        Layer.provide(McpClientTransport.layerMemory((protocol) => srv.serve(protocol)))
      )
    )
    return { srv, c: Effect.runSync(Effect.provide(McpClient.McpClient, context)) }
  })

  it.scoped("a fresh result is answered from the cache; a stale one is asked again", () =>
    Effect.gen(function*() {
      const { c } = yield* connectCached
      yield* c.listTools
      yield* c.listTools
      assert.deepStrictEqual(yield* c.cacheStats, { hits: 1, misses: 1 })
      yield* TestClock.adjust("61 seconds")
      yield* c.listTools
      assert.deepStrictEqual(yield* c.cacheStats, { hits: 1, misses: 2 })
      // A ttlMs of 0 (the default of the other lists) is never kept.
      yield* c.listPrompts
      yield* c.listPrompts
      assert.deepStrictEqual(yield* c.cacheStats, { hits: 1, misses: 4 })
    }))

  it.scoped("a list_changed drops the list at once", () =>
    Effect.gen(function*() {
      const { c, srv } = yield* connectCached
      assert.notInclude((yield* c.listTools).map((t) => t.name), "later")
      // A stateless client hears of changes through a listen.
      yield* Effect.scoped(Effect.gen(function*() {
        const sub = yield* c.subscribe({ toolsListChanged: true })
        const first = yield* Effect.fork(Stream.runHead(sub.notifications))
        yield* Effect.yieldNow()
        yield* srv.addTool(Tool.make("later", {}, () => Effect.succeed("ok")))
        yield* TestClock.adjust("20 millis")
        yield* Fiber.join(first)
      }))
      assert.include((yield* c.listTools).map((t) => t.name), "later")
      assert.deepStrictEqual(yield* c.cacheStats, { hits: 0, misses: 2 })
    }))
})

describe("McpClient roots", () => {
  it.scopedLive("a session keeps the roots it asked for until the client says they changed", () =>
    Effect.gen(function*() {
      const Roots = Tool.make("roots", { failure: Schema.String }, () =>
        Effect.map(
          McpRequest.roots("roots").pipe(Effect.mapError((e) => e.message)),
          (roots) => roots.map((r) => r.uri).join(",")
        ))
      // A session: the handshake era only (the default serves both, and a stateless client is asked each time).
      const srv = yield* McpServer.make({
        serverInfo: serverOptions.serverInfo,
        tools: [Roots],
        revisions: Revision.handshake
      })
      const current = yield* Ref.make([{ uri: "file:///a" }])
      const context = yield* Layer.build(
        McpClient.layer({
          clientInfo: { name: "test-client", version: "1.0.0" },
          handlers: { roots: Ref.get(current) }
        })
          .pipe(Layer.provide(McpClientTransport.layerMemory((protocol) => srv.serve(protocol))))
      )
      const c = Effect.runSync(Effect.provide(McpClient.McpClient, context))
      const text = Effect.map(c.callTool("roots"), (r) => r.content)
      assert.deepStrictEqual(yield* text, [{ type: "text", text: "file:///a" }])
      yield* Ref.set(current, [{ uri: "file:///b" }])
      // Kept by the server: it was not told.
      assert.deepStrictEqual(yield* text, [{ type: "text", text: "file:///a" }])
      yield* c.rootsChanged
      // The server reads the notification on a fiber of its own: asked again once it has.
      assert.deepStrictEqual(
        yield* eventually(text, (content) => JSON.stringify(content).includes("file:///b")),
        [{ type: "text", text: "file:///b" }]
      )
    }))
})

describe("one import serves a client author", () => {
  it("McpError, Revision and McpSchema come from @effect-mcp/client", () => {
    const error: McpError.McpError = new McpError.MethodNotFound({ method: "tools/frobnicate" })
    assert.strictEqual(error.toWire("2025-11-25").code, -32601)
    assert.deepStrictEqual(ClientRevision.all, Revision.all)
    assert.isTrue(Schema.is(McpSchema.Tool.CallToolResult)({ content: [{ type: "text", text: "hi" }] }))
  })
})
