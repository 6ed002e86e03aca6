/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, patched
 * for Node 20) against apps/everything over Streamable HTTP on a free loopback port, serving both
 * eras on one endpoint (its default): the 2025-11-25 requirement set and the 2026-07-28 one.
 *
 * The run fails when any scored scenario of the requirement set fails; the unscored scenarios
 * this server implements (session lifecycle, SSE polling, JSON Schema 2020-12, the tasks
 * extension) are held to the same standard here.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const require = createRequire(import.meta.url)
const cli = path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js")

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const run = (command: string, args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly output: string; readonly millis: number }>((resolve) => {
    const started = Date.now()
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (code) => resolve({ code, output, millis: Date.now() - started }))
  })

/** `✓ name: N passed, M failed` lines of the summary. */
const summary = (output: string) =>
  new Map(
    Array.from(output.matchAll(/^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed/gm)).map((m) => [
      m[2],
      { ok: m[1] === "✓", passed: Number(m[3]), failed: Number(m[4]) }
    ])
  )

/**
 * Every check of a run (its `--output-dir`, one `checks.json` per scenario) that neither passed nor
 * only informed nor was skipped: a WARNING counts as a failure here, and the summary lines count
 * only failures, so the checks themselves are read.
 */
const unclean = (dir: string) =>
  fs.readdirSync(dir).flatMap((scenario) => {
    const checks: ReadonlyArray<{ id: string; status: string; errorMessage?: string }> = JSON.parse(
      fs.readFileSync(path.join(dir, scenario, "checks.json"), "utf8")
    )
    return checks.filter((check) => !["SUCCESS", "INFO", "SKIPPED"].includes(check.status)).map((check) =>
      `${scenario} ${check.id} ${check.status}: ${check.errorMessage ?? ""}`
    )
  })

const outputDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "conformance-"))

let server: ChildProcess | undefined
let url = ""

beforeAll(async () => {
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  server = spawn(process.execPath, [path.join(root, "apps/everything/dist/main.js"), "http", "--port", String(port)], {
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

describe("official conformance suite, server, 2025-11-25", () => {
  it("passes every scored scenario (and the unscored ones it runs)", async () => {
    const dir = outputDir()
    const result = await run(process.execPath, [
      cli,
      "server",
      "--url",
      url,
      "--requirements",
      "2025-11-25",
      "--output-dir",
      dir
    ])
    const scenarios = summary(result.output)
    const scored = Array.from(scenarios.entries()).filter(([name]) => !unscored.has(name))
    const failing = Array.from(scenarios.entries()).filter(([, s]) => !s.ok || s.failed > 0).map(([name]) => name)
    process.stderr.write(
      `conformance 2025-11-25: ${scored.filter(([, s]) => s.ok).length}/${scored.length} scored scenarios passed, ` +
        `${scenarios.size - scored.length} unscored run, in ${(result.millis / 1000).toFixed(1)} s\n`
    )
    assert.deepStrictEqual(failing, [], result.output)
    assert.strictEqual(result.code, 0, result.output)
    assert.strictEqual(scored.length, 30, result.output)
    for (const name of unscored) {
      assert.isTrue(scenarios.get(name)?.ok, `${name} did not run or failed\n${result.output}`)
    }
    // SSE polling only warns when it cannot test; require its three checks to have passed.
    assert.isAtLeast(scenarios.get("server-sse-polling")!.passed, 3, result.output)
    // No check warned.
    assert.deepStrictEqual(unclean(dir), [])
    fs.rmSync(dir, { recursive: true, force: true })
  }, 120_000)
})

const unscored = new Set(["server-session-lifecycle", "json-schema-2020-12", "server-sse-polling"])

/** The `Not scored for …` block: each unscored scenario and why (`extension`, `pending`). */
const notScored = (output: string) =>
  new Map(
    Array.from(output.matchAll(/^ {2}[✓✗] ([\w-]+) \((\w+)\)$/gm)).map((m) => [m[1], m[2]])
  )

/** The pending scenarios of 2026-07-28 this server is held to (scored or not by the suite). */
const pending2026 = ["json-schema-2020-12", "http-header-validation", "http-custom-header-server-validation"]

/**
 * The tasks extension's scenarios (unscored: an extension), each held to passing with nothing
 * failed. `tasks-status-notifications` runs no check of its own: the harness skips it until its
 * listen-stream rewrite (it only says so); our `notifications/tasks` are tested in the server's tests.
 */
const tasksScenarios = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition"
]

describe("official conformance suite, server, 2026-07-28", () => {
  it("passes every scored scenario and the pending header and JSON Schema ones", async () => {
    const dir = outputDir()
    const result = await run(process.execPath, [
      cli,
      "server",
      "--url",
      url,
      "--requirements",
      "2026-07-28",
      "--output-dir",
      dir
    ])
    const scenarios = summary(result.output)
    const reasons = notScored(result.output)
    const scored = Array.from(scenarios.entries()).filter(([name]) => !reasons.has(name))
    const failing = scored.filter(([, s]) => !s.ok || s.failed > 0).map(([name]) => name)
    const extensions = Array.from(reasons.entries()).filter(([, why]) => why === "extension").map(([name]) => name)
    process.stderr.write(
      `conformance 2026-07-28: ${scored.filter(([, s]) => s.ok && s.failed === 0).length}/${scored.length} ` +
        `scored scenarios passed; pending: ${
          pending2026.map((name) => `${name} ${scenarios.get(name)?.ok ? "passed" : "FAILED"}`).join(", ")
        }; the tasks extension: ${
          tasksScenarios.filter((name) => scenarios.get(name)?.ok === true && scenarios.get(name)?.failed === 0).length
        }/${tasksScenarios.length} (${extensions.length} unscored extension scenarios run), ` +
        `in ${(result.millis / 1000).toFixed(1)} s\n`
    )
    assert.deepStrictEqual(failing, [], result.output)
    assert.strictEqual(scored.length, 37, result.output)
    for (const name of [...pending2026, ...tasksScenarios]) {
      const scenario = scenarios.get(name)
      assert.isTrue(scenario?.ok === true && scenario.failed === 0, `${name} did not run or failed\n${result.output}`)
    }
    // Nothing warned, anywhere in the run: not in what it printed, not in any check.
    assert.notInclude(result.output, "WARNING", result.output)
    assert.deepStrictEqual(unclean(dir), [])
    fs.rmSync(dir, { recursive: true, force: true })
    // Every check of the tasks scenarios but the skipped one's ran and passed.
    const tasksPassed = tasksScenarios.reduce((n, name) => n + (scenarios.get(name)?.passed ?? 0), 0)
    assert.isAtLeast(tasksPassed, 44, result.output)
  }, 120_000)
})
