/**
 * Three HTTP instances of one server in this process, each with its own Redis connection and
 * session store (as three processes would have), on a real redis-server: a handshake session
 * served by all three, at the wire.
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpRequest, McpServer, Tool } from "@effect-mcp/server"
import { HttpWire, Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as RedisConnection from "../src/RedisConnection.js"
import * as RedisSessionStore from "../src/RedisSessionStore.js"
import * as RedisState from "../src/RedisState.js"
import * as Waits from "./utils/waits.js"

const interrupted = Deferred.unsafeMake<string>(undefined as never)
const slowStarted = Deferred.unsafeMake<void>(undefined as never)

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(`echo ${text}`)
)

const Ask = Tool.make("ask", {}, () =>
  Effect.map(
    McpRequest.sample("k", {
      messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
      maxTokens: 8
    }),
    (result) => `sampled ${(result.content as { text?: string }).text}`
  ).pipe(Effect.orDie))

const Slow = Tool.make(
  "slow",
  {},
  () =>
    Deferred.succeed(slowStarted, undefined).pipe(
      Effect.zipRight(Effect.never),
      Effect.onInterrupt(() => Deferred.succeed(interrupted, "interrupted")),
      Effect.as("never")
    )
)

const Extra = Tool.make("extra", {}, () => Effect.succeed("extra"))

/** Adds the tool `extra`: every session hears tools/list_changed. */
const Edit = Tool.make(
  "edit",
  {},
  () => Effect.flatMap(McpServer.McpServer, (server) => Effect.as(server.addTool(Extra), "added"))
)

const Notify = Tool.make(
  "notify",
  {},
  () => Effect.flatMap(McpRequest.McpRequest, (request) => Effect.as(request.elicitationComplete("e-1"), "sent"))
)

/** A task that asks (2025-11-25: a request to the client tagged with the task). */
const Confirm = Tool.make("confirm", {
  parameters: Schema.Struct({ file: Schema.String }),
  task: "required",
  failure: Schema.String
}, ({ file }) =>
  McpRequest.elicit("confirm", {
    message: `Delete ${file}?`,
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
  }).pipe(
    Effect.map((answer) => answer.action === "accept" && answer.content?.confirm === true ? `deleted ${file}` : "kept"),
    Effect.mapError((error) => error.message)
  ))

/** An instance with every shared part on Redis (`RedisState`), tasks too, serving `confirm`. */
const taskInstance = (url: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    yield* Layer.buildWithScope(
      NodeMcpServer.layerHttp({ port }).pipe(
        Layer.provide(
          McpServer.layer({
            serverInfo: { name: "shared", version: "1.0.0" },
            revisions: ["2025-11-25"],
            tools: [Confirm],
            taskPollInterval: "50 millis"
          })
        ),
        Layer.provide(RedisState.layer({ url }))
      ),
      yield* Effect.scope
    ).pipe(Effect.orDie)
    return `http://127.0.0.1:${port}/mcp`
  })

/** A dual-era instance with every shared part on Redis (`RedisState`). */
const dualInstance = (url: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    yield* Layer.buildWithScope(
      NodeMcpServer.layerHttp({ port }).pipe(
        Layer.provide(
          Layer.effectDiscard(Effect.flatMap(McpServer.McpServer, (server) => server.addTool(Edit))).pipe(
            Layer.provideMerge(
              McpServer.layer({
                serverInfo: { name: "shared", version: "1.0.0" },
                revisions: ["2025-11-25", "2026-07-28"],
                tools: [Echo]
              })
            )
          )
        ),
        Layer.provide(RedisState.layer({ url }))
      ),
      yield* Effect.scope
    ).pipe(Effect.orDie)
    return `http://127.0.0.1:${port}/mcp`
  })

/** One instance: its own connection, session store and HTTP server on a free port. */
const instance = (url: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    yield* Layer.buildWithScope(
      NodeMcpServer.layerHttp({ port }).pipe(
        Layer.provide(
          McpServer.layer({ serverInfo: { name: "shared", version: "1.0.0" }, tools: [Echo, Ask, Slow, Notify] })
        ),
        Layer.provide(RedisSessionStore.layer()),
        Layer.provide(RedisConnection.layer({ url }))
      ),
      yield* Effect.scope
    ).pipe(Effect.orDie)
    return `http://127.0.0.1:${port}/mcp`
  })

const headers = HttpWire.handshakeHeaders

const post = (url: string, body: unknown, session?: string) =>
  Effect.promise(() => fetch(url, { method: "POST", headers: headers(session), body: JSON.stringify(body) }))

/** The JSON-RPC messages of an SSE (or JSON) response, as they come; `until` stops reading. */
const messages = (response: Response, until: (m: any) => boolean) =>
  Effect.promise(() => HttpWire.events(response, until)).pipe(Effect.map((got) => got.map((e) => e.message)))

const initialize = (url: string, capabilities: object = {}) =>
  Effect.gen(function*() {
    const response = yield* post(url, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } }
    })
    const session = response.headers.get("mcp-session-id")!
    yield* Effect.promise(() => response.text())
    return session
  })

const call = (url: string, session: string, id: number, name: string, args: object = {}) =>
  Effect.flatMap(
    post(url, { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }, session),
    (response) => messages(response, (m) => m.id === id && !("method" in m))
  )

describe("handshake sessions shared on Redis, three instances", () => {
  it.scopedLive("one session's calls spread over all three; its initialized seen by the next request anywhere", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b, c] = yield* Effect.all([instance(redis.url), instance(redis.url), instance(redis.url)])
      const session = yield* initialize(a)
      const initialized = yield* post(b, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      assert.strictEqual(initialized.status, 202)
      const listed = yield* Effect.flatMap(
        post(c, { jsonrpc: "2.0", id: 1, method: "tools/list" }, session),
        (r) => Effect.promise(() => r.json())
      )
      assert.deepStrictEqual(listed.result.tools.map((t: { name: string }) => t.name).sort(), [
        "ask",
        "echo",
        "notify",
        "slow"
      ])
      for (const [i, url] of [a, b, c, a, b, c].entries()) {
        const answer = yield* call(url, session, 10 + i, "echo", { text: `n${i}` })
        assert.deepStrictEqual(answer.at(-1).result.content, [{ type: "text", text: `echo n${i}` }])
      }
      // An unknown session is still unknown anywhere.
      const unknown = yield* post(b, { jsonrpc: "2.0", id: 2, method: "tools/list" }, "nope")
      assert.strictEqual(unknown.status, 404)
      // DELETE on one instance ends it everywhere. The others hear of it through Redis (pub/sub): a
      // request that overtakes the news may still be served by a replica touched less than
      // touchMillis ago (a second at most), so each is asked until it answers 404.
      const deleted = yield* Effect.promise(() => fetch(c, { method: "DELETE", headers: headers(session) }))
      assert.strictEqual(deleted.status, 200)
      for (const url of [a, b, c]) {
        const after = yield* post(url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, session).pipe(
          Effect.filterOrFail((response) => response.status === 404, (response) => response.status),
          Effect.retry(Schedule.spaced("20 millis")),
          Effect.timeout("5 seconds"),
          Effect.orDie
        )
        assert.strictEqual(after.status, 404, url)
      }
    }))

  it.scopedLive("a sampling request raised on A is answered by a POST to B", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b] = yield* Effect.all([instance(redis.url), instance(redis.url)])
      const session = yield* initialize(a, { sampling: {} })
      yield* post(a, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      const response = yield* post(a, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask" } }, session)
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      while (!text.includes("sampling/createMessage")) {
        const { value } = yield* Effect.promise(() => reader.read())
        text += decoder.decode(value)
      }
      const ask = JSON.parse(text.split("\n").find((l) => l.includes("sampling/createMessage"))!.slice(5))
      assert.isAtLeast(ask.id, 2 ** 32)
      const answered = yield* post(b, {
        jsonrpc: "2.0",
        id: ask.id,
        result: { role: "assistant", content: { type: "text", text: "4" }, model: "m" }
      }, session)
      assert.strictEqual(answered.status, 202)
      // The answer to request 7 (an ask's id may begin with a 7 too).
      while (!/"id":7[,}]/.test(text)) {
        const { value, done } = yield* Effect.promise(() => reader.read())
        if (done) break
        text += decoder.decode(value)
      }
      assert.include(text, "sampled 4")
    }))

  it.scopedLive("a cancellation POSTed to B interrupts the request running on A", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b] = yield* Effect.all([instance(redis.url), instance(redis.url)])
      const session = yield* initialize(a)
      yield* post(a, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      yield* Effect.fork(post(a, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "slow" } }, session))
      yield* Waits.atOnce(Deferred.await(slowStarted), "the slow tool's start")
      const cancelled = yield* post(b, {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 9, reason: "no longer needed" }
      }, session)
      assert.strictEqual(cancelled.status, 202)
      assert.strictEqual(
        yield* Deferred.await(interrupted).pipe(
          Effect.timeoutFail({ duration: Waits.guard, onTimeout: () => "timeout" })
        ),
        "interrupted"
      )
    }))

  it.scopedLive("the GET stream held on C hears what the session raises on A", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, c] = yield* Effect.all([instance(redis.url), instance(redis.url)])
      const session = yield* initialize(a, { elicitation: { url: {} } })
      yield* post(a, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      const stream = yield* Effect.promise(() =>
        fetch(c, { headers: { accept: "text/event-stream", "mcp-session-id": session } })
      )
      assert.strictEqual(stream.status, 200)
      // C holds the stream once it listens for it on Redis.
      const connection = yield* RedisConnection.make({ url: redis.url })
      yield* Waits.until(
        Effect.map(
          connection.use((r) => r.pubsub("NUMSUB", `mcp:standalone:${session}`)),
          (reply) => Number(reply[1]) > 0
        ),
        "C never listened for the session's stream"
      )
      const heard = yield* Effect.fork(messages(stream, (m) => m.method === "notifications/elicitation/complete"))
      yield* call(a, session, 4, "notify")
      const got = yield* heard.await.pipe(Effect.flatten, Effect.timeout(5_000))
      assert.deepStrictEqual(got.at(-1).params, { elicitationId: "e-1" })
    }))

  it.scopedLive("a list changed while no instance held the GET stream is told when it resumes on another", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b, c] = yield* Effect.all([dualInstance(redis.url), dualInstance(redis.url), dualInstance(redis.url)])
      const session = yield* initialize(a)
      yield* post(a, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      const headers = (lastEventId?: string) => ({
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
        ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
      })
      // Held on A: the client reads its priming event's id, then goes away (its connection ends).
      const lastEventId = yield* Effect.promise(async () => {
        const aborted = new AbortController()
        const response = await fetch(a, { headers: headers(), signal: aborted.signal })
        const reader = response.body!.getReader()
        let text = ""
        while (!/^id: ?(\S+)$/m.test(text)) text += new TextDecoder().decode((await reader.read()).value)
        aborted.abort()
        return /^id: ?(\S+)$/m.exec(text)![1]
      })
      // A tool added on B while no instance holds the stream.
      const added = yield* call(b, session, 8, "edit")
      assert.deepStrictEqual(added.at(-1).result.content, [{ type: "text", text: "added" }])
      // Resumed on C: what it missed is told (before: nothing came).
      const resumed = yield* Effect.promise(() => fetch(c, { headers: headers(lastEventId) }))
      assert.strictEqual(resumed.status, 200)
      const told = yield* Effect.promise(() =>
        HttpWire.events(resumed, (m) => m.method === "notifications/tools/list_changed", 5_000)
      )
      assert.strictEqual(told.at(-1)?.message.method, "notifications/tools/list_changed", JSON.stringify(told))
    }))

  // Review of issue 35, finding 1: with no GET stream held anywhere, a 2025-11-25 task's ask was
  // sent to the session's standalone stream, so kept in Redis (`pending:`) for the next holder, and
  // the tasks/result that came next (on the very instance running the task) never got it: the task
  // stayed input_required. An ask now waits for the tasks/result, and goes on a GET stream only when
  // one is held.
  it.scopedLive("a task's ask with no GET stream held anywhere comes on the tasks/result, once", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b] = yield* Effect.all([taskInstance(redis.url), taskInstance(redis.url)])
      const session = yield* initialize(a, { elicitation: {}, tasks: { list: {}, cancel: {} } })
      yield* post(a, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      const created = yield* Effect.flatMap(
        post(a, {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "confirm", arguments: { file: "a.txt" }, task: { ttl: 60_000 } }
        }, session),
        (r) => Effect.promise(() => r.json())
      )
      const taskId: string = created.result.task.taskId
      const status = (url: string, id: number) =>
        Effect.flatMap(
          post(url, { jsonrpc: "2.0", id, method: "tasks/get", params: { taskId } }, session),
          (r) => Effect.promise(() => r.json()).pipe(Effect.map((body) => body.result.status as string))
        )
      // Polled (on either instance) until it asks.
      for (let i = 0; (yield* status(i % 2 === 0 ? a : b, 100 + i)) !== "input_required"; i++) {
        assert.isBelow(i, 200, "the task never asked")
      }
      const waiting = yield* post(a, { jsonrpc: "2.0", id: 2, method: "tasks/result", params: { taskId } }, session)
      const reader = waiting.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      const read = (until: (text: string) => boolean) =>
        Effect.promise(async () => {
          while (!until(text)) {
            const { done, value } = await reader.read()
            if (done) break
            text += decoder.decode(value, { stream: true })
          }
        })
      yield* read((t) => t.includes("elicitation/create")).pipe(
        Effect.timeoutFail({ duration: 10_000, onTimeout: () => new Error(`no ask on the tasks/result: ${text}`) }),
        Effect.orDie
      )
      const ask = JSON.parse(text.split("\n").find((l) => l.includes("elicitation/create"))!.slice(5))
      assert.deepStrictEqual(ask.params._meta["io.modelcontextprotocol/related-task"], { taskId })
      // Answered on the other instance.
      const answered = yield* post(b, {
        jsonrpc: "2.0",
        id: ask.id,
        result: { action: "accept", content: { confirm: true } }
      }, session)
      assert.strictEqual(answered.status, 202)
      // The answer to request 2 (the ask's id, a number of 2^32 or more, may begin with a 2 too).
      yield* read((t) => /"id":2[,}]/.test(t)).pipe(Effect.timeout(10_000), Effect.orDie)
      assert.include(text, "deleted a.txt")
      assert.strictEqual(text.split("elicitation/create").length - 1, 1)
      // Nothing of it was kept for a GET stream: one opened now does not get it again.
      const stream = yield* Effect.promise(() =>
        fetch(b, { headers: { accept: "text/event-stream", "mcp-session-id": session } })
      )
      assert.strictEqual(stream.status, 200)
      const kept = yield* Effect.promise(() => HttpWire.events(stream, () => false, 1_000))
      assert.deepStrictEqual(kept.filter((e) => e.message.method === "elicitation/create"), [])
    }))

  it.scopedLive("a task's ask goes to the GET stream held on another instance, answered there; not again", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b] = yield* Effect.all([taskInstance(redis.url), taskInstance(redis.url)])
      const session = yield* initialize(a, { elicitation: {}, tasks: { list: {}, cancel: {} } })
      yield* post(a, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      // The session's GET stream, held on B.
      const stream = yield* Effect.promise(() =>
        fetch(b, { headers: { accept: "text/event-stream", "mcp-session-id": session } })
      )
      assert.strictEqual(stream.status, 200)
      const heard = yield* Effect.fork(messages(stream, (m) => m.method === "elicitation/create"))
      const created = yield* Effect.flatMap(
        post(a, {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "confirm", arguments: { file: "b.txt" }, task: { ttl: 60_000 } }
        }, session),
        (r) => Effect.promise(() => r.json())
      )
      const taskId: string = created.result.task.taskId
      // It polls tasks/get (as ext-tasks does, never calling tasks/result) until the ask comes.
      for (let i = 0; heard.unsafePoll() === null; i++) {
        assert.isBelow(i, 200, "the ask never came on the GET stream")
        const polled = yield* post(a, { jsonrpc: "2.0", id: 100 + i, method: "tasks/get", params: { taskId } }, session)
        yield* Effect.promise(() => polled.text())
        yield* Effect.sleep(50)
      }
      const got = yield* Effect.flatten(heard.await)
      const ask = got.at(-1)
      assert.deepStrictEqual(ask.params._meta["io.modelcontextprotocol/related-task"], { taskId })
      const answered = yield* post(b, {
        jsonrpc: "2.0",
        id: ask.id,
        result: { action: "accept", content: { confirm: true } }
      }, session)
      assert.strictEqual(answered.status, 202)
      // The task's result on tasks/result, without the ask again.
      const result = yield* Effect.flatMap(
        post(a, { jsonrpc: "2.0", id: 2, method: "tasks/result", params: { taskId } }, session),
        (response) => messages(response, (m) => m.id === 2)
      )
      assert.deepStrictEqual(result.filter((m) => m.method === "elicitation/create"), [])
      assert.deepStrictEqual(result.at(-1).result.content, [{ type: "text", text: "deleted b.txt" }])
    }))

  it.scopedLive("Redis down: a request of a session not held here is a 503 with its id; back, it is served", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer({ persist: true })
      const [a, b] = yield* Effect.all([instance(redis.url), instance(redis.url)])
      const session = yield* initialize(a)
      yield* post(a, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      yield* redis.kill
      const refused = yield* post(b, { jsonrpc: "2.0", id: 5, method: "tools/list" }, session)
      assert.strictEqual(refused.status, 503)
      const body = yield* Effect.promise(() => refused.json())
      assert.strictEqual(body.id, 5)
      assert.include(body.error.message, "session store")
      yield* redis.start
      // Reconnected by itself; the session Redis kept goes on.
      const served = yield* Waits.eventually(
        Effect.filterOrFail(
          post(b, { jsonrpc: "2.0", id: 6, method: "tools/list" }, session),
          (response) => response.status === 200
        ),
        "the session was never served again"
      )
      assert.strictEqual(served.status, 200)
    }))

  it.scopedLive("Redis down: a 2026-07-28 call, which needs nothing shared, still succeeds; a handshake one is a 503", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const url = yield* dualInstance(redis.url)
      const session = yield* initialize(url)
      yield* redis.kill
      const V = "2026-07-28"
      const response = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": V,
            "mcp-method": "tools/call",
            "mcp-name": "echo"
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: "echo",
              arguments: { text: "alone" },
              _meta: {
                "io.modelcontextprotocol/protocolVersion": V,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" }
              }
            }
          })
        })
      )
      assert.strictEqual(response.status, 200)
      const body = yield* Effect.promise(() => response.json())
      assert.deepStrictEqual(body.result.content, [{ type: "text", text: "echo alone" }])
      // The session's state is in Redis: its request is refused until Redis is back (here, its replica
      // is local but due a touch within a second).
      // Real time: the replica's touch falls due by the server's own clock, a second after the last.
      yield* Effect.sleep(1_100)
      const refused = yield* post(url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, session)
      assert.strictEqual(refused.status, 503)
    }))

  it.scopedLive("an earlier version's records on the same Redis (a hash, Redis Streams): unknown here (404, never a WRONGTYPE 503), and ours out of its way", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      // Every shared part on Redis (RedisState): sessions and their events.
      const url = yield* dualInstance(redis.url)
      const connection = yield* RedisConnection.make({ url: redis.url })
      // What an instance of the earlier format keeps for a session of its own: its record a hash,
      // its events a Redis Stream, and its place in the live set (which both count).
      yield* connection.use(async (r) => {
        await r.hset("mcp:session:earlier", "l", "0", "s", "", "st", JSON.stringify({ phase: "ready" }))
        await r.pexpire("mcp:session:earlier", 60_000)
        await r.zadd("mcp:sessions", Date.now() + 60_000, "earlier")
        await r.hset("mcp:events:{earlier}:meta", "bytes", "10", "n", "1", "l:standalone", "0")
        await r.xadd("mcp:events:{earlier}:s:standalone", "0-1", "d", "")
      })
      // Its client, reaching an instance of this format: an unknown session (it initializes again).
      const called = yield* post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, "earlier")
      assert.strictEqual(called.status, 404, yield* Effect.promise(() => called.text()))
      const resumed = yield* Effect.promise(() =>
        fetch(url, {
          headers: { ...headers("earlier"), accept: "text/event-stream", "last-event-id": "standalone:0" }
        })
      )
      assert.strictEqual(resumed.status, 404, yield* Effect.promise(() => resumed.text()))
      // A session of this format, with events: none of its keys is one the earlier format reads.
      const session = yield* initialize(url)
      yield* post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      // Its GET stream's priming event is stored.
      const stream = yield* Effect.promise(() =>
        fetch(url, { headers: { ...headers(session), accept: "text/event-stream" } })
      )
      assert.strictEqual(stream.status, 200)
      const keys = yield* Effect.retry(
        Effect.filterOrFail(
          connection.use((r) => r.keys(`*${session}*`)),
          (keys) => keys.some((key) => key.startsWith(`mcp:events.v2:{${session}}:`)),
          () => "no event stored yet"
        ),
        Schedule.intersect(Schedule.recurs(100), Schedule.spaced(50))
      )
      yield* Effect.promise(() => stream.body!.cancel())
      assert.include(keys, `mcp:session.v2:${session}`)
      assert.isTrue(keys.every((key) => !key.startsWith("mcp:session:") && !key.startsWith("mcp:events:")))
      // The earlier session's keys are left to their TTL, untouched.
      assert.strictEqual(yield* connection.use((r) => r.type("mcp:session:earlier")), "hash")
    }))
})
