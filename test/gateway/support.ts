/**
 * How the gateway's tests start `mcp` (apps/cli, built) in a child process: serving over HTTP
 * (`serving`, scoped; `overHttp`, for a test written with promises), or over stdio with our client
 * (`overStdio`). For tests at the wire written with promises: `Lines` (what a child wrote, each
 * awaited as it comes) and `Children` (the processes a test started, stopped together, also when
 * one never became ready). `configOf` writes a gateway's configuration file; `everythingMain` is the
 * official server-everything's entry point (from npm).
 */
import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { Services } from "@effect-mcp/test-support"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const mcpMain = Programs.mcpMain
export const demoMain = Programs.demoMain

const require = createRequire(import.meta.url)
/** The entry point `main` of the npm package `pkg`. */
export const mainOf = (pkg: string, main: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), main)
export const everythingMain = mainOf("@modelcontextprotocol/server-everything", "dist/index.js")

/** A configuration file of `servers` (`{"mcpServers": servers}`) in a new directory: its path, and the directory. */
export const configOf = (servers: Record<string, unknown>) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-gateway-"))
  const file = path.join(dir, "gateway.json")
  writeFileSync(file, JSON.stringify({ mcpServers: servers }))
  return { dir, file }
}

/**
 * `mcp ...args --port N`, with `env` added to this process's: its endpoint once it said on stderr
 * that it serves (a guard of 90 seconds against one that never does: a gateway serves once its
 * upstreams are up, which a loaded machine can take long to start), stopped with the scope
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
      Effect.timeoutFail({ duration: "90 seconds", onTimeout: () => new Error(`mcp ${args[0]} did not start`) })
    )
    return `http://127.0.0.1:${port}/mcp`
  })

/**
 * `mcp gateway --config FILE ...args --port N` (`serving`), for a test written with promises: its
 * endpoint's URL once it serves, and how to stop it (resolved once it exited).
 */
export const overHttp = async (
  file: string,
  args: ReadonlyArray<string> = []
): Promise<{ readonly url: string; readonly stop: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  const stop = () => Effect.runPromise(Scope.close(scope, Exit.void))
  try {
    const url = await Effect.runPromise(Scope.extend(serving(["gateway", "--config", file, ...args]), scope))
    return { url, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** How `mcpOverStdio` runs `mcp`: its client's name and handlers, its environment, its stderr (default not shown). */
export interface StdioOptions {
  readonly name?: string
  readonly handlers?: McpClient.Options["handlers"]
  readonly env?: NodeJS.ProcessEnv
  readonly stderr?: "ignore" | ((line: string) => void)
}

/** Our client (handshake era) of `mcp ...args` over stdio (`mcp` its child process), for the scope. */
export const mcpOverStdio = (args: ReadonlyArray<string>, options: StdioOptions = {}) =>
  Effect.map(
    Layer.build(
      McpClient.layer({
        clientInfo: { name: options.name ?? "gateway-test", version: "1.0.0" },
        era: "handshake",
        ...(options.handlers !== undefined ? { handlers: options.handlers } : {})
      }).pipe(
        Layer.provide(NodeMcpClient.layerStdio({
          command: process.execPath,
          args: [mcpMain, ...args],
          cwd: root,
          ...(options.env !== undefined ? { env: options.env } : {}),
          stderr: options.stderr ?? "ignore"
        }))
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

/** Our client (handshake era) of `mcp gateway --config FILE ...args` over stdio, for the scope. */
export const overStdio = (file: string, name: string, args: ReadonlyArray<string> = []) =>
  mcpOverStdio(["gateway", "--config", file, ...args], { name })

/**
 * What a child wrote (its lines, parsed), each awaited as it comes: `until` waits for a check to
 * hold, at most 45 s (a guard, not a guess), and fails at once, saying so, once `owner` ended
 * (its output read to the end) without it holding.
 */
export class Lines<A = any> {
  readonly seen: Array<A> = []
  private readonly waiters = new Set<() => void>()
  private ended: string | undefined = undefined
  constructor(owner?: ChildProcess) {
    // `close`: after its output was read to the end (an `exit` can come before its last lines).
    owner?.once("close", (code, signal) => {
      this.ended = `it exited (${code ?? signal})`
      this.wake()
    })
  }
  push(line: A) {
    this.seen.push(line)
    this.wake()
  }
  /** Checks the waiters again (something they look at changed). */
  wake() {
    for (const k of this.waiters) k()
  }
  until<B>(what: string, check: () => B | undefined): Promise<B> {
    return new Promise((resolve, reject) => {
      const now = check()
      if (now !== undefined) return resolve(now)
      const failed = (why: string) => {
        clearTimeout(guard)
        this.waiters.delete(k)
        reject(new Error(`never came: ${what} (${why}); seen ${JSON.stringify(this.seen)}`))
      }
      const guard = setTimeout(() => failed("45 s"), 45_000)
      const k = () => {
        const got = check()
        if (got !== undefined) {
          clearTimeout(guard)
          this.waiters.delete(k)
          return resolve(got)
        }
        if (this.ended !== undefined) failed(this.ended)
      }
      this.waiters.add(k)
      if (this.ended !== undefined) failed(this.ended)
    })
  }
}

/** `child`'s lines on `from`, parsed (`undefined`: skipped), into `into`. */
export const linesOf = <A>(
  child: ChildProcess,
  from: "stdout" | "stderr",
  into: Lines<A>,
  parse: (line: string) => A | undefined
) =>
  readline.createInterface({ input: child[from]! }).on("line", (line) => {
    const parsed = parse(line)
    if (parsed !== undefined) into.push(parsed)
  })

/**
 * The child processes a test starts, stopped together (`stop`: SIGTERM to each still running).
 * `starting` runs a helper's start-up: if it fails (a gateway that never serves, an upstream that
 * never names its port), every child started so far is stopped before the failure is thrown.
 */
export class Children {
  private readonly all: Array<ChildProcess> = []
  spawn(command: string, args: ReadonlyArray<string>, options: SpawnOptions): ChildProcess {
    const child = spawn(command, args, options)
    this.all.push(child)
    return child
  }
  stop(): void {
    for (const child of this.all) {
      if (child.exitCode === null && child.signalCode === null) child.kill()
    }
  }
  async starting<A>(start: () => Promise<A>): Promise<A> {
    try {
      return await start()
    } catch (error) {
      this.stop()
      throw error
    }
  }
}
