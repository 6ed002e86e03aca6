/**
 * `readyPath` on Redis: ready while Redis answers, 503 naming every shared part while it is down,
 * ready again once it is back (the connection comes back by itself); liveness stays 200.
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as RedisState from "../src/RedisState.js"

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.json() }
  })

/** `GET url` until it answers `status` (every 50 ms, for at most 20 seconds). */
const until = (url: string, status: number) =>
  get(url).pipe(
    Effect.repeat({ until: (r) => r.status === status, schedule: Schedule.spaced(Duration.millis(50)) }),
    Effect.zipRight(get(url)),
    Effect.timeout(Duration.seconds(20))
  )

describe("readiness on Redis", () => {
  it.scopedLive(
    "ready, then 503 naming the shared stores while Redis is down, then ready again",
    () =>
      Effect.gen(function*() {
        const redis = yield* Services.redisServer()
        const port = yield* Services.freePort
        yield* Layer.buildWithScope(
          NodeMcpServer.layerHttp({ port, healthPath: "/healthz", readyPath: "/readyz" }).pipe(
            Layer.provide(McpServer.layer({ serverInfo: { name: "ready", version: "1.0.0" } })),
            Layer.provide(RedisState.layer({ url: redis.url }))
          ),
          yield* Effect.scope
        )
        const origin = `http://127.0.0.1:${port}`
        assert.deepStrictEqual(yield* get(`${origin}/readyz`), { status: 200, body: { status: "ready" } })
        yield* redis.kill
        const down = yield* until(`${origin}/readyz`, 503)
        assert.deepStrictEqual(down.body, {
          status: "unavailable",
          failing: ["sessions", "events", "tasks", "notifications"]
        })
        assert.strictEqual((yield* get(`${origin}/healthz`)).status, 200)
        yield* redis.start
        const up = yield* until(`${origin}/readyz`, 200)
        assert.deepStrictEqual(up.body, { status: "ready" })
      }),
    40_000
  )
})
