/**
 * vitest's global setup: the bundles of `Programs.ts` made afresh from the built `dist/` before any test file
 * runs, so a test never spawns a bundle older than the last `tsc -b`. Both at once, in about two seconds.
 */
import { execFile } from "node:child_process"
import { bundles, bundleScript } from "./Programs.js"

const bundle = (args: ReadonlyArray<string>) =>
  new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      [bundleScript, ...args],
      { encoding: "utf8" },
      (error, _stdout, stderr) =>
        error === null ? resolve() : reject(new Error(`node scripts/bundle.mjs ${args.join(" ")} failed:\n${stderr}`))
    )
  )

export default async function setup(): Promise<void> {
  await Promise.all(bundles.map(bundle))
}
