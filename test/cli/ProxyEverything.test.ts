/**
 * `mcp proxy` (apps/cli, built) in front of `@modelcontextprotocol/server-everything` over stdio,
 * a server nobody here wrote, and the two defects found by running it so:
 *
 * - a client's subscription to a URI the upstream does not list (an instance of its template
 *   `demo://resource/dynamic/text/{index}`) was acknowledged and never subscribed upstream: no
 *   update ever came. Now it is subscribed upstream before it is acknowledged, in both eras
 *   (`resources/subscribe`, a 2026-07-28 listen), and the upstream's updates arrive;
 * - the upstream's startup `roots/list` (server-everything asks 350 ms after it is initialized),
 *   with no client's request in flight, was refused with -32603; now it is answered with the roots
 *   given by `--root` (or the roots a client gave last).
 *
 * Both failed before the fix: no update within the wait, and the log line never came (the upstream
 * then asks again in the call, of a client that declares no roots).
 */
import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everythingMain = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js"
)
const upstream = `stdio:${process.execPath} ${everythingMain} stdio`

/** Our client of `mcp proxy <upstream> ...extra` over stdio (the proxy is its child process). */
const proxied = (
  era: McpClient.EraChoice,
  extra: ReadonlyArray<string> = [],
  stderr: "ignore" | ((line: string) => void) = "ignore"
) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ clientInfo: { name: "proxy-everything-test", version: "1.0.0" }, era }).pipe(
        Layer.provide(NodeMcpClient.layerStdio({
          command: process.execPath,
          args: [mcpMain, "proxy", upstream, ...extra],
          cwd: root,
          stderr
        }))
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

describe("mcp proxy in front of server-everything: a subscription to a template's instance", () => {
  for (const era of ["handshake", "stateless"] as const) {
    it.scopedLive(`${era}: subscribed upstream, and its updates arrive`, () =>
      Effect.gen(function*() {
        const client = yield* proxied(era)
        const uri = "demo://resource/dynamic/text/1"
        assert.notInclude((yield* client.listResources).map((r) => r.uri), uri)
        const subscription = yield* client.subscribe({ resourceSubscriptions: [uri] })
        const next = yield* Stream.toPull(subscription.notifications)
        // Sends an update of every subscribed URI at once, then every 5 seconds.
        yield* client.callTool("toggle-subscriber-updates", {})
        const updated = yield* next.pipe(Effect.timeout("10 seconds"))
        const notification = Chunk.unsafeHead(updated)
        assert.strictEqual(notification.method, "notifications/resources/updated")
        assert.strictEqual((notification.params as { readonly uri?: unknown } | undefined)?.uri, uri)
      }), { timeout: 60_000 })
  }
})

describe("mcp proxy in front of server-everything: the upstream asks for roots at startup", () => {
  it.scopedLive(
    "--root: told to the upstream (no client's request in flight), which lists it",
    () =>
      Effect.gen(function*() {
        const told = yield* Deferred.make<string>()
        const client = yield* proxied("handshake", ["--root", "file:///tmp/proxy-root"], (line) => {
          if (line.includes("the upstream asked for roots with no client's request in flight")) {
            Deferred.unsafeDone(told, Exit.succeed(line))
          }
        })
        // Waits on the proxy's word that the startup ask was answered (before, it was refused).
        assert.include(yield* Deferred.await(told).pipe(Effect.timeout("20 seconds")), "told it 1 root(s) (configured)")
        const shown = yield* client.callTool("get-roots-list", {})
        assert.include(JSON.stringify(shown.content), "file:///tmp/proxy-root")
      }),
    { timeout: 60_000 }
  )
})
