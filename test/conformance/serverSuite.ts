/**
 * The official conformance suite's server side (@modelcontextprotocol/conformance 0.2.0-alpha.12,
 * patched for Node 20), run against a server at a URL: every scenario of a requirement set
 * (`--requirements 2025-11-25` or `2026-07-28`), and what holds the run to passing. A WARNING counts
 * as a failure: the summary lines count only failures, so the checks themselves are read (each
 * scenario's `checks.json` in the run's `--output-dir`).
 *
 * Shared by the runs against the demo on Node (`Conformance.test.ts`) and on Bun, Deno and
 * workerd (`RuntimesConformance.test.ts`).
 */
import { assert } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")
const require = createRequire(import.meta.url)
const cli = path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js")

/** A scenario's line of the summary: `✓ name: N passed, M failed`. */
interface Scenario {
  readonly ok: boolean
  readonly passed: number
  readonly failed: number
}

/** What a run of one requirement set gave. */
export interface Run {
  readonly era: "2025-11-25" | "2026-07-28"
  readonly code: number | null
  readonly output: string
  readonly millis: number
  readonly scenarios: ReadonlyMap<string, Scenario>
  /** Every check that neither passed nor only informed nor was skipped (a WARNING is one). */
  readonly unclean: ReadonlyArray<string>
}

/** `✓ name: N passed, M failed` lines of the summary. */
const summary = (output: string) =>
  new Map(
    Array.from(output.matchAll(/^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed/gm)).map((m) => [
      m[2],
      { ok: m[1] === "✓", passed: Number(m[3]), failed: Number(m[4]) }
    ])
  )

/** The checks of a run's output directory that are not clean. */
const unclean = (dir: string) =>
  fs.readdirSync(dir).flatMap((scenario) => {
    const checks: ReadonlyArray<{ id: string; status: string; errorMessage?: string }> = JSON.parse(
      fs.readFileSync(path.join(dir, scenario, "checks.json"), "utf8")
    )
    return checks.filter((check) => !["SUCCESS", "INFO", "SKIPPED"].includes(check.status)).map((check) =>
      `${scenario} ${check.id} ${check.status}: ${check.errorMessage ?? ""}`
    )
  })

/** Runs every server scenario of `era`'s requirement set against `url`. */
export const run = (url: string, era: Run["era"]) =>
  new Promise<Run>((resolve) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conformance-"))
    const started = Date.now()
    const child = spawn(process.execPath, [cli, "server", "--url", url, "--requirements", era, "--output-dir", dir], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (code) => {
      const result = {
        era,
        code,
        output,
        millis: Date.now() - started,
        scenarios: summary(output),
        unclean: unclean(dir)
      }
      fs.rmSync(dir, { recursive: true, force: true })
      resolve(result)
    })
  })

/** The unscored scenarios of 2025-11-25 this server implements, held to the same standard. */
const unscored2025 = new Set(["server-session-lifecycle", "json-schema-2020-12", "server-sse-polling"])

/**
 * A 2025-11-25 run passed: every scored scenario (30) and the unscored ones it runs, nothing
 * warned. `label` names the server in what is printed (`conformance <label>: …`).
 */
export const passes2025 = (result: Run, label = "2025-11-25") => {
  const { output, scenarios } = result
  const scored = Array.from(scenarios.entries()).filter(([name]) => !unscored2025.has(name))
  const failing = Array.from(scenarios.entries()).filter(([, s]) => !s.ok || s.failed > 0).map(([name]) => name)
  process.stderr.write(
    `conformance ${label}: ${scored.filter(([, s]) => s.ok).length}/${scored.length} scored scenarios passed, ` +
      `${scenarios.size - scored.length} unscored run, in ${(result.millis / 1000).toFixed(1)} s\n`
  )
  assert.deepStrictEqual(failing, [], output)
  assert.strictEqual(result.code, 0, output)
  assert.strictEqual(scored.length, 30, output)
  for (const name of unscored2025) {
    assert.isTrue(scenarios.get(name)?.ok, `${name} did not run or failed\n${output}`)
  }
  // SSE polling only warns when it cannot test; require its three checks to have passed.
  assert.isAtLeast(scenarios.get("server-sse-polling")!.passed, 3, output)
  // No check warned.
  assert.deepStrictEqual(result.unclean, [])
}

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

/**
 * A 2026-07-28 run passed: every scored scenario (37), the pending header and JSON Schema ones and
 * the tasks extension's, nothing warned. `label` names the server in what is printed.
 */
export const passes2026 = (result: Run, label = "2026-07-28") => {
  const { output, scenarios } = result
  const reasons = notScored(output)
  const scored = Array.from(scenarios.entries()).filter(([name]) => !reasons.has(name))
  const failing = scored.filter(([, s]) => !s.ok || s.failed > 0).map(([name]) => name)
  const extensions = Array.from(reasons.entries()).filter(([, why]) => why === "extension").map(([name]) => name)
  process.stderr.write(
    `conformance ${label}: ${scored.filter(([, s]) => s.ok && s.failed === 0).length}/${scored.length} ` +
      `scored scenarios passed; pending: ${
        pending2026.map((name) => `${name} ${scenarios.get(name)?.ok ? "passed" : "FAILED"}`).join(", ")
      }; the tasks extension: ${
        tasksScenarios.filter((name) => scenarios.get(name)?.ok === true && scenarios.get(name)?.failed === 0).length
      }/${tasksScenarios.length} (${extensions.length} unscored extension scenarios run), ` +
      `in ${(result.millis / 1000).toFixed(1)} s\n`
  )
  assert.deepStrictEqual(failing, [], output)
  assert.strictEqual(scored.length, 37, output)
  for (const name of [...pending2026, ...tasksScenarios]) {
    const scenario = scenarios.get(name)
    assert.isTrue(scenario?.ok === true && scenario.failed === 0, `${name} did not run or failed\n${output}`)
  }
  // Nothing warned, anywhere in the run: not in what it printed, not in any check.
  assert.notInclude(output, "WARNING", output)
  assert.deepStrictEqual(result.unclean, [])
  // Every check of the tasks scenarios but the skipped one's ran and passed.
  const tasksPassed = tasksScenarios.reduce((n, name) => n + (scenarios.get(name)?.passed ?? 0), 0)
  assert.isAtLeast(tasksPassed, 44, output)
}
