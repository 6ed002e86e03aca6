/**
 * The README's "Running many instances" example: two instances of it on one real redis-server, a
 * session begun on one and served by the other.
 */
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Instance } from "./cluster.js"

const here = path.dirname(fileURLToPath(import.meta.url))

const post = (url: string, body: unknown, session?: string) =>
  Effect.promise(() =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session === undefined ? {} : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" })
      },
      body: JSON.stringify(body)
    })
  )

describe("README: running many instances", () => {
  it("is in the README as it is here", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../README.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.resolve(here, "cluster.ts"), "utf8").trim())
  })

  it.scopedLive("two instances of it on one Redis serve one session", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b] = [yield* Services.freePort, yield* Services.freePort]
      const scope = yield* Effect.scope
      yield* Layer.buildWithScope(Layer.merge(Instance(a, redis.url), Instance(b, redis.url)), scope).pipe(
        Effect.orDie
      )
      const initialized = yield* post(`http://127.0.0.1:${a}/mcp`, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "readme", version: "1" } }
      })
      const session = initialized.headers.get("mcp-session-id")!
      yield* Effect.promise(() => initialized.text())
      yield* post(`http://127.0.0.1:${b}/mcp`, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      const answer = yield* post(`http://127.0.0.1:${b}/mcp`, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "add", arguments: { a: 2, b: 3 } }
      }, session)
      const body = yield* Effect.promise(() => answer.json())
      assert.deepStrictEqual(body.result.content, [{ type: "text", text: "5" }])
    }))
})
