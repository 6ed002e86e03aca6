/**
 * `callToolWith`: one spec (name and Schemas) shared by the server's `Tool.make` and the client's
 * typed call. Arguments are encoded (a transformation runs on the client), the value decoded
 * (from `structuredContent`, or from the text where the revision has no structured results), a
 * typed failure decoded into `ToolFailed`, and arguments that do not encode are refused before
 * anything is sent.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import type { Revision } from "@effect-mcp/core"
import { McpServer, Tool } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"

class DivisionByZero extends Schema.TaggedError<DivisionByZero>()("DivisionByZero", {
  dividend: Schema.Number
}) {}

/** The shared definition: the server and the client are given the same object. */
const Divide = {
  name: "divide",
  parameters: Schema.Struct({ dividend: Schema.Number, divisor: Schema.Number }),
  success: Schema.Struct({ quotient: Schema.Number, at: Schema.DateFromString }),
  failure: DivisionByZero
} as const

const server = (revisions: ReadonlyArray<Revision.Revision>, calls: Ref.Ref<number>) =>
  McpClientTransport.layerMemory((protocol) =>
    McpServer.serve(protocol).pipe(
      Effect.provide(McpServer.layer({
        serverInfo: { name: "typed", version: "1.0.0" },
        revisions,
        tools: [
          Tool.make(Divide.name, Divide, ({ dividend, divisor }) =>
            Effect.zipRight(
              Ref.update(calls, (n) => n + 1),
              divisor === 0
                ? Effect.fail(new DivisionByZero({ dividend }))
                : Effect.succeed({ quotient: dividend / divisor, at: new Date("2026-01-02T03:04:05.000Z") })
            ))
        ]
      }))
    )
  )

const connect = (revisions: ReadonlyArray<Revision.Revision>) =>
  Effect.gen(function*() {
    const calls = yield* Ref.make(0)
    const context = yield* Layer.build(
      McpClient.layer({ clientInfo: { name: "typed-client", version: "1.0.0" } }).pipe(
        Layer.provide(server(revisions, calls))
      )
    )
    return { client: yield* Effect.provide(McpClient.McpClient, context), calls }
  })

describe("callToolWith: a tool's Schemas on both sides", () => {
  for (const revision of ["2024-11-05", "2025-11-25", "2026-07-28"] as const) {
    it.scoped(`${revision}: the value decoded, the failure decoded, bad arguments never sent`, () =>
      Effect.gen(function*() {
        const { calls, client } = yield* connect([revision])
        assert.strictEqual(client.revision, revision)
        const value = yield* client.callToolWith(Divide, { dividend: 7, divisor: 2 })
        assert.strictEqual(value.quotient, 3.5)
        assert.instanceOf(value.at, Date)
        assert.strictEqual(value.at.toISOString(), "2026-01-02T03:04:05.000Z")

        const failed = yield* Effect.flip(client.callToolWith(Divide, { dividend: 1, divisor: 0 }))
        assert.strictEqual(failed._tag, "ToolFailed")
        if (failed._tag !== "ToolFailed") return
        assert.instanceOf(failed.failure, DivisionByZero)
        assert.strictEqual(failed.failure.dividend, 1)
        assert.isTrue(failed.result.isError)

        const before = yield* Ref.get(calls)
        const refused = yield* Effect.flip(
          client.callToolWith(Divide, { dividend: 1, divisor: "two" as unknown as number })
        )
        assert.strictEqual(refused._tag, "InvalidArguments")
        assert.include(refused.message, "divisor")
        assert.strictEqual(yield* Ref.get(calls), before)
      }))
  }
})

// The tools themselves, as `Tool.make` made them: they carry the Schemas they were given.
const Greet = Tool.make("greet", {
  parameters: Schema.Struct({ name: Schema.String }),
  success: Schema.Struct({ greeting: Schema.String, at: Schema.DateFromString })
}, ({ name }) => Effect.succeed({ greeting: `hello ${name}`, at: new Date("2026-01-02T03:04:05.000Z") }))

const DivideTool = Tool.make(Divide.name, Divide, ({ dividend, divisor }) =>
  divisor === 0
    ? Effect.fail(new DivisionByZero({ dividend }))
    : Effect.succeed({ quotient: dividend / divisor, at: new Date("2026-01-02T03:04:05.000Z") }))

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(text)
)

/** Compiled, never run: the types a made tool gives a typed call. */
export const _types = (client: McpClient.Service) => {
  const greeting: Effect.Effect<{ readonly greeting: string; readonly at: Date }, unknown> = client.callToolWith(
    Greet,
    { name: "Ada" }
  )
  // @ts-expect-error the tool's parameters take a string name
  const wrong = client.callToolWith(Greet, { name: 1 })
  // A tool without a success schema: the value as it came.
  const echoed: Effect.Effect<unknown, unknown> = client.callToolWith(Echo, { text: "x" })
  return [greeting, wrong, echoed]
}

describe("callToolWith: the tool itself", () => {
  it.scoped("a tool made by Tool.make: arguments encoded, the value and the failure decoded", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        McpClient.layer({ clientInfo: { name: "typed-client", version: "1.0.0" } }).pipe(
          Layer.provide(McpClientTransport.layerMemory((protocol) =>
            McpServer.serve(protocol).pipe(
              Effect.provide(McpServer.layer({
                serverInfo: { name: "typed", version: "1.0.0" },
                tools: [Greet, DivideTool, Echo]
              }))
            )
          ))
        )
      )
      const client = yield* Effect.provide(McpClient.McpClient, context)
      const value = yield* client.callToolWith(Greet, { name: "Ada" })
      assert.strictEqual(value.greeting, "hello Ada")
      assert.instanceOf(value.at, Date)
      const quotient = yield* client.callToolWith(DivideTool, { dividend: 7, divisor: 2 })
      assert.strictEqual(quotient.quotient, 3.5)
      const failed = yield* Effect.flip(client.callToolWith(DivideTool, { dividend: 1, divisor: 0 }))
      assert.strictEqual(failed._tag, "ToolFailed")
      if (failed._tag === "ToolFailed") assert.instanceOf(failed.failure, DivisionByZero)
      assert.strictEqual(yield* client.callToolWith(Echo, { text: "as it came" }), "as it came")
    }))
})
