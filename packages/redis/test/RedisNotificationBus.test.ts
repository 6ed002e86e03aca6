/**
 * The Redis notification bus on a real redis-server: two processes on one channel, origins
 * carried, malformed messages skipped, Redis down (publish, subscribe) and back (every list may
 * have changed), and two servers sharing changes through it.
 */
import { MemoryTransport } from "@effect-mcp/core"
import { McpServer, NotificationBus, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisNotificationBus from "../src/RedisNotificationBus.js"
import * as Losses from "./utils/losses.js"
import * as Waits from "./utils/waits.js"

/** A bus on its own connection (one process of a deployment, say). */
const busOn = (url: string, options: RedisNotificationBus.Options = {}) =>
  Effect.flatMap(
    RedisConnection.make({ url, maxReconnectDelay: 100, ...Waits.slowCommands }),
    (redis) =>
      Effect.map(
        Effect.provideService(RedisNotificationBus.make(options), RedisConnection.RedisConnection, redis),
        (bus) => ({ bus, redis })
      )
  )

const everyList: ReadonlyArray<NotificationBus.Event> = [
  { _tag: "ListChanged", kind: "tools" },
  { _tag: "ListChanged", kind: "prompts" },
  { _tag: "ListChanged", kind: "resources" }
]

/**
 * Nothing more arrives within a while. (Real time: it looks for what should not come; a slow
 * machine can only make it miss one, never fail a right answer.)
 */
const quiet = <A>(queue: Queue.Dequeue<A>) =>
  Effect.map(Effect.timeoutOption(Queue.take(queue), 200), (next) => assert.isTrue(Option.isNone(next)))

/** The next `n` events (failing, not hanging, when they do not come). */
const takeN = <A>(queue: Queue.Dequeue<A>, n: number) =>
  Effect.map(Effect.timeout(Queue.takeN(queue, n), Waits.guard), (chunk) => Array.from(chunk))

const take = <A>(queue: Queue.Dequeue<A>) => Effect.timeout(Queue.take(queue), Waits.guard)

describe("RedisNotificationBus", () => {
  it.scopedLive("two processes on one Redis: published on one, heard by both, the origin intact", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const one = yield* busOn(server.url)
      const other = yield* busOn(server.url)
      const heardByOther = yield* other.bus.subscribe
      const heardByOne = yield* one.bus.subscribe
      const changes: ReadonlyArray<NotificationBus.Event> = [
        { _tag: "ListChanged", kind: "tools", origin: "server-1" },
        { _tag: "ResourceUpdated", uri: "test://a", origin: "server-1" },
        NotificationBus.listChanged("prompts")
      ]
      for (const change of changes) yield* one.bus.publish(change)
      assert.deepStrictEqual(yield* takeN(heardByOther, 3), changes)
      assert.deepStrictEqual(yield* takeN(heardByOne, 3), changes)
      // On the prefixed channel, as JSON.
      const raw = yield* one.redis.subscribe("mcp:bus")
      yield* other.bus.publish(NotificationBus.resourceUpdated("test://b"))
      assert.deepStrictEqual(yield* Effect.timeout(raw.take, Waits.guard), {
        _tag: "Message",
        payload: JSON.stringify({ _tag: "ResourceUpdated", uri: "test://b" })
      })
    }))

  it.scopedLive("a message that is not an event is skipped, counted and logged; the subscriber goes on", () =>
    Losses.withWarnings((warnings) =>
      Effect.gen(function*() {
        const server = yield* Services.redisServer()
        const { bus, redis } = yield* busOn(server.url)
        const heard = yield* bus.subscribe
        const before = yield* Losses.lost("bus-event")
        for (
          const junk of ["not json", "{\"_tag\":\"Nope\"}", "{\"_tag\":\"ListChanged\",\"kind\":\"spells\"}", "null"]
        ) {
          yield* redis.use((r) => r.publish("mcp:bus", junk))
        }
        yield* bus.publish(NotificationBus.listChanged("tools"))
        assert.deepStrictEqual(yield* take(heard), { _tag: "ListChanged", kind: "tools" })
        // Heard after the junk (one channel, in order): each was lost by then.
        assert.strictEqual((yield* Losses.lost("bus-event")) - before, 4)
        assert.isTrue(
          warnings.some((warning) => warning.includes("bus-event record read from Redis (the channel mcp:bus)")),
          warnings.join("\n")
        )
        yield* quiet(heard)
      })
    ))

  it.scopedLive(
    "the subscription connection lost and back: every subscriber hears that every list may have changed",
    () =>
      Effect.gen(function*() {
        const server = yield* Services.redisServer()
        const { bus, redis } = yield* busOn(server.url)
        const first = yield* bus.subscribe
        const second = yield* bus.subscribe
        yield* server.kill
        yield* Waits.down(redis)
        // Published while Redis is down: no failure, no wait (a command held for Redis would wait a minute).
        const published = yield* Waits.atOnce(Effect.exit(bus.publish(NotificationBus.listChanged("tools"))), "publish")
        assert.isTrue(Exit.isSuccess(published))
        yield* server.start
        for (const queue of [first, second]) {
          assert.deepStrictEqual(yield* takeN(queue, 3), everyList)
        }
        yield* quiet(first)
        // And on as before.
        yield* Waits.eventually(
          bus.publish(NotificationBus.resourceUpdated("test://x")).pipe(
            Effect.zipRight(
              Effect.flatMap(take(first), (e) => e._tag === "ResourceUpdated" ? Effect.void : Effect.fail(e))
            )
          )
        )
      }),
    { timeout: 20_000 }
  )

  it.scopedLive(
    "subscribing while Redis is down completes after subscribeTimeout; subscribed once Redis is back, every list changed",
    () =>
      Losses.withWarnings((warnings) =>
        Effect.gen(function*() {
          const server = yield* Services.redisServer()
          const { bus, redis } = yield* busOn(server.url, { subscribeTimeout: 200 })
          const publisher = yield* busOn(server.url)
          yield* server.kill
          yield* Waits.down(redis)
          // Completed without Redis (nothing can confirm while it is down), and said so.
          const heard = yield* Waits.atOnce(bus.subscribe, "subscribe")
          assert.isTrue(warnings.some((warning) => warning.includes("could not subscribe to mcp:bus yet")))
          yield* server.start
          assert.deepStrictEqual(yield* takeN(heard, 3), everyList)
          yield* Waits.eventually(publisher.redis.use((r) => r.ping()))
          yield* publisher.bus.publish(NotificationBus.resourceUpdated("test://y"))
          assert.deepStrictEqual(yield* take(heard), { _tag: "ResourceUpdated", uri: "test://y" })
        })
      ),
    { timeout: 20_000 }
  )

  it.scopedLive("subscribe completes once Redis has confirmed the subscription: a change published next is heard", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { bus } = yield* busOn(server.url, { subscribeTimeout: "1 minute" })
      const publisher = yield* busOn(server.url)
      yield* server.pause
      const subscribing = yield* Effect.fork(bus.subscribe)
      // Real time, only to give a wrong subscribe the chance to complete: nothing confirms while Redis is stopped.
      yield* Effect.sleep(200)
      assert.isTrue(Option.isNone(yield* Fiber.poll(subscribing)), "subscribe completed before Redis confirmed it")
      yield* server.resume
      const heard = yield* Waits.atOnce(Fiber.join(subscribing), "subscribe")
      yield* publisher.bus.publish(NotificationBus.listChanged("prompts"))
      assert.deepStrictEqual(yield* take(heard), { _tag: "ListChanged", kind: "prompts" })
      yield* quiet(heard)
    }))

  it.scopedLive("Redis slower than subscribeTimeout to confirm: subscribe completes; once subscribed, every list changed", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { bus } = yield* busOn(server.url, { subscribeTimeout: 100 })
      yield* server.pause
      // Completed while Redis cannot confirm (stopped): by subscribeTimeout, not by Redis.
      const heard = yield* Waits.atOnce(bus.subscribe, "subscribe")
      yield* server.resume
      // The connection never dropped (no Resubscribed): the bus itself says what may have been missed.
      assert.deepStrictEqual(yield* takeN(heard, 3), everyList)
      yield* quiet(heard)
    }))

  it.scopedLive("a subscriber that does not take holds a bounded number of events, the first in order", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const { bus, redis } = yield* busOn(server.url, { capacity: 5 })
      const heard = yield* bus.subscribe
      // Heard on the same subscription connection, after every event published before it.
      const marker = yield* redis.subscribe("mcp:marker")
      for (let i = 0; i < 50; i++) yield* bus.publish(NotificationBus.resourceUpdated(`test://${i}`))
      yield* redis.use((r) => r.publish("mcp:marker", "done"))
      yield* Waits.atOnce(marker.take, "the marker")
      // Five in its queue, one on its way there, five behind it in the connection's (the rest dropped):
      // the newest is among them.
      const held: Array<string> = []
      while (held.at(-1) !== "test://49") {
        const next = yield* take(heard)
        if (next._tag === "ResourceUpdated") held.push(next.uri)
      }
      yield* quiet(heard)
      assert.isAtMost(held.length, 11)
      assert.deepStrictEqual(held.slice(0, 6), [0, 1, 2, 3, 4, 5].map((i) => `test://${i}`))
    }))

  it.scopedLive(
    "two servers on the Redis bus: a tool added on one reaches a 2026-07-28 subscriptions/listen on the other, once",
    () =>
      Effect.gen(function*() {
        const server = yield* Services.redisServer()
        const busLayer = (url: string) =>
          RedisNotificationBus.layer().pipe(Layer.provide(RedisConnection.layer({ url })))
        const options = {
          serverInfo: { name: "redis-bus", version: "1.0.0" },
          tools: [Tool.make("echo", {}, () => Effect.succeed("echo"))],
          revisions: ["2026-07-28"]
        } as const
        const serverOn = Effect.flatMap(
          Layer.build(busLayer(server.url)),
          (context) => Effect.provide(McpServer.make(options), context)
        )
        const a = yield* serverOn
        const b = yield* serverOn
        const memory = yield* MemoryTransport.make
        yield* Effect.forkScoped(a.serve(memory.protocol))
        const client = yield* memory.connect
        const meta = {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "test", version: "0.0.1" }
        }
        const next = Effect.map(client.read, (text) => JSON.parse(text))
        yield* client.write(JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "subscriptions/listen",
          params: { _meta: meta, notifications: { toolsListChanged: true } }
        }))
        assert.strictEqual((yield* next).method, "notifications/subscriptions/acknowledged")
        yield* b.addTool(Tool.make("from-b", {}, () => Effect.succeed("b")))
        const change = yield* next
        assert.strictEqual(change.method, "notifications/tools/list_changed")
        assert.strictEqual(change.params._meta["io.modelcontextprotocol/subscriptionId"], 1)
        // Once: nothing more comes before the answer to a later request.
        yield* client.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta } }))
        const list = yield* next
        assert.strictEqual(list.id, 2)
        // Server a's registry is its own: the other's tool is not listed here, only heard of.
        assert.deepStrictEqual(list.result.tools.map((t: { name: string }) => t.name), ["echo"])
      }),
    { timeout: 20_000 }
  )
})
