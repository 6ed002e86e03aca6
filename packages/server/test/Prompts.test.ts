import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Prompt from "../src/Prompt.js"
import * as Resource from "../src/Resource.js"
import { connect, handshakeRevisions } from "./utils/TestClient.js"

const serverInfo = { name: "prompts-server", version: "1.0.0" }

const languages = ["go", "haskell", "javascript", "python", "rust", "typescript"]

const Review = Prompt.make("review", {
  title: "Code review",
  description: "Review some code",
  arguments: Schema.Struct({
    language: Schema.String.annotations({ description: "The language", title: "Language" }),
    code: Schema.String.annotations({ description: "The code" }),
    style: Schema.optional(Schema.String.annotations({ description: "The style" }))
  }),
  complete: {
    language: (value) => Effect.succeed(languages.filter((l) => l.startsWith(value))),
    style: (value, context) =>
      Effect.succeed(
        (context.language === "rust" ? ["idiomatic", "unsafe-free"] : ["terse", "verbose"]).filter((s) =>
          s.startsWith(value)
        )
      )
  }
}, ({ code, language, style }) => Effect.succeed(`Review this ${language} (${style ?? "any style"}):\n${code}`))

const Simple = Prompt.make("simple", {}, () => Effect.succeed("just text"))

const Many = Prompt.make("many", {
  arguments: Schema.Struct({ n: Schema.String }),
  complete: { n: (value) => Effect.succeed(Array.from({ length: 250 }, (_, i) => `${value}${i}`)) }
}, ({ n }) => Effect.succeed(n))

const Gallery = Prompt.make("gallery", { description: "every content kind" }, () =>
  Effect.succeed(
    {
      description: "every content kind",
      messages: [
        { role: "user", content: { type: "text", text: "hello" } },
        { role: "assistant", content: { type: "image", data: "aW1n", mimeType: "image/png" } },
        { role: "user", content: { type: "audio", data: "YXVk", mimeType: "audio/mpeg" } },
        { role: "assistant", content: { type: "resource_link", uri: "test://link", name: "link" } },
        {
          role: "user",
          content: { type: "resource", resource: { uri: "test://embedded", blob: "AAE=", mimeType: "image/x-icon" } }
        }
      ]
    } as const
  ))

const prompts = [Review, Simple, Many, Gallery]

describe("Prompts: prompts/list", () => {
  it.scoped("sorted, with arguments from the schema", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      yield* client.initialize("2025-06-18")
      const result = yield* client.result("prompts/list")
      assert.deepStrictEqual(result.prompts.map((p: any) => p.name), ["gallery", "many", "review", "simple"])
      assert.deepStrictEqual(result.prompts[2], {
        name: "review",
        title: "Code review",
        description: "Review some code",
        arguments: [
          { name: "language", title: "Language", description: "The language", required: true },
          { name: "code", description: "The code", required: true },
          { name: "style", description: "The style", required: false }
        ]
      })
      assert.isUndefined(validate("2025-06-18", "ListPromptsResult", result))
    }))

  it.scoped("titles only from 2025-06-18; valid against the official schema everywhere", () =>
    Effect.gen(function*() {
      for (const revision of handshakeRevisions) {
        const client = yield* connect({ serverInfo, prompts })
        yield* client.initialize(revision)
        const result = yield* client.result("prompts/list")
        assert.isUndefined(validate(revision, "ListPromptsResult", result), revision)
        const review = result.prompts.find((p: any) => p.name === "review")
        assert.strictEqual("title" in review, revision >= "2025-06-18", revision)
        assert.strictEqual("title" in review.arguments[0], revision >= "2025-06-18", revision)
      }
    }))

  it.scoped("pagination", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts, pageSize: 3 })
      yield* client.initialize("2025-11-25")
      const first = yield* client.result("prompts/list")
      assert.deepStrictEqual(first.prompts.map((p: any) => p.name), ["gallery", "many", "review"])
      const second = yield* client.result("prompts/list", { cursor: first.nextCursor })
      assert.deepStrictEqual(second.prompts.map((p: any) => p.name), ["simple"])
      assert.isUndefined(second.nextCursor)
    }))
})

describe("Prompts: prompts/get", () => {
  it.scoped("with arguments", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      yield* client.initialize("2025-11-25")
      const result = yield* client.result("prompts/get", {
        name: "review",
        arguments: { language: "rust", code: "fn main() {}", style: "terse" }
      })
      assert.deepStrictEqual(result, {
        description: "Review some code",
        messages: [{ role: "user", content: { type: "text", text: "Review this rust (terse):\nfn main() {}" } }]
      })
      assert.isUndefined(validate("2025-11-25", "GetPromptResult", result))
      const optional = yield* client.result("prompts/get", {
        name: "review",
        arguments: { language: "go", code: "x" }
      })
      assert.include(optional.messages[0].content.text, "any style")
      const none = yield* client.result("prompts/get", { name: "simple" })
      assert.deepStrictEqual(none.messages, [{ role: "user", content: { type: "text", text: "just text" } }])
    }))

  it.scoped("a missing required argument is -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      yield* client.initialize("2025-11-25")
      const error = yield* client.error("prompts/get", { name: "review", arguments: { language: "go" } })
      assert.strictEqual(error.code, -32602)
      assert.include(error.message, "code")
      assert.strictEqual((yield* client.error("prompts/get", { name: "review" })).code, -32602)
    }))

  it.scoped("invalid arguments are -32602 with the request's id, one line per problem with its path", () =>
    Effect.gen(function*() {
      const Standup = Prompt.make("standup", {
        arguments: Schema.Struct({ team: Schema.String, days: Schema.NumberFromString.pipe(Schema.int()) })
      }, ({ days, team }) => Effect.succeed(`${team}: the last ${days} days`))
      const client = yield* connect({ serverInfo, prompts: [Standup] })
      yield* client.initialize("2025-11-25")
      const missing = yield* client.send({
        jsonrpc: "2.0",
        id: "get-1",
        method: "prompts/get",
        params: { name: "standup", arguments: { days: "3" } }
      }).pipe(Effect.zipRight(client.next))
      assert.deepStrictEqual(missing, {
        jsonrpc: "2.0",
        id: "get-1",
        error: { code: -32602, message: "Invalid arguments for prompt standup: team: missing (expected a string)" }
      })
      const both = yield* client.error("prompts/get", { name: "standup", arguments: { days: "1.5" } })
      assert.deepStrictEqual(both, {
        code: -32602,
        message: [
          "Invalid arguments for prompt standup:",
          "team: missing (expected a string)",
          "days: expected an integer, got \"1.5\""
        ].join("\n")
      })
      const got = yield* client.result("prompts/get", { name: "standup", arguments: { team: "core", days: "2" } })
      assert.strictEqual(got.messages[0].content.text, "core: the last 2 days")
    }))

  it.scoped("an unknown prompt is -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      yield* client.initialize("2024-11-05")
      const error = yield* client.error("prompts/get", { name: "nope" })
      assert.strictEqual(error.code, -32602)
      assert.include(error.message, "nope")
    }))

  it.scoped("messages of every content kind, shaped per revision", () =>
    Effect.gen(function*() {
      const kinds: Record<string, ReadonlyArray<string>> = {}
      for (const revision of handshakeRevisions) {
        const client = yield* connect({ serverInfo, prompts })
        yield* client.initialize(revision)
        const result = yield* client.result("prompts/get", { name: "gallery" })
        assert.isUndefined(validate(revision, "GetPromptResult", result), revision)
        assert.strictEqual(result.description, "every content kind")
        assert.deepStrictEqual(result.messages.map((m: any) => m.role), [
          "user",
          "assistant",
          "user",
          "assistant",
          "user"
        ])
        kinds[revision] = result.messages.map((m: any) => m.content.type)
        if (revision === "2025-11-25") {
          assert.deepStrictEqual(result.messages[3].content, {
            type: "resource_link",
            uri: "test://link",
            name: "link"
          })
          assert.deepStrictEqual(result.messages[4].content.resource, {
            uri: "test://embedded",
            blob: "AAE=",
            mimeType: "image/x-icon"
          })
        }
        if (revision === "2024-11-05") {
          assert.deepStrictEqual(result.messages[2].content, { type: "text", text: "[audio: audio/mpeg]" })
          assert.deepStrictEqual(result.messages[3].content, { type: "text", text: "test://link" })
        }
      }
      assert.deepStrictEqual(kinds, {
        "2024-11-05": ["text", "image", "text", "text", "resource"],
        "2025-03-26": ["text", "image", "audio", "text", "resource"],
        "2025-06-18": ["text", "image", "audio", "resource_link", "resource"],
        "2025-11-25": ["text", "image", "audio", "resource_link", "resource"]
      })
    }))
})

const Docs = Resource.template("test://docs/{project}/{page}", {
  name: "docs",
  complete: {
    project: (value) => Effect.succeed(["effect", "effect-mcp", "vitest"].filter((p) => p.startsWith(value))),
    page: (value, context) =>
      Effect.succeed(
        (context.project === "vitest" ? ["api", "config"] : ["intro", "schema", "stream"]).filter((p) =>
          p.startsWith(value)
        )
      )
  }
}, (variables) => Effect.succeed(`${variables.project}/${variables.page}`))

describe("Completions", () => {
  it.scoped("prompt arguments", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      yield* client.initialize("2025-03-26")
      const result = yield* client.result("completion/complete", {
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "language", value: "ty" }
      })
      assert.deepStrictEqual(result, { completion: { values: ["typescript"], total: 1, hasMore: false } })
      assert.isUndefined(validate("2025-03-26", "CompleteResult", result))
    }))

  it.scoped("context.arguments is passed to the completer (2025-06-18+)", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      yield* client.initialize("2025-06-18")
      const rust = yield* client.result("completion/complete", {
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "style", value: "" },
        context: { arguments: { language: "rust" } }
      })
      assert.deepStrictEqual(rust.completion.values, ["idiomatic", "unsafe-free"])
      const other = yield* client.result("completion/complete", {
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "style", value: "t" }
      })
      assert.deepStrictEqual(other.completion.values, ["terse"])
    }))

  it.scoped("template variables, with context.arguments", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, resources: [Docs] })
      yield* client.initialize("2025-11-25")
      const projects = yield* client.result("completion/complete", {
        ref: { type: "ref/resource", uri: "test://docs/{project}/{page}" },
        argument: { name: "project", value: "eff" }
      })
      assert.deepStrictEqual(projects.completion, { values: ["effect", "effect-mcp"], total: 2, hasMore: false })
      const pages = yield* client.result("completion/complete", {
        ref: { type: "ref/resource", uri: "test://docs/{project}/{page}" },
        argument: { name: "page", value: "" },
        context: { arguments: { project: "vitest" } }
      })
      assert.deepStrictEqual(pages.completion.values, ["api", "config"])
      assert.isUndefined(validate("2025-11-25", "CompleteResult", pages))
    }))

  it.scoped("capped at 100 values, with total and hasMore", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      yield* client.initialize("2025-11-25")
      const result = yield* client.result("completion/complete", {
        ref: { type: "ref/prompt", name: "many" },
        argument: { name: "n", value: "v" }
      })
      assert.strictEqual(result.completion.values.length, 100)
      assert.strictEqual(result.completion.values[0], "v0")
      assert.strictEqual(result.completion.values[99], "v99")
      assert.strictEqual(result.completion.total, 250)
      assert.isTrue(result.completion.hasMore)
      assert.isUndefined(validate("2025-11-25", "CompleteResult", result))
    }))

  it.scoped("unknown prompts, templates and arguments: no values", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts, resources: [Docs] })
      yield* client.initialize("2025-11-25")
      const empty = { completion: { values: [], total: 0, hasMore: false } }
      for (
        const ref of [
          { type: "ref/prompt", name: "nope" },
          { type: "ref/prompt", name: "simple" },
          { type: "ref/resource", uri: "test://docs/effect/intro" }
        ]
      ) {
        assert.deepStrictEqual(
          yield* client.result("completion/complete", { ref, argument: { name: "project", value: "" } }),
          empty
        )
      }
    }))

  it.scoped("2024-11-05 has completion/complete without a completions capability", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts })
      const init = yield* client.initialize("2024-11-05")
      assert.isUndefined(init.capabilities.completions)
      const result = yield* client.result("completion/complete", {
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "language", value: "py" }
      })
      assert.deepStrictEqual(result.completion.values, ["python"])
      assert.isUndefined(validate("2024-11-05", "CompleteResult", result))
    }))

  it.scoped("no completers registered (2025-03-26+): no capability, -32601", () =>
    Effect.gen(function*() {
      const client = yield* connect({ serverInfo, prompts: [Simple] })
      yield* client.initialize("2025-03-26")
      const error = yield* client.error("completion/complete", {
        ref: { type: "ref/prompt", name: "simple" },
        argument: { name: "x", value: "" }
      })
      assert.strictEqual(error.code, -32601)
    }))
})
