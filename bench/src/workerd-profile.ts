/**
 * `pnpm workerd-profile`: where a Worker's cold start goes inside workerd itself (issue 38), not in
 * V8 under Node (`runtimes.ts` part `v8`). For each server kind (BENCH_PROFILE_KINDS, default
 * `stateless,sdk`), its Worker bundled unminified (`runtime-servers.ts`), and workerd started with
 * `--inspector-addr` and an entry module that imports the bundle on the first request, so that
 * the module's evaluation happens while V8's sampling profiler runs (`Profiler.start` over the
 * DevTools protocol, Node's own `WebSocket`): one profile from before the module is evaluated to the
 * first `tools/call` answered. Printed: the time of the module's evaluation and of the rest (the
 * first request, which builds our server), each by bundled module (esbuild's `// path` comments)
 * and by function (inclusive), and the `.cpuprofile` written to BENCH_PROFILE_DIR (default
 * `/tmp/workerd-profile`) for Chrome DevTools. Then, without the inspector (which slows V8 about
 * 2x), a run per kind with `--trace-gc` in workerd's `v8Flags`: the young-generation collections
 * before the first answer, which a bundle's allocations at startup cost in workerd (a smaller
 * semi-space than Node's), and the process's CPU time (`/proc/<pid>/task/<tid>/schedstat`, ns).
 *
 * Profiled milliseconds are inflated by the profiler (sampling every BENCH_PROFILE_INTERVAL µs,
 * default 100) and are wall time: on a loaded machine a preempted process charges the pause to the
 * frame on the stack (a one-line function may show tens of ms of self time). Compare kinds within
 * one run, repeat it, and do not compare with `runtimes.ts`' CPU figures.
 *
 * A profiling tool, not a test nor a benchmark with targets.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stateless } from "./envelope.js"
import { BenchFailure, freePort } from "./proc.js"
import { binary, bundle, bundleFile, install, type Kind } from "./runtime-servers.js"

const kinds = (process.env.BENCH_PROFILE_KINDS ?? "stateless,sdk").split(",") as Array<Kind>
const out = process.env.BENCH_PROFILE_DIR ?? "/tmp/workerd-profile"
const interval = Number(process.env.BENCH_PROFILE_INTERVAL ?? 100)
const top = Number(process.env.BENCH_PROFILE_TOP ?? 25)

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** A config of one Worker: `worker.mjs` (the entry) and `real.mjs` (the bundle), with `v8Flags`. */
const config = (dir: string, port: number, entry: string, v8Flags: ReadonlyArray<string>): string => {
  const file = join(dir, `${port}.capnp`)
  writeFileSync(
    file,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
  v8Flags = [${v8Flags.map((flag) => JSON.stringify(flag)).join(", ")}]
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "${entry}"), (name = "real.mjs", esModule = embed "real.mjs")],
  compatibilityDate = "2026-11-01"
);
`
  )
  return file
}

const lazyEntry = "export default { async fetch(request, env, context) { " +
  "const worker = await import(\"./real.mjs\"); return worker.default.fetch(request, env, context) } }\n"
const eagerEntry = "export { default } from \"./real.mjs\"\n"

/** The process's CPU time in ms, every thread's (`schedstat`: ns, unlike `stat`'s 10 ms ticks). */
const cpuOf = (pid: number): number =>
  readdirSync(`/proc/${pid}/task`).reduce((total, task) => {
    try {
      return total + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]) / 1e6
    } catch {
      return total
    }
  }, 0)

const started = (
  dir: string,
  entry: string,
  v8Flags: ReadonlyArray<string>,
  inspector?: number
): Promise<
  { readonly child: ChildProcess; readonly port: number; /** stdout and stderr. */ readonly stderr: () => string }
> =>
  freePort().then((port) => {
    writeFileSync(join(dir, "entry.mjs"), entry)
    const file = config(dir, port, "entry.mjs", v8Flags)
    const child = spawn(binary("workerd"), [
      "serve",
      file,
      "--control-fd",
      "3",
      ...(inspector === undefined ? [] : ["--inspector-addr", `127.0.0.1:${inspector}`])
    ], { stdio: ["ignore", "pipe", "pipe", "pipe"] })
    let stderr = ""
    // V8's --trace-gc writes to stdout.
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    }
    return new Promise((resolve, reject) => {
      let text = ""
      const control = child.stdio[3] as NodeJS.ReadableStream
      control.setEncoding("utf8")
      control.on("data", (chunk: string) => {
        text += chunk
        if (text.includes("\"event\":\"listen\"")) resolve({ child, port, stderr: () => stderr })
      })
      child.on("exit", (code) => reject(new BenchFailure(`workerd exited (${code}): ${stderr}`)))
    })
  })

const firstCall = async (port: number): Promise<void> => {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    body: stateless.addCall(1),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "add",
      // As Cloudflare's edge sets it on every request to a Worker: ours names the client by it
      // (without it the first request logs that the platform gives no client address).
      "cf-connecting-ip": "203.0.113.7"
    }
  })
  const text = await response.text()
  if (!text.includes("\"sum\":2")) throw new BenchFailure(`answered ${response.status}: ${text.slice(0, 300)}`)
}

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

/** DevTools protocol calls over the inspector's WebSocket. */
const devtools = async (port: number) => {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<
    { readonly webSocketDebuggerUrl: string }
  >
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  const pending = new Map<number, (result: unknown) => void>()
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { readonly id?: number; readonly result?: unknown }
    if (message.id !== undefined) pending.get(message.id)?.(message.result)
  }
  let next = 0
  return {
    send: (method: string, params: object = {}): Promise<unknown> =>
      new Promise((resolve) => {
        const id = ++next
        pending.set(id, resolve)
        socket.send(JSON.stringify({ id, method, params }))
      }),
    close: () => socket.close()
  }
}

/** The bundled module of each line, from esbuild's `// path` comments. */
const modulesOf = (source: string): Array<string> => {
  let current = "(entry)"
  return source.split("\n").map((line) => {
    const path = /^\/\/ (\S+\.(?:m?js|ts))$/.exec(line)?.[1]
    if (path !== undefined) {
      current = path.replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(
        /^(\.\.\/)+(work\/\S+?\/)?/,
        ""
      )
    }
    return current
  })
}

const report = (kind: Kind, profile: Profile, source: string): Array<string> => {
  const modules = modulesOf(source)
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000))
  const isModuleBody = (frame: CallFrame) =>
    frame.url === "real.mjs" && frame.functionName === "" && frame.lineNumber <= 0
  const phaseOf = (id: number): "evaluation" | "first request" => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (isModuleBody(byId.get(at)!.callFrame)) return "evaluation"
    }
    return "first request"
  }
  const place = (frame: CallFrame) =>
    frame.url === "real.mjs" ? modules[frame.lineNumber] ?? "?" : frame.url === "" ? "(V8)" : frame.url
  const phases = new Map<string, number>()
  const byModule = new Map<string, number>()
  const inclusive = new Map<string, number>()
  for (const [id, ms] of self) {
    const phase = phaseOf(id)
    phases.set(phase, (phases.get(phase) ?? 0) + ms)
    const frame = byId.get(id)!.callFrame
    const key = `${phase}: ${frame.functionName.startsWith("(") ? frame.functionName : place(frame)}`
    byModule.set(key, (byModule.get(key) ?? 0) + ms)
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame
      if (f.functionName === "(root)") continue
      const name = `${phase}: ${f.functionName || "(anonymous)"} ${place(f)}:${f.lineNumber + 1}`
      if (!seen.has(name)) {
        seen.add(name)
        inclusive.set(name, (inclusive.get(name) ?? 0) + ms)
      }
    }
  }
  const rows = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, ms]) => `  ${ms.toFixed(1).padStart(7)} ms  ${name}`)
  return [
    `${kind}: ${[...phases].map(([phase, ms]) => `${phase} ${ms.toFixed(1)} ms`).join(", ")} (profiled)`,
    " self time by bundled module:",
    ...rows(byModule),
    " inclusive, by function:",
    ...rows(inclusive)
  ]
}

const main = async () => {
  install("workerd")
  mkdirSync(out, { recursive: true })
  process.env.BENCH_RUNTIME_MINIFY ??= "0"
  const lines: Array<string> = []
  for (const kind of kinds) {
    await bundle("workerd", kind)
    const source = readFileSync(bundleFile("workerd", kind), "utf8")
    const dir = join(out, kind)
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "real.mjs"), source)
    const inspector = await freePort()
    const { child, port } = await started(dir, lazyEntry, [], inspector)
    try {
      const tools = await devtools(inspector)
      await tools.send("Profiler.enable")
      await tools.send("Profiler.setSamplingInterval", { interval })
      await tools.send("Profiler.start")
      await firstCall(port)
      const { profile } = (await tools.send("Profiler.stop")) as { readonly profile: Profile }
      tools.close()
      writeFileSync(join(out, `${kind}.cpuprofile`), JSON.stringify(profile))
      lines.push(...report(kind, profile, source), "")
    } finally {
      await stop(child)
    }
    const traced = await started(dir, eagerEntry, ["--trace-gc"])
    const cpuListening = cpuOf(traced.child.pid!)
    await firstCall(traced.port)
    const cpu = cpuOf(traced.child.pid!)
    await stop(traced.child)
    const collections = traced.stderr().split("\n").filter((line) => /: (Scavenge|Mark-Compact|Minor)/.test(line))
    lines.push(
      `${kind} without the inspector: CPU ${cpuListening.toFixed(0)} ms to listening, ${
        cpu.toFixed(0)
      } ms to the first answer; ${collections.length} collections before it`,
      ...collections.map((line) => `  ${line.replace(/^\[[^\]]*\]\s*/, "").slice(0, 110)}`),
      ""
    )
  }
  lines.push(`profiles: ${out}/<kind>.cpuprofile (Chrome DevTools, Performance panel)`)
  process.stdout.write(lines.join("\n") + "\n")
}

main().catch((error) => {
  process.stderr.write(
    `WORKERD PROFILE FAILED: ${error instanceof BenchFailure ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
