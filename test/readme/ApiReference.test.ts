/**
 * The API reference (`pnpm run docs`: `@effect/docgen` in each package, from its JSDoc into `packages/<name>/docs`)
 * builds: an export without `@since`, or an `@example` that does not compile, fails here. It runs as a test file
 * so that it runs beside the others (about a minute and a half of one CPU), not before all of them.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const docgen = path.join(root, "node_modules/@effect/docgen/bin.cjs")
const packages = fs.readdirSync(path.join(root, "packages")).filter((name) =>
  fs.existsSync(path.join(root, "packages", name, "docgen.json"))
).sort()

describe("the API reference (@effect/docgen)", () => {
  it("lists the packages that have one", () => {
    assert.includeMembers(packages, ["client", "core", "platform-node", "redis", "server"])
  })

  // One package at a time: the other worker keeps running test files.
  it.each(packages)("packages/%s builds", async (name) => {
    const result = await new Promise<{ code: number | null; output: string }>((resolve) =>
      execFile(
        process.execPath,
        [docgen],
        { cwd: path.join(root, "packages", name), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : (error.code as number | null), output: stdout + stderr })
      )
    )
    assert.strictEqual(result.code, 0, result.output)
    assert.include(result.output, "Docs generation succeeded!", result.output)
  }, 600_000)
})
