/**
 * What the bare `effect/*` imports of our tsc output cost at startup (issue 42), by instructions: the
 * add-only stdio server (`ours-stdio-server.ts`) as built, against a copy of the workspace's `dist`
 * where each file's `import * as X from "effect/Y"` of a module the server loads at startup is taken
 * from one module of its package (`dist/effectHub.js`, `export * as Y from "effect/Y"`). Node 22
 * reads a package's `package.json` again for each bare specifier it resolves (its `exports`, 40 kB for
 * effect, parsed each time: `modules/package_json_reader` spreads its lazy getters), so our ~300 such
 * imports cost about 1.3 M instructions each there, against 0.3 M on Node 20. A measurement, not a
 * build step: the copy is thrown away.
 *
 * `node dist/import-hub.js` (valgrind installed; the Node on the PATH runs the servers)
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Envelope from "./envelope.js"
import { BenchFailure, here, table } from "./proc.js"
import { instructions } from "./startup-instructions.js"

const root = here("../..")
const packages = ["core", "server", "client", "platform-node", "redis"]

/** The `effect/*` modules the server resolves at startup (the resolve hook of `StartupModules.test.ts`). */
const loadedAtStartup = (server: string): ReadonlySet<string> => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "import-hub-loaded-")), "loaded.txt")
  const envelope = Envelope.handshakeEra
  const input = [envelope.handshake!.initialize, envelope.handshake!.initialized, envelope.addCall(1)]
    .map((line) => line + "\n").join("")
  const run = spawnSync(process.execPath, [
    "--import",
    path.join(root, "packages/platform-node/test/fixtures/loaded-modules.mjs"),
    server
  ], { input, encoding: "utf8", env: { ...process.env, LOADED_MODULES_FILE: file } })
  if (run.status !== 0 || !fs.existsSync(file)) throw new BenchFailure(`${server}: ${run.stderr}`)
  const loaded = new Set<string>()
  for (const url of fs.readFileSync(file, "utf8").split("\n")) {
    const module = /\/effect\/dist\/esm\/(\w+)\.js$/.exec(url)
    if (module !== null) loaded.add(`effect/${module[1]}`)
  }
  fs.rmSync(path.dirname(file), { recursive: true, force: true })
  return loaded
}

/** Rewrites `dist`'s imports of the `loaded` modules to its package's hub; the modules the hub exports. */
const rewrite = (dist: string, loaded: ReadonlySet<string>): number => {
  const used = new Set<string>()
  const imports = /^import \* as (\w+) from "(effect\/\w+)";$/gm
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (entry.name.endsWith(".js")) {
        const text = fs.readFileSync(file, "utf8")
        let hub = path.relative(dir, path.join(dist, "effectHub.js"))
        if (!hub.startsWith(".")) hub = `./${hub}`
        const rewritten = text.replace(imports, (line, name: string, specifier: string) => {
          if (!loaded.has(specifier)) return line
          used.add(specifier)
          return `import { ${specifier.slice("effect/".length)} as ${name} } from "${hub}";`
        })
        if (rewritten !== text) fs.writeFileSync(file, rewritten)
      }
    }
  }
  walk(dist)
  fs.writeFileSync(
    path.join(dist, "effectHub.js"),
    [...used].sort().map((specifier) => `export * as ${specifier.slice("effect/".length)} from "${specifier}";\n`)
      .join("")
  )
  return used.size
}

const main = () => {
  const server = path.join(root, "bench/dist/ours-stdio-server.js")
  const loaded = loadedAtStartup(server)
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "import-hub-"))
  try {
    // The workspace's layout, its links kept: node_modules resolve into the same store.
    fs.symlinkSync(path.join(root, "node_modules"), path.join(work, "node_modules"))
    const hubs: Array<string> = []
    for (const name of packages) {
      const from = path.join(root, "packages", name)
      const to = path.join(work, "packages", name)
      fs.mkdirSync(to, { recursive: true })
      for (const part of ["dist", "package.json", "node_modules"]) {
        fs.cpSync(path.join(from, part), path.join(to, part), { recursive: true, verbatimSymlinks: true })
      }
      hubs.push(`${name} ${rewrite(path.join(to, "dist"), loaded)}`)
    }
    fs.mkdirSync(path.join(work, "bench"))
    for (const part of ["dist", "package.json", "node_modules"]) {
      fs.cpSync(path.join(root, "bench", part), path.join(work, "bench", part), {
        recursive: true,
        verbatimSymlinks: true
      })
    }
    const envelope = Envelope.handshakeEra
    const asBuilt = instructions(envelope, server, [])
    const hubbed = instructions(envelope, path.join(work, "bench/dist/ours-stdio-server.js"), [])
    process.stdout.write(
      table([
        [`add-only stdio server, tsc-compiled (Node ${process.version}, callgrind)`, "M instructions"],
        ["as built (bare effect/* imports in each file)", asBuilt.toFixed(0)],
        [`effect/* from a hub per package (${hubs.join(", ")} modules)`, hubbed.toFixed(0)],
        ["difference", (asBuilt - hubbed).toFixed(0)]
      ]).join("\n") + "\n"
    )
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

main()
