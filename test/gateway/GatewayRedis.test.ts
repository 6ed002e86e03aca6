/**
 * Two `mcp gateway --port N --redis URL` instances (apps/cli, built) on one real redis-server, in
 * front of our demo, at the wire, a client alternating between them (no affinity): a handshake
 * session initialized on one and served by both (lists, a call, a subscription made on one whose
 * update reaches the session's GET stream held by the other, a call cancelled through the other),
 * and 2026-07-28 requests on both. Each instance has its own upstream (its own demo process).
 * Before `--redis` the second instance knew no session of the first (this failed: 404).
 */
import { RedisConnection } from "@effect-mcp/redis"
import { HttpWire, Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { demoMain, serving } from "./support.js"

/** The waits below bound events (an instance's start, a stream's event), never the time they take. */
const guard = 30_000

/** `promise`, or a failure saying `what` did not happen within the guard. */
const within = <A>(promise: Promise<A>, what: string): Promise<A> => Services.within(promise, guard, what)

/** An instance of `mcp ...command --redis redis` sharing one `MCP_REQUEST_STATE_KEY`: its endpoint. */
const instance = (command: ReadonlyArray<string>, redis: string) =>
  serving([...command, "--redis", redis], { MCP_REQUEST_STATE_KEY: "k".repeat(48) })

/** `mcp gateway` in front of our demo (served once its upstream is up, or a minute passed). */
const gatewayOfDemo = () => {
  const config = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-redis-")), "gateway.json")
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [demoMain, "stdio"] } } })
  )
  // A minute: a loaded machine starts the demo when it can.
  return ["gateway", "--config", config, "--start-timeout", "60"]
}

/** Two instances sharing one redis-server, each in front of its own demo. */
const twoInstances = Effect.gen(function*() {
  const redis = yield* Services.redisServer()
  const gateway = gatewayOfDemo()
  return yield* Effect.all([instance(gateway, redis.url), instance(gateway, redis.url)], { concurrency: 2 })
})

/** Every key of the Redis at `url` (SCAN, all of it). */
const keysOf = (url: string) =>
  Effect.flatMap(RedisConnection.make({ url }), (connection) =>
    Effect.promise(async () => {
      const keys: Array<string> = []
      let cursor = "0"
      do {
        const [next, some] = await connection.redis.scan(cursor, "COUNT", 1000)
        keys.push(...some)
        cursor = next
      } while (cursor !== "0")
      return keys
    }))

let ids = 0

/** A handshake-era POST of session `session`: its status and the answer (of a JSON body or a stream). */
const post = async (url: string, session: string | undefined, method: string, params?: object) => {
  const id = ++ids
  const response = await fetch(url, {
    method: "POST",
    headers: HttpWire.handshakeHeaders(session),
    body: JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })
  })
  if (response.status !== 200) return { status: response.status, session: undefined, message: await response.text() }
  const got = await HttpWire.events(response, (m) => m.id === id && !("method" in m), guard)
  return { status: 200, session: response.headers.get("mcp-session-id") ?? undefined, message: got.at(-1)?.message }
}

const notify = (url: string, session: string, method: string, params?: object) =>
  fetch(url, {
    method: "POST",
    headers: HttpWire.handshakeHeaders(session),
    body: JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) })
  }).then((response) => response.status)

/** A 2026-07-28 request to `url`: its answer. */
const stateless = async (url: string, method: string, params: Record<string, unknown>, name?: string) => {
  const id = ++ids
  const response = await fetch(url, {
    method: "POST",
    headers: HttpWire.statelessHeaders(method, name),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "redis-test", version: "1" }
        }
      }
    })
  })
  assert.strictEqual(response.status, 200, `${method} on ${url}`)
  return (await HttpWire.events(response, (m) => m.id === id && !("method" in m), guard)).at(-1)!.message
}

describe("mcp gateway --redis: two instances, one set of clients", () => {
  it.scopedLive(
    "a handshake session served by both (lists, a call, an update across instances, a cancellation); 2026-07-28 on both",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* twoInstances
        yield* Effect.promise(async () => {
          const init = await post(a, undefined, "initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "redis-test", version: "1" }
          })
          assert.strictEqual(init.status, 200)
          const session = init.session!
          assert.strictEqual(await notify(b, session, "notifications/initialized"), 202)

          // Lists and a call, each on the other instance.
          const tools = await post(b, session, "tools/list")
          assert.strictEqual(tools.status, 200, JSON.stringify(tools.message))
          assert.includeMembers(tools.message.result.tools.map((t: { name: string }) => t.name), [
            "demo_add",
            "demo_longRunning",
            "demo_updateWatchedResource"
          ])
          const sum = await post(a, session, "tools/call", { name: "demo_add", arguments: { a: 40, b: 2 } })
          assert.deepStrictEqual(sum.message.result.structuredContent, { sum: 42 })
          const resources = await post(a, session, "resources/list")
          assert.include(
            resources.message.result.resources.map((r: { uri: string }) => r.uri),
            "demo+test://watched-resource"
          )

          // The session's GET stream is held by a; the subscription is made on b, and so is the change.
          const get = HttpWire.sse(
            await fetch(a, {
              method: "GET",
              headers: {
                accept: "text/event-stream",
                "mcp-session-id": session,
                "mcp-protocol-version": "2025-11-25"
              }
            })
          )
          await get.next((e) => e.id !== undefined && e.message === undefined, "the GET stream's priming event")
          const subscribed = await post(b, session, "resources/subscribe", { uri: "demo+test://watched-resource" })
          assert.deepStrictEqual(subscribed.message.result, {})
          const changed = await post(b, session, "tools/call", { name: "demo_updateWatchedResource", arguments: {} })
          assert.include(JSON.stringify(changed.message.result.content), "now at version")
          const updated = await get.next(
            (e) => e.message?.method === "notifications/resources/updated",
            "the update on a's GET stream"
          )
          assert.strictEqual(updated.message.params.uri, "demo+test://watched-resource")
          await get.cancel()

          // A call on a, cancelled through b: its stream ends with no result.
          const id = ++ids
          const running = HttpWire.sse(
            await fetch(a, {
              method: "POST",
              headers: HttpWire.handshakeHeaders(session),
              body: JSON.stringify({
                jsonrpc: "2.0",
                id,
                method: "tools/call",
                params: {
                  name: "demo_longRunning",
                  arguments: { duration: 60, steps: 60 },
                  _meta: { progressToken: "p" }
                }
              })
            })
          )
          await running.next((e) => e.message?.method === "notifications/progress", "the call's first progress")
          assert.strictEqual(
            await notify(b, session, "notifications/cancelled", { requestId: id, reason: "test" }),
            202
          )
          await within(running.ended, "the cancelled call's stream to end")
          assert.isUndefined(
            running.received.find((e) => e.message?.id === id && "result" in e.message),
            "the cancelled call was answered"
          )
        })
        // 2026-07-28 requests, on either instance.
        yield* Effect.promise(async () => {
          for (const url of [a, b]) {
            const tools = await stateless(url, "tools/list", {})
            assert.include(tools.result.tools.map((t: { name: string }) => t.name), "demo_add")
            const sum = await stateless(url, "tools/call", { name: "demo_add", arguments: { a: 1, b: 2 } }, "demo_add")
            assert.deepStrictEqual(sum.result.structuredContent, { sum: 3 })
            const read = await stateless(
              url,
              "resources/read",
              { uri: "demo+test://watched-resource" },
              "demo+test://watched-resource"
            )
            assert.strictEqual(read.result.contents[0].uri, "demo+test://watched-resource")
          }
        })
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "--redis-prefix: two gateways on one Redis under prefixes of their own know nothing of each other's sessions",
    () =>
      Effect.gen(function*() {
        const redis = yield* Services.redisServer()
        const gateway = gatewayOfDemo()
        const [a, b] = yield* Effect.all([
          instance([...gateway, "--redis-prefix", "one:"], redis.url),
          instance([...gateway, "--redis-prefix", "two:"], redis.url)
        ], { concurrency: 2 })
        const sessions = yield* Effect.promise(async () => {
          const initialize = (url: string) =>
            post(url, undefined, "initialize", {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "redis-prefix-test", version: "1" }
            })
          const [one, two] = [(await initialize(a)).session!, (await initialize(b)).session!]
          // Each deployment serves its own session, and knows nothing of the other's.
          assert.strictEqual(await notify(a, one, "notifications/initialized"), 202)
          assert.strictEqual(await notify(b, two, "notifications/initialized"), 202)
          assert.strictEqual(await notify(b, one, "notifications/initialized"), 404)
          assert.strictEqual(await notify(a, two, "notifications/initialized"), 404)
          const sum = await post(a, one, "tools/call", { name: "demo_add", arguments: { a: 40, b: 2 } })
          assert.deepStrictEqual(sum.message.result.structuredContent, { sum: 42 })
          assert.strictEqual((await post(b, one, "tools/list")).status, 404)
          return [one, two] as const
        })
        // Every key either deployment wrote is under its prefix (none under the default, `mcp:`),
        // each session's record under its own.
        const keys = yield* keysOf(redis.url)
        assert.isNotEmpty(keys)
        assert.deepStrictEqual(keys.filter((key) => !key.startsWith("one:") && !key.startsWith("two:")), [])
        assert.isTrue(keys.some((key) => key.startsWith("one:") && key.includes(sessions[0])), keys.join(" "))
        assert.isTrue(keys.some((key) => key.startsWith("two:") && key.includes(sessions[1])), keys.join(" "))
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "mcp proxy --redis: a handshake session initialized on one proxy is served by the other",
    () =>
      Effect.gen(function*() {
        const redis = yield* Services.redisServer()
        const proxy = ["proxy", `stdio:${process.execPath} ${demoMain} stdio`]
        const [a, b] = yield* Effect.all([instance(proxy, redis.url), instance(proxy, redis.url)], { concurrency: 2 })
        yield* Effect.promise(async () => {
          const init = await post(a, undefined, "initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "redis-test", version: "1" }
          })
          const session = init.session!
          assert.strictEqual(await notify(b, session, "notifications/initialized"), 202)
          const sum = await post(b, session, "tools/call", { name: "add", arguments: { a: 40, b: 2 } })
          assert.deepStrictEqual(sum.message.result.structuredContent, { sum: 42 })
        })
      }),
    { timeout: 120_000 }
  )
})
