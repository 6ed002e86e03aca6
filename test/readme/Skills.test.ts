/**
 * The README's skills example: the server serves the skills, the host lists, loads and reads them,
 * and the code is the README's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { forms } from "./skills.js"

const here = path.dirname(fileURLToPath(import.meta.url))

describe("README example, skills", () => {
  it.effect("the host reads the skill the server serves", () =>
    Effect.gen(function*() {
      const read = yield* forms
      assert.include(read.instructions, "name: pdf-processing")
      assert.strictEqual(read.forms, "# Forms\n\nThe fields of each form.\n")
    }))

  it("is the code the README shows", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../docs/skills.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.resolve(here, "skills.ts"), "utf8").trim())
  })
})
