// Bundles a built entry point with esbuild (Node's module loading is most of a server's startup: a
// few files instead of hundreds). `node scripts/bundle.mjs <entry.js> <out.mjs> [--app-host]` writes
// `<out.mjs>` and, beside it, the chunks it shares with what it loads when first used
// (`<out>-<name>-<hash>.mjs`): esbuild's code splitting, so a dynamic `import()` (the HTTP transport,
// the client, OAuth, telemetry's export, `mcp app`'s page) stays a file Node reads only if that part
// runs. In one file, every `import()` target and all it imports (Effect included) would be wrapped in
// a lazy initialiser: parsed at every start, twice when run, never tree-shaken (a one-tool stdio
// server: 745 kB parsed at startup against 479 kB split, 911 M instructions against 709 M on Node 22).
// --app-host (the `mcp` command): the page script of `mcp app` (apps/cli AppHost, with the official
// AppBridge) bundled for the browser too, and kept in the bundle (gzipped, in base64).
import { build } from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const [entry, outfile, ...flags] = process.argv.slice(2)
if (entry === undefined || outfile === undefined) {
  process.stderr.write("usage: node scripts/bundle.mjs <entry.js> <out.mjs> [--app-host]\n")
  process.exit(2)
}
const define = {}
if (flags.includes("--app-host")) {
  const dir = path.resolve(path.dirname(entry))
  const { bundleHostScript } = await import(pathToFileURL(path.join(dir, "AppHost.js")).href)
  define.__MCP_APP_HOST_SCRIPT__ = JSON.stringify(await bundleHostScript(dir))
}
const outdir = path.dirname(path.resolve(outfile))
const name = path.basename(outfile, ".mjs")
if (!outfile.endsWith(".mjs") || name.length === 0) {
  process.stderr.write("scripts/bundle.mjs: the output is an .mjs file\n")
  process.exit(2)
}
fs.mkdirSync(outdir, { recursive: true })
const result = await build({
  define,
  // Only `mcp app` imports it, to bundle its page when that was not done here.
  external: ["esbuild"],
  entryPoints: { [name]: entry },
  outdir,
  outExtension: { ".js": ".mjs" },
  chunkNames: `${name}-[name]-[hash]`,
  splitting: true,
  // Written here: each file whole under another name, then renamed over the old one, the chunks before the
  // entry that imports them. A program started from the bundle while it is rebuilt (the test kit's stages side
  // by side) reads one build or the other, never a part of a file.
  write: false,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  // CommonJS dependencies inside an ES module bundle need a require of their own (in each chunk).
  banner: { js: "import { createRequire as __mcpCreateRequire } from 'node:module'; const require = __mcpCreateRequire(import.meta.url);" },
  logLevel: "warning"
})
const entryFile = path.join(outdir, `${name}.mjs`)
const written = new Set(result.outputFiles.map((file) => file.path))
if (!written.has(entryFile)) throw new Error(`esbuild wrote no ${entryFile}`)
for (const file of [...result.outputFiles].sort((a, b) => Number(a.path === entryFile) - Number(b.path === entryFile))) {
  const temporary = `${file.path}.${process.pid}.tmp`
  fs.writeFileSync(temporary, file.contents, { mode: 0o755 })
  fs.renameSync(temporary, file.path)
}
// Then the chunks of an earlier bundle of the same name that this one does not have (their hashes change with
// their content).
const chunk = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-.+-[A-Z0-9]{8}\\.mjs$`)
for (const file of fs.readdirSync(outdir, { withFileTypes: true })) {
  const where = path.join(outdir, file.name)
  if (file.isFile() && chunk.test(file.name) && !written.has(where)) fs.rmSync(where, { force: true })
}
