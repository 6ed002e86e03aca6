/**
 * `onResourceSubscribe` on a 2026-07-28 listen (the review's finding 7): the listen's limits are
 * checked before any hook runs (a listen that is refused tells the hook nothing), and the hooks of
 * one listen run together (a bounded number at once), not one URI after another. Both failed
 * before: the hooks ran first, one at a time (the second test then never got its acknowledgement).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Resource from "../src/Resource.js"
import { connect, meta } from "./utils/TestClient.js"

const SUB = "io.modelcontextprotocol/subscriptionId"
const options = {
  serverInfo: { name: "subscribe-hook-test", version: "1.0.0" },
  resources: [Resource.make("test://a", { name: "a" }, Effect.succeed("a"))],
  revisions: ["2026-07-28"]
} as const

const listen = (id: string, uris: ReadonlyArray<string>) => ({
  jsonrpc: "2.0",
  id,
  method: "subscriptions/listen",
  params: { _meta: meta(), notifications: { resourceSubscriptions: uris } }
})
const uris = (n: number) => Array.from({ length: n }, (_, i) => `test://unlisted/${i}`)

describe("onResourceSubscribe on a listen", () => {
  it.scoped("a listen past the limits is refused with its id before any hook runs", () =>
    Effect.gen(function*() {
      const told = yield* Ref.make<Array<string>>([])
      const client = yield* connect({
        ...options,
        maxSubscriptionUris: 3,
        maxSubscriptionsPerClient: 1,
        onResourceSubscribe: (uri: string) => Ref.update(told, (all) => [...all, uri])
      })
      // Too many URIs: -32602, no hook.
      yield* client.send(listen("many", uris(4)))
      const many = yield* client.next
      assert.strictEqual(many.id, "many")
      assert.strictEqual(many.error.code, -32602)
      assert.deepStrictEqual(yield* Ref.get(told), [])
      // One open (its hooks told), then one past the client's open subscriptions: -32000, no hook.
      yield* client.send(listen("one", ["test://unlisted/x"]))
      const ack = yield* client.next
      assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
      assert.strictEqual(ack.params._meta[SUB], "one")
      assert.deepStrictEqual(yield* Ref.get(told), ["test://unlisted/x"])
      yield* client.send(listen("two", uris(3)))
      const two = yield* client.next
      assert.strictEqual(two.id, "two")
      assert.strictEqual(two.error.code, -32000)
      assert.deepStrictEqual(yield* Ref.get(told), ["test://unlisted/x"])
    }))

  it.scoped("the hooks of one listen run together: each waits for all the others to have started", () =>
    Effect.gen(function*() {
      const n = 8
      const started = yield* Ref.make(0)
      const all = yield* Deferred.make<void>()
      const client = yield* connect({
        ...options,
        // Ends only once every hook of the listen has started: hooks run one at a time never end.
        onResourceSubscribe: () =>
          Effect.zipRight(
            Effect.flatMap(
              Ref.updateAndGet(started, (k) => k + 1),
              (k) => k === n ? Deferred.succeed(all, void 0) : Effect.void
            ),
            Deferred.await(all)
          )
      })
      yield* client.send(listen("l", uris(n)))
      const ack = yield* client.next
      assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
      assert.deepStrictEqual(ack.params.notifications, { resourceSubscriptions: uris(n) })
      assert.strictEqual(yield* Ref.get(started), n)
      // A bound: a listen of many URIs does not start a fiber per URI at once.
      const peak = yield* Ref.make(0)
      const now = yield* Ref.make(0)
      const bounded = yield* connect({
        ...options,
        onResourceSubscribe: () =>
          Effect.ensuring(
            Effect.zipRight(
              Effect.flatMap(Ref.updateAndGet(now, (k) => k + 1), (k) => Ref.update(peak, (p) => Math.max(p, k))),
              Effect.yieldNow()
            ),
            Ref.update(now, (k) => k - 1)
          )
      })
      yield* bounded.send(listen("big", uris(200)))
      assert.strictEqual((yield* bounded.next).method, "notifications/subscriptions/acknowledged")
      const most = yield* Ref.get(peak)
      assert.isAbove(most, 1)
      assert.isAtMost(most, 32)
    }))
})
