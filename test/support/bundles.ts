/**
 * vitest's global setup: the bundles of `Programs.ts` made afresh from the built `dist/` before any test file
 * runs, so a test never spawns a bundle older than the last `tsc -b`. Both at once, in about two seconds.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { packedFolder } from "./Packed.js"
import { bundles, bundleScript, runPrefix } from "./Programs.js"

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

export default async function setup(): Promise<() => void> {
  await Promise.all(bundles.map(bundle))
  // This run's files (`Programs.runId`) gone when it ends: its bundles, and the tarballs packed (`Packed.packed`).
  return () => {
    fs.rmSync(packedFolder, { recursive: true, force: true })
    for (const folder of new Set(bundles.map((args) => path.dirname(args[1]!)))) {
      for (const name of fs.readdirSync(folder)) {
        if (name.startsWith(runPrefix)) fs.rmSync(path.join(folder, name), { force: true })
      }
    }
  }
}
