/**
 * The official MCP conformance suite's scenarios of the skills extension (SEP-2640): the server
 * ones against apps/everything over Streamable HTTP on a free loopback port (serving its own
 * `apps/everything/skills`), on the 2026-07-28 wire the suite runs them on; the client ones with
 * `mcp` (apps/cli, in its driver mode) as the host, on the 2025-11-25 wire the suite gives them.
 * Each scenario passes only with every check passed, none failed, none warned, none skipped.
 */
import { Services } from "@effect-mcp/test-support"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import { passed, scenario } from "./clientSuite.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const require = createRequire(import.meta.url)
const cli = path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js")

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly output: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (code) => resolve({ code, output }))
  })

/** Every check passed (at least one), none failed or warned, and none was skipped. */
const allPassed = (result: { readonly code: number | null; readonly output: string }) => {
  const counts = result.output.match(/Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/)
  assert.isNotNull(counts, result.output)
  assert.isAbove(Number(counts![1]), 0, result.output)
  assert.strictEqual(counts![1], counts![2], result.output)
  assert.strictEqual(counts![3], "0", result.output)
  assert.strictEqual(counts![4], "0", result.output)
  assert.notInclude(result.output, "SKIPPED", result.output)
  assert.strictEqual(result.code, 0, result.output)
}

let server: ChildProcess | undefined
let url = ""

beforeAll(async () => {
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  server = spawn(process.execPath, [Programs.demoMain, "http", "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  // Ready when it says where it listens (on stderr).
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("apps/everything did not start")), 20_000)
    server!.stderr!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes(url)) {
        clearTimeout(timer)
        resolve()
      }
    })
    server!.once("exit", (code) => reject(new Error(`apps/everything exited with ${code}`)))
  })
}, 30_000)

afterAll(() => {
  server?.kill()
})

describe("official conformance suite, server, the skills extension", () => {
  for (const name of ["sep-2640-skills-enumeration", "sep-2640-skills-directory", "sep-2640-skills-manifest"]) {
    it(name, { timeout: 60_000 }, async () => allPassed(await run([cli, "server", "--url", url, "--scenario", name])))
  }
})

describe("official conformance suite, client, the skills extension", () => {
  for (
    const name of [
      "sep-2640-client-no-prefetch",
      "sep-2640-client-verify-digest",
      "sep-2640-client-verify-size",
      "sep-2640-client-verify-frontmatter"
    ]
  ) {
    it(name, { timeout: 60_000, retry: 1 }, async () => {
      const result = await scenario(name, undefined)
      passed(result)
      assert.notInclude(result.output, "SKIPPED", result.output)
    })
  }
})
