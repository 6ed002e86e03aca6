/**
 * The README's tasks example: a task called, its status followed to its end, its result; a task
 * that asks first and detaches; and the code is the README's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "./tasks.js"

const here = path.dirname(fileURLToPath(import.meta.url))

describe("README example, tasks", () => {
  it.live("the client follows the task to its result; the task that asked first is deployed", () =>
    Effect.gen(function*() {
      const { built, deployed, statuses } = yield* build
      assert.strictEqual(statuses[statuses.length - 1], "completed")
      assert.deepStrictEqual(built, [{ type: "text", text: "built web" }])
      assert.deepStrictEqual(deployed, [{ type: "text", text: "deployed" }])
    }))

  it("is the code the README shows", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../docs/tasks.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.resolve(here, "tasks.ts"), "utf8").trim())
  })
})
