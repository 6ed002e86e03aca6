import { assert, describe, it } from "@effect/vitest"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as McpError from "../src/McpError.js"

/** The config error `config` fails with when read from `entries`. */
const configError = <A>(config: Config.Config<A>, entries: ReadonlyArray<readonly [string, string]> = []) =>
  Effect.flip(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(entries))))

describe("McpError.messageOf", () => {
  it.effect("a missing redacted config value: its path, not <redacted>", () =>
    Effect.gen(function*() {
      const error = yield* configError(Config.redacted("MCP_REQUEST_STATE_KEY"))
      assert.strictEqual(McpError.messageOf(error), "MCP_REQUEST_STATE_KEY is missing")
    }))

  it.effect("a missing plain config value: its path and Effect's own words", () =>
    Effect.gen(function*() {
      const error = yield* configError(Config.string("PORT"))
      assert.strictEqual(McpError.messageOf(error), "PORT is missing (Expected PORT to exist in the provided map)")
    }))

  it.effect("invalid data: its path and why; a redacted one its path alone", () =>
    Effect.gen(function*() {
      const port = yield* configError(Config.integer("PORT"), [["PORT", "abc"]])
      assert.strictEqual(McpError.messageOf(port), "PORT is invalid: Expected an integer value but received \"abc\"")
      const secret = yield* configError(
        Config.redacted(Config.integer("PIN")),
        [["PIN", "abc"]]
      )
      assert.strictEqual(McpError.messageOf(secret), "PIN is invalid")
    }))

  it.effect("a nested path is joined; both sides of a combined error are said", () =>
    Effect.gen(function*() {
      const nested = yield* configError(Config.nested(Config.string("PORT"), "SERVER"))
      assert.match(McpError.messageOf(nested), /^SERVER\.PORT is missing/)
      const both = yield* configError(Config.all([Config.string("HOST"), Config.string("PORT")]))
      assert.match(McpError.messageOf(both), /^HOST is missing .*; PORT is missing/)
    }))

  it("other failures: their own message, a bare tag, a string", () => {
    assert.strictEqual(
      McpError.messageOf(new McpError.ResourceNotFound({ uri: "file:///x" })),
      "Resource not found: file:///x"
    )
    assert.strictEqual(McpError.messageOf({ _tag: "Oops" }), "Oops")
    assert.strictEqual(McpError.messageOf("plain"), "plain")
  })
})

describe("McpError's API reference", () => {
  const source = fs.readFileSync(
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/McpError.ts"),
    "utf8"
  )
  const classes = Object.entries(McpError).filter(([, value]) =>
    typeof value === "function" && "fields" in value && typeof (value as any).fields === "object"
  ) as ReadonlyArray<readonly [string, { readonly fields: Record<string, unknown> }]>

  it("documents every constructor argument of every error (a property with its own JSDoc), with an example", () => {
    assert.isAtLeast(classes.length, 11)
    for (const [name, error] of classes) {
      const start = source.indexOf(`export class ${name}`)
      assert.isAbove(start, -1, name)
      const next = source.indexOf("\nexport ", start + 1)
      const body = source.slice(start, next === -1 ? undefined : next)
      const doc = source.slice(source.lastIndexOf("/**", start), start)
      assert.include(doc, "@example", `${name} has an example`)
      for (const field of Object.keys(error.fields).filter((key) => key !== "_tag")) {
        assert.match(body, new RegExp(`\\*/\\s*declare readonly ${field}\\??:`), `${name}.${field} is documented`)
      }
    }
  })
})
