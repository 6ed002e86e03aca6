/**
 * What a handshake session leaves in Redis, at the wire, on a real redis-server with every shared
 * part on it (`RedisState`): its events live no longer than it (an idle expiry takes them, on
 * whatever instance; a DELETE too), the event store's budget across sessions holds in Redis, and
 * an idle session takes under 1 KB.
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import { HttpWire, Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisEventStore from "../src/RedisEventStore.js"
import * as RedisState from "../src/RedisState.js"

/** Reports `steps` progress notifications of `size` characters each: as many SSE events stored. */
const Progress = Tool.make(
  "progress",
  { parameters: Schema.Struct({ steps: Schema.Number, size: Schema.Number }) },
  ({ size, steps }) =>
    Effect.gen(function*() {
      for (let step = 1; step <= steps; step++) yield* McpRequest.progress(step, steps, "x".repeat(size))
      return "done"
    })
)

const instance = (
  url: string,
  options: { readonly idle?: Duration.DurationInput; readonly eventStore?: RedisEventStore.Options } = {}
): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    yield* Layer.buildWithScope(
      NodeMcpServer.layerHttp({ port, sessionIdleTimeout: options.idle ?? "5 minutes" }).pipe(
        Layer.provide(McpServer.layer({ serverInfo: { name: "footprint", version: "1.0.0" }, tools: [Progress] })),
        Layer.provide(
          RedisState.layer(options.eventStore === undefined ? { url } : { url, eventStore: options.eventStore })
        )
      ),
      yield* Effect.scope
    ).pipe(Effect.orDie)
    return `http://127.0.0.1:${port}/mcp`
  })

const post = (url: string, body: unknown, session?: string) =>
  Effect.promise(() =>
    fetch(url, { method: "POST", headers: HttpWire.handshakeHeaders(session), body: JSON.stringify(body) })
  )

const initialize = (url: string, params: object = {}) =>
  Effect.gen(function*() {
    const response = yield* post(url, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" }, ...params }
    })
    const session = response.headers.get("mcp-session-id")!
    yield* Effect.promise(() => response.text())
    const initialized = yield* post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
    assert.strictEqual(initialized.status, 202)
    return session
  })

/** A `progress` call with a progress token: its answer comes last on an SSE stream, after `steps` events. */
const progress = (url: string, session: string, steps: number, size: number) =>
  Effect.gen(function*() {
    const response = yield* post(url, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "progress", arguments: { steps, size }, _meta: { progressToken: "p" } }
    }, session)
    const got = yield* Effect.promise(() => HttpWire.events(response, (m) => m.id === 1))
    assert.strictEqual(got.length, steps + 1)
    return got
  })

/** Every key of Redis under `pattern`, with `MEMORY USAGE` summed. */
const usage = (redis: RedisConnection.Service, pattern: string) =>
  redis.use(async (r) => {
    const keys = await r.keys(pattern)
    const sizes = await Promise.all(keys.map((key) => r.memory("USAGE", key, "SAMPLES", 0)))
    return { keys, bytes: sizes.reduce<number>((sum, size) => sum + Number(size ?? 0), 0) }
  })

/** Until `check` holds, polling Redis (at most 10 seconds): Redis expires keys in its own time. */
const eventually = <A>(effect: Effect.Effect<A, RedisConnection.RedisUnavailable>, check: (a: A) => boolean) =>
  Effect.retry(
    Effect.filterOrFail(effect, check, () => "not yet"),
    Schedule.intersect(Schedule.recurs(100), Schedule.spaced(100))
  )

describe("what a session leaves in Redis", () => {
  it.scopedLive("its events live no longer than it: an idle expiry takes them (no DELETE), and a DELETE", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const redis = yield* RedisConnection.make({ url: server.url })
      const [a, b] = yield* Effect.all([instance(server.url, { idle: "2 seconds" }), instance(server.url)])
      const session = yield* initialize(a)
      // Stored through the other instance, whose own idle timeout is 5 minutes: the session's record says 2 s.
      yield* progress(b, session, 50, 100)
      const stored = yield* usage(redis, `mcp:events.v2:{${session}}:*`)
      assert.isAtLeast(stored.keys.length, 4)
      const ttls = yield* redis.use((r) => Promise.all(stored.keys.map((key) => r.pttl(key))))
      // Before: an hour after their last append, whatever became of the session.
      assert.isTrue(ttls.every((ttl) => ttl > 0 && ttl <= 2_000), ttls.join(", "))
      // Left idle, it expires, and its events with it.
      yield* eventually(redis.use((r) => r.exists(`mcp:session.v2:${session}`)), (n) => n === 0)
      yield* eventually(usage(redis, `mcp:events.v2:{${session}}:*`), ({ keys }) => keys.length === 0)
      const gone = yield* post(b, { jsonrpc: "2.0", id: 2, method: "tools/list" }, session)
      assert.strictEqual(gone.status, 404)

      // A DELETE takes them at once, on every instance.
      const other = yield* initialize(b)
      yield* progress(a, other, 10, 100)
      assert.isAbove((yield* usage(redis, `mcp:events.v2:{${other}}:*`)).keys.length, 0)
      const deleted = yield* Effect.promise(() =>
        fetch(a, { method: "DELETE", headers: HttpWire.handshakeHeaders(other) })
      )
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual((yield* usage(redis, `mcp:events.v2:{${other}}:*`)).keys, [])
    }))

  it.scopedLive("the event store's budget across sessions holds in Redis (MEMORY USAGE), the newest kept", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const redis = yield* RedisConnection.make({ url: server.url })
      const maxBytes = 400_000
      const url = yield* instance(server.url, { eventStore: { maxBytes } })
      // 12 sessions of 200 events of 500 bytes: about 1.3 MB of events asked to be kept.
      const sessions: Array<string> = []
      for (let i = 0; i < 12; i++) {
        const session = yield* initialize(url)
        sessions.push(session)
        yield* progress(url, session, 200, 500)
        const held = yield* usage(redis, "mcp:events.v2:{*")
        // Before: 110 KB more each time, without end.
        assert.isAtMost(held.bytes, maxBytes, `after ${i + 1} sessions`)
      }
      // The last session's stream is still there to resume, its newest events at least.
      const store = yield* Effect.provideService(RedisEventStore.make(), RedisConnection.RedisConnection, redis)
      assert.isAtMost(yield* store.bytes(), maxBytes)
      assert.isAbove(yield* store.bytes(sessions[11]), 0)
    }))

  it.scopedLive("an idle session takes under 1 KB: its record and its entry in the live set (MEMORY USAGE)", () =>
    Effect.gen(function*() {
      const server = yield* Services.redisServer()
      const redis = yield* RedisConnection.make({ url: server.url })
      const url = yield* instance(server.url)
      // What the Inspector declares (its clientInfo and capabilities): the state grows with them.
      const inspector = {
        clientInfo: {
          name: "inspector-client",
          version: "2.12.0",
          title: "MCP Inspector",
          websiteUrl: "https://modelcontextprotocol.io"
        },
        capabilities: {
          sampling: {},
          elicitation: { form: {}, url: {} },
          roots: { listChanged: true },
          tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
          extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } }
        }
      }
      // Past 128, the live set is a skip list, what it is in production.
      const count = 150
      const sessions: Array<string> = []
      for (let i = 0; i < count; i++) sessions.push(yield* initialize(url, inspector))
      const live = Number(yield* redis.use((r) => r.memory("USAGE", "mcp:sessions", "SAMPLES", 0)))
      const records = yield* usage(redis, "mcp:session.v2:*")
      assert.strictEqual(records.keys.length, count)
      const perSession = records.bytes / count + live / count
      // Before: 1,184 bytes of record (a hash: the state's JSON is past what a small hash holds) and 134 in the set.
      assert.isBelow(perSession, 1024, `${records.bytes / count} B of record, ${live / count} B in the live set`)
      // Nothing else of it is kept: no events (its answers were JSON), nothing pending.
      assert.deepStrictEqual(yield* redis.use((r) => r.keys(`*${sessions[0]}*`)), [`mcp:session.v2:${sessions[0]}`])
    }))
})
