import { assert, describe, it } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import * as Dispatch from "../src/Dispatch.js"
import * as McpError from "../src/McpError.js"
import * as MemoryTransport from "../src/MemoryTransport.js"
import * as Peer from "../src/Peer.js"
import type * as Revision from "../src/Revision.js"
import type * as Transport from "../src/Transport.js"

interface Probe {
  readonly started: Deferred.Deferred<void>
  readonly interrupted: Deferred.Deferred<void>
}

const textResult = (text: string) => ({ content: [{ type: "text" as const, text }] })

/**
 * An engine serving ping and a tools/call whose behaviour depends on the tool name, on a
 * multi-client in-memory transport; `remote` is its first client.
 */
const setup = (
  options: {
    readonly revision?: Revision.Revision
    readonly batching?: boolean
    /** The revision errors of each client are rendered for (default: `revision`). */
    readonly revisionOf?: (client: number) => Revision.Revision
  } = {}
) =>
  Effect.gen(function*() {
    const memory = yield* MemoryTransport.make
    const probe: Probe = {
      started: yield* Deferred.make<void>(),
      interrupted: yield* Deferred.make<void>()
    }
    const notifications = yield* Ref.make<Array<string>>([])
    const revision = options.revision ?? "2025-11-25"
    const table = Dispatch.make(revision, {
      ping: () => Effect.succeed({}),
      initialize: () =>
        Deferred.succeed(probe.started, undefined).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(probe.interrupted, undefined))
        ),
      "tools/call": (params) => {
        switch (params.name) {
          case "slow":
            return Deferred.succeed(probe.started, undefined).pipe(
              Effect.zipRight(Effect.never),
              Effect.onInterrupt(() => Deferred.succeed(probe.interrupted, undefined))
            )
          case "boom":
            return Effect.die(new Error("a bug in the handler"))
          case "missing":
            return Effect.fail(new McpError.ResourceNotFound({ uri: "test://missing" }))
          default:
            return Effect.succeed(textResult(`hello ${params.name}`))
        }
      }
    })
    const peer = yield* Peer.make({
      protocol: memory.protocol,
      revision: (client) => Effect.succeed(options.revisionOf?.(client) ?? revision),
      batching: () => Effect.succeed(options.batching ?? false),
      onNotification: (_client, n) => Ref.update(notifications, (all) => [...all, n.method]),
      onRequest: (_client, request) => Dispatch.run(table, request, undefined)
    })
    const remote = yield* memory.connect
    const call = (text: string, on = remote) =>
      Effect.zipRight(on.write(text), Effect.map(on.read, (t) => JSON.parse(t)))
    return { peer, remote, probe, notifications, call, connect: memory.connect }
  })

describe("Peer: inbound requests", () => {
  it.scoped("answers string, number and 0 ids with the same id", () =>
    Effect.gen(function*() {
      const { call } = yield* setup()
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":0,"method":"ping"}`), {
        jsonrpc: "2.0",
        id: 0,
        result: {}
      })
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":"abc","method":"ping"}`), {
        jsonrpc: "2.0",
        id: "abc",
        result: {}
      })
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":9007199254740991,"method":"ping","params":{}}`), {
        jsonrpc: "2.0",
        id: 9007199254740991,
        result: {}
      })
    }))

  it.scoped("unknown method: -32601 with the request's id", () =>
    Effect.gen(function*() {
      const { call } = yield* setup()
      const response = yield* call(`{"jsonrpc":"2.0","id":7,"method":"no/such/method","params":{}}`)
      assert.strictEqual(response.id, 7)
      assert.strictEqual(response.error.code, -32601)
      assert.isUndefined(response.result)
    }))

  it.scoped("a method of another revision is not found", () =>
    Effect.gen(function*() {
      const { call } = yield* setup({ revision: "2026-07-28" })
      const response = yield* call(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
      assert.strictEqual(response.error.code, -32601)
      assert.strictEqual(response.id, "p")
    }))

  it.scoped("invalid params: -32602 for that request, the next one is served", () =>
    Effect.gen(function*() {
      const { call } = yield* setup()
      const bad = yield* call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`)
      assert.strictEqual(bad.id, 1)
      assert.strictEqual(bad.error.code, -32602)
      assert.match(bad.error.message, /tools\/call/)
      const missing = yield* call(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`)
      assert.strictEqual(missing.error.code, -32602)
      const good = yield* call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ann"}}`)
      assert.deepStrictEqual(good.result, textResult("hello ann"))
    }))

  it.scoped("parse error: -32700 with id null, then the loop goes on", () =>
    Effect.gen(function*() {
      const { call } = yield* setup()
      const response = yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"`)
      assert.strictEqual(response.id, null)
      assert.strictEqual(response.error.code, -32700)
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), {
        jsonrpc: "2.0",
        id: 2,
        result: {}
      })
    }))

  it.scoped("valid JSON that is not a message: -32600, with the id when it can be read", () =>
    Effect.gen(function*() {
      const { call } = yield* setup()
      const scalar = yield* call(`42`)
      assert.deepStrictEqual([scalar.id, scalar.error.code], [null, -32600])
      const noMethod = yield* call(`{"jsonrpc":"2.0","id":3}`)
      assert.deepStrictEqual([noMethod.id, noMethod.error.code], [3, -32600])
      const wrongVersion = yield* call(`{"jsonrpc":"1.0","id":"v","method":"ping"}`)
      assert.deepStrictEqual([wrongVersion.id, wrongVersion.error.code], ["v", -32600])
      const nullId = yield* call(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)
      assert.deepStrictEqual([nullId.id, nullId.error.code], [null, -32600])
      const boolId = yield* call(`{"jsonrpc":"2.0","id":true,"method":"ping"}`)
      assert.deepStrictEqual([boolId.id, boolId.error.code], [null, -32600])
      const arrayParams = yield* call(`{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}`)
      assert.deepStrictEqual([arrayParams.id, arrayParams.error.code], [4, -32600])
    }))

  it.scoped("typed failures render for the revision (resource not found)", () =>
    Effect.gen(function*() {
      const legacy = yield* setup({ revision: "2025-11-25" })
      const a = yield* legacy.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"missing"}}`)
      assert.strictEqual(a.error.code, -32002)
      assert.deepStrictEqual(a.error.data, { uri: "test://missing" })
    }))

  it.scoped("a defect in one handler is -32603 for that request; the next request is served", () =>
    Effect.gen(function*() {
      const { call } = yield* setup()
      const boom = yield* call(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"boom"}}`)
      assert.strictEqual(boom.id, "b")
      assert.strictEqual(boom.error.code, -32603)
      assert.notInclude(boom.error.message, "a bug in the handler")
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":"n","method":"ping"}`), {
        jsonrpc: "2.0",
        id: "n",
        result: {}
      })
    }))

  it.scoped("notifications/cancelled interrupts the handler and nothing is sent for it", () =>
    Effect.gen(function*() {
      const { call, peer, probe, remote } = yield* setup()
      yield* remote.write(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"slow"}}`)
      yield* Deferred.await(probe.started)
      assert.strictEqual(yield* peer.inflight, 1)
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`)
      yield* Deferred.await(probe.interrupted)
      // The next thing on the wire is the answer to the next request, not one for c1.
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), {
        jsonrpc: "2.0",
        id: 2,
        result: {}
      })
      assert.strictEqual(yield* peer.inflight, 0)
    }))

  it.scoped("cancelling an unknown or finished id is ignored", () =>
    Effect.gen(function*() {
      const { call, notifications, remote } = yield* setup()
      // Request 1 is answered and finished before its cancel arrives, on the same connection.
      assert.deepStrictEqual((yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)).result, {})
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}`)
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/cancelled"}`)
      yield* remote.write(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
      assert.deepStrictEqual(JSON.parse(yield* remote.read), { jsonrpc: "2.0", id: 2, result: {} })
      // Cancellation is the engine's: it never reaches the notification handler.
      assert.deepStrictEqual(yield* Ref.get(notifications), [])
    }))

  it.scoped("a duplicate in-flight id is -32600; the first request is still answered", () =>
    Effect.gen(function*() {
      const { peer, probe, remote } = yield* setup()
      yield* remote.write(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}`)
      yield* Deferred.await(probe.started)
      yield* remote.write(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
      const duplicate = JSON.parse(yield* remote.read)
      assert.deepStrictEqual([duplicate.id, duplicate.error.code], [5, -32600])
      assert.strictEqual(yield* peer.inflight, 1)
      yield* peer.cancel(remote.client, 5)
      yield* Deferred.await(probe.interrupted)
    }))

  it.scoped("a notification is never answered", () =>
    Effect.gen(function*() {
      const { call, notifications, remote } = yield* setup()
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
      yield* remote.write(`{"jsonrpc":"2.0","method":"no/such/notification","params":{}}`)
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), {
        jsonrpc: "2.0",
        id: 1,
        result: {}
      })
      assert.deepStrictEqual(yield* Ref.get(notifications), ["notifications/initialized", "no/such/notification"])
    }))
})

describe("Peer: batches", () => {
  it.scoped("accepted where the revision allows them: one array of responses", () =>
    Effect.gen(function*() {
      const { call } = yield* setup({ revision: "2025-03-26", batching: true })
      const responses = yield* call(
        `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
          `{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"bo"}},{"jsonrpc":"2.0","id":3,"method":"nope"},7]`
      )
      assert.isArray(responses)
      const byId = new Map(responses.map((r: any) => [r.id, r]))
      assert.strictEqual(responses.length, 4)
      assert.deepStrictEqual((byId.get(1) as any).result, {})
      assert.deepStrictEqual((byId.get("two") as any).result, textResult("hello bo"))
      assert.strictEqual((byId.get(3) as any).error.code, -32601)
      assert.strictEqual((byId.get(null) as any).error.code, -32600)
    }))

  it.scoped("a batch of notifications only gets no answer", () =>
    Effect.gen(function*() {
      const { call, remote } = yield* setup({ revision: "2025-03-26", batching: true })
      yield* remote.write(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), {
        jsonrpc: "2.0",
        id: 1,
        result: {}
      })
    }))

  it.scoped("rejected with -32600 where the revision forbids them", () =>
    Effect.gen(function*() {
      const { call } = yield* setup({ revision: "2025-06-18", batching: false })
      const response = yield* call(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
      assert.isFalse(Array.isArray(response))
      assert.deepStrictEqual([response.id, response.error.code], [null, -32600])
    }))
})

describe("Peer: outbound requests", () => {
  it.scoped("matches the response to the call, by id", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(peer.request(remote.client, "roots/list", {}))
      const sent = JSON.parse(yield* remote.read)
      assert.strictEqual(sent.method, "roots/list")
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, result: { roots: [] } }))
      assert.deepStrictEqual(yield* Fiber.join(fiber), { roots: [] })
    }))

  it.scoped("an error response fails the call with the matching typed error", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(Effect.flip(peer.request(remote.client, "roots/list")))
      const sent = JSON.parse(yield* remote.read)
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, error: { code: -32601, message: "nope" } }))
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "MethodNotFound")
    }))

  it.scoped("a -32601 that does not name its method is given the call's (a bare 'Method not found' says which)", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const answered = (message: string) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.fork(Effect.flip(peer.request(remote.client, "roots/list")))
          const sent = JSON.parse(yield* remote.read)
          yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, error: { code: -32601, message } }))
          return yield* Fiber.join(fiber)
        })
      const bare = yield* answered("Method not found")
      assert.strictEqual(bare.message, "Method not found: roots/list")
      assert.isTrue(McpError.isMcpError(bare))
      if (McpError.isMcpError(bare)) {
        assert.deepStrictEqual(bare.toWire("2025-11-25"), { code: -32601, message: "Method not found: roots/list" })
      }
      assert.strictEqual((yield* answered("Unknown method")).message, "Unknown method (roots/list)")
      assert.strictEqual((yield* answered("No roots/list here")).message, "No roots/list here")
    }))

  it.scoped("interrupting the call sends notifications/cancelled; a late answer is ignored", () =>
    Effect.gen(function*() {
      const { call, peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(
        peer.request(remote.client, "sampling/createMessage", { messages: [], maxTokens: 1 })
      )
      const sent = JSON.parse(yield* remote.read)
      yield* Fiber.interrupt(fiber)
      const cancelled = JSON.parse(yield* remote.read)
      assert.strictEqual(cancelled.method, "notifications/cancelled")
      assert.strictEqual(cancelled.params.requestId, sent.id)
      assert.isUndefined(cancelled.id)
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, result: {} }))
      assert.deepStrictEqual((yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)).id, 1)
    }))

  it.scoped("times out, then cancels", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(
        Effect.flip(peer.request(remote.client, "roots/list", {}, { timeout: "1 second" }))
      )
      const sent = JSON.parse(yield* remote.read)
      yield* TestClock.adjust("1001 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "RequestTimeout")
      const cancelled = JSON.parse(yield* remote.read)
      assert.strictEqual(cancelled.method, "notifications/cancelled")
      assert.strictEqual(cancelled.params.requestId, sent.id)
    }))

  it.scoped("progress resets the timeout, up to the hard maximum", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const seen = yield* Ref.make<Array<number>>([])
      const fiber = yield* Effect.fork(Effect.either(peer.request(remote.client, "tools/call", { name: "long" }, {
        timeout: "1 second",
        maxTimeout: "3 seconds",
        resetTimeoutOnProgress: true,
        onProgress: (p) => Ref.update(seen, (all) => [...all, p.progress])
      })))
      const sent = JSON.parse(yield* remote.read)
      const token = sent.params._meta.progressToken
      assert.isDefined(token)
      const progress = (n: number) =>
        remote.write(JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: n }
        }))
      for (let n = 1; n <= 3; n++) {
        yield* TestClock.adjust("900 millis")
        yield* progress(n)
        yield* Effect.yieldNow()
        assert.isNull(yield* Fiber.poll(fiber).pipe(Effect.map((o) => o._tag === "Some" ? "done" : null)))
      }
      // 2.7s so far; progress keeps it alive but the hard maximum (3s) ends it.
      yield* TestClock.adjust("400 millis")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result._tag, "Left")
      assert.strictEqual(result._tag === "Left" && result.left._tag, "RequestTimeout")
      assert.deepStrictEqual(yield* Ref.get(seen), [1, 2, 3])
    }))

  it.scoped("a notification goes out when its Effect runs, each time it runs (a transport whose send acts at once)", () =>
    Effect.gen(function*() {
      // A send that acts when called (a transport may): the engine must not call it before running.
      const [ours, theirs] = yield* MemoryTransport.pair
      const eager: typeof ours = {
        ...ours,
        send: (client, frame) => {
          Effect.runSync(Effect.ignore(ours.send(client, frame)))
          return Effect.void
        }
      }
      const peer = yield* Peer.make({ protocol: eager, onRequest: () => Effect.succeed({}) })
      const seen: Array<string> = []
      const got = yield* Deferred.make<void>()
      yield* Effect.forkScoped(theirs.run({
        receive: (_client, inbound) => {
          if (inbound._tag === "Single" && "method" in inbound.message) seen.push(inbound.message.method)
          if (seen.length === 3) Deferred.unsafeDone(got, Effect.void)
        },
        disconnect: () => {},
        responseClosed: () => {},
        fail: () => {}
      }))
      const later = peer.notify(0, "notifications/later", {})
      yield* peer.notify(0, "notifications/first", {})
      yield* later
      yield* later
      yield* Deferred.await(got)
      assert.deepStrictEqual(seen, ["notifications/first", "notifications/later", "notifications/later"])
    }))

  it.scoped("a request made where nothing is interruptible (a finalizer) still ends with its answer", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(Effect.uninterruptible(
        peer.request(remote.client, "tools/call", { name: "x" }, { resetTimeoutOnProgress: true })
      ))
      const sent = JSON.parse(yield* remote.read)
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, result: { content: [] } }))
      assert.deepStrictEqual(yield* Fiber.join(fiber), { content: [] })
    }))

  it.scoped("without progress the reset timeout still fires", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(
        Effect.flip(
          peer.request(remote.client, "tools/call", { name: "x" }, {
            timeout: "1 second",
            resetTimeoutOnProgress: true
          })
        )
      )
      yield* remote.read
      yield* TestClock.adjust("1001 millis")
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "RequestTimeout")
    }))

  it.scoped("a call pending when the other side closes fails with TransportClosed", () =>
    Effect.gen(function*() {
      const { peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(Effect.flip(peer.request(remote.client, "roots/list")))
      yield* remote.read
      yield* remote.close
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "TransportClosed")
    }))

  it.scoped("a transport fails one call locally: that caller fails with the transport's error at once, the others wait", () =>
    Effect.gen(function*() {
      class Refused extends Data.TaggedError("Refused")<{ readonly status: number }> {}
      const { protocol, remote } = yield* MemoryTransport.connection
      const receiver = yield* Deferred.make<Transport.Receiver<Refused>>()
      // A transport that refuses, locally, the request named "refused" (an HTTP status, say).
      const refusing: Transport.Protocol<Refused> = {
        ...protocol,
        run: (r) => Effect.zipRight(Deferred.succeed(receiver, r), protocol.run(r)),
        send: (client, frame, context) =>
          Effect.flatMap(Deferred.await(receiver), (r) => {
            const message = frame as { readonly id?: number; readonly params?: { readonly name?: string } }
            if (message.params?.name === "refused") {
              r.fail(client, message.id!, new Refused({ status: 401 }))
              return Effect.void
            }
            return protocol.send(client, frame, context)
          })
      }
      const peer = yield* Peer.make({ protocol: refusing, onRequest: () => Effect.never })
      const other = yield* Effect.fork(peer.request(remote.client, "tools/call", { name: "fine" }))
      const sent = JSON.parse(yield* remote.read)
      const refused = yield* Effect.flip(peer.request(remote.client, "tools/call", { name: "refused" }))
      assert.deepStrictEqual(refused, new Refused({ status: 401 })) // An id failed already, or unknown, is ignored.
      ;(yield* Deferred.await(receiver)).fail(remote.client, 999, new Refused({ status: 500 }))
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, result: { content: [] } }))
      assert.deepStrictEqual(yield* Fiber.join(other), { content: [] })
    }))

  it.scoped("a one-client transport that ends closes the engine; later calls fail at once", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      const peer = yield* Peer.make({ protocol, onRequest: () => Effect.never })
      const fiber = yield* Effect.fork(Effect.flip(peer.request(remote.client, "roots/list")))
      yield* remote.read
      yield* remote.close
      yield* peer.closed
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "TransportClosed")
      assert.strictEqual((yield* Effect.flip(peer.request(remote.client, "ping")))._tag, "TransportClosed")
    }))
})

describe("MemoryTransport.pair", () => {
  it.scoped("links two engines: a request from one is served by the other, through the wire", () =>
    Effect.gen(function*() {
      const [clientSide, serverSide] = yield* MemoryTransport.pair
      const table = Dispatch.make("2025-11-25", {
        "tools/call": (params) => Effect.succeed(textResult(`hello ${params.name}`))
      })
      yield* Peer.make({
        protocol: serverSide,
        revision: () => Effect.succeed("2025-11-25"),
        onRequest: (_client, request) => Dispatch.run(table, request, undefined)
      })
      const client = yield* Peer.make({ protocol: clientSide, onRequest: () => Effect.never })
      assert.deepStrictEqual(yield* client.request(0, "tools/call", { name: "pair" }), textResult("hello pair"))
      const error = yield* Effect.flip(client.request(0, "no/such/method", {}))
      assert.strictEqual(error._tag, "MethodNotFound")
    }))
})

describe("Peer: many clients", () => {
  it.scoped("two clients' id 1 never collide: each is in flight, each is answered on its own connection", () =>
    Effect.gen(function*() {
      const { call, connect, peer, probe, remote } = yield* setup()
      const other = yield* connect
      yield* remote.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
      yield* Deferred.await(probe.started)
      // The same id from another client is not a duplicate.
      const answer = yield* call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b"}}`, other)
      assert.deepStrictEqual(answer, { jsonrpc: "2.0", id: 1, result: textResult("hello b") })
      assert.strictEqual(yield* peer.inflight, 1)
      // Cancelling id 1 of the other client does not touch the first client's request.
      yield* other.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
      assert.deepStrictEqual((yield* call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, other)).result, {})
      assert.strictEqual(yield* peer.inflight, 1)
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
      yield* Deferred.await(probe.interrupted)
    }))

  it.scoped("errors are rendered with the revision of the request they answer", () =>
    Effect.gen(function*() {
      const { call, connect } = yield* setup({
        revision: "2025-11-25",
        // The first client speaks 2025-11-25, the next 2026-07-28.
        revisionOf: (client): Revision.Revision => client === 0 ? "2025-11-25" : "2026-07-28"
      })
      const other = yield* connect
      const missing = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"missing"}}`
      assert.strictEqual((yield* call(missing)).error.code, -32002)
      assert.strictEqual((yield* call(missing, other)).error.code, -32602)
    }))

  it.scoped("a client's disconnect interrupts its requests only", () =>
    Effect.gen(function*() {
      const { call, connect, peer, probe } = yield* setup()
      const other = yield* connect
      yield* other.write(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"slow"}}`)
      yield* Deferred.await(probe.started)
      yield* other.close
      yield* Deferred.await(probe.interrupted)
      assert.strictEqual(yield* peer.inflight, 0)
      assert.deepStrictEqual((yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)).result, {})
    }))

  it.scoped("an answer counts only from the client the call went to", () =>
    Effect.gen(function*() {
      const { connect, peer, remote } = yield* setup()
      const other = yield* connect
      const fiber = yield* Effect.fork(peer.request(remote.client, "roots/list", {}))
      const sent = JSON.parse(yield* remote.read)
      yield* other.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, result: { roots: ["forged"] } }))
      yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: sent.id, result: { roots: [] } }))
      assert.deepStrictEqual(yield* Fiber.join(fiber), { roots: [] })
    }))
})

describe("Peer: cancellable methods (the catalog's flag)", () => {
  it.scoped("notifications/cancelled does not interrupt initialize", () =>
    Effect.gen(function*() {
      const { call, probe, remote } = yield* setup()
      yield* remote.write(
        `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
      )
      yield* Deferred.await(probe.started)
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"i"}}`)
      assert.deepStrictEqual((yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)).result, {})
      assert.isFalse(yield* Deferred.isDone(probe.interrupted))
    }))

  it.scoped("interrupting an outbound initialize sends no notifications/cancelled", () =>
    Effect.gen(function*() {
      const { call, peer, remote } = yield* setup()
      const fiber = yield* Effect.fork(peer.request(remote.client, "initialize", {}))
      yield* remote.read
      yield* Fiber.interrupt(fiber)
      // The next message on the wire is the answer to a ping: nothing was sent in between.
      assert.deepStrictEqual((yield* call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)).result, {})
    }))
})
