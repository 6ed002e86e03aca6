/**
 * `subscriptions/listen` (2026-07-28) at the wire: the acknowledgement first, with the listen
 * request's own id; filters (kinds asked for, exact URIs and trailing-slash prefixes); the stored
 * filter reaching a capability gained later; graceful ends (closeSubscription,
 * closeAllSubscriptions, the server's and the engine's end) and cancellation; demultiplexing;
 * dual-era coexistence; the notification bus; a thousand listens; the limits (open per server and
 * per client, URIs and length of a filter) and the index that matches updates. Every message on
 * the wire is validated against the official schema.
 */
import type { JsonRpc, Transport } from "@effect-mcp/core"
import { MemoryTransport } from "@effect-mcp/core"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as McpRequest from "../src/McpRequest.js"
import * as McpServer from "../src/McpServer.js"
import * as NotificationBus from "../src/NotificationBus.js"
import * as Prompt from "../src/Prompt.js"
import * as Resource from "../src/Resource.js"
import * as Tool from "../src/Tool.js"
import type { TestClient } from "./utils/TestClient.js"
import { attach, clientInfo, connect, flush, handshakeRevisions, meta } from "./utils/TestClient.js"

const serverInfo = { name: "subscriptions-test", version: "1.0.0" }
const SUB = "io.modelcontextprotocol/subscriptionId"

const named = (name: string) => Tool.make(name, {}, () => Effect.succeed(name))
const prompt = (name: string) => Prompt.make(name, {}, () => Effect.succeed(name))
const resource = (uri: string) => Resource.make(uri, { name: uri }, Effect.succeed(uri))

const options = {
  serverInfo,
  tools: [named("echo")],
  prompts: [prompt("hello")],
  resources: [resource("test://a"), resource("test://dir/x")],
  revisions: ["2026-07-28"]
} as const
const dual = { ...options, revisions: [...handshakeRevisions, "2026-07-28"] } as const

type Filter = Record<string, unknown>

// ---------------------------------------------------------------------------- the wire, validated

const notificationDefinitions: Record<string, string> = {
  "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification"
}

/** The official definition a message the server sent must satisfy. */
const definitionOf = (message: any): string => {
  if ("method" in message) return notificationDefinitions[message.method] ?? "JSONRPCNotification"
  if ("error" in message) {
    return message.error.code === -32021 ? "MissingRequiredClientCapabilityError" : "JSONRPCErrorResponse"
  }
  return message.result?._meta?.[SUB] !== undefined ? "SubscriptionsListenResultResponse" : "JSONRPCResultResponse"
}

/** A message of the server, valid against the official schema of `revision`. */
const valid = (message: any, revision: "2026-07-28" | "2025-11-25" = "2026-07-28") => {
  assert.isUndefined(validate(revision, definitionOf(message), message), JSON.stringify(message))
  return message
}

const listenRequest = (id: JsonRpc.RequestId, notifications: Filter, extraMeta: Record<string, unknown> = {}) => {
  const request = {
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: { _meta: meta(extraMeta), notifications }
  }
  assert.isUndefined(validate("2026-07-28", "SubscriptionsListenRequest", request))
  return request
}

/** What a client needs here: write a message, read the next one. */
interface Wire {
  readonly send: (message: unknown) => Effect.Effect<void>
  readonly next: Effect.Effect<any, Transport.TransportError>
}

/** Opens a subscription; returns its acknowledgement (the first message for it). */
const listen = (client: Wire, id: JsonRpc.RequestId, notifications: Filter, extraMeta?: Record<string, unknown>) =>
  Effect.gen(function*() {
    yield* client.send(listenRequest(id, notifications, extraMeta))
    const ack = valid(yield* client.next)
    assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
    assert.strictEqual(ack.params._meta[SUB], id)
    assert.strictEqual(typeof ack.params._meta[SUB], typeof id)
    return ack
  })

/** The next `n` messages, each valid. */
const take = (client: Wire, n: number) =>
  Effect.gen(function*() {
    const out: Array<any> = []
    for (let i = 0; i < n; i++) out.push(valid(yield* client.next))
    return out
  })

/** What the server sent up to now: whatever arrives before the answer to a discover. */
const pending = (client: TestClient) =>
  Effect.map(client.exchange("server/discover", { _meta: meta() }), ({ before, response }) => {
    valid(response)
    return before.map((m) => valid(m))
  })

/** A change notification of a subscription: method, subscription id, and URI when there is one. */
const summary = (m: any) => [m.method, m.params?._meta?.[SUB], ...(m.params?.uri !== undefined ? [m.params.uri] : [])]

/** The graceful end of subscription `id`: its listen request answered with the envelope. */
const assertClosed = (response: any, id: JsonRpc.RequestId) => {
  valid(response)
  assert.deepStrictEqual(response, {
    jsonrpc: "2.0",
    id,
    result: { resultType: "complete", _meta: { [SUB]: id, "io.modelcontextprotocol/serverInfo": serverInfo } }
  })
}

/** Yields until `effect` satisfies `predicate` (fiber interruptions are asynchronous). */
const eventually = <A>(effect: Effect.Effect<A>, predicate: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      const a = yield* effect
      if (predicate(a)) return a
      yield* Effect.yieldNow()
    }
    return assert.fail("the condition never held")
  })

// ---------------------------------------------------------------------------- tests

describe("subscriptions/listen: the acknowledgement", () => {
  it.scoped("comes first, tagged with the listen request's own id, a number or a string", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const byNumber = yield* listen(client, 100, { toolsListChanged: true })
      assert.deepStrictEqual(byNumber, {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { toolsListChanged: true }, _meta: { [SUB]: 100 } }
      })
      const byString = yield* listen(client, "watch-1", { toolsListChanged: true })
      assert.strictEqual(byString.params._meta[SUB], "watch-1")
      yield* client.server.addTool(named("added"))
      yield* flush
      const changes = yield* take(client, 2)
      assert.deepStrictEqual(changes.map(summary).sort(), [
        ["notifications/tools/list_changed", 100],
        ["notifications/tools/list_changed", "watch-1"]
      ])
      assert.deepStrictEqual(yield* pending(client), [])
    }))

  it.scoped("says what the server can serve at that instant: unsupported kinds are left out", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [named("echo")], revisions: ["2026-07-28"] })
      const ack = yield* listen(client, 100, {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ["test://a"]
      })
      assert.deepStrictEqual(ack.params.notifications, { toolsListChanged: true })
      // Full capabilities: everything asked for is acknowledged; `false` asks for nothing.
      const full = yield* connect(options)
      const everything = yield* listen(full, 100, {
        toolsListChanged: false,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ["test://a", "test://dir/"]
      })
      assert.deepStrictEqual(everything.params.notifications, {
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ["test://a", "test://dir/"]
      })
    }))

  it.scoped("invalid listens: -32602 (no filter, a bad one, no _meta), -32021 for taskIds without the tasks extension", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      for (
        const params of [
          { _meta: meta() },
          { _meta: meta(), notifications: { toolsListChanged: "yes" } },
          { _meta: meta(), notifications: { resourceSubscriptions: "test://a" } },
          { _meta: meta(), notifications: [] },
          { notifications: { toolsListChanged: true } }
        ]
      ) {
        const response = valid(yield* client.call("subscriptions/listen", params))
        assert.strictEqual(response.error.code, -32602, JSON.stringify(params))
        assert.isNumber(response.id)
        assert.isUndefined(validate("2026-07-28", "InvalidParamsError", response.error))
      }
      const tasks = valid(
        yield* client.call("subscriptions/listen", { _meta: meta(), notifications: { taskIds: ["t1"] } })
      )
      assert.strictEqual(tasks.error.code, -32021)
      assert.deepStrictEqual(tasks.error.data, {
        requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } }
      })
      // Declared: the server does not serve the extension, so taskIds is left out of the acknowledgement.
      yield* client.send({
        jsonrpc: "2.0",
        id: 100,
        method: "subscriptions/listen",
        params: {
          _meta: meta({}, { extensions: { "io.modelcontextprotocol/tasks": {} } }),
          notifications: { taskIds: ["t1"], toolsListChanged: true }
        }
      })
      const ack = valid(yield* client.next)
      assert.deepStrictEqual(ack.params.notifications, { toolsListChanged: true })
      assert.strictEqual((yield* client.server.activeSubscriptions).length, 1)
    }))

  it.scoped("a handshake session has no subscriptions/listen (-32601)", () =>
    Effect.gen(function*() {
      const client = yield* connect({ ...options, revisions: handshakeRevisions })
      yield* client.initialize("2025-11-25")
      const error = yield* client.error("subscriptions/listen", { notifications: { toolsListChanged: true } })
      assert.strictEqual(error.code, -32601)
    }))
})

describe("subscriptions/listen: what reaches a subscription", () => {
  it.scoped("only the kinds it asked for; resourceSubscriptions exact, or every URI beneath one ending in /", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* listen(client, 100, { toolsListChanged: true })
      yield* listen(client, 101, { resourceSubscriptions: ["test://a"] })
      yield* listen(client, 102, { resourceSubscriptions: ["test://dir/"] })
      yield* listen(client, 103, { promptsListChanged: true, resourcesListChanged: true })
      yield* client.server.addPrompt(prompt("bye"))
      yield* client.server.resourceUpdated("test://a")
      yield* client.server.resourceUpdated("test://a/b") // not test://a
      yield* client.server.resourceUpdated("test://dir/x")
      yield* client.server.resourceUpdated("test://dir/deep/y")
      yield* client.server.resourceUpdated("test://dirx") // not beneath test://dir/
      yield* client.server.resourceUpdated("test://dir") // not beneath test://dir/ either
      yield* flush
      const changes = yield* take(client, 4)
      assert.deepStrictEqual(changes.map(summary).sort(), [
        ["notifications/prompts/list_changed", 103],
        ["notifications/resources/updated", 101, "test://a"],
        ["notifications/resources/updated", 102, "test://dir/deep/y"],
        ["notifications/resources/updated", 102, "test://dir/x"]
      ])
      assert.deepStrictEqual(yield* pending(client), [])
      yield* client.server.addResource(resource("test://new"))
      yield* flush
      assert.deepStrictEqual((yield* take(client, 1)).map(summary), [["notifications/resources/list_changed", 103]])
      assert.deepStrictEqual(yield* pending(client), [])
    }))

  it.scoped("a burst of edits in one window: one notification per subscription and kind", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* listen(client, 100, { toolsListChanged: true, resourceSubscriptions: ["test://a"] })
      yield* client.server.addTool(named("one"))
      yield* client.server.addTool(named("two"))
      yield* client.server.removeTool("echo")
      yield* client.server.resourceUpdated("test://a")
      yield* client.server.resourceUpdated("test://a")
      yield* flush
      const changes = yield* take(client, 2)
      assert.deepStrictEqual(changes.map(summary), [
        ["notifications/tools/list_changed", 100],
        ["notifications/resources/updated", 100, "test://a"]
      ])
      assert.deepStrictEqual(yield* pending(client), [])
    }))

  it.scoped("a change made before the listen shows in its acknowledgement, not on its stream", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, revisions: ["2026-07-28"] })
      yield* client.server.addTool(named("early"))
      // Still in the coalescing window when the subscription opens.
      const ack = yield* listen(client, 100, { toolsListChanged: true })
      assert.deepStrictEqual(ack.params.notifications, { toolsListChanged: true })
      yield* flush
      assert.deepStrictEqual(yield* pending(client), [])
    }))

  it.scoped("the stored filter is the one asked for: a tool added to a server that had none reaches it", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, revisions: ["2026-07-28"] })
      const ack = yield* listen(client, 100, { toolsListChanged: true, resourceSubscriptions: ["test://late"] })
      assert.deepStrictEqual(ack.params.notifications, {})
      const [active] = yield* client.server.activeSubscriptions
      assert.deepStrictEqual(active.filter, { toolsListChanged: true, resourceSubscriptions: ["test://late"] })
      assert.deepStrictEqual(active.acknowledged, {})
      // No resources served yet: resources/updated is not (resources.subscribe is not served).
      yield* client.server.resourceUpdated("test://late")
      yield* flush
      assert.deepStrictEqual(yield* pending(client), [])
      yield* client.server.addTool(named("late"))
      yield* flush
      assert.deepStrictEqual((yield* take(client, 1)).map(summary), [["notifications/tools/list_changed", 100]])
      yield* client.server.addResource(resource("test://late"))
      yield* client.server.resourceUpdated("test://late")
      yield* flush
      assert.deepStrictEqual((yield* take(client, 1)).map(summary), [
        ["notifications/resources/updated", 100, "test://late"]
      ])
      const tools = yield* client.result("tools/list", { _meta: meta() })
      assert.deepStrictEqual(tools.tools.map((t: any) => t.name), ["late"])
    }))

  it.scoped("two subscriptions at once are told apart by their ids", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* listen(client, "tools", { toolsListChanged: true })
      yield* listen(client, 100, { resourceSubscriptions: ["test://a"] })
      yield* client.server.addTool(named("more"))
      yield* client.server.resourceUpdated("test://a")
      yield* flush
      const changes = yield* take(client, 2)
      const of = (id: JsonRpc.RequestId) => changes.filter((m) => m.params._meta[SUB] === id)
      assert.deepStrictEqual(of("tools").map((m) => m.method), ["notifications/tools/list_changed"])
      assert.deepStrictEqual(of(100).map((m) => [m.method, m.params.uri]), [
        ["notifications/resources/updated", "test://a"]
      ])
      assert.deepStrictEqual(of("tools")[0].params, { _meta: { [SUB]: "tools" } })
    }))

  it.scoped("only change notifications, on the listen request's own stream; a tool's own context is not it", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const { protocol, remote } = yield* MemoryTransport.connection
      const sent = yield* Ref.make<ReadonlyArray<{ readonly message: any; readonly related: unknown }>>([])
      const recording: Transport.Protocol = {
        ...protocol,
        send: (client, frame, context) =>
          Effect.zipRight(
            Ref.update(sent, (all) => [...all, { message: frame, related: context?.related }]),
            protocol.send(client, frame, context)
          )
      }
      yield* Effect.forkScoped(server.serve(recording))
      const client: Wire = {
        send: (message) => remote.write(JSON.stringify(message)),
        next: Effect.map(remote.read, (text) => JSON.parse(text))
      }
      // A tool that reports progress, logs, and tells of a change, in its own request.
      const Touch = Tool.make("touch", {}, () =>
        Effect.gen(function*() {
          yield* McpRequest.progress(1, 2)
          yield* McpRequest.log("info", "touching")
          yield* (yield* McpServer.McpServer).resourceUpdated("test://a")
          return "touched"
        }))
      yield* server.addTool(Touch).pipe(Effect.provideService(McpServer.McpServer, server))
      // The listen asks for progress and logs too: neither may reach its stream.
      yield* listen(client, 100, { resourceSubscriptions: ["test://a"] }, {
        progressToken: "listen-progress",
        "io.modelcontextprotocol/logLevel": "debug"
      })
      yield* client.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "touch", _meta: meta({ progressToken: "p", "io.modelcontextprotocol/logLevel": "debug" }) }
      })
      const call = yield* take(client, 3)
      assert.deepStrictEqual(call.map((m) => m.method ?? m.id), ["notifications/progress", "notifications/message", 1])
      yield* flush
      const [updated] = yield* take(client, 1)
      assert.deepStrictEqual(summary(updated), ["notifications/resources/updated", 100, "test://a"])
      const records = yield* Ref.get(sent)
      const onListen = records.filter((r) => r.related === 100).map((r) => r.message.method)
      assert.deepStrictEqual(onListen, ["notifications/subscriptions/acknowledged", "notifications/resources/updated"])
      const onCall = records.filter((r) => r.related === 1).map((r) => r.message.method ?? "response")
      assert.deepStrictEqual(onCall, ["notifications/progress", "notifications/message", "response"])
    }))
})

describe("subscriptions/listen: ending", () => {
  it.scoped("activeSubscriptions, closeSubscription and closeAllSubscriptions answer gracefully", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      assert.deepStrictEqual(yield* client.server.activeSubscriptions, [])
      yield* listen(client, 100, { toolsListChanged: true })
      yield* listen(client, "b", { resourceSubscriptions: ["test://a"] })
      yield* listen(client, 102, { promptsListChanged: true })
      const active = yield* client.server.activeSubscriptions
      assert.deepStrictEqual(active.map((s) => s.subscriptionId), [100, "b", 102])
      assert.strictEqual(new Set(active.map((s) => s.handle)).size, 3)
      assert.deepStrictEqual(active[1].filter, { resourceSubscriptions: ["test://a"] })
      assert.deepStrictEqual(active[1].acknowledged, { resourceSubscriptions: ["test://a"] })
      assert.deepStrictEqual(active[0].clientInfo, Option.some(clientInfo))
      assert.strictEqual(active[0].client, client.remote.client)

      assert.isTrue(yield* client.server.closeSubscription(active[1].handle))
      assertClosed(yield* client.next, "b")
      assert.isFalse(yield* client.server.closeSubscription(active[1].handle))
      assert.deepStrictEqual((yield* client.server.activeSubscriptions).map((s) => s.subscriptionId), [100, 102])
      // Closed means closed: a change it asked for no longer reaches it.
      yield* client.server.resourceUpdated("test://a")
      yield* flush
      assert.deepStrictEqual(yield* pending(client), [])
      // A listed subscription may be given as it is.
      assert.isTrue(yield* client.server.closeSubscription(active[2]))
      assertClosed(yield* client.next, 102)

      assert.strictEqual(yield* client.server.closeAllSubscriptions, 1)
      assertClosed(yield* client.next, 100)
      assert.deepStrictEqual(yield* client.server.activeSubscriptions, [])
      assert.strictEqual(yield* client.server.closeAllSubscriptions, 0)
      // The id may be used again once its listen is answered.
      yield* listen(client, 100, { toolsListChanged: true })
    }))

  it.scoped("what a subscription had yet to send is sent before its answer", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* listen(client, 100, { toolsListChanged: true })
      yield* client.server.addTool(named("x"))
      yield* flush
      assert.isTrue(yield* client.server.closeSubscription((yield* client.server.activeSubscriptions)[0]))
      const [change, answer] = yield* take(client, 2)
      assert.deepStrictEqual(summary(change), ["notifications/tools/list_changed", 100])
      assertClosed(answer, 100)
    }))

  it.scoped("a client's cancel (notifications/cancelled) ends it: unanswered, forgotten, told nothing more", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      yield* listen(client, 100, { toolsListChanged: true })
      yield* listen(client, 101, { toolsListChanged: true })
      yield* client.notify("notifications/cancelled", { requestId: 100 })
      const left = yield* eventually(client.server.activeSubscriptions, (all) => all.length === 1)
      assert.strictEqual(left[0].subscriptionId, 101)
      yield* client.server.addTool(named("after"))
      yield* flush
      assert.deepStrictEqual((yield* take(client, 1)).map(summary), [["notifications/tools/list_changed", 101]])
      assert.deepStrictEqual(yield* pending(client), [])
    }))

  it.scoped("a client gone (its connection closed): its subscriptions are forgotten", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const client = yield* attach(server)
      yield* listen(client, 100, { toolsListChanged: true })
      yield* client.remote.close
      yield* eventually(server.activeSubscriptions, (all) => all.length === 0)
    }))

  it.scoped("the server's end answers every subscription gracefully", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* Scope.extend(McpServer.make(options), scope)
      const client = yield* attach(server)
      yield* listen(client, 100, { toolsListChanged: true })
      yield* listen(client, "b", { promptsListChanged: true })
      yield* Scope.close(scope, Exit.void)
      const answers = yield* take(client, 2)
      assertClosed(answers.find((m) => m.id === 100), 100)
      assertClosed(answers.find((m) => m.id === "b"), "b")
    }))

  it.scoped("the end of an engine answers the subscriptions it serves while its transport still runs", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const { protocol, remote } = yield* MemoryTransport.connection
      const serving = yield* Effect.forkDaemon(Effect.scoped(server.serve(protocol)))
      const client: Wire = {
        send: (message) => remote.write(JSON.stringify(message)),
        next: Effect.map(remote.read, (text) => JSON.parse(text))
      }
      yield* listen(client, 100, { toolsListChanged: true })
      yield* Fiber.interrupt(serving)
      assertClosed(yield* client.next, 100)
      assert.deepStrictEqual(yield* server.activeSubscriptions, [])
    }))

  it.scoped("ids are per client: two clients' listens with id 1 are two subscriptions, closed one by one", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const memory = yield* MemoryTransport.make
      yield* Effect.forkScoped(server.serve(memory.protocol))
      const wire = (endpoint: MemoryTransport.TextEndpoint): Wire => ({
        send: (message) => endpoint.write(JSON.stringify(message)),
        next: Effect.map(endpoint.read, (text) => JSON.parse(text))
      })
      const a = yield* memory.connect
      const b = yield* memory.connect
      yield* listen(wire(a), 1, { toolsListChanged: true })
      yield* listen(wire(b), 1, { toolsListChanged: true })
      const active = yield* server.activeSubscriptions
      assert.deepStrictEqual(active.map((s) => [s.subscriptionId, s.client]), [[1, a.client], [1, b.client]])
      assert.notStrictEqual(active[0].handle, active[1].handle)
      assert.isTrue(yield* server.closeSubscription(active[1].handle))
      assertClosed(yield* wire(b).next, 1)
      yield* server.addTool(named("more"))
      yield* flush
      assert.deepStrictEqual(summary(valid(yield* wire(a).next)), ["notifications/tools/list_changed", 1])
      assert.deepStrictEqual((yield* server.activeSubscriptions).map((s) => s.client), [a.client])
    }))
})

describe("subscriptions/listen: dual era on one connection", () => {
  it.scoped("a change reaches the handshake session (untagged) and the subscription (tagged); neither disturbs the other", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      yield* listen(client, 100, { toolsListChanged: true, resourceSubscriptions: ["test://a"] })
      yield* client.initialize("2025-11-25")
      yield* client.result("resources/subscribe", { uri: "test://a" })
      yield* client.server.addTool(named("shared"))
      yield* client.server.resourceUpdated("test://a")
      yield* flush
      const messages = yield* take(client, 4)
      const tagged = messages.filter((m) => m.params?._meta?.[SUB] !== undefined)
      const untagged = messages.filter((m) => m.params?._meta?.[SUB] === undefined)
      assert.deepStrictEqual(tagged.map(summary).sort(), [
        ["notifications/resources/updated", 100, "test://a"],
        ["notifications/tools/list_changed", 100]
      ])
      assert.deepStrictEqual(untagged.sort((x, y) => x.method.localeCompare(y.method)), [
        { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://a" } },
        { jsonrpc: "2.0", method: "notifications/tools/list_changed" }
      ])
      for (const m of untagged) valid(m, "2025-11-25")
      // Both still work.
      assert.deepStrictEqual(yield* client.result("ping"), {})
      assert.strictEqual((yield* client.result("tools/list", { _meta: meta() })).resultType, "complete")
      assert.strictEqual(yield* client.server.closeAllSubscriptions, 1)
      assertClosed(yield* client.next, 100)
      yield* client.server.addTool(named("again"))
      yield* flush
      assert.deepStrictEqual(yield* client.next, { jsonrpc: "2.0", method: "notifications/tools/list_changed" })
    }))
})

describe("the notification bus", () => {
  it.scoped("a bus of the server's context: edits are published to it as plain data, and what it delivers reaches subscriptions", () =>
    Effect.gen(function*() {
      const inner = yield* NotificationBus.make
      const published = yield* Ref.make<ReadonlyArray<NotificationBus.Event>>([])
      const bus: NotificationBus.Service = {
        publish: (event) => Effect.zipRight(Ref.update(published, (all) => [...all, event]), inner.publish(event)),
        subscribe: inner.subscribe
      }
      const server = yield* McpServer.make(options).pipe(Effect.provideService(NotificationBus.NotificationBus, bus))
      const client = yield* attach(server)
      yield* listen(client, 100, { toolsListChanged: true, resourceSubscriptions: ["test://dir/"] })
      yield* server.addTool(named("one"))
      yield* server.removeTool("one")
      yield* server.addPrompt(prompt("p"))
      yield* server.resourceUpdated("test://dir/x")
      const events = yield* Ref.get(published)
      // Marked with the server's origin: it skips them when the bus delivers them back.
      const origin = events[0].origin
      assert.isString(origin)
      assert.deepStrictEqual(events, [
        { _tag: "ListChanged", kind: "tools", origin },
        { _tag: "ListChanged", kind: "tools", origin },
        { _tag: "ListChanged", kind: "prompts", origin },
        { _tag: "ResourceUpdated", uri: "test://dir/x", origin }
      ])
      // Plain data: JSON and back is the same event.
      for (const event of events) {
        assert.deepStrictEqual(NotificationBus.decode(JSON.parse(JSON.stringify(NotificationBus.encode(event)))), event)
      }
      // Told once, though the bus delivered the changes back.
      yield* flush
      assert.deepStrictEqual((yield* take(client, 2)).map(summary), [
        ["notifications/tools/list_changed", 100],
        ["notifications/resources/updated", 100, "test://dir/x"]
      ])
      // From another process, say: published on the bus, not by this server.
      yield* inner.publish(
        NotificationBus.decode(JSON.parse("{\"_tag\":\"ResourceUpdated\",\"uri\":\"test://dir/y\"}"))
      )
      yield* flush
      assert.deepStrictEqual((yield* take(client, 1)).map(summary), [
        ["notifications/resources/updated", 100, "test://dir/y"]
      ])
      assert.deepStrictEqual(yield* pending(client), [])
    }))

  it.scoped("two servers on one bus (the in-memory layer): a change made on one reaches the other's clients, once", () =>
    Effect.gen(function*() {
      const bus = yield* Layer.build(NotificationBus.layer)
      const [first, second] = yield* Effect.all([McpServer.make(dual), McpServer.make(dual)]).pipe(
        Effect.provide(bus)
      )
      const a = yield* attach(first)
      const b = yield* attach(second)
      const session = yield* attach(second)
      yield* session.initialize("2025-11-25")
      yield* listen(a, 100, { toolsListChanged: true })
      yield* listen(b, 200, { toolsListChanged: true })
      yield* first.addTool(named("from-first"))
      yield* flush
      assert.deepStrictEqual(summary(valid(yield* a.next)), ["notifications/tools/list_changed", 100])
      assert.deepStrictEqual(summary(valid(yield* b.next)), ["notifications/tools/list_changed", 200])
      assert.deepStrictEqual(yield* session.next, { jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      for (const client of [a, b]) assert.deepStrictEqual(yield* pending(client), [])
      yield* session.quiet
    }))
})

describe("subscriptions/listen: many", () => {
  it.scoped("1,000 listens and one addTool: every one is told, once", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, revisions: ["2026-07-28"], maxSubscriptionsPerClient: 1000 })
      const ids = Array.from({ length: 1000 }, (_, i) => 10_000 + i)
      for (const id of ids) yield* client.send(listenRequest(id, { toolsListChanged: true }))
      const acks = yield* take(client, ids.length)
      assert.deepStrictEqual(acks.map((m) => m.params._meta[SUB]).sort(), ids)
      assert.isTrue(acks.every((m) => m.method === "notifications/subscriptions/acknowledged"))
      assert.strictEqual((yield* client.server.activeSubscriptions).length, 1000)
      yield* client.server.addTool(named("for-everyone"))
      yield* flush
      const changes = yield* take(client, ids.length)
      assert.isTrue(changes.every((m) => m.method === "notifications/tools/list_changed"))
      assert.deepStrictEqual(changes.map((m) => m.params._meta[SUB]).sort(), ids)
      assert.deepStrictEqual(yield* pending(client), [])
      assert.strictEqual(yield* client.server.closeAllSubscriptions, 1000)
      const answers = yield* take(client, ids.length)
      assert.deepStrictEqual(answers.map((m) => m.id).sort(), ids)
    }), { timeout: 60_000 })
})

describe("subscriptions/listen: limits", () => {
  /** The refusal of listen `id` as too many are open: -32000, the limit named. */
  const assertTooMany = (response: any, id: JsonRpc.RequestId, limit: string, max: number) => {
    valid(response)
    assert.strictEqual(response.id, id)
    assert.strictEqual(response.error.code, -32000)
    assert.include(response.error.message, limit)
    assert.deepStrictEqual(response.error.data, { limit, max })
  }

  it.scoped("16 per client by default: the 17th is refused with its id (-32000); calls are served; another client gets in", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const memory = yield* MemoryTransport.make
      yield* Effect.forkScoped(server.serve(memory.protocol))
      const wire = (endpoint: MemoryTransport.TextEndpoint): Wire => ({
        send: (message) => endpoint.write(JSON.stringify(message)),
        next: Effect.map(endpoint.read, (text) => JSON.parse(text))
      })
      const a = wire(yield* memory.connect)
      for (let i = 1; i <= 16; i++) yield* listen(a, `L${i}`, { toolsListChanged: true })
      yield* a.send(listenRequest("L17", { toolsListChanged: true }))
      assertTooMany(yield* a.next, "L17", "maxSubscriptionsPerClient", 16)
      // A normal call, on the same client, while it is at its cap.
      yield* a.send({ jsonrpc: "2.0", id: "list", method: "tools/list", params: { _meta: meta() } })
      const list = valid(yield* a.next)
      assert.strictEqual(list.id, "list")
      assert.deepStrictEqual(list.result.tools.map((t: any) => t.name), ["echo"])
      // Another client of the same engine has its own 16.
      const b = wire(yield* memory.connect)
      yield* listen(b, "L1", { toolsListChanged: true })
      assert.strictEqual((yield* server.activeSubscriptions).length, 17)
      // One of the first client's ends: it may open another.
      yield* a.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "L3" } })
      yield* eventually(server.activeSubscriptions, (all) => all.length === 16)
      yield* listen(a, "L18", { toolsListChanged: true })
      // The refused one was never open: a change reaches the 16 of the first client and the second's.
      yield* server.addTool(named("more"))
      yield* flush
      const told = yield* take(a, 16)
      assert.deepStrictEqual(
        told.map((m) => m.params._meta[SUB]).sort(),
        [...Array.from({ length: 16 }, (_, i) => `L${i + 1}`).filter((id) => id !== "L3"), "L18"].sort()
      )
      assert.deepStrictEqual(summary(valid(yield* b.next)), ["notifications/tools/list_changed", "L1"])
    }))

  it.scoped("maxSubscriptions over every client: the next is refused with its id; one ending admits another", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make({ ...options, maxSubscriptions: 3 })
      const a = yield* attach(server)
      const b = yield* attach(server)
      yield* listen(a, 1, { toolsListChanged: true })
      yield* listen(a, 2, { toolsListChanged: true })
      yield* listen(b, 1, { toolsListChanged: true })
      yield* b.send(listenRequest(2, { toolsListChanged: true }))
      assertTooMany(yield* b.next, 2, "maxSubscriptions", 3)
      yield* a.send(listenRequest(3, { toolsListChanged: true }))
      assertTooMany(yield* a.next, 3, "maxSubscriptions", 3)
      // Other requests are served at the cap.
      yield* b.send({ jsonrpc: "2.0", id: "d", method: "server/discover", params: { _meta: meta() } })
      const discover = valid(yield* b.next)
      assert.strictEqual(discover.id, "d")
      assert.strictEqual(discover.result.resultType, "complete")
      const active = yield* server.activeSubscriptions
      assert.strictEqual(active.length, 3)
      assert.isTrue(yield* server.closeSubscription(active[0]))
      assertClosed(yield* a.next, 1)
      yield* listen(b, 2, { toolsListChanged: true })
      assert.strictEqual((yield* server.activeSubscriptions).length, 3)
    }))

  it.scoped("a filter past the limits: -32602 with its id and the limit named, nothing kept; at the limits it is acknowledged whole", () =>
    Effect.gen(function*() {
      const client = yield* connect(options)
      const uris = (n: number) => Array.from({ length: n }, (_, i) => `test://r/${i}`)
      yield* client.send(listenRequest("many", { resourceSubscriptions: uris(1001) }))
      const many = valid(yield* client.next)
      assert.strictEqual(many.id, "many")
      assert.strictEqual(many.error.code, -32602)
      assert.include(many.error.message, "maxSubscriptionUris (1000)")
      assert.deepStrictEqual(many.error.data, { limit: "maxSubscriptionUris", max: 1000 })
      // Few URIs, but long: the params are measured, whatever field makes them long.
      const long = "test://" + "x".repeat(70_000)
      yield* client.send(listenRequest("long", { resourceSubscriptions: [long] }))
      const tooLong = valid(yield* client.next)
      assert.strictEqual(tooLong.id, "long")
      assert.strictEqual(tooLong.error.code, -32602)
      assert.include(tooLong.error.message, "subscriptionMaxLength (65536 characters)")
      yield* client.send(listenRequest("padded", { toolsListChanged: true }, { padding: "y".repeat(70_000) }))
      const padded = valid(yield* client.next)
      assert.strictEqual(padded.id, "padded")
      assert.strictEqual(padded.error.code, -32602)
      assert.deepStrictEqual(yield* client.server.activeSubscriptions, [])
      // At the limit: all of it, echoed.
      const ack = yield* listen(client, "full", { resourceSubscriptions: uris(1000) })
      assert.deepStrictEqual(ack.params.notifications, { resourceSubscriptions: uris(1000) })
      // Other limits, chosen by the server.
      const small = yield* connect({ ...options, maxSubscriptionUris: 2, subscriptionMaxLength: 1024 })
      yield* small.send(listenRequest(1, { resourceSubscriptions: uris(3) }))
      assert.include(valid(yield* small.next).error.message, "maxSubscriptionUris (2)")
      yield* small.send(listenRequest(2, { resourceSubscriptions: ["test://" + "z".repeat(1024)] }))
      assert.include(valid(yield* small.next).error.message, "subscriptionMaxLength (1024 characters)")
      yield* listen(small, 3, { resourceSubscriptions: uris(2) })
    }))

  it.scoped("limits that are not positive integers fail the server when it is built", () =>
    Effect.gen(function*() {
      for (
        const [name, value] of [
          ["maxSubscriptions", 0],
          ["maxSubscriptionsPerClient", -1],
          ["maxSubscriptionUris", 1.5],
          ["subscriptionMaxLength", Number.NaN]
        ] as const
      ) {
        const exit = yield* Effect.exit(Effect.scoped(McpServer.make({ ...options, [name]: value })))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), `${name} must be a positive integer`)
      }
    }))

  it.scoped(
    "an update reaches exactly the listens whose filter covers its URI, among many listens and URIs",
    () =>
      Effect.gen(function*() {
        const server = yield* McpServer.make({ ...options, maxSubscriptionsPerClient: 1000 })
        const client = yield* attach(server)
        // 1,000 listens of 1,000 URIs each; listen i watches test://r/<i>/<k>, and the even ones
        // test://shared too; listen 7 also every URI beneath test://r/3/, and holds one URI twice.
        const count = 1000
        const filterOf = (i: number) => {
          const own = Array.from({ length: i % 2 === 0 ? 999 : 1000 }, (_, k) => `test://r/${i}/${k}`)
          if (i % 2 === 0) own.push("test://shared")
          if (i === 7) own.splice(0, 2, "test://r/3/", "test://r/7/5")
          return { resourceSubscriptions: own }
        }
        for (let i = 0; i < count; i++) yield* client.send(listenRequest(i, filterOf(i)))
        const acks = yield* take(client, count)
        assert.isTrue(acks.every((m) => m.method === "notifications/subscriptions/acknowledged"))
        // Many updates in one window: each listen's own URI 5, a shared one, one nobody watches.
        const updated = [...Array.from({ length: count }, (_, i) => `test://r/${i}/5`), "test://shared", "test://none"]
        yield* Effect.forEach(updated, (uri) => server.resourceUpdated(uri), { discard: true })
        const started = Date.now()
        yield* flush
        const expected = [
          ...Array.from({ length: count }, (_, i) => `${i} test://r/${i}/5`),
          ...Array.from({ length: count / 2 }, (_, i) => `${2 * i} test://shared`),
          "7 test://r/3/5"
        ].sort()
        const got = (yield* take(client, expected.length)).map((m) => {
          assert.strictEqual(m.method, "notifications/resources/updated")
          return `${m.params._meta[SUB]} ${m.params.uri}`
        })
        const elapsed = Date.now() - started
        assert.deepStrictEqual(got.sort(), expected)
        assert.deepStrictEqual(yield* pending(client), [])
        // Matched through an index: a scan of every URI of every listen for each update (a
        // thousand million comparisons here) takes tens of seconds.
        assert.isBelow(elapsed, 5_000)
        // A listen gone is out of the index: its URIs reach nobody.
        yield* client.notify("notifications/cancelled", { requestId: 0 })
        yield* eventually(server.activeSubscriptions, (all) => all.length === count - 1)
        yield* server.resourceUpdated("test://r/0/1")
        yield* server.resourceUpdated("test://r/1/1")
        yield* flush
        assert.deepStrictEqual((yield* take(client, 1)).map(summary), [[
          "notifications/resources/updated",
          1,
          "test://r/1/1"
        ]])
        assert.deepStrictEqual(yield* pending(client), [])
      }),
    { timeout: 120_000 }
  )
})
