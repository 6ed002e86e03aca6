// Serves the demo (apps/everything) over Streamable HTTP at /mcp on Bun or Deno, through
// HttpTransport.toWebHandler: `node scripts/everything-web.mjs <bun|deno> [--port N] [--out-dir D]`
// (default 3000); or over stdio, `node scripts/everything-web.mjs <bun|deno> stdio [--era E]` (the
// demo's Node entry, apps/everything/src/main.ts, bundled for Node, run by the runtime on its
// node:* modules). The runtime comes from the npm registry at the version pinned in
// scripts/runtimes.json, installed on first use into node_modules/.cache/effect-mcp-runtimes (never
// globally); the demo's entry is bundled into apps/everything/dist/everything-web.mjs (or
// everything-stdio.mjs; or into
// the directory D: tests serving the demo at once each bundle into their own). MCP_REQUEST_STATE_KEY,
// when set, seals 2026-07-28 requestState (as on Node).
import { build } from "esbuild"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { install } from "./runtime-install.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const [runtime, ...given] = process.argv.slice(2)
const at = given.indexOf("--out-dir")
if ((runtime !== "bun" && runtime !== "deno") || (at >= 0 && given[at + 1] === undefined)) {
  process.stderr.write("usage: node scripts/everything-web.mjs <bun|deno> [--port N] [--out-dir D] | <bun|deno> stdio [--era E]\n")
  process.exit(2)
}
const dist = at >= 0 ? path.resolve(given[at + 1]) : path.join(root, "apps/everything/dist")
const rest = at >= 0 ? [...given.slice(0, at), ...given.slice(at + 2)] : given
const binary = install(runtime)
const cache = path.join(root, "node_modules/.cache/effect-mcp-runtimes")
const stdio = rest[0] === "stdio"
const outfile = path.join(dist, `everything-${stdio ? "stdio" : "web"}.mjs`)
await build({
  entryPoints: [path.join(root, `apps/everything/src/${stdio ? "main" : "web"}.ts`)],
  outfile,
  bundle: true,
  format: "esm",
  minify: true,
  conditions: ["@effect-mcp/source"],
  logLevel: "warning",
  ...(stdio
    ? {
      platform: "node",
      target: "node20",
      // CommonJS dependencies inside an ES module bundle need a require of their own.
      banner: {
        js: "import { createRequire as __mcpCreateRequire } from 'node:module'; const require = __mcpCreateRequire(import.meta.url);"
      }
    }
    : { platform: "browser" })
})
const permissions = stdio ? ["--allow-env", "--allow-read"] : ["--allow-net", "--allow-env"]
const args = runtime === "bun" ? [outfile, ...rest] : ["run", ...permissions, outfile, ...rest]
const child = spawn(binary, args, {
  stdio: "inherit",
  env: { ...process.env, DENO_DIR: path.join(cache, "deno-dir"), DENO_NO_UPDATE_CHECK: "1" }
})
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal))
child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)))
