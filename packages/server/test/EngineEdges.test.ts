/**
 * the engine answers each request exactly once, unless the request was interrupted
 * from outside (cancelled, its client gone). A handler whose own cause is an interruption
 * (a `Queue.take` on a queue that was shut down, a joined fiber that was interrupted) was not
 * cancelled by anyone: its client still waits for an answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Prompt from "../src/Prompt.js"
import * as Tool from "../src/Tool.js"
import { connect } from "./utils/TestClient.js"

const serverInfo = { name: "engine-edges", version: "1.0.0" }

/** Waits on a queue that gets shut down meanwhile: the take is interrupted (not the request). */
const Drained = Tool.make("drained", {}, () =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<string>()
    // Shut down once the take waits (a waiting taker counts as -1 in the size).
    const waiting = Effect.repeat(Effect.zipRight(Effect.yieldNow(), Queue.size(queue)), { until: (n) => n < 0 })
    yield* Effect.fork(Effect.zipRight(waiting, Queue.shutdown(queue)))
    return yield* Queue.take(queue)
  }))

/** Joins a worker fiber that was interrupted (a common pattern: a child gave up). */
const Joined = Tool.make("joined", {}, () =>
  Effect.gen(function*() {
    const worker = yield* Effect.fork(Effect.never)
    yield* Fiber.interrupt(worker)
    return yield* Fiber.join(worker)
  }))

describe("a handler whose cause is an interruption nobody asked for", () => {
  for (const name of ["drained", "joined"]) {
    it.live(`${name}: the request is answered (an error), not left unanswered`, () =>
      Effect.gen(function*() {
        const client = yield* connect({ serverInfo, tools: [Drained, Joined] })
        yield* client.initialize("2025-06-18")
        const answer = yield* client.exchange("tools/call", { name, arguments: {} }).pipe(
          Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new Error(`no answer to ${name}`) }),
          Effect.either
        )
        assert.strictEqual(answer._tag, "Right", `the client got no answer for tools/call ${name}`)
        // And the session goes on.
        yield* client.quiet
      }).pipe(Effect.scoped))
  }
})

describe("2025-03-26 batches before notifications/initialized was seen", () => {
  it.live("[notifications/initialized, ping] in one batch is accepted (only initialize must not be batched)", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Drained] })
      yield* client.initializeOnly("2025-03-26")
      yield* client.send([
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 9, method: "ping" }
      ])
      const answer = yield* client.next
      assert.deepStrictEqual(answer, [{ jsonrpc: "2.0", id: 9, result: {} }])
      // The session is initialized: the full table is served.
      const tools = yield* client.result("tools/list")
      assert.isArray(tools.tools)
    }).pipe(Effect.scoped))
})

/** A prompt with a completion: the server then serves `completion/complete`, whose `ref` is a union. */
const Greet = Prompt.make("greet", {
  arguments: Schema.Struct({ who: Schema.String }),
  complete: { who: (value) => Effect.succeed(["ada", "bob"].filter((w) => w.startsWith(value))) }
}, ({ who }) => Effect.succeed(`Greet ${who}`))

describe("params the schema parser throws on", () => {
  it.live("a union member whose String() throws ({ toString: 0 }): -32602 for the request, not -32603", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts: [Greet] })
      yield* client.initialize("2025-11-25")
      yield* client.send({
        jsonrpc: "2.0",
        id: 7,
        method: "completion/complete",
        params: { ref: { type: { toString: 0 } }, argument: { name: "a", value: "b" } }
      })
      const answer = yield* client.next
      assert.strictEqual(answer.id, 7)
      assert.strictEqual(answer.error.code, -32602)
      assert.include(answer.error.message, "completion/complete")
      // And the session goes on.
      yield* client.send({ jsonrpc: "2.0", id: 8, method: "ping" })
      assert.deepStrictEqual(yield* client.next, { jsonrpc: "2.0", id: 8, result: {} })
    }).pipe(Effect.scoped))
})
