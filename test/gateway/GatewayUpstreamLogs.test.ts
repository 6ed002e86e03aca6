/**
 * `mcp gateway --config FILE` (apps/cli, built) passes its upstreams' log messages on: an upstream's
 * `notifications/message`, sent outside any request (test/gateway/fixtures/level-server.mjs logs
 * after it answered its tool `emit`), reaches each downstream session whose `logging/setLevel`
 * admits it, its logger under the upstream's name. Over stdio with our client, and over HTTP with
 * two sessions of the official SDK 2.x client at different levels (the upstream is told the more
 * verbose). Failed before: no upstream log reached any client (the server had no way to log
 * outside a request).
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { overHttp, overStdio, root } from "./support.js"

const logServer = path.join(root, "test/gateway/fixtures/level-server.mjs")

const configFile = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-upstream-logs-"))
  const file = path.join(dir, "gateway.json")
  const upstream = { command: process.execPath, args: [logServer] }
  writeFileSync(file, JSON.stringify({ mcpServers: { one: upstream, two: upstream } }))
  return file
}

describe("mcp gateway: upstream logs", () => {
  it.scopedLive(
    "over stdio: a message the client's level admits, under the upstream's name; not one it does not",
    () =>
      Effect.gen(function*() {
        const client = yield* overStdio(configFile(), "gateway-logs-test")
        // Listening from its first step (the fiber subscribes at the first wait of this one, long
        // before the first call's answer can come from a child process).
        const messages = yield* Effect.fork(Stream.runCollect(Stream.take(
          Stream.filter(client.notifications, (n) => n.method === "notifications/message"),
          2
        )))
        yield* client.setLogLevel("warning")
        yield* client.callTool("one_emit", { level: "info", text: "not for this client" })
        yield* client.callTool("two_emit", { level: "error", text: "broken" })
        yield* client.callTool("one_emit", { level: "warning", text: "careful" })
        const heard = yield* Fiber.join(messages)
        assert.deepStrictEqual(Chunk.toReadonlyArray(heard).map((n) => n.params), [
          { level: "error", logger: "two/inner", data: "broken" },
          { level: "warning", logger: "one/inner", data: "careful" }
        ])
      }),
    60_000
  )

  it("over HTTP: each session hears what its own level admits (two SDK clients)", async () => {
    const gateway = await overHttp(configFile())
    const clients: Array<Client> = []
    try {
      const url = new URL(gateway.url)
      /** A session of the SDK's client at `level`; its log messages, and a promise of the first `n`. */
      const session = async (level: "debug" | "error", n: number) => {
        const client = new Client({ name: `sdk-${level}`, version: "1.0.0" })
        clients.push(client)
        const heard: Array<unknown> = []
        const enough = new Promise<Array<unknown>>((resolve) => {
          client.setNotificationHandler("notifications/message", (notification) => {
            heard.push(notification.params)
            if (heard.length === n) resolve(heard)
          })
        })
        await client.connect(new StreamableHTTPClientTransport(url))
        await client.setLoggingLevel(level)
        return { client, enough }
      }
      const verbose = await session("debug", 2)
      const terse = await session("error", 1)
      // The upstreams were told the more verbose of the two.
      const told = await terse.client.callTool({ name: "one_level", arguments: {} })
      assert.deepStrictEqual(told.content, [{ type: "text", text: "debug" }])
      await verbose.client.callTool({ name: "one_emit", arguments: { level: "info", text: "details" } })
      await verbose.client.callTool({ name: "two_emit", arguments: { level: "critical", text: "down" } })
      assert.deepStrictEqual(await verbose.enough, [
        { level: "info", logger: "one/inner", data: "details" },
        { level: "critical", logger: "two/inner", data: "down" }
      ])
      // The info was not for the terse session: its first message is the critical one.
      assert.deepStrictEqual(await terse.enough, [{ level: "critical", logger: "two/inner", data: "down" }])
    } finally {
      await Promise.all(clients.map((c) => c.close()))
      await gateway.stop()
    }
  }, 60_000)
})
