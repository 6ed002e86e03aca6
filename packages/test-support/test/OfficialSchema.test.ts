/**
 * The validator itself: every schema set loads, a valid value passes, an invalid one fails with a
 * message, and the patched artefacts are as documented. Every other test leans on it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { definition, definitions, schemaDir, schemaSets, validate } from "../src/OfficialSchema.js"

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

describe("OfficialSchema", () => {
  it("ext-apps: loads; accepts a valid McpUiToolMeta and refuses an invalid one", () => {
    assert.isAbove(definitions("ext-apps").length, 10)
    assert.isUndefined(validate("ext-apps", "McpUiToolMeta", { resourceUri: "ui://x", visibility: ["app"] }))
    const error = validate("ext-apps", "McpUiToolMeta", { resourceUri: "ui://x", visibility: ["agent"] })
    assert.isString(error)
    assert.match(error!, /McpUiToolMeta/)
  })

  for (const set of schemaSets.filter((set) => set !== "ext-apps")) {
    it(`${set}: loads; accepts a valid Implementation and refuses an invalid one`, () => {
      assert.isAbove(definitions(set).length, 10)
      assert.isUndefined(validate(set, "Implementation", { name: "x", version: "1.0.0" }))
      const error = validate(set, "Implementation", { name: 1 })
      assert.isString(error)
      assert.match(error!, /Implementation/)
    })
  }

  it("reads the package's own copies, each byte for byte the file SOURCES.md names", () => {
    assert.strictEqual(schemaDir, path.join(packageDir, "schema"))
    const sources = fs.readFileSync(path.join(schemaDir, "SOURCES.md"), "utf8")
    for (const set of schemaSets) {
      const row = sources.split("\n").find((line) => line.startsWith(`| \`${set}/schema.json\``))
      assert.isDefined(row, `SOURCES.md lists ${set}`)
      const sha256 = row!.split("|").map((cell) => cell.trim()).at(-2)
      const bytes = fs.readFileSync(path.join(schemaDir, set, "schema.json"))
      assert.strictEqual(crypto.createHash("sha256").update(bytes).digest("hex"), sha256, `${set}/schema.json`)
    }
    for (const license of ["LICENSE-modelcontextprotocol", "LICENSE-ext-tasks", "LICENSE-ext-apps"]) {
      assert.match(fs.readFileSync(path.join(schemaDir, license), "utf8"), /Apache License/)
    }
  })

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
