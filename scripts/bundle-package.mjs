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
  logLevel: "warning"
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
