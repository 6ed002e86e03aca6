// The system servers some tests start for real: redis-server (the Redis-backed stores, sessions shared
// between instances) and nginx (instances behind a load balancer); and chromium, the browser that renders
// MCP Apps views in `mcp app`'s tests (driven by playwright-core). Installs what is missing with apt-get
// when it can (Debian or Ubuntu, as root); otherwise says what to install. Run by .ci/run before the tests.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"]
const has = (name) => dirs.some((dir) => dir !== "" && existsSync(`${dir}/${name}`))
const wanted = [["redis-server", "redis-server"], ["nginx", "nginx-light"], ["chromium", "chromium"]]
const missingNow = () => wanted.filter(([binary]) => !has(binary)).map(([, pkg]) => pkg)
if (missingNow().length === 0) process.exit(0)

// One install at a time on the machine (`.ci/run` starts one while pnpm installs, and the test command's own
// may come while it runs): a directory made atomically is the lock. The one that finds it waits for it to go
// (a lock older than 15 minutes is a run that died), then looks again at what is missing.
const lock = path.join(os.tmpdir(), "effect-mcp-services.lock")
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
for (;;) {
  try {
    mkdirSync(lock)
    break
  } catch (error) {
    if (error.code !== "EEXIST") throw error
    let age = 0
    try {
      age = Date.now() - statSync(lock).mtimeMs
    } catch {
      continue
    }
    if (age > 15 * 60_000) rmSync(lock, { recursive: true, force: true })
    else sleep(500)
  }
}
process.on("exit", () => rmSync(lock, { recursive: true, force: true }))
const missing = missingNow()
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
