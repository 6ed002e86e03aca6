/**
 * An upstream that floods notifications while the gateway's follower of it waits (on a listing the
 * upstream never answers): the gateway, under a 64 MiB heap, keeps none of them. Before, the
 * follower's subscription held every notification published while it waited (up to 10,000 of any
 * size, the client's bound in count only): 64 of 1 MiB ended the gateway (out of memory). Now the
 * follower takes them as they come into what is to be done (lists to sync, subscribed URIs
 * updated), and the rest is let go at once.
 *
 * And a client subscribing to template instances one after another: each costs one request
 * upstream. Before, each new URI ended the upstream subscription and made it anew, every URI
 * unsubscribed and subscribed again: 40 instances cost 1,600 requests upstream (n²).
 *
 * And an upstream that asks the client to sample, then answers its call without waiting: the call
 * is answered at once, the ask let go. Before, the ask's fiber was uninterruptible (forked in a
 * masked region): the answer waited for the client's, or for the ask's time to run out (60 s).
 */
import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const mcpMain = Programs.mcpMain

/** Our client (handshake era) of the gateway, under a 64 MiB heap, in front of the fixture. */
const gatewayWith = (handlers: McpClient.Handlers) =>
  Effect.gen(function*() {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-flood-"))
    const file = path.join(dir, "gateway.json")
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { flooding: { command: process.execPath, args: [path.join(here, "fixtures/flooding-server.mjs")] } }
      })
    )
    const context = yield* Layer.build(
      McpClient.layer({ clientInfo: { name: "flood-test", version: "1.0.0" }, era: "handshake", handlers }).pipe(
        Layer.provide(NodeMcpClient.layerStdio({
          command: process.execPath,
          args: ["--max-old-space-size=64", mcpMain, "gateway", "--config", file],
          cwd: root,
          stderr: "ignore"
        }))
      )
    )
    const client = Context.get(context, McpClient.McpClient)
    const text = (name: string) =>
      Effect.map(client.callTool(name, {}), (r) => (r.content[0] as { readonly text: string }).text)
    return { client, text }
  })
const gateway = gatewayWith({})

describe("mcp gateway in front of an upstream flooding notifications", () => {
  it.scopedLive(
    "64 notifications of 1 MiB while its follower waits: none kept, the gateway answers on",
    () =>
      Effect.gen(function*() {
        const { text } = yield* gateway
        assert.strictEqual(yield* text("flooding_flood"), "flooded")
        assert.strictEqual(yield* text("flooding_ok"), "ok")
      }),
    { timeout: 60_000 }
  )

  it.scopedLive(
    "40 template instances subscribed one after another: 40 requests upstream, not 40²",
    () =>
      Effect.gen(function*() {
        const { client, text } = yield* gateway
        for (let n = 0; n < 40; n++) {
          yield* client.request("resources/subscribe", { uri: `flooding+flooding://item/${n}` })
        }
        assert.strictEqual(yield* text("flooding_toggles"), "40")
      }),
    { timeout: 60_000 }
  )

  it.scopedLive(
    "an upstream that answers its call while its ask is unanswered: the call is answered at once",
    () =>
      Effect.gen(function*() {
        const { text } = yield* gatewayWith({ sampling: () => Effect.never })
        const answered = yield* Effect.timeoutTo(text("flooding_asks"), {
          duration: "20 seconds",
          onSuccess: (t) => t,
          onTimeout: () => "still waiting after 20 seconds"
        })
        assert.strictEqual(answered, "asked")
      }),
    { timeout: 60_000 }
  )
})
