/**
 * What the gateway's tests share: `mcp` (apps/cli, built) serving over HTTP in a child process.
 */
import { Services } from "@effect-mcp/test-support"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const mcpMain = path.join(root, "apps/cli/dist/main.js")
export const demoMain = path.join(root, "apps/everything/dist/main.js")

/**
 * `mcp ...args --port N`, with `env` added to this process's: its endpoint once it said on stderr
 * that it serves (a guard of 30 seconds against one that never does), stopped with the scope
 * (SIGTERM, then its exit).
 */
export const serving = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const port = yield* Services.freePort
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [mcpMain, ...args, "--port", String(port)], {
          cwd: root,
          env: { ...process.env, ...env },
          stdio: ["ignore", "ignore", "pipe"]
        })
      ),
      (child) =>
        Effect.async<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGTERM")
        })
    )
    yield* Effect.async<void, Error>((resume) => {
      let stderr = ""
      child.stderr!.on("data", (chunk) => {
        stderr += chunk
        if (/^mcp (gateway|proxy): serving/m.test(stderr)) resume(Effect.void)
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`mcp ${args[0]} exited ${code}: ${stderr}`))))
    }).pipe(
      Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error(`mcp ${args[0]} did not start`) })
    )
    return `http://127.0.0.1:${port}/mcp`
  })
