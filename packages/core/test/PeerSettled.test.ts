/**
 * Requests whose handling is done when the engine is given it (an `Exit`: a handler that
 * completed synchronously): answered like any other, without a fiber of their own.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Supervisor from "effect/Supervisor"
import * as McpError from "../src/McpError.js"
import * as MemoryTransport from "../src/MemoryTransport.js"
import * as Peer from "../src/Peer.js"

/** The service a request's own fiber starts with: which request it is. */
class Served extends Context.Tag("test/Served")<Served, string>() {}

/** Records the context of every fiber the engine starts. */
class Started extends Supervisor.AbstractSupervisor<void> {
  readonly contexts: Array<Context.Context<never>> = []
  get value() {
    return Effect.void
  }
  override onStart<A, E, R>(context: Context.Context<R>) {
    this.contexts.push(context as Context.Context<never>)
  }
  /** The requests that got a fiber of their own (one started with their `Served`). */
  get served(): ReadonlyArray<string> {
    return this.contexts.flatMap((context) => Option.toArray(Context.getOption(context, Served)))
  }
}

const result = { content: [{ type: "text", text: "ok" }] }

/**
 * An engine whose request handling depends on the method: `done` (an `Effect.succeed`), `failed`
 * (an `Exit.fail` of a wire error), `broken` (an `Exit.die`), `sync` (an `Effect.sync`, done
 * only once it runs). Each gives its request a context of its own.
 */
const setup = (options: { readonly batching?: boolean } = {}) =>
  Effect.gen(function*() {
    const started = new Started()
    const memory = yield* MemoryTransport.make
    const peer = yield* Peer.make({
      protocol: memory.protocol,
      batching: () => Effect.succeed(options.batching ?? false),
      onRequest: (_client, request) => ({
        effect: request.method === "done"
          ? Effect.succeed(result)
          : request.method === "failed"
          ? Exit.fail(new McpError.InvalidParams({ message: "no such thing" }))
          : request.method === "broken"
          ? Exit.die(new Error("a bug"))
          : Effect.sync(() => result),
        context: Context.make(Served, String(request.id))
      })
    }).pipe(Effect.supervised(started))
    const remote = yield* memory.connect
    const call = (text: string) => Effect.zipRight(remote.write(text), Effect.map(remote.read, (t) => JSON.parse(t)))
    return { peer, remote, started, call }
  })

describe("Peer: requests done at once", () => {
  it.scoped("are answered without a fiber of their own; the others still get one", () =>
    Effect.gen(function*() {
      const { call, started } = yield* setup()
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":1,"method":"done"}`), {
        jsonrpc: "2.0",
        id: 1,
        result
      })
      assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":2,"method":"sync"}`), {
        jsonrpc: "2.0",
        id: 2,
        result
      })
      assert.deepStrictEqual(started.served, ["2"])
    }))

  it.scoped("a done failure: a wire error and a defect are answered with the request's id", () =>
    Effect.gen(function*() {
      const { call, started } = yield* setup()
      const failed = yield* call(`{"jsonrpc":"2.0","id":"f","method":"failed"}`)
      assert.strictEqual(failed.id, "f")
      assert.strictEqual(failed.error.code, -32602)
      assert.strictEqual(failed.error.message, "no such thing")
      const broken = yield* call(`{"jsonrpc":"2.0","id":7,"method":"broken"}`)
      assert.deepStrictEqual(broken, { jsonrpc: "2.0", id: 7, error: { code: -32603, message: "Internal error" } })
      assert.deepStrictEqual(started.served, [])
    }))

  it.scoped("are never in flight: the same id may come again, and nothing is left over", () =>
    Effect.gen(function*() {
      const { call, peer } = yield* setup()
      for (let i = 0; i < 3; i++) {
        assert.deepStrictEqual(yield* call(`{"jsonrpc":"2.0","id":5,"method":"done"}`), {
          jsonrpc: "2.0",
          id: 5,
          result
        })
      }
      assert.strictEqual(yield* peer.inflight, 0)
    }))

  it.scoped("are answered in order with the others: what comes after never overtakes them", () =>
    Effect.gen(function*() {
      const { remote } = yield* setup()
      yield* remote.write(`{"jsonrpc":"2.0","id":1,"method":"done"}`)
      yield* remote.write(`{"jsonrpc":"2.0","id":2,"method":"done"}`)
      yield* remote.write(`{"jsonrpc":"2.0","id":3,"method":"sync"}`)
      yield* remote.write(`{"jsonrpc":"2.0","id":4,"method":"done"}`)
      yield* remote.write(`{"jsonrpc":"2.0","id":5,"method":"failed"}`)
      yield* remote.write(`not json`)
      const ids: Array<unknown> = []
      for (let i = 0; i < 6; i++) ids.push(JSON.parse(yield* remote.read).id)
      assert.deepStrictEqual(ids, [1, 2, 3, 4, 5, null])
    }))

  it.scoped("in a batch: one array answers them all, with the others", () =>
    Effect.gen(function*() {
      const { call } = yield* setup({ batching: true })
      const answers: Array<{ readonly id: number }> = yield* call(
        `[{"jsonrpc":"2.0","id":1,"method":"done"},{"jsonrpc":"2.0","id":2,"method":"sync"},` +
          `{"jsonrpc":"2.0","id":3,"method":"failed"}]`
      )
      assert.deepStrictEqual(answers.map((answer) => answer.id).sort(), [1, 2, 3])
    }))
})
