/**
 * The fields each revision has, as our schemas say (`Base.since` annotations, read by
 * `Base.absentFields`), are exactly the properties of the official schema of that revision: the
 * server's projection of what it sends is derived from these annotations.
 */
import { definition } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as Revision from "../src/Revision.js"
import * as Base from "../src/Schema/Base.js"
import * as Prompt from "../src/Schema/Prompt.js"
import * as Resource from "../src/Schema/Resource.js"
import * as Tool from "../src/Schema/Tool.js"

const fieldsOf = (schema: Schema.Schema.Any): ReadonlyArray<string> => {
  const ast = schema.ast as SchemaAST.TypeLiteral
  return ast.propertySignatures.map((ps) => String(ps.name))
}

const officialProperties = (revision: Revision.Revision, name: string): ReadonlyArray<string> => {
  const def = definition(revision, name)
  const props = new Set<string>(Object.keys(def.properties ?? {}))
  for (const part of def.allOf ?? []) for (const key of Object.keys(part.properties ?? {})) props.add(key)
  return [...props].sort()
}

const cases: ReadonlyArray<readonly [string, Schema.Schema.Any]> = [
  ["Implementation", Base.Implementation],
  ["Tool", Tool.Tool],
  ["Prompt", Prompt.Prompt],
  ["PromptArgument", Prompt.PromptArgument],
  ["Resource", Resource.Resource],
  ["ResourceTemplate", Resource.ResourceTemplate]
]

describe("Schema: the fields of each revision", () => {
  for (const revision of Revision.all) {
    for (const [name, schema] of cases) {
      it(`${name} @ ${revision}`, () => {
        const absent = new Set(Base.absentFields(schema, revision))
        const ours = fieldsOf(schema).filter((field) => !absent.has(field)).sort()
        assert.deepStrictEqual(ours, officialProperties(revision, name))
      })
    }
  }

  it("a field without the annotation is in every revision; until is inclusive", () => {
    assert.deepStrictEqual(Base.absentFields(Tool.Tool, "2025-11-25"), [])
    assert.deepStrictEqual(Base.absentFields(Tool.Tool, "2026-07-28"), ["execution"])
    assert.deepStrictEqual([...Base.absentFields(Tool.Tool, "2024-11-05")].sort(), [
      "_meta",
      "annotations",
      "execution",
      "icons",
      "outputSchema",
      "title"
    ])
  })
})
