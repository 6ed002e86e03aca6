/**
 * "Today", for benchmarks that compare a change with the code before it in the same run: the
 * repository at an earlier commit, built beside this one. `BENCH_BASELINE=<dir>` names a tree
 * already built (its `bench/dist` in place); otherwise the commit is extracted with
 * `git archive` into the system's temporary directory, installed from pnpm's store
 * (`--offline`: its lockfile's packages are there once this repository was installed at it) and
 * built with its own TypeScript, once: a second run finds it built.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BenchFailure, here } from "./proc.js"

const repository = here("../..")

const sh = (command: string, args: ReadonlyArray<string>, cwd: string): void => {
  try {
    execFileSync(command, args, { cwd, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 16 * 1024 * 1024 })
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().slice(-2000) ?? ""
    throw new BenchFailure(`${command} ${args.join(" ")} in ${cwd} failed: ${stderr || String(error)}`)
  }
}

/** The root of a built tree of this repository at `commit`: the benchmarks' servers are under `bench/dist`. */
export const baseline = (commit: string): string => {
  const given = process.env.BENCH_BASELINE
  if (given !== undefined && given !== "") {
    if (!existsSync(join(given, "bench/dist/ours-http-server.js"))) {
      throw new BenchFailure(`BENCH_BASELINE=${given}: no bench/dist/ours-http-server.js (build it first)`)
    }
    return given
  }
  const dir = join(tmpdir(), `effect-mcp-baseline-${commit}`)
  const done = join(dir, ".built")
  if (existsSync(done)) return dir
  process.stdout.write(`building the baseline ${commit} in ${dir} (once)\n`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  sh("sh", ["-c", `git -C '${repository}' archive ${commit} | tar -x -C '${dir}'`], repository)
  sh("npx", ["-y", "pnpm@10.34.9", "install", "--frozen-lockfile", "--offline"], dir)
  sh(join(dir, "node_modules/.bin/tsc"), ["-b", "bench", "apps/everything/tsconfig.src.json"], dir)
  writeFileSync(done, `${commit}\n`)
  return dir
}
