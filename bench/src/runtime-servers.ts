/**
 * The servers of the runtime benchmarks (`runtimes.ts`) on Bun, Deno and workerd: the runtimes
 * from the npm registry at the versions pinned in `scripts/runtimes.json`, installed on first use
 * where `pnpm run everything:bun` / `everything:workerd` install them
 * (`node_modules/.cache/effect-mcp-runtimes`, `…/effect-mcp-workerd`), never globally; each
 * server (`web-ours.ts`, `web-sdk.ts`, `web-bare.ts`) bundled by esbuild into one ES module per
 * runtime in `dist/runtimes/` (for Bun and Deno with `web-serve.ts`, as Node-like platforms
 * resolve packages; for workerd as a Worker, with the `workerd` and `worker` conditions as
 * wrangler resolves them), and started as a child of this process on a free port of 127.0.0.1,
 * pinned to the server CPU like the Node children (`proc.ts`).
 */
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BenchFailure, type Child, freePort, here, pinnedCommand, spawnCommand, waitForLine } from "./proc.js"

export type Runtime = "bun" | "deno" | "workerd"
export type Kind = "ours" | "sdk" | "bare" | "platform" | "effect" | "stateless"

const root = here("../..")
const versions = JSON.parse(readFileSync(join(root, "scripts/runtimes.json"), "utf8")) as Record<Runtime, string>
const caches = {
  bun: join(root, "node_modules/.cache/effect-mcp-runtimes"),
  deno: join(root, "node_modules/.cache/effect-mcp-runtimes"),
  workerd: join(root, "node_modules/.cache/effect-mcp-workerd")
} as const
/** The runtime's binary, as `install` puts it. */
export const binary = (runtime: Runtime) => join(caches[runtime], "node_modules/.bin", runtime)
const dist = here("./runtimes")

export const version = (runtime: Runtime): string => versions[runtime]

/** Installs the runtime from the npm registry unless the pinned version is there. */
export const install = (runtime: Runtime): void => {
  const file = join(caches[runtime], "node_modules", runtime, "package.json")
  const installed = existsSync(binary(runtime)) && existsSync(file) &&
    JSON.parse(readFileSync(file, "utf8")).version === versions[runtime]
  if (installed) return
  mkdirSync(caches[runtime], { recursive: true })
  if (!existsSync(join(caches[runtime], "package.json"))) {
    writeFileSync(join(caches[runtime], "package.json"), "{\"private\":true}")
  }
  process.stderr.write(`installing ${runtime}@${versions[runtime]} into ${caches[runtime]}\n`)
  const npm = spawnSync("npm", [
    "install",
    "--prefix",
    caches[runtime],
    "--no-audit",
    "--no-fund",
    "--no-package-lock",
    `${runtime}@${versions[runtime]}`
  ], { stdio: ["ignore", 2, 2] })
  if (npm.status !== 0) throw new BenchFailure(`npm install of ${runtime}@${versions[runtime]} failed`)
}

/** The bundle of a server for a runtime (one file; with BENCH_WORKER_SPLIT=1 the Worker's entry chunk). */
export const bundleFile = (runtime: Runtime, kind: Kind) =>
  join(dist, `${kind}-${runtime === "workerd" ? "worker" : "serve"}.mjs`)

/**
 * `BENCH_WORKER_SPLIT=1`: each Worker bundled with esbuild's code splitting into `<kind>-split/`, its
 * chunks given to workerd as modules, so that what is imported dynamically (`jose`, `oauth4webapi`,
 * `yaml`, @effect/platform's HTTP modules) is neither parsed nor evaluated until it is used; its size
 * is then that of the modules loaded at startup.
 */
const split = process.env.BENCH_WORKER_SPLIT === "1"

const splitDir = (kind: Kind) => join(dist, `${kind}-split`)

const bundleSplit = async (kind: Kind): Promise<number> => {
  const outdir = splitDir(kind)
  rmSync(outdir, { recursive: true, force: true })
  const result = await build({
    stdin: { contents: `export { worker as default } from "./web-${kind}.js"`, resolveDir: here("."), loader: "js" },
    outdir,
    entryNames: "worker",
    chunkNames: "chunk-[hash]",
    outExtension: { ".js": ".mjs" },
    splitting: true,
    bundle: true,
    format: "esm",
    minify: process.env.BENCH_RUNTIME_MINIFY !== "0",
    metafile: true,
    platform: "browser",
    conditions: ["workerd", "worker"],
    logLevel: "warning"
  })
  const outputs = result.metafile.outputs
  const eager = new Set<string>()
  const visit = (file: string): void => {
    if (eager.has(file)) return
    eager.add(file)
    for (const imported of outputs[file]?.imports ?? []) {
      if (imported.kind === "import-statement") visit(imported.path)
    }
  }
  visit(Object.keys(outputs).find((file) => outputs[file]!.entryPoint !== undefined)!)
  return [...eager].reduce((total, file) => total + (outputs[file]?.bytes ?? 0), 0)
}

/** Bundles a server for a runtime (Bun and Deno share theirs); its size in bytes. */
export const bundle = async (runtime: Runtime, kind: Kind): Promise<number> => {
  const worker = runtime === "workerd"
  if (worker && split) return bundleSplit(kind)
  const outfile = bundleFile(runtime, kind)
  await build({
    stdin: {
      contents: worker
        ? `export { worker as default } from "./web-${kind}.js"`
        : `import { served } from "./web-${kind}.js"\nimport { serve } from "./web-serve.js"\nserve(served)`,
      resolveDir: here("."),
      loader: "js"
    },
    outfile,
    bundle: true,
    format: "esm",
    // Unminified for a profile's sake: BENCH_RUNTIME_MINIFY=0.
    minify: process.env.BENCH_RUNTIME_MINIFY !== "0",
    platform: worker ? "browser" : "node",
    conditions: worker ? ["workerd", "worker"] : [],
    logLevel: "warning"
  })
  return statSync(outfile).size
}

/** A server child and its port, once it listens. */
export interface Started {
  readonly child: Child
  readonly port: number
  /** `performance.now()` just before the process was spawned, and once it listened. */
  readonly spawnedAt: number
  readonly listeningAt: number
}

/** workerd's Cap'n Proto config: one Worker on `127.0.0.1:<port>`, the bundle embedded. */
const workerdConfig = (kind: Kind, port: number): string => {
  const file = split ? join(splitDir(kind), `${port}.capnp`) : join(dist, `${kind}-${port}.capnp`)
  const modules = split
    ? ["worker.mjs", ...readdirSync(splitDir(kind)).filter((f) => f.endsWith(".mjs") && f !== "worker.mjs")]
      .map((name) => `(name = "${name}", esModule = embed "${name}")`).join(", ")
    : `(name = "worker.mjs", esModule = embed "${kind}-worker.mjs")`
  writeFileSync(
    file,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")]
);
const worker :Workerd.Worker = (
  modules = [${modules}],
  compatibilityDate = "2026-11-01"
);
`
  )
  return file
}

/** Waits for workerd's `listen` event on its control pipe (fd 3). */
const workerdListening = (child: Child): Promise<void> =>
  new Promise((resolve, reject) => {
    const pipe = child.process.stdio[3] as NodeJS.ReadableStream
    let text = ""
    pipe.setEncoding("utf8")
    pipe.on("data", (chunk: string) => {
      text += chunk
      if (text.includes("\"event\":\"listen\"")) resolve()
    })
    void child.exited.then((code) => reject(new BenchFailure(`workerd exited (${code}): ${child.stderr()}`)))
  })

/** Extra flags of a runtime from the environment, e.g. `BENCH_BUN_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"`. */
const flags = (name: string): Array<string> => (process.env[name] ?? "").split(" ").filter((flag) => flag.length > 0)

/** Starts a bundled server on its runtime; resolves once it listens. */
export const start = async (runtime: Runtime, kind: Kind): Promise<Started> => {
  const port = await freePort()
  if (runtime === "workerd") {
    const config = workerdConfig(kind, port)
    const [command, args] = pinnedCommand(binary("workerd"), ["serve", config, "--control-fd", "3"])
    const spawnedAt = performance.now()
    // workerd does not exit when its stdin ends.
    const child = spawnCommand(command, args, { extraPipe: true, stopSignal: "SIGKILL" })
    try {
      await workerdListening(child)
    } finally {
      // Read at startup: not needed once it listens.
      rmSync(config, { force: true })
    }
    return { child, port, spawnedAt, listeningAt: performance.now() }
  }
  const file = bundleFile(runtime, kind)
  const [command, args] = runtime === "bun"
    ? pinnedCommand(binary("bun"), [...flags("BENCH_BUN_FLAGS"), file, "--port", String(port)])
    : pinnedCommand(binary("deno"), [
      "run",
      "--allow-net",
      "--allow-env",
      "--v8-flags=--expose-gc",
      ...flags("BENCH_DENO_FLAGS"),
      file,
      "--port",
      String(port)
    ])
  const spawnedAt = performance.now()
  const child = spawnCommand(command, args, {
    env: { ...process.env, DENO_DIR: join(caches.deno, "deno-dir"), DENO_NO_UPDATE_CHECK: "1" }
  })
  try {
    await waitForLine(child, (line) => (line === "ready" ? true : undefined), `${kind} on ${runtime} to listen`)
  } catch (error) {
    child.process.kill("SIGKILL")
    throw error
  }
  return { child, port, spawnedAt, listeningAt: performance.now() }
}
