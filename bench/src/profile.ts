/**
 * Where a server's CPU time goes: reads `.cpuprofile` files (from `node --cpu-prof`, e.g. a
 * benchmark run with `BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"`) and prints self
 * time by function, by file, and by part:
 *
 * - `effect runtime`: the `effect` package (fibers, the scheduler, Context, Schema, …);
 * - `@effect/platform`: `@effect/platform` and `@effect/platform-node(-shared)`;
 * - `effect-mcp core` / `server` / `client` / `platform-node` / `cli`: our packages (their `dist/` or `src/`);
 * - `node http` / `node streams+net` / `node other`: Node's own JavaScript (`node:internal/…`);
 * - `native`: builtins and C++ entered from JavaScript (`(program)`, JSON, crypto, …);
 * - `gc`, `idle`.
 *
 * Percentages are of the busy time (all but idle). With several files, they are summed.
 * Samples under `node:inspector` (the profiler started by `control.ts`) are left out.
 * `--callers <function>` also prints the commonest call chains (4 frames up) of that function;
 * `--from-ms N` leaves out the first N ms of each profile (a whole-process `--cpu-prof` profile
 * starts with module loading); `--last-ms N` keeps only the N ms of each profile before its last
 * busy 100 ms (over a fifth busy), less its last 500 ms (its end): the measured calls of a process that served only
 * them last (a gateway of `gateway.ts`, busy only in its own rounds). `--calls N` also prints the
 * self time of each row per call, N calls in all (what the load driver counted in that window), to
 * set two processes side by side (ours and the floor, say) where their percentages do not compare.
 *
 * `node dist/profile.js <file.cpuprofile>… [--top N] [--callers <function>] [--from-ms N]
 * [--last-ms N] [--calls N]`
 */
import { readFileSync } from "node:fs"
import { table } from "./proc.js"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

const frameName = (frame: CallFrame): string =>
  `${frame.functionName || "(anonymous)"}${frame.url === "" ? "" : ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}`}`

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
  readonly startTime: number
}

/** The part of the process a frame belongs to. */
const partOf = (frame: CallFrame): string => {
  const { functionName: name, url } = frame
  if (name === "(idle)") return "idle"
  if (name === "(garbage collector)") return "gc"
  if (url === "") return "native"
  if (/\/effect\/(dist|src)\//.test(url) || url.includes("/node_modules/effect/")) return "effect runtime"
  if (url.includes("@effect/platform") || url.includes("@effect+platform")) return "@effect/platform"
  const ours = /\/packages\/(core|server|client|platform-node)\/(dist|src)\//.exec(url)
  if (ours !== null) return `effect-mcp ${ours[1]}`
  if (/\/apps\/cli\/(dist|src)\//.test(url)) return "effect-mcp cli"
  if (url.includes("@modelcontextprotocol")) return "MCP SDK"
  if (url.includes("/zod/") || url.includes("/zod@")) return "zod"
  if (url.startsWith("node:internal/http") || url.startsWith("node:_http") || url === "node:http") return "node http"
  if (/^node:(internal\/)?(streams?|net|stream_base|_stream|internal\/stream_base)/.test(url)) {
    return "node streams+net"
  }
  if (url.startsWith("node:")) return "node other"
  if (url.includes("/bench/")) return "bench"
  return "other js"
}

const shortUrl = (url: string): string => {
  const at = url.lastIndexOf("node_modules/")
  if (at >= 0) return url.slice(at + "node_modules/".length).replace(/^\.pnpm\/[^/]+\/node_modules\//, "")
  const packages = url.indexOf("/packages/")
  if (packages >= 0) return url.slice(packages + 1)
  return url.replace(/^file:\/\//, "")
}

const main = () => {
  const args = process.argv.slice(2)
  const option = (name: string): string | undefined => {
    const at = args.indexOf(name)
    return at >= 0 ? args[at + 1] : undefined
  }
  const top = Number(option("--top") ?? 30)
  const callersOf = option("--callers")
  const fromMicros = Number(option("--from-ms") ?? 0) * 1000
  const lastMicros = option("--last-ms") === undefined ? undefined : Number(option("--last-ms")) * 1000
  const calls = option("--calls") === undefined ? undefined : Number(option("--calls"))
  const files = args.filter((arg, i) => !arg.startsWith("--") && (i === 0 || !args[i - 1].startsWith("--")))
  if (files.length === 0) {
    process.stderr.write("usage: node dist/profile.js <file.cpuprofile>… [--top N]\n")
    process.exit(2)
  }
  const byFunction = new Map<string, number>()
  const byFile = new Map<string, number>()
  const byPart = new Map<string, number>()
  const callers = new Map<string, number>()
  let total = 0
  let idle = 0
  const add = (map: Map<string, number>, key: string, micros: number) => map.set(key, (map.get(key) ?? 0) + micros)
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as Profile
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
    const parents = new Map<number, number>()
    for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
    const stack = (id: number): Array<CallFrame> => {
      const frames: Array<CallFrame> = []
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
        frames.push(nodes.get(at)!.callFrame)
      }
      return frames
    }
    // With `--last-ms`: the window before the last busy 100 ms (over a fifth busy; its last
    // 500 ms left out: a process's end, or the end of its load).
    let until = Number.POSITIVE_INFINITY
    let from = fromMicros
    if (lastMicros !== undefined) {
      const busyBy = new Map<number, number>()
      let t = 0
      profile.samples.forEach((id, k) => {
        const micros = profile.timeDeltas[k] ?? 0
        t += micros
        const slot = Math.floor(t / 100_000)
        if (nodes.get(id)!.callFrame.functionName !== "(idle)") busyBy.set(slot, (busyBy.get(slot) ?? 0) + micros)
      })
      const lastBusy = Math.max(0, ...[...busyBy].filter(([, micros]) => micros > 20_000).map(([slot]) => slot))
      until = lastBusy * 100_000 - 500_000
      from = Math.max(from, until - lastMicros)
    }
    let at = 0
    profile.samples.forEach((id, k) => {
      const micros = profile.timeDeltas[k] ?? 0
      at += micros
      if (at < from || at > until) return
      const frames = stack(id)
      if (frames.some((f) => f.url === "node:inspector")) return
      const frame = frames[0]
      const part = partOf(frame)
      total += micros
      if (callersOf !== undefined && frame.functionName === callersOf) {
        add(callers, frames.slice(1, 5).map(frameName).join(" < "), micros)
      }
      if (part === "idle") {
        idle += micros
        return
      }
      add(byPart, part, micros)
      add(byFile, frame.url === "" ? "(native)" : shortUrl(frame.url), micros)
      add(byFunction, frameName(frame), micros)
    })
  }
  const busy = total - idle
  const pct = (micros: number) =>
    `${((micros / busy) * 100).toFixed(1)}%` + (calls === undefined ? "" : ` ${(micros / calls).toFixed(2)} µs/call`)
  const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1])
  const out = [
    `${files.length} profile(s): ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy ` +
    `(${((busy / total) * 100).toFixed(0)}%); percentages of busy time`,
    "",
    ...table([["part", "self", "%"], ...sorted(byPart).map(([k, v]) => [k, `${(v / 1000).toFixed(0)} ms`, pct(v)])]),
    "",
    ...table([
      ["file", "self", "%"],
      ...sorted(byFile).slice(0, top).map(([k, v]) => [k, `${(v / 1000).toFixed(0)} ms`, pct(v)])
    ]),
    "",
    ...table([
      ["function", "self", "%"],
      ...sorted(byFunction).slice(0, top).map(([k, v]) => [k, `${(v / 1000).toFixed(0)} ms`, pct(v)])
    ])
  ]
  if (callersOf !== undefined) {
    out.push(
      "",
      ...table([
        [`callers of ${callersOf}`, "self", "%"],
        ...sorted(callers).slice(0, 10).map(([k, v]) => [k, `${(v / 1000).toFixed(0)} ms`, pct(v)])
      ])
    )
  }
  process.stdout.write(out.join("\n") + "\n")
}

main()
