/**
 * `mcp gateway --config FILE --port N`: Streamable HTTP at `/mcp`, both eras, with `/healthz` and a
 * `/readyz` that names each upstream that is down (one here never starts: its command does not
 * exist). The official SDK client (2.x, handshake era) and ours in the 2026-07-28 era, through it
 * (a call, an elicitation as an input_required round, a listen to an upstream resource's updates).
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { demoMain, overHttp } from "./support.js"

describe("mcp gateway over HTTP", () => {
  it("serves both eras at /mcp; /healthz is ok, /readyz names the upstream that is down", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-http-"))
    const file = path.join(dir, "gateway.json")
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          demo: { command: process.execPath, args: [demoMain, "stdio"] },
          broken: { command: path.join(dir, "no-such-command") }
        }
      })
    )
    const gateway = await overHttp(file)
    try {
      const base = gateway.url.slice(0, -"/mcp".length)
      const health = await fetch(`${base}/healthz`)
      assert.strictEqual(health.status, 200)
      const ready = await fetch(`${base}/readyz`)
      assert.strictEqual(ready.status, 503)
      assert.deepStrictEqual(await ready.json(), { status: "unavailable", failing: ["upstream:broken"] })

      const sdk = new Client({ name: "sdk", version: "1.0.0" })
      await sdk.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
      const { tools } = await sdk.listTools()
      assert.include(tools.map((t) => t.name), "demo_add")
      assert.isFalse(tools.some((t) => t.name.startsWith("broken_")))
      const sum = await sdk.callTool({ name: "demo_add", arguments: { a: 2, b: 3 } })
      assert.deepStrictEqual(sum.structuredContent, { sum: 5 })
      await sdk.close()

      const stateless = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(
          McpClient.layer({
            clientInfo: { name: "ours", version: "1.0.0" },
            era: "stateless",
            handlers: {
              elicitation: () =>
                Effect.succeed({ action: "accept" as const, content: { username: "ada", email: "a@b.c" } })
            }
          }).pipe(
            Layer.provide(McpClientTransport.layerHttp({ url: `${base}/mcp` })),
            Layer.provide(FetchHttpClient.layer)
          )
        )
        const client = Context.get(context, McpClient.McpClient)
        // The upstream's elicitation, asked of this client as an input_required round.
        const elicited = yield* client.callTool("demo_test_elicitation", { message: "Who?" })
        // A listen through the gateway: an upstream resource's update, under the gateway's URI.
        const uri = "demo+test://watched-resource"
        const subscription = yield* client.subscribe({ resourceSubscriptions: [uri] })
        yield* client.callTool("demo_updateWatchedResource", {})
        const updated = yield* subscription.notifications.pipe(
          Stream.filter((n) => n.method === "notifications/resources/updated"),
          Stream.runHead,
          Effect.timeout("20 seconds")
        )
        return [
          client.revision,
          (yield* client.callTool("demo_add", { a: 20, b: 22 })).structuredContent,
          JSON.stringify(elicited.content).includes("ada"),
          Option.map(updated, (n) => (n.params as { readonly uri?: unknown }).uri)
        ] as const
      })))
      assert.deepStrictEqual(stateless, ["2026-07-28", { sum: 42 }, true, Option.some("demo+test://watched-resource")])
    } finally {
      await gateway.stop()
    }
  }, 60_000)
})
