// The system servers some tests start for real: redis-server (the Redis-backed stores, sessions shared
// between instances) and nginx (instances behind a load balancer); and chromium, the browser that renders
// MCP Apps views in `mcp app`'s tests (driven by playwright-core). Installs what is missing with apt-get
// when it can (Debian or Ubuntu, as root); otherwise says what to install. Run by .ci/run before the tests.
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"

const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"]
const has = (name) => dirs.some((dir) => dir !== "" && existsSync(`${dir}/${name}`))
const wanted = [["redis-server", "redis-server"], ["nginx", "nginx-light"], ["chromium", "chromium"]]
const missing = wanted.filter(([binary]) => !has(binary)).map(([, pkg]) => pkg)
if (missing.length === 0) process.exit(0)
const root = typeof process.getuid === "function" && process.getuid() === 0
if (!root || !has("apt-get")) {
  console.error(`missing: ${missing.join(", ")}; install them (Debian: apt-get install ${missing.join(" ")})`)
  process.exit(1)
}
console.error(`installing ${missing.join(", ")} with apt-get`)
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
execFileSync("apt-get", ["update", "-qq"], { stdio: ["ignore", "ignore", "inherit"], env })
execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], {
  stdio: ["ignore", "ignore", "inherit"],
  env
})
