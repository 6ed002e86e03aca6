/**
 * `mcp agent` (apps/cli, built) against apps/everything over stdio, its model `@effect/ai-openai`
 * on a scripted endpoint (OPENAI_BASE_URL): the tool calls on stderr, the answer on stdout, exit 0;
 * two servers of one name, their shared tools prefixed; the demo's sampling answered by the same
 * model; a model's failure, a missing model and a server that cannot start are one line and exit 1.
 */
import * as ScriptedModel from "@effect-mcp/test-support/ScriptedModel"
import { assert, describe, it, vi } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

// Each test runs `mcp` and the demo (each a Node process of about a second of CPU).
vi.setConfig({ testTimeout: 120_000 })

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everything = `stdio:${process.execPath} ${Programs.demoMain} stdio`

/** `mcp agent …` with the model's environment: its exit code and what it wrote. */
const agent = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const { OPENAI_API_KEY: _, OPENAI_BASE_URL: __, OPENAI_MODEL: ___, ...rest } = process.env
    const child = spawn(process.execPath, [mcpMain, "agent", ...args], {
      cwd: root,
      env: { ...rest, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const environment = (model: ScriptedModel.ScriptedModel) => ({
  OPENAI_BASE_URL: model.url,
  OPENAI_API_KEY: "sk-test",
  OPENAI_MODEL: "gpt-scripted"
})

describe("mcp agent", () => {
  it("calls the tools (each on stderr), answers the demo's sampling with the model, prints the answer, exit 0", async () => {
    const model = await ScriptedModel.start([
      ScriptedModel.openAi.calls({ name: "add", arguments: { a: 20, b: 22 } }, {
        name: "test_sampling",
        arguments: { prompt: "Say hi" }
      }),
      ScriptedModel.openAi.text("Hi"),
      ScriptedModel.openAi.text("The sum is 42.")
    ])
    try {
      const result = await agent(environment(model), "--prompt", "Add 20 and 22", everything)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout, "The sum is 42.\n")
      assert.deepStrictEqual(result.stderr.trim().split("\n"), [
        "→ add {\"a\":20,\"b\":22}",
        "→ test_sampling {\"prompt\":\"Say hi\"}",
        "← add {\"sum\":42}",
        "← test_sampling LLM response: Hi"
      ])
      assert.strictEqual(model.received[0]!.body.model, "gpt-scripted")
      assert.strictEqual(model.received[0]!.path, "/responses")
      // The sampling request's maxTokens (100) bounds the model's answer.
      assert.strictEqual(model.received[1]!.body.max_output_tokens, 100)
    } finally {
      await model.close()
    }
  })

  it("a sampling request asking for more than --max-sampling-tokens is refused, the model not asked", async () => {
    const model = await ScriptedModel.start([
      ScriptedModel.openAi.calls({ name: "test_sampling", arguments: { prompt: "Say hi" } }),
      ScriptedModel.openAi.text("Refused.")
    ])
    try {
      const result = await agent(environment(model), "--prompt", "Sample", "--max-sampling-tokens", "50", everything)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout, "Refused.\n")
      assert.match(result.stderr, /^✗ test_sampling .*/m)
      assert.strictEqual(model.received.length, 2)
    } finally {
      await model.close()
    }
  })

  it("two servers of one name: their tools prefixed (--model over OPENAI_MODEL)", async () => {
    const model = await ScriptedModel.start([
      ScriptedModel.openAi.calls({ name: "effect-mcp-everything_2_echo", arguments: { message: "two" } }),
      ScriptedModel.openAi.text("done")
    ])
    try {
      const result = await agent(environment(model), "--prompt", "Echo", "--model", "gpt-other", everything, everything)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout, "done\n")
      assert.include(result.stderr, "← effect-mcp-everything_2_echo Echo: two")
      const names = (model.received[0]!.body.tools as Array<{ name: string }>).map((tool) => tool.name)
      assert.include(names, "effect-mcp-everything_echo")
      assert.include(names, "effect-mcp-everything_2_echo")
      assert.strictEqual(model.received[0]!.body.model, "gpt-other")
    } finally {
      await model.close()
    }
  })

  it("a model's failure, no model, a server that cannot start: one line each, exit 1", async () => {
    const model = await ScriptedModel.start([{
      status: 401,
      body: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }
    }])
    try {
      const failed = await agent(environment(model), "--prompt", "Hi", everything)
      assert.strictEqual(failed.code, 1)
      assert.match(failed.stderr, /^mcp: the model failed: [^\n]+\n$/)
      const { OPENAI_MODEL: _, ...noModel } = environment(model)
      const none = await agent(noModel, "--prompt", "Hi", everything)
      assert.strictEqual(none.code, 1)
      assert.strictEqual(none.stderr, "mcp: no model: give --model or set OPENAI_MODEL\n")
      // A server that cannot start: one line, exit 1, the model never asked.
      const down = await agent(environment(model), "--prompt", "Hi", "stdio:an-mcp-server-that-is-not-installed")
      assert.strictEqual(down.code, 1)
      assert.match(down.stderr, /^mcp: could not start an-mcp-server-that-is-not-installed: [^\n]+\n$/)
      assert.strictEqual(model.received.length, 1)
    } finally {
      await model.close()
    }
  })
})
