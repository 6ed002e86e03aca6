/**
 * `McpToolkit` against a server that floods `notifications/tools/list_changed`: the toolkit lists
 * again once for whatever changes came while it was listing, not once per notification (a storm of
 * n cost n listings, one after the other, each of every page).
 */
import { McpClient } from "@effect-mcp/client"
import * as McpToolkit from "@effect-mcp/client/McpToolkit"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as path from "node:path"

const storm = path.join(import.meta.dirname, "fixtures", "list-changed-storm.mjs")

describe("McpToolkit against a list-change storm", () => {
  it.scopedLive(
    "2,000 list changes at once: listed again once for all of them, not 2,000 times",
    () =>
      Effect.gen(function*() {
        const client = yield* Layer.build(
          McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "handshake" }).pipe(
            Layer.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: [storm, "2000"] }))
          )
        ).pipe(Effect.map(Context.get(McpClient.McpClient)))
        // Its first listing brings the storm: every notification in before the answer.
        const toolkit = yield* McpToolkit.make(client)
        const text = (result: McpClient.RequestResult<"tools/call">) =>
          result.content[0]?.type === "text" ? result.content[0].text : ""
        /** The server lets one held listing go; the toolkit shows it (`listed_n`). */
        const release = (n: number) =>
          Effect.zipRight(
            client.callTool("release", {}),
            toolkit.changes.pipe(
              Stream.filter((entries) => entries.some((entry) => entry.name === `listed_${n}`)),
              Stream.runHead
            )
          )
        // The listing the storm's first change started was held while the rest came: one more covers them.
        yield* release(2)
        yield* release(3)
        // Nothing more to list (one listing per change: the 4th asked, and 1,997 after it).
        assert.strictEqual(text(yield* client.callTool("asked", {})), "3")
      }),
    60_000
  )
})
