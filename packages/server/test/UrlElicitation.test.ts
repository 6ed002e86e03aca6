import { McpError } from "@effect-mcp/core"
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { McpRequest, Tool } from "../src/index.js"
import { connect } from "./utils/TestClient.js"

const serverInfo = { name: "url-elicitation", version: "1.0.0" }

/**
 * A tool that needs the user to finish a browser flow first: the first call fails with -32042
 * naming the URL elicitation; when the flow is done (here: when the test says so), the server
 * sends notifications/elicitation/complete for it.
 */
const make = (done: Deferred.Deferred<void>) =>
  Tool.make("connect-account", {
    description: "Needs an out-of-band authorization",
    parameters: Schema.Struct({})
  }, () =>
    Effect.gen(function*() {
      const request = yield* McpRequest.McpRequest
      const elicitationId = "auth-1"
      // Kept past this request: the flow finishes later.
      yield* Effect.forkDaemon(Effect.zipRight(Deferred.await(done), request.elicitationComplete(elicitationId)))
      return yield* new McpError.UrlElicitationRequired({
        elicitations: [{
          mode: "url",
          elicitationId,
          url: "https://example.com/authorize?state=abc",
          message: "Authorize access to your account"
        }]
      })
    }))

describe("URL elicitation (2025-11-25)", () => {
  it.scoped("-32042 names the elicitation; notifications/elicitation/complete follows the flow", () =>
    Effect.gen(function*() {
      const done = yield* Deferred.make<void>()
      const client = yield* connect({ serverInfo, tools: [make(done)] })
      yield* client.initialize("2025-11-25", { elicitation: { url: {} } })
      const response = yield* client.call("tools/call", { name: "connect-account", arguments: {} })
      assert.strictEqual(response.error.code, -32042)
      assert.strictEqual(response.error.data.elicitations[0].elicitationId, "auth-1")
      assert.isUndefined(validate("2025-11-25", "URLElicitationRequiredError", response))
      yield* Deferred.succeed(done, undefined)
      const notification = yield* client.next
      assert.deepStrictEqual(notification, {
        jsonrpc: "2.0",
        method: "notifications/elicitation/complete",
        params: { elicitationId: "auth-1" }
      })
      assert.isUndefined(validate("2025-11-25", "ElicitationCompleteNotification", notification))
    }))

  it.scoped("a client without URL elicitation gets no completion notification", () =>
    Effect.gen(function*() {
      const done = yield* Deferred.make<void>()
      const client = yield* connect({ serverInfo, tools: [make(done)] })
      yield* client.initialize("2025-11-25", { elicitation: { form: {} } })
      yield* client.call("tools/call", { name: "connect-account", arguments: {} })
      yield* Deferred.succeed(done, undefined)
      // Let the kept fiber run before checking that nothing was sent.
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      yield* client.quiet
    }))

  it.scoped("before 2025-11-25 there is no -32042: the same failure is -32602 with the same data", () =>
    Effect.gen(function*() {
      const done = yield* Deferred.make<void>()
      const client = yield* connect({ serverInfo, tools: [make(done)] })
      yield* client.initialize("2025-06-18", { elicitation: {} })
      const response = yield* client.call("tools/call", { name: "connect-account", arguments: {} })
      assert.strictEqual(response.error.code, -32602)
      assert.strictEqual(response.error.data.elicitations[0].mode, "url")
    }))
})
