// Bundles a built entry point into one ES module with esbuild (Node's module loading is most of a
// server's startup: one file instead of hundreds). `node scripts/bundle.mjs <entry.js> <out.mjs> [--app-host]`
// --app-host (the `mcp` command): the page script of `mcp app` (apps/cli AppHost, with the official
// AppBridge) bundled for the browser too, and kept in the one file (gzipped, in base64).
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
const result = await build({
  define,
  // Only `mcp app` imports it, to bundle its page when that was not done here.
  external: ["esbuild"],
  entryPoints: [entry],
  outfile,
  // Written here, whole, under another name and then renamed over the old file: a program spawned from it
  // while it is rebuilt (the test kit's stages side by side, `pack` beside a test run) reads one or the other.
  write: false,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  // CommonJS dependencies inside an ES module bundle need a require of their own.
  banner: { js: "import { createRequire as __mcpCreateRequire } from 'node:module'; const require = __mcpCreateRequire(import.meta.url);" },
  logLevel: "warning"
})
if (result.outputFiles.length !== 1) throw new Error(`one file expected from ${entry}, got ${result.outputFiles.length}`)
const temporary = `${outfile}.${process.pid}.tmp`
fs.writeFileSync(temporary, result.outputFiles[0].contents, { mode: 0o755 })
fs.renameSync(temporary, outfile)
