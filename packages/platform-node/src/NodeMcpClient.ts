/**
 * Node wiring of the client: a server spawned as a child process, spoken to over its stdin and
 * stdout (newline-delimited JSON, the same framing the server side uses).
 *
 * The child lives as long as the layer. On release its stdin is closed (a well-behaved server
 * exits at end of input); if it has not exited after `closeTimeout` it gets SIGTERM, and after
 * as long again SIGKILL. Its stderr is the caller's (`stderr: "inherit"`, the default), dropped
 * (`"ignore"`), or handed to a callback line by line.
 *
 * @since 0.1.0
 */
import { McpClientTransport } from "@effect-mcp/client"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import * as NodeMcpServer from "./NodeMcpServer.js"

/**
 * The child process could not be started (no such command, not executable, ...).
 *
 * @since 0.1.0
 * @category errors
 */
export class SpawnError extends Data.TaggedError("SpawnError")<{
  readonly command: string
  readonly cause: unknown
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `could not start ${this.command}: ${reason}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StdioOptions {
  readonly command: string
  readonly args?: ReadonlyArray<string>
  /** The child's environment (default: this process's). */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
  /** What becomes of the child's stderr (default `"inherit"`). */
  readonly stderr?: "inherit" | "ignore" | ((line: string) => void)
  /** How long the child may take to exit once its stdin is closed, before SIGTERM (default 2 seconds). */
  readonly closeTimeout?: Duration.DurationInput
}

/** Has the child exited? */
const gone = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null

/**
 * A client transport to a server run as a child process.
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import { NodeMcpClient } from "@effect-mcp/platform-node"
 * import { Layer } from "effect"
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "me", version: "1.0.0" } }).pipe(
 *   Layer.provide(NodeMcpClient.layerStdio({ command: "node", args: ["server.js"] }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (options: StdioOptions): Layer.Layer<McpClientTransport.McpClientTransport, SpawnError> =>
  Layer.scoped(
    McpClientTransport.McpClientTransport,
    Effect.gen(function*() {
      const stderr = options.stderr ?? "inherit"
      const child = yield* Effect.acquireRelease(
        Effect.async<ChildProcess, SpawnError>((resume) => {
          const child = spawn(options.command, [...(options.args ?? [])], {
            stdio: ["pipe", "pipe", typeof stderr === "function" ? "pipe" : stderr],
            ...(options.env !== undefined ? { env: { ...options.env } } : {}),
            ...(options.cwd !== undefined ? { cwd: options.cwd } : {})
          })
          const onError = (cause: unknown) => resume(Effect.fail(new SpawnError({ command: options.command, cause })))
          child.once("error", onError)
          child.once("spawn", () => {
            child.off("error", onError)
            resume(Effect.succeed(child))
          })
        }),
        (child) =>
          // End of input first; then SIGTERM; then SIGKILL. Node's timers, not the Effect clock:
          // a test's TestClock must not hold the release.
          Effect.async<void>((resume) => {
            if (gone(child)) return resume(Effect.void)
            const grace = Duration.toMillis(options.closeTimeout ?? Duration.seconds(2))
            const term = setTimeout(() => gone(child) || child.kill("SIGTERM"), grace)
            const kill = setTimeout(() => gone(child) || child.kill("SIGKILL"), 2 * grace)
            child.once("exit", () => {
              clearTimeout(term)
              clearTimeout(kill)
              resume(Effect.void)
            })
            child.stdin?.end()
          })
      )
      // A write to a child that is gone fails the send; it must not crash this process.
      child.stdin!.on("error", () => {})
      if (typeof stderr === "function") {
        createInterface({ input: child.stderr! }).on("line", stderr)
      }
      return { protocol: NodeMcpServer.protocol(child.stdout!, child.stdin!) }
    })
  )
