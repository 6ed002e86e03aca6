/**
 * The official conformance suite's client side, run against our client: `mcp <url>` (apps/cli, in
 * its driver mode) is the command the suite runs with each scenario's mock server. A scenario
 * passes when every check passes and nothing warns.
 */
import { assert } from "@effect/vitest"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const require = createRequire(import.meta.url)
const cli = path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js")
// `exec`: the suite runs the command in a shell; when it gives up on a client, its kill must
// reach the client, not only the shell.
const driver = `exec ${process.execPath} ${Programs.mcpMain}`

/** A version pins the scenario's wire; extension scenarios take none (the suite skips them at any). */
export const scenario = (name: string, version: "2025-03-26" | "2025-11-25" | "2026-07-28" | undefined) =>
  new Promise<{ readonly output: string; readonly code: number | null }>((resolve) => {
    const args = [
      cli,
      "client",
      "--command",
      driver,
      "--scenario",
      name,
      ...(version !== undefined ? ["--spec-version", version] : []),
      "--timeout",
      "20000"
    ]
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    // The suite gives up on a client after 20 s; should it hang itself, what it printed is shown.
    const timer = setTimeout(() => {
      output += "\n[the suite did not finish in 40 s: killed]"
      child.kill("SIGKILL")
    }, 40_000)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ output, code })
    })
  })

/** Every check passed, nothing warned, and the suite says so. */
export const passed = ({ code, output }: { readonly output: string; readonly code: number | null }) => {
  const counts = output.match(/Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/)
  assert.isNotNull(counts, output)
  assert.strictEqual(counts![3], "0", output)
  assert.strictEqual(counts![4], "0", output)
  assert.isAbove(Number(counts![1]), 0, output)
  assert.include(output, "OVERALL: PASSED", output)
  assert.strictEqual(code, 0, output)
}
