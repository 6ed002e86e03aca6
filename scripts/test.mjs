// `pnpm test`'s run of vitest, after the type-check and the format check: the suite in two runs, one after the
// other, both run whatever the first gives, exit 1 when either failed.
// - The packages' own tests and the fuzzers (in-process tests of our modules) without isolation: each worker
//   loads the modules once for all its files (`--no-isolate`), not once a file. That loading was most of their
//   time, 2½ minutes of 4 on two cores. vitest takes `isolate` for a whole run, not for one project: hence a run
//   of their own.
// - The rest (our programs as child processes, packed projects, conformance, other runtimes), a fresh process
//   for each file as before.
// With arguments (`pnpm test packages/server/test/Tools.test.ts`, `pnpm test --reporter=dot`), one run of vitest
// with them, isolated, as `vitest run` would.
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"

const vitest = createRequire(import.meta.url).resolve("vitest/vitest.mjs")
const run = (args) => spawnSync(process.execPath, [vitest, "run", ...args], { stdio: "inherit" }).status ?? 1
const given = process.argv.slice(2)
if (given.length > 0) {
  process.exit(run(given))
} else {
  const modules = run(["--no-isolate", "packages", "test/fuzz"])
  const programs = run(["--exclude", "packages/**", "--exclude", "test/fuzz/**"])
  process.exit(modules === 0 && programs === 0 ? 0 : 1)
}
