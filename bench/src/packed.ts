/**
 * What a user's `node dist/server.js` loads (issue 42): the packages packed with `pnpm pack` (their `prepack`
 * builds them and bundles the published layout, `scripts/bundle-package.mjs`), installed with npm from the
 * tarballs into a plain project outside the workspace, beside `effect`, `@effect/platform` and
 * `@effect/platform-node` from the registry at the versions the workspace pins. The bench's tsc-compiled servers
 * (`ours-stdio-server.js` with `ours-add.js` and `add-tool.js`, the Effect floor with `bare-stdio-server.js`) are copied into it,
 * so Node resolves `@effect-mcp/…` and `effect/…` from the project's flat `node_modules`, as a user's would.
 *
 * `BENCH_PACKED_DIR`: a folder to make the project in, kept (and reused when it already has `node_modules`);
 * otherwise a fresh temporary one. `BENCH_PACKED_BASE_DIR`: another such project already made (e.g. from `main`'s
 * packages, with `BENCH_PACKED_DIR` at that checkout), whose server and floor are timed in the same run beside this
 * one's (`baseServers`): a change to the published layout, before and after, on the same machine at the same time.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { here } from "./proc.js"

/** Ours a user installs, by folder under `packages/`. */
const packages = ["core", "server", "client", "platform-node"] as const

/** The bench's compiled files the project runs. */
export const files = [
  "ours-stdio-server.js",
  "ours-add.js",
  "add-tool.js",
  "effect-floor-stdio-server.js",
  "bare-stdio-server.js",
  // `packed-instructions.ts`: the request path over HTTP.
  "ours-http-server.js",
  "control.js"
]

const run = async (command: string, args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  try {
    const { stdout } = await promisify(execFile)(command, [...args], { cwd, maxBuffer: 16 * 1024 * 1024 })
    return stdout
  } catch (error) {
    const { stderr = "", stdout = "" } = error as { stdout?: string; stderr?: string }
    throw new Error(`${[command, ...args].join(" ")} failed:\n${(stdout + stderr).slice(-4000)}`, { cause: error })
  }
}

/** pnpm as the bench was started with (`npx pnpm@… run stdio`), else the one on the PATH. */
const pnpm = (args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  const execpath = process.env.npm_execpath
  return execpath !== undefined && /pnpm/.test(execpath)
    ? run(process.execPath, [execpath, ...args], cwd)
    : run("pnpm", args, cwd)
}

/** The version of `name` the bench itself has (the workspace's pin). */
const pinned = (name: string): string =>
  JSON.parse(fs.readFileSync(here(`../node_modules/${name}/package.json`), "utf8")).version

/** The project's folder: made (packed, installed) unless `dir` already has one; the files copied. */
export const project = async (
  dir = process.env.BENCH_PACKED_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-bench-packed-"))
): Promise<string> => {
  fs.mkdirSync(dir, { recursive: true })
  if (!fs.existsSync(path.join(dir, "node_modules", "@effect-mcp", "server"))) {
    const tarballs = path.join(dir, "tarballs")
    fs.mkdirSync(tarballs, { recursive: true })
    const packed: Array<string> = []
    for (const name of packages) {
      const out = await pnpm(["pack", "--pack-destination", tarballs], here(`../../packages/${name}`))
      const tarball = out.trim().split("\n").reverse().find((line) => line.trim().endsWith(".tgz"))!.trim()
      packed.push(path.isAbsolute(tarball) ? tarball : path.join(tarballs, path.basename(tarball)))
    }
    fs.writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({ name: "bench-packed", private: true, type: "module" }, null, 2)
    )
    const registry = ["effect", "@effect/platform", "@effect/platform-node"].map((name) => `${name}@${pinned(name)}`)
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...packed, ...registry], dir)
  }
  for (const file of files) fs.copyFileSync(here(`./${file}`), path.join(dir, file))
  return dir
}

/**
 * The tsc-compiled server and the Effect floor in the project at `dir` (`project`): what a user runs, the published
 * layout with `effect` from the project's flat `node_modules`. `BENCH_PACKED=0` in `stdio.ts` leaves them out.
 */
export const servers = (dir: string, handshake: boolean) => [
  {
    key: "ours-packed" as const,
    name: "effect-mcp, add only (tsc-compiled, packed packages installed)",
    file: path.join(dir, "ours-stdio-server.js"),
    args: handshake ? [] : ["--revisions", "stateless"]
  },
  {
    key: "effect-floor-packed" as const,
    name: "Effect floor (same npm project)",
    file: path.join(dir, "effect-floor-stdio-server.js"),
    args: []
  }
]

/**
 * The server and floor of the base project `dir` (`BENCH_PACKED_BASE_DIR`), its packages installed there already
 * (this checkout's compiled bench files copied in).
 */
export const baseServers = async (dir: string, handshake: boolean) => {
  if (!fs.existsSync(path.join(dir, "node_modules", "@effect-mcp", "server"))) {
    throw new Error(`BENCH_PACKED_BASE_DIR ${dir} has no packed packages installed (make it with BENCH_PACKED_DIR)`)
  }
  await project(dir)
  return [
    {
      key: "ours-packed-base" as const,
      name: `effect-mcp, add only (tsc-compiled, packed packages of ${dir})`,
      file: path.join(dir, "ours-stdio-server.js"),
      args: handshake ? [] : ["--revisions", "stateless"]
    },
    {
      key: "effect-floor-packed-base" as const,
      name: `Effect floor (${dir})`,
      file: path.join(dir, "effect-floor-stdio-server.js"),
      args: []
    }
  ]
}
