/**
 * The traps a new user met on the first day, each at the wire (or in the types):
 *
 * - tools needing different services in one `McpServer.layer`, with no type arguments;
 * - a `parameters` or `success` schema that is not an object, refused when the tool is defined;
 * - a handler failing with an error it does not declare, refused by the compiler;
 * - resources and prompts failing with the user's own errors;
 * - a typed tool failure as `structuredContent`, and text the tool chooses;
 * - invalid arguments as one line per problem, with its path;
 * - duplicate names refused when the server is built;
 * - what a server author needs, from `@effect-mcp/server` alone.
 */
import * as OfficialSchema from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { McpError, McpSchema, McpServer, Prompt, Resource, Tool } from "../src/index.js"
import { connect } from "./utils/TestClient.js"

const serverInfo = { name: "first-day", version: "1.0.0" }

class Counter extends Context.Tag("Counter")<Counter, Ref.Ref<number>>() {}
class Clock extends Context.Tag("Clock")<Clock, { readonly now: Effect.Effect<string> }>() {}

const Increment = Tool.make("increment", {
  parameters: Schema.Struct({
    by: Schema.Number.pipe(Schema.positive()).annotations({ description: "How much to add" })
  })
}, ({ by }) => Effect.flatMap(Counter, (counter) => Effect.map(Ref.updateAndGet(counter, (n) => n + by), String)))

const Now = Tool.make("now", {}, () => Effect.flatMap(Clock, (clock) => clock.now))

const Count = Resource.make(
  "counter://value",
  { name: "count" },
  Effect.flatMap(Counter, (counter) => Effect.map(Ref.get(counter), String))
)

const Greeting = Prompt.make("greeting", {}, () => Effect.map(Clock, () => "Say good morning"))

/** The layer's type, checked: both services required, `McpRequest` not among them. */
const Server = McpServer.layer({ serverInfo, tools: [Increment, Now], resources: [Count], prompts: [Greeting] })
const _requires: Layer.Layer<McpServer.McpServer, never, Counter | Clock> = Server
const _exactly = <R>(_: Layer.Layer<McpServer.McpServer, never, R>): [R] extends [Counter | Clock] ? true : false =>
  true as any
const _noRequest: true = _exactly(Server)

const services = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const counter = yield* Ref.make(0)
    return yield* effect.pipe(
      Effect.provideService(Counter, counter),
      Effect.provideService(Clock, { now: Effect.succeed("09:00") })
    )
  })

class DivisionByZero extends Schema.TaggedError<DivisionByZero>()("DivisionByZero", { dividend: Schema.Number }) {}
class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {}

const Divide = Tool.make(
  "divide",
  {
    parameters: Schema.Struct({ dividend: Schema.Number, divisor: Schema.Number }),
    failure: DivisionByZero
  },
  ({ dividend, divisor }) =>
    divisor === 0 ? Effect.fail(new DivisionByZero({ dividend })) : Effect.succeed(String(dividend / divisor))
)

const Worded = Tool.make("worded", {
  failure: DivisionByZero,
  failureText: (failure) => `cannot divide ${failure.dividend} by zero`
}, () => Effect.fail(new DivisionByZero({ dividend: 7 })))

describe("a server with several services", () => {
  it("has a layer requiring the union of what its handlers require, and not McpRequest", () => {
    assert.isTrue(_noRequest)
    assert.strictEqual(_requires, Server)
  })

  it.scoped("compiles without type arguments and serves every handler with its service", () =>
    services(Effect.gen(function*() {
      const client = yield* connect({
        serverInfo,
        tools: [Increment, Now],
        resources: [Count],
        prompts: [Greeting]
      })
      yield* client.initialize("2025-11-25")
      const added = yield* client.result("tools/call", { name: "increment", arguments: { by: 2 } })
      assert.deepStrictEqual(added.content, [{ type: "text", text: "2" }])
      const now = yield* client.result("tools/call", { name: "now", arguments: {} })
      assert.deepStrictEqual(now.content, [{ type: "text", text: "09:00" }])
      const read = yield* client.result("resources/read", { uri: "counter://value" })
      assert.strictEqual(read.contents[0].text, "2")
      const got = yield* client.result("prompts/get", { name: "greeting" })
      assert.strictEqual(got.messages[0].content.text, "Say good morning")
    })))
})

describe("parameters that are not an object", () => {
  it("are refused when the tool is defined, saying why", () => {
    assert.throws(
      () =>
        Tool.make(
          "either",
          { parameters: Schema.Union(Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Number })) },
          () => Effect.succeed("never")
        ),
      /Tool either: parameters must be an object schema .*clients would be told this tool takes none/
    )
    assert.throws(
      // @ts-expect-error: a string is not a tool's arguments (the types say so too)
      () => Tool.make("text", { parameters: Schema.String }, () => Effect.succeed("never")),
      /parameters must be an object schema/
    )
    assert.throws(
      // @ts-expect-error: nor is an array
      () => Tool.make("list", { parameters: Schema.Array(Schema.String) }, () => Effect.succeed("never")),
      /parameters must be an object schema/
    )
    // Objects of every kind are fine.
    class Point extends Schema.Class<Point>("Point")({ x: Schema.Number }) {}
    Tool.make("point", { parameters: Point }, ({ x }) => Effect.succeed(String(x)))
    Tool.make(
      "bag",
      { parameters: Schema.Record({ key: Schema.String, value: Schema.Number }) },
      () => Effect.succeed("ok")
    )
    Tool.make("checked", {
      parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }).pipe(Schema.filter((v) => v.a < v.b))
    }, () => Effect.succeed("ok"))
  })
})

describe("a success schema that is not an object", () => {
  it("is refused when the tool is defined, saying to wrap it in a Schema.Struct", () => {
    const wrap = /Wrap the value in a field instead: Schema\.Struct\(\{ items: Schema\.Array\(\.\.\.\) \}\)/
    assert.throws(
      // @ts-expect-error: an array is not structuredContent (the types say so too)
      () => Tool.make("list", { success: Schema.Array(Schema.String) }, () => Effect.succeed(["a"])),
      /Tool list: success must be an object schema .*not ReadonlyArray<string>: MCP's outputSchema describes an object/
    )
    assert.throws(
      // @ts-expect-error: nor is a string
      () => Tool.make("text", { success: Schema.String }, () => Effect.succeed("a")),
      wrap
    )
    assert.throws(
      // @ts-expect-error: nor a number
      () => Tool.make("count", { success: Schema.Number }, () => Effect.succeed(1)),
      wrap
    )
    assert.throws(
      // @ts-expect-error: nor a union of literals
      () => Tool.make("pick", { success: Schema.Literal("a", "b") }, () => Effect.succeed("a" as const)),
      wrap
    )
    // A union with a member that is not an object is refused; a union of objects is an object (below).
    assert.throws(
      () =>
        Tool.make(
          "maybe",
          // @ts-expect-error: null is no structuredContent
          { success: Schema.NullOr(Schema.Struct({ a: Schema.String })) },
          () => Effect.succeed(null)
        ),
      wrap
    )
    // Objects of every kind are fine, unions of them too, and so is a tool without a success schema.
    Tool.make(
      "either",
      { success: Schema.Union(Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Number })) },
      () => Effect.succeed({ a: "x" })
    )
    class Point extends Schema.Class<Point>("Point")({ x: Schema.Number }) {}
    Tool.make("point", { success: Point }, () => Effect.succeed(new Point({ x: 1 })))
    Tool.make(
      "done",
      { success: Schema.TaggedStruct("Done", { n: Schema.Number }) },
      () => Effect.succeed({ _tag: "Done" as const, n: 1 })
    )
    Tool.make(
      "bag",
      { success: Schema.Record({ key: Schema.String, value: Schema.Number }) },
      () => Effect.succeed({ a: 1 })
    )
    Tool.make(
      "checked",
      { success: Schema.Struct({ n: Schema.Number }).pipe(Schema.filter((v) => v.n > 0)) },
      () => Effect.succeed({ n: 1 })
    )
    Tool.make("plain", {}, () => Effect.succeed("text"))
  })

  it("is one of two kinds of output: a success schema, or a raw outputSchema for whole results, never both", () => {
    const raw = { type: "object", properties: { n: { type: "number" } } } as const
    const Forwarded = Tool.make(
      "forwarded",
      { outputSchema: raw },
      () => Effect.succeed({ content: [], structuredContent: { n: 1 } })
    )
    assert.deepStrictEqual(Forwarded.definition.outputSchema, raw)
    const both = { success: Schema.Struct({ n: Schema.Number }), outputSchema: raw }
    // @ts-expect-error: a success schema and a raw outputSchema are never given together
    Tool.make("both", both, () => Effect.succeed({ n: 1 }))
  })

  it.scoped("wrapped in a field, is an outputSchema and structuredContent; without one, the result is text", () =>
    Effect.gen(function*() {
      const Items = Tool.make("items", {
        success: Schema.Struct({ items: Schema.Array(Schema.String) })
      }, () => Effect.succeed({ items: ["a", "b"] }))
      const Plain = Tool.make("plain", {}, () => Effect.succeed("a, b"))
      // A union of objects is an object: its outputSchema says so at the root, for every revision.
      const Outcome = Tool.make("outcome", {
        success: Schema.Union(
          Schema.TaggedStruct("Done", { n: Schema.Number }),
          Schema.TaggedStruct("Skipped", { why: Schema.String })
        )
      }, () => Effect.succeed({ _tag: "Done" as const, n: 1 }))
      const client = yield* connect({ serverInfo, tools: [Items, Plain, Outcome] })
      yield* client.initialize("2025-11-25")
      const { tools } = yield* client.result("tools/list")
      assert.strictEqual(tools.find((t: any) => t.name === "items").outputSchema.type, "object")
      assert.isUndefined(tools.find((t: any) => t.name === "plain").outputSchema)
      const outcome = tools.find((t: any) => t.name === "outcome")
      assert.strictEqual(outcome.outputSchema.type, "object")
      assert.lengthOf(outcome.outputSchema.anyOf, 2)
      assert.isUndefined(OfficialSchema.validate("2025-11-25", "Tool", outcome))
      const called = yield* client.result("tools/call", { name: "outcome", arguments: {} })
      assert.deepStrictEqual(called.structuredContent, { _tag: "Done", n: 1 })
      // An empty Struct is an object too (Effect renders it "object or array", which 2025-11-25 refuses).
      assert.deepStrictEqual(Tool.outputSchema(Schema.Struct({})), {
        type: "object",
        properties: {},
        additionalProperties: false
      })
      const items = yield* client.result("tools/call", { name: "items", arguments: {} })
      assert.deepStrictEqual(items.structuredContent, { items: ["a", "b"] })
      const plain = yield* client.result("tools/call", { name: "plain", arguments: {} })
      assert.deepStrictEqual(plain, { content: [{ type: "text", text: "a, b" }] })
    }))
})

describe("a handler failing with an error it does not declare", () => {
  it("does not compile (the compiler's message is checked in TypeMessages.test.ts); declared ones do", () => {
    // @ts-expect-error: NotFound is not declared
    Tool.make("undeclared", {}, () => Effect.fail(new NotFound({ message: "no" })))
    // @ts-expect-error: nor covered by the failure schema
    Tool.make("uncovered", { failure: DivisionByZero }, () => Effect.fail(new NotFound({ message: "no" })))
    // What is declared, the wire errors, and an error mapped away compile.
    Tool.make("declared", { failure: DivisionByZero }, () => Effect.fail(new DivisionByZero({ dividend: 1 })))
    Tool.make("wire", { failure: DivisionByZero }, () => Effect.fail(new McpError.InvalidParams({ message: "no" })))
    Tool.make("mapped", {}, () =>
      Effect.fail(new NotFound({ message: "no" })).pipe(
        Effect.mapError((e) => new McpError.InvalidParams({ message: e.message }))
      ))
    Tool.make("died", {}, () => Effect.orDie(Effect.fail(new NotFound({ message: "no" }))))
  })
})

describe("one failure policy for tools, prompts and resources", () => {
  const Missing = Resource.make("test://missing", { name: "missing" }, Effect.fail(new NotFound({ message: "gone" })))
  const Tagged = Resource.template(
    "test://items/{id}",
    { name: "items" },
    ({ id }) => Effect.fail(new DivisionByZero({ dividend: Number(id) }))
  )
  const Told = Resource.make(
    "test://told",
    { name: "told" },
    Effect.fail(new McpError.ResourceNotFound({ uri: "test://told" }))
  )
  const Refusing = Prompt.make("refusing", {}, () => Effect.fail(new NotFound({ message: "no such prompt today" })))
  const Asking = Prompt.make("asking", {}, () => Effect.fail(new McpError.InvalidParams({ message: "say which day" })))
  const Buggy = Prompt.make("buggy", {}, () => Effect.die(new Error("a bug")))
  // A tool whose handler fails with what the types would refuse (a cast hides it), and one whose
  // declared failure its schema cannot encode.
  const Sneaky = Tool.make(
    "sneaky",
    {},
    () => Effect.fail(new NotFound({ message: "a secret path" })) as unknown as Effect.Effect<string>
  )
  const Unwritable = Schema.transformOrFail(Schema.String, Schema.String, {
    decode: ParseResult.succeed,
    encode: (s, _, ast) => ParseResult.fail(new ParseResult.Type(ast, s, "cannot be encoded"))
  })
  const Unencodable = Tool.make("unencodable", { failure: Unwritable }, () => Effect.fail("a secret reason"))

  it.scoped("an error nobody declared is -32603 with a generic message, logged with its cause; an McpError is itself", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      const client = yield* connect({
        serverInfo,
        tools: [Sneaky, Unencodable],
        resources: [Missing, Tagged, Told],
        prompts: [Refusing, Asking, Buggy]
      }).pipe(
        Effect.provide(Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ cause, message }) =>
            logged.push([...(Array.isArray(message) ? message : [message]).map(String), Cause.pretty(cause)].join(" "))
          )
        ))
      )
      yield* client.initialize("2025-11-25")
      const internal = { code: -32603, message: "Internal error" }
      const cases = [
        ["resources/read", { uri: "test://missing" }, "gone"],
        ["resources/read", { uri: "test://items/3" }, "DivisionByZero"],
        ["prompts/get", { name: "refusing" }, "no such prompt today"],
        ["prompts/get", { name: "buggy" }, "a bug"],
        ["tools/call", { name: "sneaky", arguments: {} }, "a secret path"],
        ["tools/call", { name: "unencodable", arguments: {} }, "cannot be encoded"]
      ] as const
      for (const [method, params, own] of cases) {
        const error = yield* client.error(method, params)
        // The error's own words stay on the server: in its log, with the method and the name.
        assert.deepStrictEqual(error, internal, `${method} ${JSON.stringify(params)}`)
        assert.notInclude(JSON.stringify(error), own)
        const name = "uri" in params ? params.uri : params.name
        const line = logged.find((l) => l.includes(`${method} ${name} failed`))
        assert.isDefined(line, logged.join("\n"))
        assert.include(line, own)
      }
      const told = yield* client.error("resources/read", { uri: "test://told" })
      assert.strictEqual(told.code, -32002)
      const asking = yield* client.error("prompts/get", { name: "asking" })
      assert.deepStrictEqual(asking, { code: -32602, message: "say which day" })
    }))
})

describe("a typed tool failure", () => {
  it.scoped("is structuredContent where the revision has it, besides its text", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Divide, Worded] })
      yield* client.initialize("2025-06-18")
      const failed = yield* client.result("tools/call", { name: "divide", arguments: { dividend: 1, divisor: 0 } })
      assert.deepStrictEqual(failed, {
        content: [{ type: "text", text: "{\"dividend\":1,\"_tag\":\"DivisionByZero\"}" }],
        structuredContent: { dividend: 1, _tag: "DivisionByZero" },
        isError: true
      })
      const worded = yield* client.result("tools/call", { name: "worded", arguments: {} })
      assert.deepStrictEqual(worded.content, [{ type: "text", text: "cannot divide 7 by zero" }])
      assert.deepStrictEqual(worded.structuredContent, { dividend: 7, _tag: "DivisionByZero" })
    }))

  it.scoped("is text alone before 2025-06-18", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, tools: [Divide] })
      yield* client.initialize("2025-03-26")
      const failed = yield* client.result("tools/call", { name: "divide", arguments: { dividend: 1, divisor: 0 } })
      assert.isUndefined(failed.structuredContent)
      assert.isTrue(failed.isError)
    }))
})

describe("invalid arguments", () => {
  it.scoped("are one line per problem, with the path, saying what was expected and what came", () =>
    services(Effect.gen(function*() {
      const Order = Tool.make("order", {
        parameters: Schema.Struct({
          items: Schema.Array(Schema.Struct({ sku: Schema.String.pipe(Schema.minLength(3)), qty: Schema.Int })),
          note: Schema.optional(Schema.String)
        })
      }, () => Effect.succeed("ordered"))
      const client = yield* connect({ serverInfo, tools: [Increment, Order] })
      yield* client.initialize("2025-11-25")
      const one = yield* client.result("tools/call", { name: "increment", arguments: { by: -1 } })
      assert.deepStrictEqual(one.content, [{
        type: "text",
        text: "Invalid arguments for tool increment: by: expected a number greater than 0, got -1"
      }])
      const many = yield* client.result("tools/call", {
        name: "order",
        arguments: { items: [{ sku: "abc", qty: 1 }, { sku: "x", qty: 1.5 }], note: 3 }
      })
      assert.strictEqual(
        many.content[0].text,
        [
          "Invalid arguments for tool order:",
          "items[1].sku: expected a string at least 3 characters long, got \"x\"",
          "items[1].qty: expected an integer, got 1.5",
          "note: expected a string, got 3"
        ].join("\n")
      )
      const missing = yield* client.result("tools/call", { name: "increment", arguments: {} })
      assert.strictEqual(
        missing.content[0].text,
        "Invalid arguments for tool increment: by: missing (expected a number greater than 0)"
      )
    })))
})

describe("the JSON Schema a tool publishes", () => {
  it("is the plain form: no $ref to a named refinement, no generated titles; $defs kept for recursion", () => {
    assert.deepStrictEqual(
      Tool.inputSchema(Schema.Struct({
        by: Schema.Int.pipe(Schema.positive()).annotations({ description: "How much to add" }),
        count: Schema.NonNegativeInt,
        name: Schema.String.pipe(Schema.minLength(1)),
        seconds: Schema.Number.pipe(Schema.nonNegative()).annotations({ title: "duration" })
      })),
      {
        type: "object",
        required: ["by", "count", "name", "seconds"],
        properties: {
          by: { type: "integer", exclusiveMinimum: 0, description: "How much to add" },
          count: { type: "integer", minimum: 0 },
          name: { type: "string", minLength: 1 },
          seconds: { type: "number", minimum: 0, title: "duration" }
        },
        additionalProperties: false
      } as any
    )
    class Point extends Schema.Class<Point>("Point")({ x: Schema.Number }) {}
    assert.deepStrictEqual(Tool.inputSchema(Point), {
      type: "object",
      required: ["x"],
      properties: { x: { type: "number" } },
      additionalProperties: false
    } as any)
    interface Tree {
      readonly name: string
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Schema<Tree> = Schema.Struct({
      name: Schema.String,
      children: Schema.Array(Schema.suspend(() => Tree))
    }).annotations({ identifier: "Tree" })
    const recursive = Tool.inputSchema(Schema.Struct({ root: Tree })) as any
    assert.deepStrictEqual(recursive.properties.root, { $ref: "#/$defs/Tree" })
    assert.deepStrictEqual(recursive.$defs.Tree.properties.children.items, { $ref: "#/$defs/Tree" })
  })
})

describe("duplicate names", () => {
  const cases = [
    ["tool name \"a\"", {
      tools: [Tool.make("a", {}, () => Effect.succeed("1")), Tool.make("a", {}, () => Effect.succeed("2"))]
    }],
    ["prompt name \"p\"", {
      prompts: [Prompt.make("p", {}, () => Effect.succeed("1")), Prompt.make("p", {}, () => Effect.succeed("2"))]
    }],
    ["resource URI \"test://r\"", {
      resources: [
        Resource.make("test://r", {}, Effect.succeed("1")),
        Resource.make("test://r", {}, Effect.succeed("2"))
      ]
    }],
    ["resource template \"test://{x}\"", {
      resources: [
        Resource.template("test://{x}", { name: "one" }, () => Effect.succeed("1")),
        Resource.template("test://{x}", { name: "two" }, () => Effect.succeed("2"))
      ]
    }]
  ] as const
  for (const [what, given] of cases) {
    it.scoped(`are refused when the server is built: ${what}`, () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(McpServer.make({ serverInfo, ...given }))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isSuccess(exit)) return
        assert.include(Cause.pretty(exit.cause), `Duplicate ${what}: each may be given only once`)
      }))
  }
})

describe("one import serves a server author", () => {
  it("McpError, McpSchema and the result types come from @effect-mcp/server", () => {
    const error: McpError.McpError = new McpError.InvalidParams({ message: "no" })
    assert.strictEqual(error.toWire("2025-11-25").code, -32602)
    const block: Tool.Content = { type: "text", text: "hi" }
    const result: Tool.CallToolResult = { content: [block] }
    assert.isTrue(Schema.is(McpSchema.Tool.CallToolResult)(result))
  })
})
