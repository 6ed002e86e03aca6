/**
 * The Apps guide's example: the server serves a view and its tools, the host finds the tool with a view, reads
 * the view and the policies of its sandbox, and the code is the guide's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { firstView } from "./apps.js"

const here = path.dirname(fileURLToPath(import.meta.url))

describe("docs/apps.md example", () => {
  it.effect("the host finds the linked tools, reads the view and its sandbox's policies", () =>
    Effect.gen(function*() {
      const view = yield* firstView
      assert.strictEqual(view.tool, "show_todos")
      assert.match(view.html, /^<!doctype html>/)
      assert.include(view.csp, "connect-src https://api.example.com;")
      assert.strictEqual(view.allow, "")
    }))

  it("the README's Apps section shows clock.ts's view and tool as they are (mcp app renders it: test/cli/App.test.ts)", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../README.md"), "utf8")
    // An excerpt (Docs.test.ts checks it is a part of a file): the README has room for these two lines of clock.ts.
    const lines = fs.readFileSync(path.resolve(here, "clock.ts"), "utf8").split("\n")
    const shown = lines.filter((line) => /^const (Clock|ShowTime) = /.test(line))
    assert.strictEqual(shown.length, 2)
    assert.include(readme, `\`\`\`ts excerpt\n${shown.join("\n")}\n\`\`\``)
  })

  it("is the code the guide shows", () => {
    const guide = fs.readFileSync(path.resolve(here, "../../docs/apps.md"), "utf8")
    assert.include(guide, fs.readFileSync(path.resolve(here, "apps.ts"), "utf8").trim())
  })
})
