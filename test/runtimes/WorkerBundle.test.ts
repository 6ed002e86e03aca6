/**
 * The demo's Worker bundled as `pnpm run everything:workerd` (and wrangler) bundle it: esbuild, one
 * ES module, the `workerd` and `worker` conditions. No module of Effect, @effect/platform or
 * effect-mcp may be wrapped in one of esbuild's lazy initialisers (`__esm`): esbuild wraps the
 * target of a dynamic `import()` and everything it imports, so one `import()` of a module that
 * shares Effect with the rest (the HTTP transport's handler, its @effect/platform or Web adapter)
 * wrapped the whole bundle, every module's code then parsed twice and none of it tree-shaken. The
 * Worker's cold start: 753 → 634 M instructions above a bare Worker's in V8 (the SDK's: 425 M).
 * Packages imported only dynamically (`jose`, `oauth4webapi`, `yaml`) stay wrapped: never evaluated
 * unless used.
 */
import * as esbuild from "esbuild"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")

/** The paths of the modules esbuild wrapped in a lazy initialiser, as the bundle names them. */
const wrapped = (code: string): ReadonlyArray<string> =>
  Array.from(code.matchAll(/__esm\(\{\s*"([^"]+)"\(\)/g), (match) => match[1]!)

describe("the demo's Worker bundle", () => {
  it("links Effect and effect-mcp statically: no lazily initialised module of theirs", async () => {
    const result = await esbuild.build({
      entryPoints: [path.join(root, "apps/everything/src/worker.ts")],
      bundle: true,
      write: false,
      platform: "browser",
      format: "esm",
      conditions: ["workerd", "worker", "@effect-mcp/source"],
      logLevel: "silent"
    })
    const modules = wrapped(result.outputFiles[0]!.text)
    const ours = modules.filter((file) => /(^|\/)(effect|@effect|packages)\//.test(file))
    expect(ours).toEqual([])
    // The check sees esbuild's wrappers: the dynamically imported packages are there.
    expect(modules.some((file) => file.includes("/jose/"))).toBe(true)
  }, 60_000)
})
