/**
 * The README's "Running many instances" example: two instances of it on one real redis-server, a
 * session begun on one and served by the other; and the key its instances seal multi-round trips
 * with, the cluster's (`MCP_REQUEST_STATE_KEY`), so that a retry may land on any process.
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Instance } from "./cluster.js"

const here = path.dirname(fileURLToPath(import.meta.url))

/** The key every process of the cluster is given. */
const key = "the key every instance of the calculator shares"
const withKey = Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["MCP_REQUEST_STATE_KEY", key]])))

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

/** A 2026-07-28 `tools/call`, its answer's JSON. */
const callStateless = (url: string, id: number, params: { readonly name: string } & Record<string, unknown>) =>
  Effect.flatMap(
    Effect.promise(() =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": params.name
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
              "io.modelcontextprotocol/clientInfo": { name: "readme", version: "1" }
            }
          }
        })
      })
    ),
    (response) => Effect.promise(() => response.json())
  )

describe("README: running many instances", () => {
  it("is in the README as it is here", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../docs/scale-out.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.resolve(here, "cluster.ts"), "utf8").trim())
  })

  it.scopedLive("two instances of it on one Redis serve one session", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, b] = [yield* Services.freePort, yield* Services.freePort]
      const scope = yield* Effect.scope
      yield* Layer.buildWithScope(Layer.merge(Instance(a, redis.url), Instance(b, redis.url)), scope).pipe(
        withKey,
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

  it.scopedLive("its instances seal with MCP_REQUEST_STATE_KEY: a retry sealed by another process with it is served", () =>
    Effect.gen(function*() {
      const redis = yield* Services.redisServer()
      const [a, elsewhere] = [yield* Services.freePort, yield* Services.freePort]
      const scope = yield* Effect.scope
      yield* Layer.buildWithScope(Instance(a, redis.url), scope).pipe(withKey, Effect.orDie)
      // Another process of the cluster, given the same key, whose `add` asks a round first (a version
      // rolling out, say): its requestState comes back to the README's instance with the retry.
      const Asking = Tool.make("add", {
        parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number })
      }, () => McpServer.inputRequired({ requestState: "asked elsewhere" }))
      yield* Layer.buildWithScope(
        NodeMcpServer.layerHttp({ port: elsewhere }).pipe(
          Layer.provide(McpServer.layer({
            serverInfo: { name: "calculator", version: "1.0.1" },
            tools: [Asking],
            requestStateKey: Redacted.make(key)
          }))
        ),
        scope
      ).pipe(Effect.orDie)
      const call = { name: "add", arguments: { a: 2, b: 3 } }
      const first = yield* callStateless(`http://127.0.0.1:${elsewhere}/mcp`, 1, call)
      assert.strictEqual(first.result?.resultType, "input_required", JSON.stringify(first))
      // Without the key, the instance sealed with a random one of its own process: -32602, "sealed by another key".
      const retry = yield* callStateless(`http://127.0.0.1:${a}/mcp`, 2, {
        ...call,
        requestState: first.result.requestState
      })
      assert.deepStrictEqual(retry.result?.content, [{ type: "text", text: "5" }], JSON.stringify(retry))
    }))
})
