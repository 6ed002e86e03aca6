// Serves the demo (apps/everything) over Streamable HTTP at /mcp on Bun or Deno, through
// HttpTransport.toWebHandler: `node scripts/everything-web.mjs <bun|deno> [--port N]` (default
// 3000); or over stdio, `node scripts/everything-web.mjs <bun|deno> stdio [--era E]` (the demo's
// Node entry, apps/everything/src/main.ts, bundled for Node, run by the runtime on its node:*
// modules). The runtime comes from the npm registry at the version pinned in scripts/runtimes.json,
// installed on first use into node_modules/.cache/effect-mcp-runtimes (never globally); the demo's
// entry is bundled into apps/everything/dist/everything-web.mjs (or everything-stdio.mjs).
// MCP_REQUEST_STATE_KEY, when set, seals 2026-07-28 requestState (as on Node).
import { build } from "esbuild"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const versions = JSON.parse(fs.readFileSync(path.join(root, "scripts/runtimes.json"), "utf8"))
const [runtime, ...rest] = process.argv.slice(2)
if (runtime !== "bun" && runtime !== "deno") {
  process.stderr.write("usage: node scripts/everything-web.mjs <bun|deno> [--port N] | <bun|deno> stdio [--era E]\n")
  process.exit(2)
}
const cache = path.join(root, "node_modules/.cache/effect-mcp-runtimes")
const binary = path.join(cache, "node_modules/.bin", runtime)
const installed = fs.existsSync(binary) &&
  (spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout ?? "").includes(versions[runtime])
if (!installed) {
  fs.mkdirSync(cache, { recursive: true })
  if (!fs.existsSync(path.join(cache, "package.json"))) fs.writeFileSync(path.join(cache, "package.json"), "{\"private\":true}")
  process.stderr.write(`installing ${runtime}@${versions[runtime]} into ${cache}\n`)
  const npm = spawnSync(
    "npm",
    ["install", "--prefix", cache, "--no-audit", "--no-fund", "--no-package-lock", `${runtime}@${versions[runtime]}`],
    { stdio: ["ignore", 2, 2] }
  )
  if (npm.status !== 0) process.exit(npm.status ?? 1)
}
const stdio = rest[0] === "stdio"
const outfile = path.join(root, `apps/everything/dist/everything-${stdio ? "stdio" : "web"}.mjs`)
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
