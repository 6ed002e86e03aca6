// Serves the demo (apps/everything) as a Cloudflare Worker on workerd, over Streamable HTTP at
// /mcp, the 2026-07-28 revision: `node scripts/everything-workerd.mjs [--port N] [--host H] [--out-dir D]`
// (default 3000 on every interface; --port 0 picks a free one). The port it listens on is said on
// stderr (`listening on http://127.0.0.1:N/mcp`). workerd comes from the npm registry at the
// version pinned in scripts/runtimes.json, installed on first use into
// node_modules/.cache/effect-mcp-workerd (never globally); the Worker entry
// (apps/everything/src/worker.ts) is bundled into apps/everything/dist/everything-worker.mjs (or
// into the directory D: tests serving the demo at once each bundle into their own) and served by
// `workerd serve` from a Cap'n Proto config written beside it. MCP_REQUEST_STATE_KEY,
// when set, reaches the Worker as its binding of that name (read from this process's environment
// by workerd, never written to disk) and seals 2026-07-28 requestState, as on Node.
import { build } from "esbuild"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { install } from "./runtime-install.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const args = process.argv.slice(2)
const option = (name, otherwise) => {
  const at = args.indexOf(name)
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : otherwise
}
const port = Number(option("--port", "3000"))
const host = option("--host", "0.0.0.0")
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write("usage: node scripts/everything-workerd.mjs [--port N] [--host H] [--out-dir D]\n")
  process.exit(2)
}
const binary = install("workerd")
const dist = path.resolve(option("--out-dir", path.join(root, "apps/everything/dist")))
fs.mkdirSync(dist, { recursive: true })
await build({
  entryPoints: [path.join(root, "apps/everything/src/worker.ts")],
  outfile: path.join(dist, "everything-worker.mjs"),
  bundle: true,
  platform: "browser",
  format: "esm",
  minify: true,
  conditions: ["workerd", "worker", "@effect-mcp/source"],
  logLevel: "warning"
})
const address = `${host.includes(":") ? `[${host}]` : host}:${port}`
fs.writeFileSync(
  path.join(dist, "everything-worker.capnp"),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = ${JSON.stringify(address)}, http = (), service = "main")]
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "everything-worker.mjs")],
  compatibilityDate = "2026-11-01",
  bindings = [
    (name = "MCP_REQUEST_STATE_KEY", fromEnvironment = "MCP_REQUEST_STATE_KEY"),
    (name = "MCP_MAX_LISTENS", fromEnvironment = "MCP_MAX_LISTENS")
  ]
);
`
)
const child = spawn(binary, ["serve", path.join(dist, "everything-worker.capnp"), "config", "--control-fd", "3"], {
  stdio: ["ignore", "inherit", "inherit", "pipe"]
})
let control = ""
child.stdio[3].setEncoding("utf8").on("data", (text) => {
  control += text
  const lines = control.split("\n")
  control = lines.pop() ?? ""
  for (const line of lines) {
    const event = JSON.parse(line)
    if (event.event === "listen" && event.socket === "http") {
      process.stderr.write(`listening on http://127.0.0.1:${event.port}/mcp\n`)
    }
  }
})
// workerd drains open requests on SIGTERM and does not exit while one holds a timer (a stream's,
// say): killed after 5 seconds.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    child.kill(signal)
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref()
  })
}
child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)))
