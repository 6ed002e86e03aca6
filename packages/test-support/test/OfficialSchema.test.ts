/**
 * The validator itself: every schema set loads, a valid value passes, an invalid one fails with a
 * message, and the patched artefacts are as documented. Every other test leans on it.
 */
import { assert, describe, it } from "@effect/vitest"
import { definition, definitions, schemaSets, validate } from "../src/OfficialSchema.js"

describe("OfficialSchema", () => {
  for (const set of schemaSets) {
    it(`${set}: loads; accepts a valid Implementation and refuses an invalid one`, () => {
      assert.isAbove(definitions(set).length, 10)
      assert.isUndefined(validate(set, "Implementation", { name: "x", version: "1.0.0" }))
      const error = validate(set, "Implementation", { name: 1 })
      assert.isString(error)
      assert.match(error!, /Implementation/)
    })
  }

  it("an unknown definition is an error, not a pass", () => {
    assert.throws(() => validate("2025-11-25", "NoSuchDefinition", {}), /no definition NoSuchDefinition/)
  })

  it("JSONValue is any JSON value where a set defines it (artefacts 1 and 3)", () => {
    const sets = schemaSets.filter((set) => definitions(set).includes("JSONValue"))
    assert.isNotEmpty(sets)
    for (const set of sets) {
      assert.deepStrictEqual(definition(set, "JSONValue"), {})
      assert.isUndefined(validate(set, "JSONValue", null))
      assert.isUndefined(validate(set, "JSONValue", 1.5))
    }
  })
})
