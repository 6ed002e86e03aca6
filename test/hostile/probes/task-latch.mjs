// Probe (run with --expose-gc): the in-memory task store's TTL sweep, which sleeps on a latch while
// the store is empty (`internal/taskMemory.ts`), in process (`TaskStore.makeMemory` from
// packages/server/dist, sweepInterval 5 ms). CYCLES (default 20,000) rounds of: a task created, then
// removed (REMOVE=remove) or left to expire (REMOVE=ttl: a TTL of 1 ms, the sweep removes it); every
// 50th round waits for the store's next change (a sweep's removal, or 10 ms) so that the sweep closes
// the latch and sleeps on it again. Every SAMPLE rounds: live Effect fibers (v8.queryObjects), pending
// timers, heap after GC. A sleep or fiber kept per cycle would show as a slope.
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as v8 from "node:v8"
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const { TaskStore } = await import(path.join(root, "packages/server/dist/index.js"))
const Effect = await import(path.join(root, "packages/server/node_modules/effect/dist/esm/Effect.js"))
const Scope = await import(path.join(root, "packages/server/node_modules/effect/dist/esm/Scope.js"))
const Exit = await import(path.join(root, "packages/server/node_modules/effect/dist/esm/Exit.js"))
const cycles = Number(process.env.CYCLES ?? 20_000)
const every = Number(process.env.SAMPLE ?? 5_000)
const mode = process.env.REMOVE ?? "remove"
const fiberCtor = Object.assign(function() {}, { prototype: Object.getPrototypeOf(Effect.runFork(Effect.void)) })
const sample = async (at) => {
  for (let i = 0; i < 3; i++) { await new Promise((r) => setImmediate(r)); globalThis.gc() }
  return { cycle: at, fibers: v8.queryObjects(fiberCtor, { format: "count" }), timers: process.getActiveResourcesInfo().filter((r) => r === "Timeout").length, heapKiB: Math.round(process.memoryUsage().heapUsed / 1024) }
}
const scope = await Effect.runPromise(Scope.make())
const store = await Effect.runPromise(Scope.extend(TaskStore.makeMemory({ sweepInterval: "5 millis" }), scope))
const record = (i) => ({ taskId: `t${i}`, owner: "o", revision: "2026-07-28", method: "tools/call", name: "x", status: "working", statusMessage: undefined, createdAt: Date.now(), lastUpdatedAt: Date.now(), ttlMs: mode === "ttl" ? 1 : 60_000, pollIntervalMs: 500, inputRequests: {}, inputResponses: {}, outcome: undefined, cancelRequested: false, lease: undefined, version: 0 })
const samples = [await sample(0)]
const t0 = Date.now()
for (let i = 1; i <= cycles; i++) {
  await Effect.runPromise(store.create(record(i)))
  if (mode === "remove") await Effect.runPromise(store.remove(`t${i}`))
  if (i % 50 === 0 || mode === "ttl") {
    // The sweep runs within its interval: its removal (ttl), or its finding the store empty.
    await new Promise((r) => setTimeout(r, 10))
  }
  if (i % every === 0) samples.push(await sample(i))
}
const left = await Effect.runPromise(store.get(`t${cycles}`))
console.log(JSON.stringify({ mode, cycles, ms: Date.now() - t0, lastTaskLeft: left._tag === "Some", samples }))
await Effect.runPromise(Scope.close(scope, Exit.void))
