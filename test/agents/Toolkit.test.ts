/**
 * `McpToolkit`: the demo's tools (apps/everything over stdio and Streamable HTTP, both eras) as an
 * `@effect/ai` toolkit, driven by the real provider packages (`@effect/ai-openai` 0.41 on the
 * Responses API, `@effect/ai-anthropic` 0.27 on the Messages API) against a scripted endpoint:
 * a parallel tool call, a tool error fed back, a final answer; the JSON Schemas the provider sends
 * are the servers' `inputSchema`s; a list change mid-conversation; a removed tool; an interrupted
 * run cancels the server's call.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as McpToolkit from "@effect-mcp/client/McpToolkit"
import { McpServer, Tool } from "@effect-mcp/server"
import * as ScriptedModel from "@effect-mcp/test-support/ScriptedModel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiTool from "@effect/ai/Tool"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { agent, anthropic, type Era, everythingOverHttp, httpClient, openAi, stdioClient } from "./support.js"

/** The conversation every transport runs: a parallel call, a tool error, a final answer. */
const conversation = (model: ScriptedModel.ScriptedModel) =>
  Effect.gen(function*() {
    model.push(
      ScriptedModel.openAi.calls({ name: "add", arguments: { a: 2, b: 3 } }, {
        name: "echo",
        arguments: { message: "hi" }
      }),
      ScriptedModel.openAi.calls({ name: "test_error_handling", arguments: {} }),
      ScriptedModel.openAi.text("2 + 3 = 5")
    )
    const client = yield* McpClient.McpClient
    const tools = yield* McpToolkit.make(client)
    const answer = yield* agent("Add 2 and 3, echo hi, then try the failing tool", tools)
    assert.strictEqual(answer.text, "2 + 3 = 5")
    assert.deepStrictEqual(answer.results, [
      { name: "add", isFailure: false, result: { sum: 5 } },
      { name: "echo", isFailure: false, result: "Echo: hi" },
      { name: "test_error_handling", isFailure: true, result: "This tool intentionally returns an error for testing" }
    ])
    // What the model was sent back: each call's output, the failure's text.
    const outputs = (turn: number) =>
      (model.received[turn]!.body.input as Array<any>).filter((item) => item.type === "function_call_output")
        .map((item) => [item.call_id, JSON.parse(item.output)])
    assert.deepStrictEqual(outputs(1), [["call_0_add", { sum: 5 }], ["call_1_echo", "Echo: hi"]])
    assert.deepStrictEqual(outputs(2).at(-1), [
      "call_0_test_error_handling",
      "This tool intentionally returns an error for testing"
    ])
    // The provider received every tool with the server's inputSchema, as listed.
    const listed = yield* client.listTools
    const sent = model.received[0]!.body.tools as Array<{ name: string; parameters: unknown; description?: string }>
    assert.deepStrictEqual(sent.map((tool) => tool.name), listed.map((tool) => tool.name))
    for (const tool of listed) {
      const got = sent.find((s) => s.name === tool.name)!
      assert.deepStrictEqual(got.parameters, tool.inputSchema, tool.name)
      assert.strictEqual(got.description, tool.description, tool.name)
    }
    // Nested objects, enums and $refs among them.
    const schema2020 = sent.find((tool) => tool.name === "json_schema_2020_12_tool")!.parameters as any
    assert.isDefined(schema2020.$defs)
  })

describe("McpToolkit over the demo, with @effect/ai-openai", () => {
  for (const era of ["handshake", "stateless"] as const satisfies ReadonlyArray<Era>) {
    it.scopedLive(
      `stdio, ${era}: a parallel call, a tool error fed back, a final answer`,
      () =>
        Effect.gen(function*() {
          const model = yield* ScriptedModel.make()
          yield* conversation(model).pipe(Effect.provide(Layer.merge(stdioClient(era), openAi(model.url))))
        }),
      60_000
    )

    it.scopedLive(`Streamable HTTP, ${era}: the same conversation`, () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel.make()
        const url = yield* everythingOverHttp
        yield* conversation(model).pipe(Effect.provide(Layer.merge(httpClient(url, era), openAi(model.url))))
      }), 60_000)
  }

  for (const [transport, era] of [["stdio", "handshake"], ["Streamable HTTP", "stateless"]] as const) {
    it.scopedLive(
      `a list change mid-conversation (${transport}, ${era}): the next turn offers the new tool, and calls it`,
      () =>
        Effect.gen(function*() {
          const model = yield* ScriptedModel.make([
            ScriptedModel.openAi.calls({ name: "test_trigger_tool_change", arguments: {} })
          ])
          const client = yield* McpClient.McpClient
          const tools = yield* McpToolkit.make(client)
          assert.isFalse((yield* tools.entries).some((entry) => entry.name === "dynamic"))
          const first = yield* LanguageModel.generateText({ prompt: "Add the dynamic tool", toolkit: tools.toolkit })
            .pipe(
              Effect.provide(openAi(model.url))
            )
          assert.strictEqual(first.toolResults[0]?.result, "Added the tool dynamic")
          // The server's tools/list_changed refreshes the toolkit.
          yield* Stream.runDrain(
            Stream.takeUntil(tools.changes, (entries) => entries.some((e) => e.name === "dynamic"))
          )
          model.push(ScriptedModel.openAi.calls({ name: "dynamic", arguments: {} }))
          const second = yield* LanguageModel.generateText({ prompt: "Call it", toolkit: tools.toolkit }).pipe(
            Effect.provide(openAi(model.url))
          )
          assert.isTrue((model.received[1]!.body.tools as Array<any>).some((tool) => tool.name === "dynamic"))
          assert.strictEqual(second.toolResults[0]?.result, "This tool was added at runtime.")
        }).pipe(Effect.provide(
          transport === "stdio"
            ? stdioClient(era)
            : Layer.unwrapScoped(Effect.map(everythingOverHttp, (url) => httpClient(url, era)))
        )),
      60_000
    )
  }

  for (const era of ["handshake", "stateless"] as const satisfies ReadonlyArray<Era>) {
    it.scopedLive(
      `a removed tool called by a stale answer: a failure the model reads (${era})`,
      () =>
        Effect.gen(function*() {
          const model = yield* ScriptedModel.make()
          const client = yield* McpClient.McpClient
          yield* client.callTool("test_trigger_tool_change", {})
          const tools = yield* McpToolkit.make(client)
          const stale = yield* tools.toolkit
          assert.isDefined(stale.tools.dynamic)
          // Removed: the server says so (a list change or a listen), and the toolkit follows.
          yield* client.callTool("test_trigger_tool_change", {})
          yield* Stream.runDrain(
            Stream.takeUntil(tools.changes, (entries) => !entries.some((e) => e.name === "dynamic"))
          )
          model.push(ScriptedModel.openAi.calls({ name: "dynamic", arguments: {} }))
          const response = yield* LanguageModel.generateText({ prompt: "Call dynamic", toolkit: stale }).pipe(
            Effect.provide(openAi(model.url))
          )
          assert.deepStrictEqual(response.toolResults.map((part) => [part.isFailure, part.result]), [
            [true, "The tool dynamic is no longer available: its server removed it."]
          ])
        }).pipe(Effect.provide(stdioClient(era))),
      60_000
    )
  }

  it.scopedLive("include and exclude: by name and by annotation (read-only tools only)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const readOnly = yield* McpToolkit.make(client, { include: McpToolkit.readOnly, refresh: false })
      const names = (yield* readOnly.entries).map((entry) => entry.name)
      assert.include(names, "add")
      assert.notInclude(names, "echo")
      const some = yield* McpToolkit.make(client, { include: ["add", "echo"], exclude: ["echo"], refresh: false })
      assert.deepStrictEqual((yield* some.entries).map((entry) => entry.name), ["add"])
      // The annotations carry over, and where the tool comes from.
      const add = (yield* some.entries)[0]!.aiTool
      assert.isTrue(Context.get(add.annotations, AiTool.Readonly))
      assert.isTrue(Context.get(add.annotations, AiTool.Idempotent))
      assert.isFalse(Context.get(add.annotations, AiTool.OpenWorld))
      assert.strictEqual(Option.getOrThrow(McpToolkit.infoOf(add)).tool.name, "add")
    }).pipe(Effect.provide(stdioClient("stateless"))), 60_000)
})

describe("McpToolkit with @effect/ai-anthropic", () => {
  it.scopedLive(
    "stdio: a parallel call with a tool error, a final answer; input_schema is the server's inputSchema",
    () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel.make([
          ScriptedModel.anthropic.calls({ name: "add", arguments: { a: 40, b: 2 } }, {
            name: "test_error_handling",
            arguments: {}
          }),
          ScriptedModel.anthropic.text("42")
        ])
        const answer = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const tools = yield* McpToolkit.make(client)
          const answer = yield* agent("Add 40 and 2", tools)
          const listed = yield* client.listTools
          const sent = model.received[0]!.body.tools as Array<{ name: string; input_schema: unknown }>
          for (const tool of listed) {
            assert.deepStrictEqual(sent.find((s) => s.name === tool.name)?.input_schema, tool.inputSchema, tool.name)
          }
          return answer
        }).pipe(Effect.provide(Layer.merge(stdioClient("handshake"), anthropic(model.url))))
        assert.strictEqual(answer.text, "42")
        assert.deepStrictEqual(answer.results, [
          { name: "add", isFailure: false, result: { sum: 42 } },
          {
            name: "test_error_handling",
            isFailure: true,
            result: "This tool intentionally returns an error for testing"
          }
        ])
        // Both results went back to the model, the failure marked as one.
        const results = (model.received[1]!.body.messages as Array<any>).flatMap((m) => m.content)
          .filter((part: any) => part.type === "tool_result")
        assert.deepStrictEqual(results.map((r: any) => [r.tool_use_id, r.is_error === true]), [
          ["toolu_0_add", false],
          ["toolu_1_test_error_handling", true]
        ])
      }),
    60_000
  )
})

describe("McpToolkit: several servers, cancellation", () => {
  const Slow = (started: Deferred.Deferred<void>, interrupted: Deferred.Deferred<void>) =>
    Tool.make("slow", { description: "Waits until cancelled" }, () =>
      Deferred.succeed(started, undefined).pipe(
        Effect.zipRight(Effect.never),
        Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
        Effect.as("never")
      ))
  const Same = Tool.make("same", { description: "On both servers" }, () => Effect.succeed("same"))
  /** Our client on an in-memory server of `tools`, for the lifetime of the scope. */
  const memoryClient = (name: string, tools: ReadonlyArray<Tool.Tool>, era: Era) =>
    Layer.build(
      McpClient.layer({ clientInfo: { name: "agent-test", version: "1.0.0" }, era }).pipe(
        Layer.provide(McpClientTransport.layerMemory((protocol) =>
          McpServer.serve(protocol).pipe(
            Effect.provide(McpServer.layer({ serverInfo: { name, version: "1.0.0" }, tools }))
          )
        ))
      )
    ).pipe(Effect.map(Context.get(McpClient.McpClient)), Effect.orDie)

  for (const era of ["handshake", "stateless"] as const satisfies ReadonlyArray<Era>) {
    it.scopedLive(
      `names collide: prefixed by server; an interrupted run cancels the server's call (${era})`,
      () =>
        Effect.gen(function*() {
          const started = yield* Deferred.make<void>()
          const interrupted = yield* Deferred.make<void>()
          const one = yield* memoryClient("one", [Slow(started, interrupted), Same], era)
          const two = yield* memoryClient("two server", [Same], era)
          const tools = yield* McpToolkit.make([one, two])
          assert.deepStrictEqual((yield* tools.entries).map((e) => e.name).sort(), [
            "one_same",
            "slow",
            "two_server_same"
          ])
          const model = yield* ScriptedModel.make([
            ScriptedModel.openAi.calls({ name: "two_server_same", arguments: {} }),
            ScriptedModel.openAi.calls({ name: "slow", arguments: {} })
          ])
          const first = yield* LanguageModel.generateText({ prompt: "same", toolkit: tools.toolkit }).pipe(
            Effect.provide(openAi(model.url))
          )
          assert.strictEqual(first.toolResults[0]?.result, "same")
          const run = yield* Effect.fork(
            LanguageModel.generateText({ prompt: "slow", toolkit: tools.toolkit }).pipe(
              Effect.provide(openAi(model.url))
            )
          )
          yield* Deferred.await(started)
          yield* Fiber.interrupt(run)
          // The server's handler was interrupted: it was told (notifications/cancelled, or its request closed).
          yield* Deferred.await(interrupted)
        }),
      60_000
    )
  }

  it.scopedLive(
    "more tools than maxTools (1,000 by default, after include and exclude): TooManyTools",
    () =>
      Effect.gen(function*() {
        const named = (name: string) => Tool.make(name, { description: name }, () => Effect.succeed(name))
        const many = (prefix: string) => Array.from({ length: 600 }, (_, i) => named(`${prefix}${i}`))
        const one = yield* memoryClient("one", many("a"), "handshake")
        const two = yield* memoryClient("two", many("b"), "stateless")
        const error = yield* Effect.flip(McpToolkit.make([one, two]))
        assert.deepStrictEqual(error, new McpToolkit.TooManyTools({ limit: 1000, listed: 1200 }))
        assert.strictEqual(
          error.message,
          "The servers offer 1200 tools, more than the toolkit's 1000 (maxTools): narrow them with include or exclude, or raise maxTools"
        )
        // b400 to b599 left out: 1,000, the bound itself.
        const narrowed = yield* McpToolkit.make([one, two], {
          exclude: (tool) => tool.name.startsWith("b") && Number(tool.name.slice(1)) >= 400
        })
        assert.strictEqual((yield* narrowed.entries).length, 1000)
        const raised = yield* McpToolkit.make([one, two], { maxTools: 1200 })
        assert.strictEqual((yield* raised.entries).length, 1200)
      }),
    60_000
  )

  it.scopedLive("names that collide once made safe are suffixed, none replaced", () =>
    Effect.gen(function*() {
      const named = (name: string) => Tool.make(name, { description: name }, () => Effect.succeed(name))
      // `read` is on both: prefixed `fs_read` and `other_read`; other's own `fs_read` then collides with the first,
      // and `a.b` becomes `a_b` as does `a_b`.
      const fs = yield* memoryClient("fs", [named("read"), named("a.b")], "handshake")
      const other = yield* memoryClient("other", [named("read"), named("fs_read"), named("a_b")], "handshake")
      const tools = yield* McpToolkit.make([fs, other])
      const entries = yield* tools.entries
      assert.deepStrictEqual(entries.map((e) => [e.name, e.server, e.tool.name]).sort(), [
        ["a_b", "fs", "a.b"],
        ["a_b_2", "other", "a_b"],
        ["fs_read", "fs", "read"],
        ["fs_read_2", "other", "fs_read"],
        ["other_read", "other", "read"]
      ])
      const model = yield* ScriptedModel.make([ScriptedModel.openAi.calls({ name: "fs_read_2", arguments: {} })])
      const answer = yield* LanguageModel.generateText({ prompt: "read", toolkit: tools.toolkit }).pipe(
        Effect.provide(openAi(model.url))
      )
      assert.strictEqual(answer.toolResults[0]?.result, "fs_read")
    }), 60_000)
})
