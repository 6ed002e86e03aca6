/**
 * `mcp proxy` and `mcp gateway` (apps/cli, built): what a stdio server they spawn inherits of their
 * environment. Only what a program needs (`PATH`, `HOME`, …), and what `--env KEY=VALUE` or
 * `--env KEY` gives: a secret of the proxy's own (a token, its `MCP_REQUEST_STATE_KEY`) does not
 * reach the target. Before `--env` the proxy's target inherited the whole environment (this test
 * failed: the secret reached it).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { demoMain, mcpMain, mcpOverStdio, root } from "./support.js"

/** The secrets of the proxy's environment, and a variable passed on by name. */
const environment = {
  ...process.env,
  GITHUB_TOKEN: "proxy-secret",
  MCP_REQUEST_STATE_KEY: "k".repeat(48),
  PASSED_ON: "from-here"
}

/** A shell command that writes its environment to a new file, then is the demo; and that file. */
const recording = () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-env-")), "env")
  return { file, script: `env > ${file}; exec ${process.execPath} ${demoMain} stdio` }
}

/** The variables written in `file`. */
const variables = (file: string) =>
  new Map(
    readFileSync(file, "utf8").split("\n").map((line) => [line.split("=")[0]!, line.slice(line.indexOf("=") + 1)])
  )

/** A client of `mcp ...args` over stdio, run with `environment`: once it lists the demo's tools. */
const listed = (args: ReadonlyArray<string>, expected: string) =>
  Effect.gen(function*() {
    const client = yield* mcpOverStdio(args, { name: "env-test", env: environment })
    assert.include((yield* client.listTools).map((t) => t.name), expected)
  })

/** What the target of each test was given. */
const assertAllowed = (env: Map<string, string>) => {
  assert.isFalse(env.has("GITHUB_TOKEN"), "the proxy's token reached its target")
  assert.isFalse(env.has("MCP_REQUEST_STATE_KEY"), "the proxy's key reached its target")
  assert.strictEqual(env.get("PATH"), process.env.PATH)
  assert.strictEqual(env.get("GIVEN"), "a=b")
  assert.strictEqual(env.get("PASSED_ON"), "from-here")
}

describe("the environment of a spawned server", () => {
  it.scopedLive("mcp proxy stdio:…: PATH and --env, not the proxy's secrets", () =>
    Effect.gen(function*() {
      const { file, script } = recording()
      yield* listed(["proxy", `stdio:sh -c '${script}'`, "--env", "GIVEN=a=b", "--env", "PASSED_ON"], "add")
      assertAllowed(variables(file))
    }), { timeout: 60_000 })

  it.scopedLive("mcp gateway --env: every stdio upstream, under its own env", () =>
    Effect.gen(function*() {
      const { file, script } = recording()
      const config = path.join(mkdtempSync(path.join(os.tmpdir(), "mcp-env-")), "gateway.json")
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { demo: { command: "sh", args: ["-c", script], env: { GIVEN: "a=b" } } } })
      )
      yield* listed(["gateway", "--config", config, "--env", "GIVEN=overridden", "--env", "PASSED_ON"], "demo_add")
      assertAllowed(variables(file))
    }), { timeout: 60_000 })

  it("--env KEY of a variable not set here, or with no name: one line, exit 1", () => {
    const refused = (value: string) => {
      const run = spawnSync(process.execPath, [mcpMain, "proxy", "stdio:true", "--env", value], {
        cwd: root,
        input: "",
        encoding: "utf8",
        timeout: 30_000
      })
      return { status: run.status, stderr: run.stderr }
    }
    assert.deepStrictEqual(refused("MCP_ENV_TEST_UNSET"), {
      status: 1,
      stderr: "mcp: --env MCP_ENV_TEST_UNSET: MCP_ENV_TEST_UNSET is not set in this environment\n"
    })
    assert.deepStrictEqual(refused("=value"), {
      status: 1,
      stderr: "mcp: --env =value: give KEY=VALUE, or KEY to pass on its value\n"
    })
  }, 60_000)
})
