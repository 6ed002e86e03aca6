import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { MemoryTransport } from "@effect-mcp/core"
import { McpServer } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Client, greeting } from "./client.js"
import { DualServer } from "./dual.js"
import { Server } from "./greet.js"
import { Routes } from "./router.js"
import { AppLive } from "./services.js"
import { WeatherServer } from "./weather.js"

const here = path.dirname(fileURLToPath(import.meta.url))

/** The text of a page of the documentation: the README, or a guide of `docs/`. */
const page = (name: string): string => fs.readFileSync(path.resolve(here, "../..", name), "utf8")

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
    const readme = page("README.md")
    for (const file of ["greet.ts", "server.ts", "Greet.test.ts"]) {
      assert.include(readme, fs.readFileSync(path.resolve(here, file), "utf8").trim())
    }
  })

  it.scoped("the dual server answers both eras on one connection", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(
        McpServer.serve(protocol).pipe(
          Effect.provide(DualServer),
          Effect.withConfigProvider(
            ConfigProvider.fromMap(new Map([["MCP_REQUEST_STATE_KEY", "a key every process of the server shares"]]))
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

  it("is the dual server the serving guide shows", () => {
    assert.include(page("docs/serving.md"), fs.readFileSync(path.resolve(here, "dual.ts"), "utf8").trim())
  })

  it.scoped("the client example: the test kit calls the server", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Effect.provide(greeting, Client), { greeting: "hello Ada" })
    }))

  it("is the authorization example the authorization guide shows (it type-checks with the tests)", () => {
    assert.include(page("docs/authorization.md"), fs.readFileSync(path.resolve(here, "auth.ts"), "utf8").trim())
  })

  it("is the client example the client guide shows", () => {
    assert.include(page("docs/client.md"), fs.readFileSync(path.resolve(here, "client.ts"), "utf8").trim())
  })

  it.effect("the @effect/ai toolkit example: its tool is an MCP tool, answered by its handler", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const listed = yield* client.listTools
      assert.deepStrictEqual(listed.map((tool) => [tool.name, tool.annotations?.readOnlyHint]), [["GetWeather", true]])
      const result = yield* client.callTool("GetWeather", { city: "Oslo" })
      assert.deepStrictEqual(result.structuredContent, { celsius: 21 })
    }).pipe(
      Effect.provide(
        McpClient.layer({ clientInfo: { name: "t", version: "1" } }).pipe(
          Layer.provide(
            McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(WeatherServer)))
          )
        )
      )
    ))

  it("the router example: /mcp and a route of your own on one router, as a fetch handler", async () => {
    const { dispose, handler } = HttpLayerRouter.toWebHandler(Routes, { disableLogger: true })
    try {
      const hello = await handler(new Request("http://127.0.0.1/hello"))
      assert.strictEqual(await hello.text(), "hello")
      const response = await handler(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          // A fetch Request has no Host header of its own: the one a browser or a platform would send.
          headers: {
            host: "127.0.0.1",
            "content-type": "application/json",
            accept: "application/json, text/event-stream"
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
          })
        })
      )
      const body = await response.text()
      assert.strictEqual(JSON.parse(body).result?.serverInfo.name, "app", `${response.status} ${body}`)
    } finally {
      await dispose()
    }
  })

  it.scoped("the services example: tools with services, a resource, a template with completions, a prompt", () =>
    Effect.gen(function*() {
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(McpServer.serve(protocol).pipe(Effect.provide(AppLive)))
      let id = 0
      const call = (method: string, params: object) =>
        Effect.zipRight(
          remote.write(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params })),
          Effect.map(remote.read, JSON.parse)
        )
      yield* call("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" }
      })
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
      const now = yield* call("tools/call", { name: "now", arguments: {} })
      assert.match(now.result.content[0].text, /^\d{4}-\d\d-\d\dT/)
      const note = yield* call("resources/read", { uri: "notes://welcome" })
      assert.strictEqual(note.result.contents[0].text, "Hello!")
      const missing = yield* call("resources/read", { uri: "notes://nope" })
      // An McpError reaches the client as itself.
      assert.strictEqual(missing.error.code, -32002)
      assert.deepStrictEqual(missing.error.data, { uri: "notes://nope" })
      const completed = yield* call("completion/complete", {
        ref: { type: "ref/resource", uri: "notes://{name}" },
        argument: { name: "name", value: "t" }
      })
      assert.deepStrictEqual(completed.result.completion.values, ["todo"])
      const standup = yield* call("prompts/get", { name: "standup", arguments: { team: "core" } })
      assert.match(standup.result.messages[0].content.text, /^Stand-up of core, /)
    }))

  for (
    const [file, guide] of [
      ["services.ts", "docs/server.md"],
      ["main-stdio.ts", "docs/serving.md"],
      ["main-http.ts", "docs/serving.md"],
      ["router.ts", "docs/serving.md"],
      ["Testing.test.ts", "docs/testing.md"],
      ["server-auth.ts", "docs/authorization.md"],
      ["weather.ts", "docs/server.md"],
      ["telemetry.ts", "docs/observability.md"],
      ["telemetry-env.ts", "docs/observability.md"]
    ] as const
  ) {
    it(`${guide} shows ${file} as it is`, () => {
      assert.include(page(guide), fs.readFileSync(path.resolve(here, file), "utf8").trim())
    })
  }

  // The README's first server (server.ts, serving greet.ts) and the serving guide's (main-stdio.ts, serving AppLive).
  for (const [file, name] of [["main-stdio.ts", "app"], ["server.ts", "demo"]] as const) {
    it(`${file} runs: answers on stdout and exits 0 when stdin ends`, async () => {
      const child = spawn(process.execPath, ["--conditions=@effect-mcp/source", "--import", "tsx", file], {
        cwd: here,
        stdio: ["pipe", "pipe", "pipe"]
      })
      let stdout = ""
      // Resolves once the answer's line is complete.
      const answered = new Promise<void>((resolve) =>
        child.stdout.on("data", (chunk) => {
          stdout += chunk
          if (stdout.includes("\n")) resolve()
        })
      )
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
      child.stdin.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        }) + "\n"
      )
      await Promise.race([answered, exited])
      child.stdin.end()
      assert.strictEqual(await exited, 0)
      assert.strictEqual(JSON.parse(stdout).result.serverInfo.name, name)
    })
  }

  it("main-http.ts runs: says where it listens, serves, and ends on SIGTERM", async () => {
    const port = await Effect.runPromise(Services.freePort)
    const child = spawn(process.execPath, ["--conditions=@effect-mcp/source", "--import", "tsx", "main-http.ts"], {
      cwd: here,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PORT: String(port) }
    })
    let stderr = ""
    // Resolves once it says where it listens.
    const listening = new Promise<void>((resolve) =>
      child.stderr.on("data", (chunk) => {
        stderr += chunk
        if (stderr.includes("listening on")) resolve()
      })
    )
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    try {
      await Promise.race([listening, exited])
      assert.include(stderr, `listening on http://127.0.0.1:${port}/mcp`)
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        })
      })
      const body = await response.text()
      assert.strictEqual(JSON.parse(body).result?.serverInfo.name, "app", `${response.status} ${body}`)
      child.kill("SIGTERM")
      assert.strictEqual(await exited, 0)
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
    }
  })
})
