// The published layout of a package (issue 42): its tsc output (`dist/*.js`) bundled with esbuild into
// `bundle/`, one file per public entry point and shared chunks under `bundle/internal/`, so that Node loads a
// handful of files instead of one per module (resolving hundreds of bare specifiers is most of a tsc-compiled
// server's startup). Run by the package's `prepack`, after `tsc -b`, from the package's folder:
// `node ../../scripts/bundle-package.mjs`.
//
// - Every dependency stays external (effect, @effect/*, the other @effect-mcp packages, jose…), and so does the
//   server's `#modules` import: Node resolves it through the package's `imports` (lazy `import()`s elsewhere, static
//   under the `workerd`, `worker` and `edge-light` conditions), so both its variants are entry points here.
// - Code splitting over all the entry points: a class or Tag is defined in one chunk, so it has one identity
//   whichever entry point a program imports it from.
// - A module loaded with `import()` stays a chunk of its own, loaded when first needed.
// - Each file a public entry point loads takes effect's modules from hubs of the package's own, not from a bare
//   `effect/…` specifier apiece (below).
// - Source maps chain to tsc's, so they point at `src/*.ts` (shipped in the tarball).
// - Types stay tsc's `dist/*.d.ts`: `publishConfig.exports` (and the server's `publishConfig.imports`) point
//   `types` there and `default` here, and pnpm puts them in the packed manifest.
// - A bundler building a Worker (the `workerd`, `worker` and `edge-light` conditions) is pointed at `dist/` too: this
//   layout's entry points export each namespace as one object, which a consumer's bundler keeps whole with every
//   member it reaches (a one-tool Worker kept yaml and the skills' building: 837 KB against 663 from `dist/`). The workspace keeps `dist`, so one
//   layout is loaded by anything inside the repository (two would give classes two identities).
import { build } from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"

const dir = process.cwd()
const dist = path.join(dir, "dist")
const out = path.join(dir, "bundle")
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))

/** The `.js` files under `folder` (relative to `dist`), recursively. */
const scripts = (folder) =>
  fs.readdirSync(path.join(dist, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name)
    if (entry.isDirectory()) return scripts(relative)
    return entry.name.endsWith(".js") ? [relative] : []
  })

/** What `internal/…` modules the package's `imports` name (their `.js` targets under `dist`, not the types). */
const imported = (node) =>
  typeof node === "string"
    ? node.startsWith("./dist/") && node.endsWith(".js") ? [node.slice("./dist/".length)] : []
    : node === null || node === undefined
    ? []
    : Object.values(node).flatMap(imported)

// The packed manifest takes `exports` and `imports` from `publishConfig` whole: one that misses a key of the
// workspace's (a new `#…` import) would leave it unresolvable in the tarball.
for (const field of ["exports", "imports"]) {
  const own = Object.keys(manifest[field] ?? {}).sort().join(", ")
  const published = Object.keys(manifest.publishConfig?.[field] ?? {}).sort().join(", ")
  if (own !== published) {
    throw new Error(`${manifest.name}: publishConfig.${field} has [${published}], ${field} has [${own}]`)
  }
}

const publicEntries = scripts(".").filter((file) => !file.split(path.sep).includes("internal"))
const entries = [...new Set([...publicEntries, ...imported(manifest.imports)])].sort()

// Effect's modules through hubs of the package's own (issue 42). Node 22 reads effect's 40 kB `exports` again for
// each bare `effect/…` specifier it resolves (~1.3 M instructions apiece), and esbuild keeps one `import * as` per
// module of ours it hoists into a chunk (the server's engine chunk imported `effect/Effect` 12 times): a packed
// tsc-compiled server resolved 215 of them from our packages to answer its first call. So each file that a public
// entry point loads takes the effect modules it imports as namespaces from a hub instead: `import * as Effect from
// "effect/Effect"` becomes `import { Effect } from <its hub>`, the hub `export * as Effect from "effect/Effect"`,
// which esbuild emits as `import * as Effect from "effect/Effect"; export { Effect }`. The binding is effect's own
// module namespace object, as before (not an object of getters): `Effect.map(…)` reads the same property of the same
// object, through an imported binding like any other between our chunks. Hubs group the modules by which public
// entry points' files import them, so an entry point that loads a hub loaded every module in it before (no effect
// module is loaded that was not); the server now resolves each specifier once per package (82 in all). A file only
// `import()`ed (or behind the lazy `#…` imports) keeps its own imports, and so do named imports (two).
const namespaceImport = /^import \* as ([\w$]+) from "effect\/(\w+)";$/gm
const graphOptions = {
  write: false,
  bundle: true,
  format: "esm",
  platform: "neutral",
  metafile: true,
  logLevel: "warning"
}
/** Each input file's static imports (absolute paths), from an esbuild metafile. */
const staticImports = (metafile, base) =>
  new Map(
    Object.entries(metafile.inputs).map(([file, input]) => [
      path.resolve(base, file),
      input.imports.filter((i) => i.kind === "import-statement" && !i.external).map((i) => path.resolve(base, i.path))
    ])
  )
/** The files `from` loads, itself included, following `graph`'s static imports. */
const closure = (graph, from) => {
  const seen = new Set()
  const pending = [...from]
  while (pending.length > 0) {
    const file = pending.pop()
    if (seen.has(file)) continue
    seen.add(file)
    pending.push(...(graph.get(file) ?? []))
  }
  return seen
}
const oursBuilt = (await build({
    ...graphOptions,
    entryPoints: entries.map((file) => path.join(dist, file)),
    outdir: path.join(dir, ".bundle-graph"),
    splitting: true,
    packages: "external",
    external: ["node:*", ...Object.keys(manifest.imports ?? {})]
  })).metafile
const ours = staticImports(oursBuilt, dir)
/** The effect modules a file of ours imports as namespaces. */
const effectImports = new Map(
  [...ours.keys()].map((file) => [file, [...fs.readFileSync(file, "utf8").matchAll(namespaceImport)].map((m) => m[2])])
)
const effectModules = [...new Set([...effectImports.values()].flat())].sort()
/**
 * Where a program starts loading files of ours: the entry points (public, and the `#…` imports') and every file
 * loaded with `import()`; the effect modules each one's files import (static imports).
 */
const roots = [
  ...new Set([
    ...entries.map((file) => path.join(dist, file)),
    ...Object.values(oursBuilt.inputs).flatMap((input) =>
      input.imports.filter((i) => i.kind === "dynamic-import" && !i.external).map((i) => path.resolve(dir, i.path))
    )
  ])
]
const rootImports = roots.map((root) =>
  new Set([...closure(ours, [root])].flatMap((file) => effectImports.get(file) ?? []))
)
/**
 * The hubs: the effect modules we import, grouped by which roots' files import them. A file that root R loads
 * imports M only if R's files import M, so a root that loads a hub loaded every module in it before.
 */
const hubOf = new Map()
{
  const keys = new Map()
  for (const module of effectModules) {
    const key = rootImports.map((modules) => (modules.has(module) ? "1" : "0")).join("")
    if (!key.includes("1")) continue
    if (!keys.has(key)) keys.set(key, keys.size)
    hubOf.set(module, keys.get(key))
  }
}
/**
 * Our other packages' namespaces from their own entry points, not their index (issue 42): `import { McpError, Wire }
 * from "@effect-mcp/core"` becomes `import * as McpError from "@effect-mcp/core/McpError"` and the same for `Wire`,
 * where the index (`export * as McpError from "./McpError.js"`, one a public module) loads every public module of
 * the package and what they import: the packed server loaded core's 40 and the server's TaskStore, SessionStore,
 * NotificationBus… to use a few. Each member is the same binding either way (a class or Tag has one identity: the
 * entry points share their chunks). A name the index does not export as a namespace stays imported from it.
 */
const siblingIndex = /^(import|export) \{([^}]*)\} from "(@effect-mcp\/(?:core|server|client))";$/gm
const siblingNamespaces = new Map()
const namespacesOf = (name) => {
  if (!siblingNamespaces.has(name)) {
    const index = path.join(dir, "node_modules", name, "dist", "index.js")
    siblingNamespaces.set(
      name,
      new Map(
        [...fs.readFileSync(index, "utf8").matchAll(/^export \* as (\w+) from "\.\/([\w/]+)\.js";$/gm)]
          .map((m) => [m[1], m[2]])
      )
    )
  }
  return siblingNamespaces.get(name)
}
const fromModules = (line, keyword, names, name) => {
  const namespaces = namespacesOf(name)
  const kept = []
  const modules = []
  // The names, without the doc comments tsc keeps on an `export { … } from` (one has commas).
  const parts = names.replace(/\/\*[\s\S]*?\*\//g, "").split(",").map((part) => part.trim())
  for (const part of parts.filter((part) => part.length > 0)) {
    const [imported, local = imported] = part.split(/\s+as\s+/)
    if (namespaces.has(imported)) modules.push(`${keyword} * as ${local} from "${name}/${namespaces.get(imported)}";`)
    else kept.push(part)
  }
  return [...(kept.length > 0 ? [`${keyword} { ${kept.join(", ")} } from "${name}";`] : []), ...modules].join("\n")
}
/** @type {import("esbuild").Plugin} */
const effectHub = {
  name: "effect-hub",
  setup(build) {
    build.onResolve({ filter: /^effect-mcp:effect-hub\/\d+$/ }, (args) => ({
      path: args.path.slice("effect-mcp:".length),
      namespace: "effect-hub"
    }))
    build.onLoad({ filter: /.*/, namespace: "effect-hub" }, (args) => ({
      contents: [...hubOf].filter(([, hub]) => `effect-hub/${hub}` === args.path)
        .map(([module]) => `export * as ${module} from "effect/${module}";\n`).join(""),
      resolveDir: dist,
      loader: "js"
    }))
    build.onLoad({ filter: /\.js$/ }, (args) => {
      if (!effectImports.has(args.path)) return undefined
      const text = fs.readFileSync(args.path, "utf8")
      return {
        contents: text.replace(
          namespaceImport,
          (line, name, module) =>
            hubOf.has(module) ? `import { ${module} as ${name} } from "effect-mcp:effect-hub/${hubOf.get(module)}";` : line
        ).replace(siblingIndex, fromModules),
        resolveDir: path.dirname(args.path),
        loader: "js"
      }
    })
  }
}

// Built aside, then moved into `bundle/` a file at a time (a rename replaces a file at once): two packs of the
// same package at the same moment (tests packing side by side) never see `bundle/` missing or half written.
const aside = fs.mkdtempSync(path.join(dir, ".bundle-"))
const result = await build({
  entryPoints: Object.fromEntries(entries.map((file) => [file.slice(0, -".js".length), path.join(dist, file)])),
  outdir: aside,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  // Every package path (and `node:` builtins) as it is: dependencies are installed beside the package.
  packages: "external",
  external: ["node:*", ...Object.keys(manifest.imports ?? {})],
  chunkNames: "internal/[name]-[hash]",
  // esbuild renames clashing top-level names when it hoists modules together; a class keeps its own `name`.
  keepNames: true,
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: "warning",
  plugins: [effectHub]
})
/** The files under `folder` (relative to it), recursively. */
const files = (folder, under = "") =>
  fs.existsSync(path.join(folder, under))
    ? fs.readdirSync(path.join(folder, under), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(folder, path.join(under, entry.name)) : [path.join(under, entry.name)]
    )
    : []
const built = files(aside)
for (const file of built) {
  fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true })
  fs.renameSync(path.join(aside, file), path.join(out, file))
}
fs.rmSync(aside, { recursive: true, force: true })
// What an earlier build left that this one did not make (chunks are named by their content).
const made = new Set(built)
for (const file of files(out)) if (!made.has(file)) fs.rmSync(path.join(out, file), { force: true })
const outputs = Object.keys(result.metafile.outputs).filter((file) => file.endsWith(".js"))
process.stderr.write(
  `${manifest.name}: ${entries.length} entry points, ${outputs.length - entries.length} chunks in bundle/\n`
)
