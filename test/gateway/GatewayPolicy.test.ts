/**
 * A gateway's `"tools"` policy (apps/cli/src/internal/policy.ts) looks names up as the record's own:
 * a tool or an argument named `constructor` or `toString` is not found in every object's prototype.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Policy from "../../apps/cli/dist/internal/policy.js"

const tool = (name: string) => ({
  name,
  inputSchema: {
    type: "object" as const,
    properties: { toString: { type: "string" }, constructor: { type: "string" }, a: { type: "number" } },
    required: ["toString", "constructor", "a"]
  }
})

describe("gateway tools policy", () => {
  it("inherited names are neither renames, descriptions, fixed nor defaults", () => {
    const policy = { rename: { other: "renamed" }, fixed: { other: { a: 1 } }, defaults: {} }
    const served = Policy.served(policy, tool("constructor"))
    assert.strictEqual(served.name, "constructor")
    assert.isUndefined((served as { readonly description?: unknown }).description)
    assert.deepStrictEqual(served.inputSchema, tool("constructor").inputSchema)
    assert.deepStrictEqual(Policy.argsOf(policy, "toString", { a: 2 }), { a: 2 })
  })
})
