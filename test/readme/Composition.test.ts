/**
 * The guide "Composition and gateways" (docs/composition.md, linked from the README): its samples are these files (`mount.ts`, `gateway.json`), and
 * they do what it says: the mounted server's names and URIs, a part's change heard by its clients;
 * the gateway configuration served by `mcp gateway` (the HTTP upstream pointed at a live demo).
 */
import { McpClient } from "@effect-mcp/client"
import { MemoryTransport } from "@effect-mcp/core"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { McpServer } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import { addRadar, Assistant } from "./mount.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const guide = () => fs.readFileSync(path.join(root, "docs/composition.md"), "utf8")

describe("docs/composition.md: Composition and gateways", () => {
  it("shows these files", () => {
    for (const file of ["mount.ts", "gateway.json"]) {
      assert.include(guide(), fs.readFileSync(path.join(here, file), "utf8").trim())
    }
  })

  it.scopedLive("the mounted server serves its parts under their prefixes, and hears a part's change", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(Assistant)
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(McpServer.serve(protocol).pipe(Effect.provide(context)))
      const call = (text: string) => Effect.zipRight(remote.write(text), Effect.map(remote.read, JSON.parse))
      yield* call(
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
      )
      yield* remote.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
      const tools = yield* call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
      assert.deepStrictEqual(tools.result.tools.map((t: any) => t.name), ["greet_greet", "weather_forecast"])
      const read = yield* call(
        `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"weather+weather://today"}}`
      )
      assert.strictEqual(read.result.contents[0].text, "sunny")
      yield* addRadar.pipe(Effect.provide(context))
      assert.deepStrictEqual(yield* Effect.map(remote.read, JSON.parse), {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed"
      })
    }))

  it.scopedLive("mcp gateway serves the configuration's upstreams", () =>
    Effect.gen(function*() {
      // The sample's HTTP upstream is the demo on a free port; its stdio one, server-everything as installed.
      const port = yield* Services.freePort
      const demo = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [Programs.demoMain, "http", "--port", String(port)], {
            stdio: ["ignore", "ignore", "pipe"]
          })
        ),
        (child) => Effect.sync(() => child.kill())
      )
      yield* Effect.async<void>((resume) => {
        let seen = ""
        demo.stderr.on("data", (chunk) => {
          seen += chunk
          if (seen.includes(`127.0.0.1:${port}`)) resume(Effect.void)
        })
      }).pipe(Effect.timeout(Duration.seconds(45)))
      const sample = JSON.parse(fs.readFileSync(path.join(here, "gateway.json"), "utf8"))
      const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")
      sample.mcpServers.everything = {
        command: process.execPath,
        args: [path.join(path.dirname(everything), "dist/index.js"), "stdio"]
      }
      sample.mcpServers.notes.url = `http://127.0.0.1:${port}/mcp`
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "readme-gateway-")), "gateway.json")
      fs.writeFileSync(file, JSON.stringify(sample))
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "readme", version: "1.0.0" } }).pipe(
          Layer.provide(NodeMcpClient.layerStdio({
            command: process.execPath,
            args: [Programs.mcpMain, "gateway", "--config", file],
            stderr: "ignore"
          }))
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      const names = (yield* client.listTools).map((t) => t.name)
      assert.includeMembers(names, ["everything_get-sum", "notes_add"])
      assert.deepStrictEqual((yield* client.callTool("notes_add", { a: 1, b: 2 })).structuredContent, { sum: 3 })
    }), { timeout: 60_000 })
})
