// McpToolkit (in process, packages/client/dist) on client-hostile-up.mjs over stdio (CASE: tools-100k: 100 pages
// of 1,000 tools; tools-50mb: one tool with a 50 MB description; pages-endless), run with --expose-gc. Prints
// the toolkit's outcome, seconds, and this process's heap after GC before and after (MiB), and its peak RSS.
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as v8 from "node:v8"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const { McpClient } = await import(path.join(root, "packages/client/dist/index.js"))
const McpToolkit = await import(path.join(root, "packages/client/dist/McpToolkit.js"))
const { NodeMcpClient } = await import(path.join(root, "packages/platform-node/dist/index.js"))
const require_ = (await import("node:module")).createRequire(path.join(root, "packages/client/package.json"))
const { Effect, Layer, Context } = require_("effect")

const mib = (x) => +(x / 1048576).toFixed(1)
const heapAfterGc = () => { globalThis.gc(); globalThis.gc(); return mib(process.memoryUsage().heapUsed) }
for (const kase of (process.env.CASES ?? "tools-100k,tools-50mb,pages-endless").split(",")) {
  const before = heapAfterGc()
  const t0 = performance.now()
  const program = Effect.scoped(Effect.gen(function*() {
    const client = yield* Layer.build(
      McpClient.layer({ clientInfo: { name: "probe", version: "1" }, era: "handshake" }).pipe(
        Layer.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: [path.join(here, "client-hostile-up.mjs"), kase] }))
      )
    ).pipe(Effect.map(Context.get(McpClient.McpClient)))
    const toolkit = yield* McpToolkit.make(client)
    const entries = yield* toolkit.entries
    const held = heapAfterGc()
    return { tools: entries.length, heapHeldMiB: held }
  }))
  const exit = await Effect.runPromiseExit(program)
  const seconds = +((performance.now() - t0) / 1000).toFixed(2)
  const outcome = exit._tag === "Success" ? exit.value : { error: String(exit.cause).split("\n")[0].slice(0, 200) }
  console.log(JSON.stringify({ case: kase, ...outcome, seconds, heapBeforeMiB: before, heapAfterMiB: heapAfterGc(), peakRssMiB: mib(process.resourceUsage().maxRSS * 1024), heapLimitMiB: mib(v8.getHeapStatistics().heap_size_limit) }))
}
