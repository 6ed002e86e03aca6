/**
 * What a new user met in the first hour, at the wire:
 *
 * - a server with no tools (or prompts, or resources) asked for one: -32601 naming the method and
 *   saying the server has none (the digest: a method gated by a capability the receiver did not
 *   advertise is -32601), in both eras;
 * - a first server (`McpServer.layer` with no `revisions`) serves both eras: the Inspector's
 *   2026-07-28 is not refused; with no `requestStateKey` its multi-round trips are sealed with a
 *   random key of its own (another server of the process refuses its states), said once per process
 *   (a warning) when one first seals.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { globalValue } from "effect/GlobalValue"
import * as Logger from "effect/Logger"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { McpRequest, McpServer, Prompt, Tool } from "../src/index.js"
import { attach, connect, meta } from "./utils/TestClient.js"

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

const Ask = Tool.make("ask", { failure: Schema.String }, () =>
  Effect.mapError(
    Effect.map(
      McpRequest.elicit("name", {
        message: "Who are you?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } }
      }),
      (answer) => `hello ${answer.content?.name}`
    ),
    (error) => error.message
  ))

describe("a first server: McpServer.layer with no revisions", () => {
  it.scoped("serves both eras: server/discover lists every revision, initialize opens a session", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.make({ serverInfo, tools: [Echo] })
      const modern = yield* attach(server)
      const discovered = yield* modern.result("server/discover", { _meta: meta() })
      assert.deepStrictEqual(discovered.supportedVersions, [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28"
      ])
      assert.deepStrictEqual(
        (yield* modern.result("tools/call", { name: "echo", arguments: { text: "x" }, _meta: meta() })).content,
        [{ type: "text", text: "x" }]
      )
      const session = yield* attach(server)
      const init = yield* session.initialize("2025-11-25")
      assert.strictEqual(init.protocolVersion, "2025-11-25")
    }))

  it.scoped("with no requestStateKey: a random key of each server, said once per process; a state one server sealed, another refuses (-32602), its own server takes", () =>
    Effect.gen(function*() {
      // Once per process: unsaid yet, whatever another file of this worker's process (a run without
      // isolation) made before.
      yield* Ref.set(
        globalValue(Symbol.for("@effect-mcp/server/randomRequestStateKeyWarned"), () => Ref.unsafeMake(false)),
        false
      )
      const logged: Array<string> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message))))
      yield* Effect.gen(function*() {
        // Two servers of one process (tenants, mounted or composed servers): their states are their own.
        const one = yield* attach(yield* McpServer.make({ serverInfo, tools: [Ask] }))
        const other = yield* attach(yield* McpServer.make({ serverInfo, tools: [Ask] }))
        const elicits = meta({}, { elicitation: {} })
        for (const [first, foreign] of [[one, other], [other, one]] as const) {
          const asked = yield* first.result("tools/call", { name: "ask", arguments: {}, _meta: elicits })
          assert.strictEqual(asked.resultType, "input_required")
          const retry = {
            name: "ask",
            arguments: {},
            requestState: asked.requestState,
            inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
            _meta: elicits
          }
          const refused = yield* foreign.error("tools/call", retry)
          assert.strictEqual(refused.code, -32602)
          assert.match(refused.message, /requestState/)
          const done = yield* first.result("tools/call", retry)
          assert.deepStrictEqual(done.content, [{ type: "text", text: "hello Ada" }])
        }
      }).pipe(Effect.provide(capture))
      assert.deepStrictEqual(logged.filter((m) => m.includes("random key")), [
        "effect-mcp: requestState is sealed with a random key of this server (set requestStateKey): " +
        "a retry of a multi-round-trip request cannot move to another process"
      ])
    }))
})
