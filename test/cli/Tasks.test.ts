/**
 * `mcp call --task` and `mcp tasks list|get|cancel|result` (apps/cli, built) against the demo's task
 * tools (slow_compute, failing_job, confirm_delete, protocol_error_job, greet): over stdio in both
 * eras (the status on stderr, the result on stdout, a failed task one line and exit 1), and over
 * HTTP in 2026-07-28 across processes (a task left running with --detach, then got, waited for and
 * cancelled by its id).
 */
import { Services } from "@effect-mcp/test-support"
import { assert, describe, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

// Each test waits on child processes (each `mcp` and each demo a Node process of about a second of CPU), up
// to ten one after another: on a loaded machine (load 20 on 2 cores) that is a minute or two, not 30 s.
vi.setConfig({ testTimeout: 180_000 })

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everything = Programs.demoMain
const stdio = `stdio:${process.execPath} ${everything} stdio`

/** `mcp ...args`, no input: its exit code and what it wrote. */
const mcp = (...args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [mcpMain, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** The lines `mcp` wrote to stderr about task `id`'s status: its statuses, in order. */
const statuses = (stderr: string, id: string) =>
  stderr.split("\n").flatMap((line) => line.startsWith(`task ${id}: `) ? [line.slice(`task ${id}: `.length)] : [])

/** The task id `mcp call --task` announced on stderr. */
const announced = (stderr: string) => {
  const found = /^mcp: task (\S+) \((working|input_required)\)$/m.exec(stderr)
  assert.isNotNull(found, stderr)
  return found![1]!
}

describe.each(["handshake", "stateless"] as const)("mcp call --task over stdio, %s era", (era) => {
  it("a task: announced, its status on stderr to completed, the result alone on stdout", async () => {
    const result = await mcp("call", stdio, "slow_compute", "--args", "{\"seconds\":0.5}", "--task", "--era", era)
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(result.stdout.trim(), "Computed result in 0.5s")
    const id = announced(result.stderr)
    const seen = statuses(result.stderr, id)
    assert.strictEqual(seen[0], "working computing for 0.5s")
    assert.strictEqual(seen[seen.length - 1], "completed computing for 0.5s")
  })

  it("a tool error is the task's result: printed, exit 1 (2025-11-25: the task failed; 2026-07-28: completed)", async () => {
    const result = await mcp("call", stdio, "failing_job", "--task", "--era", era)
    assert.strictEqual(result.code, 1, result.stderr)
    assert.strictEqual(result.stdout.trim(), "The job failed: the input could not be processed")
    const seen = statuses(result.stderr, announced(result.stderr))
    assert.strictEqual(seen[seen.length - 1], era === "handshake" ? "failed" : "completed")
  })

  it("a task that fails with an error, and one that needs an elicitation mcp cannot give: one line, exit 1", async () => {
    const crashed = await mcp("call", stdio, "protocol_error_job", "--task", "--era", era)
    assert.strictEqual(crashed.code, 1)
    assert.strictEqual(crashed.stdout, "")
    const id = announced(crashed.stderr)
    assert.match(crashed.stderr, new RegExp(`^mcp: Task ${id} failed: The job crashed$`, "m"))
    const asking = await mcp(
      "call",
      stdio,
      "confirm_delete",
      "--args",
      "{\"filename\":\"a.txt\"}",
      "--task",
      "--era",
      era
    )
    assert.strictEqual(asking.code, 1)
    assert.strictEqual(asking.stdout, "")
    assert.match(asking.stderr, /^mcp: Task \S+ failed: The client did not declare the elicitation capability$/m)
  })

  it("a tool that never runs as a task: its result at once, no task announced", async () => {
    const result = await mcp("call", stdio, "greet", "--args", "{\"name\":\"Ada\"}", "--task", "--era", era)
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(result.stdout.trim(), "Hello, Ada!")
    assert.notMatch(result.stderr, /task/)
  })
})

describe("mcp tasks list over stdio", () => {
  it("2025-11-25: this session's tasks (none, in a new process); 2026-07-28 has no tasks/list: one line, exit 1", async () => {
    const listed = await mcp("tasks", "list", stdio, "--era", "handshake", "--json")
    assert.strictEqual(listed.code, 0, listed.stderr)
    assert.deepStrictEqual(JSON.parse(listed.stdout), [])
    const refused = await mcp("tasks", "list", stdio, "--era", "stateless")
    assert.strictEqual(refused.code, 1)
    assert.strictEqual(refused.stdout, "")
    assert.match(refused.stderr, /^mcp: tasks\/list is a method of the handshake era[^\n]*\n$/)
  })

  it("--detach goes with --task", async () => {
    const result = await mcp("call", stdio, "slow_compute", "--args", "{\"seconds\":0}", "--detach")
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stderr, "mcp: --detach goes with --task\n")
  })
})

/** The demo over HTTP on a free port, once it says it listens: its URL, and `kill` to end it. */
const everythingOverHttp = async () => {
  const port = await Effect.runPromise(Services.freePort)
  const server = spawn(process.execPath, [everything, "http", "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  const url = `http://127.0.0.1:${port}/mcp`
  await new Promise<void>((resolve) => server.stderr.on("data", (chunk) => String(chunk).includes(url) && resolve()))
  return { url, kill: () => server.kill() }
}

describe("mcp tasks over HTTP, 2026-07-28: a task id from one process used by the next", () => {
  it("call --task --detach, then tasks get, result and cancel by its id", async () => {
    const server = await everythingOverHttp()
    try {
      const { url } = server
      const detached = await mcp(
        "call",
        url,
        "slow_compute",
        "--args",
        "{\"seconds\":1}",
        "--task",
        "--detach",
        "--json"
      )
      assert.strictEqual(detached.code, 0, detached.stderr)
      const created = JSON.parse(detached.stdout)
      assert.strictEqual(created.status, "working")
      assert.isNumber(created.ttlMs)
      const got = await mcp("tasks", "get", url, created.taskId, "--json")
      assert.strictEqual(got.code, 0, got.stderr)
      assert.strictEqual(JSON.parse(got.stdout).taskId, created.taskId)
      const readable = await mcp("tasks", "get", url, created.taskId)
      assert.match(readable.stdout, new RegExp(`^task\\s+${created.taskId}$`, "m"))
      assert.match(readable.stdout, /^status\s+(working|completed)$/m)
      const waited = await mcp("tasks", "result", url, created.taskId)
      assert.strictEqual(waited.code, 0, waited.stderr)
      assert.strictEqual(waited.stdout.trim(), "Computed result in 1s")
      assert.strictEqual(statuses(waited.stderr, created.taskId).pop(), "completed computing for 1s")

      const long = JSON.parse(
        (await mcp("call", url, "slow_compute", "--args", "{\"seconds\":60}", "--task", "--detach", "--json")).stdout
      )
      const cancelled = await mcp("tasks", "cancel", url, long.taskId)
      assert.strictEqual(cancelled.code, 0, cancelled.stderr)
      assert.strictEqual(JSON.parse((await mcp("tasks", "get", url, long.taskId, "--json")).stdout).status, "cancelled")
      const none = await mcp("tasks", "result", url, long.taskId)
      assert.strictEqual(none.code, 1)
      assert.strictEqual(none.stdout, "")
      assert.match(none.stderr, new RegExp(`^mcp: Task ${long.taskId} was cancelled$`, "m"))

      const unknown = await mcp("tasks", "get", url, "no-such-task")
      assert.strictEqual(unknown.code, 1)
      assert.match(unknown.stderr, /^mcp: Unknown task: no-such-task\n$/)
    } finally {
      server.kill()
    }
  })
})
