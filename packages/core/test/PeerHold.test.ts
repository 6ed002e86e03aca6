/**
 * `Peer.hold`: a request held open past the end of its fiber (a `subscriptions/listen`), answered
 * later, or cancelled with nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as McpError from "../src/McpError.js"
import * as MemoryTransport from "../src/MemoryTransport.js"
import * as Peer from "../src/Peer.js"

type Answer = (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>

/**
 * An engine whose `hold` requests hold themselves and end their fiber; `holdThenFail` holds, then
 * fails. Each held request's answer (or undefined) and its cancellations are handed to the test.
 */
const setup = Effect.gen(function*() {
  const memory = yield* MemoryTransport.make
  const held = yield* Deferred.make<Answer | undefined>()
  const cancelled = yield* Deferred.make<void>()
  let peer: Peer.Peer | undefined
  const holding = (client: number, id: string | number) =>
    Effect.flatMap(
      Effect.sync(() => peer!.hold(client, id, () => Deferred.unsafeDone(cancelled, Exit.void))),
      (answer) => Deferred.succeed(held, answer)
    )
  peer = yield* Peer.make({
    protocol: memory.protocol,
    onRequest: (client, request) =>
      request.method === "hold"
        ? Effect.as(holding(client, request.id), { ignored: true })
        : request.method === "holdAndAnswer"
        // Held, then answered by the holder before the request's own fiber ends with its result.
        ? Effect.flatMap(
          Effect.sync(() => peer!.hold(client, request.id, () => {})),
          (answer) => Effect.as(answer!(Exit.succeed({ by: "holder" })), { by: "fiber" })
        )
        : request.method === "holdAndAnswerThenFail"
        ? Effect.flatMap(
          Effect.sync(() => peer!.hold(client, request.id, () => {})),
          (answer) =>
            Effect.zipRight(
              answer!(Exit.succeed({ by: "holder" })),
              Effect.fail(new McpError.InvalidParams({ message: "no" }))
            )
        )
        : request.method === "holdThenFail"
        ? Effect.zipRight(holding(client, request.id), Effect.fail(new McpError.InvalidParams({ message: "no" })))
        : Effect.sync(() => ({ pong: true }))
  })
  const remote = yield* memory.connect
  const read = Effect.map(remote.read, (text) => JSON.parse(text))
  return { peer, remote, held, cancelled, read }
})

describe("Peer.hold", () => {
  it.scoped("answered by its holder before its fiber ends: one answer, the holder's, whatever the fiber ends with", () =>
    Effect.gen(function*() {
      const { read, remote } = yield* setup
      for (const method of ["holdAndAnswer", "holdAndAnswerThenFail"]) {
        yield* remote.write(JSON.stringify({ jsonrpc: "2.0", id: method, method }))
        assert.deepStrictEqual(yield* read, { jsonrpc: "2.0", id: method, result: { by: "holder" } })
      }
      // Nothing else was sent for them: the next thing read answers the ping.
      yield* remote.write(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
      assert.deepStrictEqual(yield* read, { jsonrpc: "2.0", id: 2, result: { pong: true } })
    }))

  it.scoped("a held request stays in flight with no fiber, is answered later, then is over", () =>
    Effect.gen(function*() {
      const { held, peer, read, remote } = yield* setup
      yield* remote.write(`{"jsonrpc":"2.0","id":"h","method":"hold"}`)
      const answer = (yield* Deferred.await(held))!
      // Its fiber's result is not sent: the next thing read answers another request.
      yield* remote.write(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
      assert.deepStrictEqual(yield* read, { jsonrpc: "2.0", id: 2, result: { pong: true } })
      assert.strictEqual(yield* peer.inflight, 1)
      assert.isTrue(yield* answer(Exit.succeed({ closed: true })))
      assert.deepStrictEqual(yield* read, { jsonrpc: "2.0", id: "h", result: { closed: true } })
      assert.strictEqual(yield* peer.inflight, 0)
      // Answered once only.
      assert.isFalse(yield* answer(Exit.succeed({ again: true })))
    }))

  it.scoped("a cancel tells the holder and sends nothing; a later answer is refused", () =>
    Effect.gen(function*() {
      const { cancelled, held, peer, read, remote } = yield* setup
      yield* remote.write(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
      const answer = (yield* Deferred.await(held))!
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
      yield* Deferred.await(cancelled)
      assert.strictEqual(yield* peer.inflight, 0)
      assert.isFalse(yield* answer(Exit.succeed({})))
      yield* remote.write(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
      assert.strictEqual((yield* read).id, 2)
    }))

  it.scoped("its client gone: the holder is told", () =>
    Effect.gen(function*() {
      const { cancelled, held, peer, remote } = yield* setup
      yield* remote.write(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
      yield* Deferred.await(held)
      yield* peer.disconnect(0)
      yield* Deferred.await(cancelled)
      assert.strictEqual(yield* peer.inflight, 0)
    }))

  it.scoped("a handling that fails once held is answered with its failure, and the holder is told", () =>
    Effect.gen(function*() {
      const { cancelled, held, read, remote } = yield* setup
      yield* remote.write(`{"jsonrpc":"2.0","id":3,"method":"holdThenFail"}`)
      const answer = (yield* Deferred.await(held))!
      const failure = yield* read
      assert.strictEqual(failure.id, 3)
      assert.strictEqual(failure.error.code, -32602)
      yield* Deferred.await(cancelled)
      assert.isFalse(yield* answer(Exit.succeed({})))
    }))

  it.scoped("the end of the engine tells the holder", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.scoped(Effect.gen(function*() {
        const { cancelled, held, remote } = yield* setup
        yield* remote.write(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
        yield* Deferred.await(held)
        return cancelled
      })))
      const cancelled = yield* Fiber.join(fiber)
      yield* Deferred.await(cancelled)
    }))
})
