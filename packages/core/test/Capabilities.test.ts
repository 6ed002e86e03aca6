import { assert, describe, it } from "@effect/vitest"
import * as Capabilities from "../src/Capabilities.js"

const sampling = { method: "sampling/createMessage", params: {} } as const
const withTools = { method: "sampling/createMessage", params: { tools: [] } } as const
const form = { method: "elicitation/create", params: {} } as const
const url = { method: "elicitation/create", params: { mode: "url" } } as const
const roots = { method: "roots/list" } as const

describe("Capabilities.declares", () => {
  it("sampling: sampling, and sampling.tools for tools in a revision that has them", () => {
    assert.isTrue(Capabilities.declares({ sampling: {} }, sampling, "2025-03-26"))
    assert.isFalse(Capabilities.declares({}, sampling, "2026-07-28"))
    assert.isFalse(Capabilities.declares({ sampling: {} }, withTools, "2025-11-25"))
    assert.isTrue(Capabilities.declares({ sampling: { tools: {} } }, withTools, "2025-11-25"))
    assert.isFalse(Capabilities.declares({ sampling: { tools: {} } }, withTools, "2025-06-18"))
  })

  it("elicitation: an empty object is form only; url alone is not form; none before 2025-06-18", () => {
    assert.isTrue(Capabilities.declares({ elicitation: {} }, form, "2025-11-25"))
    assert.isFalse(Capabilities.declares({ elicitation: {} }, url, "2025-11-25"))
    assert.isFalse(Capabilities.declares({ elicitation: { url: {} } }, form, "2026-07-28"))
    assert.isTrue(Capabilities.declares({ elicitation: { url: {} } }, url, "2026-07-28"))
    assert.isTrue(Capabilities.declares({ elicitation: { url: {} } }, form, "2025-06-18"))
    assert.isFalse(Capabilities.declares({ elicitation: { url: {} } }, url, "2025-06-18"))
    assert.isFalse(Capabilities.declares({ elicitation: {} }, form, "2025-03-26"))
  })

  it("roots: roots", () => {
    assert.isTrue(Capabilities.declares({ roots: {} }, roots, "2024-11-05"))
    assert.isFalse(Capabilities.declares({ sampling: {} }, roots, "2026-07-28"))
  })
})

describe("Capabilities.required", () => {
  it("says what requiredCapabilities carries for each ask", () => {
    assert.deepStrictEqual(Capabilities.required(sampling), { sampling: {} })
    assert.deepStrictEqual(Capabilities.required(withTools), { sampling: { tools: {} } })
    assert.deepStrictEqual(Capabilities.required(form), { elicitation: { form: {} } })
    assert.deepStrictEqual(Capabilities.required(url), { elicitation: { url: {} } })
    assert.deepStrictEqual(Capabilities.required(roots), { roots: {} })
  })
})
