// Installs a runtime pinned in scripts/runtimes.json (`bun`, `deno`, `workerd`) from the npm
// registry into its cache folder (bun and deno: node_modules/.cache/effect-mcp-runtimes; workerd:
// node_modules/.cache/effect-mcp-workerd), never globally, unless it is there at its version:
// `install(name)` returns the path of its binary; `node scripts/runtime-install.mjs bun deno` does it
// from a shell or a test. One install at a time per cache folder, across processes (the root
// scripts and the tests that start several runtimes at once would otherwise run `npm install` into
// one folder together): a lock directory made atomically, taken over when its process is gone.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const versions = JSON.parse(fs.readFileSync(path.join(root, "scripts/runtimes.json"), "utf8"))

/** The version of `name` installed in `cache`, if any. */
const installedVersion = (cache, name) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(cache, "node_modules", name, "package.json"), "utf8")).version
  } catch {
    return undefined
  }
}

/** Waits `millis` without a timer (this module runs before anything else of its script). */
const pause = (millis) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, millis)

/** Whether the process `pid` lives. */
const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === "EPERM"
  }
}

/** Runs `f` holding the lock of `cache` (waiting for another process's install to end). */
const locked = (cache, f) => {
  const lock = path.join(cache, ".installing")
  for (;;) {
    try {
      fs.mkdirSync(lock)
      fs.writeFileSync(path.join(lock, "pid"), String(process.pid))
      break
    } catch (error) {
      if (error.code !== "EEXIST") throw error
      const pid = Number(fs.existsSync(path.join(lock, "pid")) ? fs.readFileSync(path.join(lock, "pid"), "utf8") : "")
      // The process that holds it is gone (or died before it wrote its pid, a while ago): taken over.
      const orphan = pid === 0 && Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 10_000
      if ((pid > 0 && !alive(pid)) || orphan) fs.rmSync(lock, { recursive: true, force: true })
      else pause(200)
    }
  }
  try {
    return f()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/** The cache folder of each runtime. */
const caches = {
  bun: "node_modules/.cache/effect-mcp-runtimes",
  deno: "node_modules/.cache/effect-mcp-runtimes",
  workerd: "node_modules/.cache/effect-mcp-workerd"
}

/** The binary of the pinned `name`, installed first when it is not there at its version. */
export const install = (name) => {
  const cache = path.join(root, caches[name])
  const binary = path.join(cache, "node_modules/.bin", name)
  const ready = () => fs.existsSync(binary) && installedVersion(cache, name) === versions[name]
  if (ready()) return binary
  fs.mkdirSync(cache, { recursive: true })
  locked(cache, () => {
    if (ready()) return
    if (!fs.existsSync(path.join(cache, "package.json"))) fs.writeFileSync(path.join(cache, "package.json"), "{\"private\":true}")
    process.stderr.write(`installing ${name}@${versions[name]} into ${cache}\n`)
    const npm = spawnSync(
      "npm",
      ["install", "--prefix", cache, "--no-audit", "--no-fund", "--no-package-lock", `${name}@${versions[name]}`],
      { stdio: ["ignore", 2, 2] }
    )
    if (npm.status !== 0) process.exit(npm.status ?? 1)
  })
  return binary
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const name of process.argv.slice(2)) {
    if (!(name in caches)) {
      process.stderr.write("usage: node scripts/runtime-install.mjs <bun|deno|workerd>...\n")
      process.exit(2)
    }
    install(name)
  }
}
