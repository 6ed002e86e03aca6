/**
 * `McpServer.log`: a log message outside any request reaches every handshake session whose level
 * admits it (one that set none hears every level), on every transport, as `notifications/message`;
 * a 2026-07-28 client, which has no session, hears none. A mounted part's messages are under its
 * prefix. (New API: the server had no way to log outside a request.)
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpServer from "../src/McpServer.js"
import * as Mount from "../src/Mount.js"
import { attach, meta } from "./utils/TestClient.js"

const options = { serverInfo: { name: "log-test", version: "1.0.0" } } as const

describe("McpServer.log", () => {
  it.scoped("reaches each ready session whose level admits it; not a session before initialized, nor 2026-07-28", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const quiet = yield* attach(server)
      const loud = yield* attach(server)
      const early = yield* attach(server)
      const stateless = yield* attach(server)
      yield* quiet.initialize("2025-11-25")
      yield* loud.initialize("2025-06-18")
      // Its notifications/initialized was taken before the ping it sends now is answered.
      yield* loud.quiet
      yield* early.initializeOnly("2025-11-25")
      assert.deepStrictEqual(yield* quiet.result("logging/setLevel", { level: "warning" }), {})
      // A stateless request: no session, nothing to hear.
      assert.strictEqual((yield* stateless.result("server/discover", { _meta: meta() })).resultType, "complete")

      yield* server.log("info", { said: "hello" }, "upstream")
      yield* server.log("error", "broken")

      const first = yield* loud.next
      assert.isUndefined(validate("2025-06-18", "LoggingMessageNotification", first), JSON.stringify(first))
      assert.deepStrictEqual(first, {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: { said: "hello" }, logger: "upstream" }
      })
      assert.deepStrictEqual((yield* loud.next).params, { level: "error", data: "broken" })
      // At warning: the info was not sent, the error was.
      const error = yield* quiet.next
      assert.isUndefined(validate("2025-11-25", "LoggingMessageNotification", error))
      assert.deepStrictEqual(error.params, { level: "error", data: "broken" })
      yield* quiet.quiet
      // Not initialized yet, and stateless: nothing came before their next answers.
      yield* early.notify("notifications/initialized")
      yield* early.quiet
      const after = yield* stateless.exchange("server/discover", { _meta: meta() })
      assert.deepStrictEqual(after.before, [])
    }))

  it.scoped("a mounted part's messages are under its prefix", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make(options)
      const client = yield* attach(server)
      yield* client.initialize("2025-11-25")
      yield* client.quiet
      const part = Mount.under(server, "fs")
      yield* part.log("notice", "mounted")
      yield* part.log("debug", 1, "reader")
      assert.deepStrictEqual((yield* client.next).params, { level: "notice", data: "mounted", logger: "fs" })
      assert.deepStrictEqual((yield* client.next).params, { level: "debug", data: 1, logger: "fs/reader" })
    }))
})
