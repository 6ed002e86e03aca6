/**
 * `mcp` (apps/cli, built) against a stdio server that fails at startup: the error says how the
 * server ended and shows the last lines it wrote to its stderr, not only that the transport closed.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = path.join(root, "apps/cli/dist/main.js")

const mcp = (...args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [mcpMain, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("mcp against a stdio server that fails at startup", () => {
  it("tools: the exit code and the server's own stderr line, nothing on stdout, exit 1", async () => {
    // The target's words are split as a shell splits them: the script is one quoted word.
    const failing = `stdio:'${process.execPath}' -e 'console.error("boom: no config"); process.exit(2)'`
    for (const era of ["auto", "handshake", "stateless"]) {
      const result = await mcp("tools", failing, "--era", era)
      assert.strictEqual(result.code, 1, era)
      assert.strictEqual(result.stdout, "", era)
      assert.match(
        result.stderr,
        /^mcp: Transport closed before \S+ was answered; the server exited with code 2; its stderr ended with:\n  boom: no config\n$/,
        era
      )
    }
  })

  it("a target with a shell operator is refused in one line, since no shell runs it", async () => {
    const result = await mcp("tools", `stdio:${process.execPath} server.js | tee log`)
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    assert.match(
      result.stderr,
      /^mcp: cannot run "stdio:.*": \| is a shell operator, and the command is run without a shell/
    )
  })
})
