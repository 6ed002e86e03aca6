/**
 * Our programs as the test kit spawns them: the bundles users run (`mcp` as `apps/cli/dist/mcp.mjs`, the
 * published bin, is made; the demo as `apps/everything/dist/everything.mjs`, what `pnpm start` runs), made by
 * `scripts/bundle.mjs` from the built `dist/main.js` files before any test file runs (`bundles.ts`, vitest's
 * global setup). A bundle (its entry, and the chunks it loads when first used) starts in about half the CPU of
 * the hundreds of modules `tsc` writes, and the suite spawns them hundreds of times. The `tsc` output itself is still spawned where that is what a test is about (the
 * demo in `test/client/Stdio.test.ts`, `test/interop/OfficialClient.test.ts`, `apps/everything/test`).
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/**
 * This run's own name for its bundles (the vitest process's id, which its workers are given): CI runs stages side
 * by side from one tree, and one stage's packing (`pnpm pack` of `apps/cli` bundles `dist/mcp.mjs` afresh, and
 * removes the chunks that bundle has not) or another stage's setup never rewrites or removes what this run's
 * programs are loading (a running `mcp` loads a chunk when first used: once, in CI, it found one gone). The files
 * are `dist/test-run-<id>-<name>*.mjs`, beside the package's own bundle (so that what they find from their folder,
 * the demo's `../skills`, the packages' `node_modules`, is the same), never packed (`files` names `dist/mcp*.mjs`),
 * and removed when the run ends (`bundles.ts`).
 */
export const runId: string = process.env.EFFECT_MCP_TEST_RUN ??= String(process.pid)

/** What a run's bundle files begin with, in their folder. */
export const runPrefix = `test-run-${runId}-`

/** The `mcp` command, bundled as the package's bin is (`--app-host`). */
export const mcpMain = path.join(root, `apps/cli/dist/${runPrefix}mcp.mjs`)

/** The demo server (`apps/everything`), bundled. Beside its `main.js`, so that `../skills` is found from it. */
export const demoMain = path.join(root, `apps/everything/dist/${runPrefix}everything.mjs`)

/** What each bundle is made from, and how (`scripts/bundle.mjs`'s arguments). */
export const bundles: ReadonlyArray<ReadonlyArray<string>> = [
  [path.join(root, "apps/cli/dist/main.js"), mcpMain, "--app-host"],
  [path.join(root, "apps/everything/dist/main.js"), demoMain]
]

/** `scripts/bundle.mjs`. */
export const bundleScript = path.join(root, "scripts/bundle.mjs")
