/**
 * `core`, `server` and `client` run on any JavaScript runtime (Bun, Deno, Workers, browsers), so
 * they import no `node:*` module and no Node-only package (DESIGN.md). Checked two ways:
 *
 * - their sources: every import (static, dynamic, re-export; comments and JSDoc examples are not
 *   imports) is relative, or of a package their package.json declares; none is `node:*` or a
 *   Node built-in (`fs`, `crypto`, ...); and every package they depend on is one known to run
 *   everywhere (a new dependency is a decision, taken here with its reason);
 * - what they pull in, transitively: each package's entry is bundled for the browser with esbuild,
 *   whose resolver fails on a Node built-in that any module reached (theirs or a dependency's) imports.
 *
 * It fails when someone adds `import "node:fs"` to core: checked on a copy of core with it added.
 */
import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import { builtinModules } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"

const root = path.resolve(import.meta.dirname, "../..")

/** The packages that must run everywhere. */
const portable = ["core", "server", "client"] as const

/** Dependencies known to run on every runtime, each with why. */
const runsEverywhere: Record<string, string> = {
  "effect": "Effect itself: no Node imports",
  "@effect/platform": "platform-neutral HTTP abstractions (the Node parts are @effect/platform-node)",
  "@effect/ai": "platform-neutral (optional peer of the server)",
  "@effect-mcp/core": "checked here",
  "yaml": "pure JavaScript YAML",
  "jose": "JOSE on Web Crypto, with browser/worker exports",
  "oauth4webapi": "OAuth 2 on fetch and Web Crypto"
}

const builtins = new Set(builtinModules.flatMap((name) => [name, name.split("/")[0]]))

const isNode = (specifier: string) => specifier.startsWith("node:") || builtins.has(specifier.split("/")[0])

/** The package a bare specifier names (`@scope/name` or `name`). */
const packageOf = (specifier: string) => {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sources(full) : entry.name.endsWith(".ts") ? [full] : []
  })

/** The imports of a source file (static, dynamic, re-exports; not what comments hold). */
const importsOf = (file: string): Array<string> =>
  ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true).importedFiles.map((ref) => ref.fileName)

/** What is wrong with the sources and the manifest of the package in `dir`. */
const sourceProblems = (dir: string): Array<string> => {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {})
  ])
  const problems: Array<string> = []
  for (const name of declared) {
    if (!(name in runsEverywhere)) problems.push(`depends on ${name}, not known to run on every runtime`)
  }
  for (const file of sources(path.join(dir, "src"))) {
    const at = path.relative(dir, file)
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith(".")) continue
      // The package's own `imports` (`#modules`): its targets are its own sources, checked here too.
      if (specifier.startsWith("#")) {
        if (!Object.hasOwn(manifest.imports ?? {}, specifier)) problems.push(`${at} imports ${specifier}, not declared`)
        continue
      }
      if (isNode(specifier)) problems.push(`${at} imports ${specifier}`)
      else if (!declared.has(packageOf(specifier))) problems.push(`${at} imports ${specifier}, not a dependency`)
    }
  }
  return problems
}

/** The Node built-ins the bundle of `entry` for the browser reaches (esbuild's resolver refuses them). */
const bundleProblems = async (entry: string): Promise<Array<string>> => {
  try {
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      platform: "browser",
      format: "esm",
      conditions: ["@effect-mcp/source"],
      logLevel: "silent"
    })
    return []
  } catch (error) {
    const failure = error as esbuild.BuildFailure
    return (failure.errors ?? [{ text: String(error) }]).map((message) =>
      `${message.location?.file ?? ""}: ${message.text}`
    )
  }
}

describe("core, server and client import nothing of Node", () => {
  for (const name of portable) {
    const dir = path.join(root, "packages", name)
    it(`${name}: its sources import no node:* module, no Node built-in, no undeclared or Node-only package`, () => {
      expect(sourceProblems(dir)).toEqual([])
    })
    it(`${name}: its bundle for the browser reaches no Node built-in, through any dependency`, async () => {
      expect(await bundleProblems(path.join(dir, "src/index.ts"))).toEqual([])
    }, 120_000)
  }

  it("a copy of core that imports node:fs fails both checks", async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-core-"))
    try {
      const core = path.join(root, "packages/core")
      fs.cpSync(path.join(core, "src"), path.join(copy, "src"), { recursive: true })
      fs.copyFileSync(path.join(core, "package.json"), path.join(copy, "package.json"))
      // Its dependencies resolve from the real package's node_modules.
      fs.symlinkSync(path.join(core, "node_modules"), path.join(copy, "node_modules"), "dir")
      const index = path.join(copy, "src/index.ts")
      fs.writeFileSync(index, `import "node:fs"\n${fs.readFileSync(index, "utf8")}`)
      expect(sourceProblems(copy)).toEqual(["src/index.ts imports node:fs"])
      const bundled = await bundleProblems(index)
      expect(bundled.length).toBe(1)
      expect(bundled[0]).toContain("node:fs")
      // As it is, the copy passes: what failed was the import.
      fs.writeFileSync(index, fs.readFileSync(path.join(core, "src/index.ts"), "utf8"))
      expect(sourceProblems(copy)).toEqual([])
      expect(await bundleProblems(index)).toEqual([])
    } finally {
      fs.rmSync(copy, { recursive: true, force: true })
    }
  }, 120_000)
})
