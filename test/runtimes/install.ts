/**
 * The runtimes of the Bun and Deno tests, from the npm registry (`bun`, `deno`, pinned in
 * scripts/runtimes.json), installed on first use into `node_modules/.cache/effect-mcp-runtimes`
 * (about 200 MB on disk, a few seconds from a warm npm cache; CI caches `node_modules`), never
 * globally.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../..")

/** The runtimes, pinned (as `pnpm run everything:bun` and `everything:deno` install them). */
export const versions: { readonly bun: string; readonly deno: string } = JSON.parse(
  fs.readFileSync(path.join(root, "scripts/runtimes.json"), "utf8")
)

const cache = path.join(root, "node_modules/.cache/effect-mcp-runtimes")

/** A runtime's binary in the cache. */
export const binary = (name: keyof typeof versions) => path.join(cache, "node_modules/.bin", name)

/** What a runtime's process is given besides the environment: Deno's cache in ours, no update check, no colours. */
export const runtimeEnv = {
  DENO_DIR: path.join(cache, "deno-dir"),
  DENO_NO_UPDATE_CHECK: "1",
  NO_COLOR: "1"
}

/**
 * Installs the pinned runtimes into the cache, unless they are there at their versions: as the root
 * scripts do (`scripts/runtime-install.mjs`, one install at a time into the cache, whoever asks).
 */
export const install = () => {
  const npm = spawnSync(process.execPath, [path.join(root, "scripts/runtime-install.mjs"), "bun", "deno"], {
    encoding: "utf8",
    timeout: 300_000
  })
  if (npm.status !== 0) throw new Error(`npm install of bun and deno failed: ${npm.stderr}`)
}
