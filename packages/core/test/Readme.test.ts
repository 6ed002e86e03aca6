import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { program } from "../examples/readme.js"

const here = path.dirname(fileURLToPath(import.meta.url))

describe("README example", () => {
  it.effect("runs and answers as the README says", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* program, { content: [{ type: "text", text: "hello Ada" }] })
    }))

  it("is the code the README shows", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../../README.md"), "utf8")
    const example = fs.readFileSync(path.resolve(here, "../examples/readme.ts"), "utf8").trim()
    assert.include(readme, example)
  })
})
