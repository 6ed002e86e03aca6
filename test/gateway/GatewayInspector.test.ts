/**
 * The official MCP Inspector's CLI mode (`@modelcontextprotocol/inspector` 2.12.0, `--cli`, its own
 * SDK client) through `mcp gateway` (apps/cli, built) in front of our demo, over stdio (the
 * Inspector spawns the gateway, named in an Inspector config file) and over Streamable HTTP:
 * tools/list, tools/call, resources/read, prompts/get (and, over HTTP, resources/list and
 * prompts/list), each an Inspector run whose JSON on stdout is checked. It passed on the gateway
 * as it was: the Inspector needed nothing new of it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { demoMain, mcpMain, root, serving } from "./support.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const inspector = path.join(here, "../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-inspector-"))
const gatewayConfig = path.join(dir, "gateway.json")
writeFileSync(
  gatewayConfig,
  JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [demoMain, "stdio"] } } })
)
/** The Inspector's own config: the gateway as a stdio server. */
const inspectorConfig = path.join(dir, "inspector.json")
writeFileSync(
  inspectorConfig,
  JSON.stringify({
    mcpServers: {
      gateway: {
        command: process.execPath,
        args: [mcpMain, "gateway", "--config", gatewayConfig, "--start-timeout", "60"]
      }
    }
  })
)

/** One Inspector CLI run: its stdout as JSON (it exits 0), or a failure with what it said. */
const run = (args: ReadonlyArray<string>) =>
  Effect.async<any, Error>((resume) => {
    // Its secrets in memory, its catalog in our directory: nothing of the user's is read or written.
    // Its connect timeout (30 s) a guard only: each run over stdio starts a gateway and its upstream.
    const child = spawn(process.execPath, [inspector, "--cli", "--connect-timeout", "90000", ...args], {
      cwd: root,
      env: { ...process.env, HOME: dir, MCP_INSPECTOR_SECRET_STORE: "memory" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.once("exit", (code) => {
      if (code !== 0) {
        return resume(Effect.fail(new Error(`inspector ${args.join(" ")}: exit ${code}\n${stdout}${stderr}`)))
      }
      try {
        resume(Effect.succeed(JSON.parse(stdout)))
      } catch {
        resume(Effect.fail(new Error(`inspector ${args.join(" ")}: not JSON: ${stdout}${stderr}`)))
      }
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** A tool's call, a resource's read and a prompt's get, run by the Inspector against `target`; with `lists`, their lists too. */
const methods = (target: ReadonlyArray<string>, lists: boolean) =>
  Effect.gen(function*() {
    const [call, read, prompt, ...listed] = yield* Effect.all([
      run([...target, "--method", "tools/call", "--tool-name", "demo_add", "--tool-arg", "a=40", "b=2"]),
      run([...target, "--method", "resources/read", "--uri", "demo+test://watched-resource"]),
      run([
        ...target,
        "--method",
        "prompts/get",
        "--prompt-name",
        "demo_test_prompt_with_arguments",
        "--prompt-args",
        "arg1=one",
        "arg2=two"
      ]),
      ...(lists ? ["tools/list", "resources/list", "prompts/list"] : ["tools/list"]).map((method) =>
        run([...target, "--method", method])
      )
    ], { concurrency: 4 })
    assert.deepStrictEqual(call.structuredContent, { sum: 42 })
    assert.strictEqual(read.contents[0].uri, "demo+test://watched-resource")
    assert.strictEqual(prompt.messages[0].content.text, "Prompt with arguments: arg1='one', arg2='two'")
    const [tools, resources, prompts] = listed
    assert.includeMembers(tools.tools.map((t: { name: string }) => t.name), ["demo_add", "demo_echo"])
    if (!lists) return
    assert.include(resources.resources.map((r: { uri: string }) => r.uri), "demo+test://watched-resource")
    assert.include(prompts.prompts.map((p: { name: string }) => p.name), "demo_test_prompt_with_arguments")
  })

describe("the MCP Inspector's CLI through mcp gateway", () => {
  it.live(
    "over stdio: the Inspector spawns the gateway",
    // Each run spawns a gateway and its upstream: the lists are run over HTTP only.
    () => methods(["--config", inspectorConfig, "--server", "gateway"], false),
    { timeout: 240_000 }
  )

  it.scopedLive("over Streamable HTTP", () =>
    Effect.gen(function*() {
      const url = yield* serving(["gateway", "--config", gatewayConfig, "--start-timeout", "60"])
      yield* methods([url], true)
    }), { timeout: 240_000 })
})
