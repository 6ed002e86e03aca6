// Bundles a built entry point into one ES module with esbuild (Node's module loading is most of a
// server's startup: one file instead of hundreds). `node scripts/bundle.mjs <entry.js> <out.mjs>`
import { build } from "esbuild"

const [entry, outfile] = process.argv.slice(2)
if (entry === undefined || outfile === undefined) {
  process.stderr.write("usage: node scripts/bundle.mjs <entry.js> <out.mjs>\n")
  process.exit(2)
}
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  // CommonJS dependencies inside an ES module bundle need a require of their own.
  banner: { js: "import { createRequire as __mcpCreateRequire } from 'node:module'; const require = __mcpCreateRequire(import.meta.url);" },
  logLevel: "warning"
})
