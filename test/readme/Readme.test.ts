import { MemoryTransport } from "@effect-mcp/core"
import { McpServer } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Client, greeting } from "./client.js"
import { DualServer } from "./dual.js"
import { Server } from "./greet.js"

const here = path.dirname(fileURLToPath(import.meta.url))

describe("README example", () => {
  it.scoped("serves greet as the README says", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(McpServer.serve(protocol).pipe(Effect.provide(Server)))
      const call = (text: string) => Effect.zipRight(remote.write(text), Effect.map(remote.read, JSON.parse))
      yield* call(
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
      )
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
      const ok = yield* call(
        `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`
      )
      assert.deepStrictEqual(ok.result.structuredContent, { greeting: "hello Ada" })
      const failed = yield* call(
        `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":""}}}`
      )
      assert.isTrue(failed.result.isError)
      assert.include(failed.result.content[0].text, "who should I greet?")
      const list = yield* call(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
      assert.deepStrictEqual(list.result.tools[0].annotations, { readOnlyHint: true })
    }))

  it("is the code the README shows", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../README.md"), "utf8")
    const example = fs.readFileSync(path.resolve(here, "greet.ts"), "utf8").trim()
    assert.include(readme, example)
  })

  it.scoped("the dual server answers both eras on one connection", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(
        McpServer.serve(protocol).pipe(
          Effect.provide(DualServer),
          Effect.withConfigProvider(
            ConfigProvider.fromMap(new Map([["MCP_REQUEST_STATE_KEY", "a key every process shares"]]))
          )
        )
      )
      const call = (text: string) => Effect.zipRight(remote.write(text), Effect.map(remote.read, JSON.parse))
      const meta =
        `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
      const stateless = yield* call(
        `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{${meta}}}`
      )
      assert.strictEqual(stateless.result.resultType, "complete")
      assert.strictEqual(stateless.result.ttlMs, 60_000)
      assert.strictEqual(stateless.result.cacheScope, "public")
      const init = yield* call(
        `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
      )
      assert.strictEqual(init.result.protocolVersion, "2025-11-25")
    }))

  it("is the dual server the README shows", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../README.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.resolve(here, "dual.ts"), "utf8").trim())
  })

  it.scoped("the client example: the test kit calls the server", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Effect.provide(greeting, Client), { greeting: "hello Ada" })
    }))

  it("is the client example the README shows", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../README.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.resolve(here, "client.ts"), "utf8").trim())
  })
})
