// Preload for probes (run the process with --expose-gc): on SIGUSR2, full GCs a turn apart, then one
// line `COUNTS {...}` on stderr: process.memoryUsage(), the live Effect fibers
// (v8.queryObjects on their prototypes: the effect module the process itself loads, same realpath),
// and the pending timers (process.getActiveResourcesInfo: what a sleeping fiber holds).
const fs = require("node:fs")
const v8 = require("node:v8")
let protos
const load = async () => {
  if (protos !== undefined) return protos
  const Effect = await import("effect/Effect")
  const fiber = Effect.runFork(Effect.void)
  // queryObjects counts the objects with `ctor.prototype` on their prototype chain.
  const ctor = (prototype) => Object.assign(function() {}, { prototype })
  protos = {
    fiber: ctor(Object.getPrototypeOf(fiber))
  }
  return protos
}
const turn = () => new Promise((resolve) => setImmediate(resolve))
process.on("SIGUSR2", async () => {
  const { fiber } = await load()
  for (let i = 0; i < 3; i++) {
    await turn()
    globalThis.gc?.()
  }
  const resources = process.getActiveResourcesInfo()
  const counts = {
    ...process.memoryUsage(),
    fibers: v8.queryObjects(fiber, { format: "count" }),
    timers: resources.filter((r) => r === "Timeout").length
  }
  fs.writeSync(2, `COUNTS ${JSON.stringify(counts)}\n`)
})
