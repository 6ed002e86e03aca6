/**
 * What a new user met in the first hour, at the wire:
 *
 * - a server with no tools (or prompts, or resources) asked for one: -32601 naming the method and
 *   saying the server has none (the digest: a method gated by a capability the receiver did not
 *   advertise is -32601), in both eras.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Prompt, Tool } from "../src/index.js"
import { connect, meta } from "./utils/TestClient.js"

const serverInfo = { name: "first-hour", version: "1.0.0" }
const dual = ["2025-11-25", "2026-07-28"] as const

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(text)
)
const Plain = Prompt.make("plain", {}, () => Effect.succeed("hello"))

describe("a method of a capability the server does not declare", () => {
  it.scoped("tools/call to a server with no tools: -32601 saying it has none, in both eras", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts: [Plain], revisions: dual })
      const expected = {
        code: -32601,
        message: "Method not found: tools/call (this server has no tools: it declares no tools capability)"
      }
      const params = { name: "echo", arguments: { text: "x" } }
      assert.deepStrictEqual(yield* client.error("tools/call", { ...params, _meta: meta() }), expected)
      yield* client.initialize("2025-11-25")
      assert.deepStrictEqual(yield* client.error("tools/call", params), expected)
      assert.deepStrictEqual(yield* client.error("tools/list", {}), {
        code: -32601,
        message: "Method not found: tools/list (this server has no tools: it declares no tools capability)"
      })
      // A method no revision has is still a plain -32601.
      assert.deepStrictEqual(yield* client.error("no/such/method"), {
        code: -32601,
        message: "Method not found: no/such/method"
      })
    }))

  it.scoped("prompts and resources alike; what the server declares is served", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Echo], revisions: dual })
      yield* client.initialize("2025-11-25")
      assert.deepStrictEqual(yield* client.error("prompts/get", { name: "plain" }), {
        code: -32601,
        message: "Method not found: prompts/get (this server has no prompts: it declares no prompts capability)"
      })
      assert.deepStrictEqual(yield* client.error("resources/read", { uri: "file:///x" }), {
        code: -32601,
        message: "Method not found: resources/read (this server has no resources: it declares no resources capability)"
      })
      assert.deepStrictEqual(
        (yield* client.result("tools/call", { name: "echo", arguments: { text: "x" } })).content,
        [{ type: "text", text: "x" }]
      )
    }))
})
