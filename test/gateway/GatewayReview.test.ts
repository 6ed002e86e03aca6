/**
 * `mcp gateway` (apps/cli, built), a review's findings:
 *
 * - a stdio upstream inherits only what a program needs of the gateway's environment (`PATH`,
 *   `HOME`, …) and its own `env`: not the gateway's tokens, nor its `MCP_REQUEST_STATE_KEY`;
 * - a configuration it cannot serve (a bad name, a short `MCP_REQUEST_STATE_KEY`, `--timeout 0`) is one line on
 *   stderr and exit 1, not a silent exit 1.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { configOf, demoMain, mcpMain, mcpOverStdio, root } from "./support.js"

/** `mcp gateway ...args` run to its end (it ends at once when it refuses), with `env` added. */
const refused = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const run = spawnSync(process.execPath, [mcpMain, "gateway", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    input: "",
    encoding: "utf8",
    timeout: 30_000
  })
  return { status: run.status, stderr: run.stderr }
}

describe("mcp gateway: a review's findings", () => {
  it(
    "a bad upstream name, a short MCP_REQUEST_STATE_KEY, --timeout 0, --ping-interval 0: one line on stderr, exit 1",
    () => {
      const demo = { command: process.execPath, args: [demoMain, "stdio"] }
      const bad = configOf({ "1demo": demo })
      assert.deepStrictEqual(refused(["--config", bad.file]), {
        status: 1,
        stderr: `mcp: ${bad.file}: name "1demo" is not a letter followed by letters, digits, '-' or '.'\n`
      })
      const good = configOf({ demo })
      assert.deepStrictEqual(refused(["--config", good.file], { MCP_REQUEST_STATE_KEY: "short" }), {
        status: 1,
        stderr: "mcp: MCP_REQUEST_STATE_KEY must be at least 32 bytes (got 5): make one with openssl rand -base64 32\n"
      })
      assert.deepStrictEqual(refused(["--config", good.file, "--timeout", "0"]), {
        status: 1,
        stderr: "mcp: --timeout is in whole seconds, at least 1 (got 0)\n"
      })
      assert.deepStrictEqual(refused(["--config", good.file, "--ping-interval", "0"]), {
        status: 1,
        stderr: "mcp: --ping-interval is in whole seconds, at least 1 (got 0)\n"
      })
    },
    60_000
  )

  it.scopedLive(
    "a stdio upstream gets PATH, HOME and its own env, not the gateway's secrets",
    () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-env-"))
        const envFile = path.join(dir, "env")
        const { file } = configOf({
          // Writes its environment down, then is the demo.
          demo: {
            command: "sh",
            args: ["-c", `env > ${envFile}; exec ${process.execPath} ${demoMain} stdio`],
            env: { UPSTREAM_OWN: "given" }
          }
        })
        const client = yield* mcpOverStdio(["gateway", "--config", file], {
          name: "env-test",
          env: { ...process.env, GITHUB_TOKEN: "gateway-secret", MCP_REQUEST_STATE_KEY: "k".repeat(48) }
        })
        assert.include((yield* client.listTools).map((t) => t.name), "demo_add")
        const env = new Map(
          readFileSync(envFile, "utf8").split("\n").map((
            line
          ) => [line.split("=")[0]!, line.slice(line.indexOf("=") + 1)])
        )
        assert.strictEqual(env.get("UPSTREAM_OWN"), "given")
        assert.strictEqual(env.get("PATH"), process.env.PATH)
        assert.isFalse(env.has("GITHUB_TOKEN"), "the gateway's token reached the upstream")
        assert.isFalse(env.has("MCP_REQUEST_STATE_KEY"), "the gateway's key reached the upstream")
      }),
    { timeout: 60_000 }
  )
})
