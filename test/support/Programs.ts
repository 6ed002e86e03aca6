/**
 * Our programs as the test kit spawns them: the bundles users run (`mcp` is `apps/cli/dist/mcp.mjs`, the
 * published bin; the demo is `apps/everything/dist/everything.mjs`, what `pnpm start` runs), made by
 * `scripts/bundle.mjs` from the built `dist/main.js` files before any test file runs (`bundles.ts`, vitest's
 * global setup). A bundle (its entry, and the chunks it loads when first used) starts in about half the CPU of
 * the hundreds of modules `tsc` writes, and the suite spawns them hundreds of times. The `tsc` output itself is still spawned where that is what a test is about (the
 * demo in `test/client/Stdio.test.ts`, `test/interop/OfficialClient.test.ts`, `apps/everything/test`).
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** The `mcp` command, bundled (the package's bin). */
export const mcpMain = path.join(root, "apps/cli/dist/mcp.mjs")

/** The demo server (`apps/everything`), bundled. Beside its `main.js`, so that `../skills` is found from it. */
export const demoMain = path.join(root, "apps/everything/dist/everything.mjs")

/** What each bundle is made from, and how (`scripts/bundle.mjs`'s arguments). */
export const bundles: ReadonlyArray<ReadonlyArray<string>> = [
  [path.join(root, "apps/cli/dist/main.js"), mcpMain, "--app-host"],
  [path.join(root, "apps/everything/dist/main.js"), demoMain]
]

/** `scripts/bundle.mjs`. */
export const bundleScript = path.join(root, "scripts/bundle.mjs")
