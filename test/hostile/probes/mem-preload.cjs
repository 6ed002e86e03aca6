// Preload for probes: writes process.memoryUsage() to stderr every 250 ms, and on SIGUSR2.
const fs = require("node:fs")
const t0 = Date.now()
const report = (tag) => {
  const m = process.memoryUsage()
  const mb = (x) => (x / 1048576).toFixed(1)
  fs.writeSync(2, `MEM ${tag} t=${Date.now() - t0} rss=${mb(m.rss)} heapUsed=${mb(m.heapUsed)} heapTotal=${mb(m.heapTotal)} external=${mb(m.external)} arrayBuffers=${mb(m.arrayBuffers)}\n`)
}
setInterval(() => report("tick"), 250).unref()
process.on("SIGUSR2", () => report("usr2"))
if (process.env.DPROBE_GC) {
  const { PerformanceObserver, constants } = require("node:perf_hooks")
  const kinds = { [constants.NODE_PERFORMANCE_GC_MAJOR]: "major", [constants.NODE_PERFORMANCE_GC_MINOR]: "minor", [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental", [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb" }
  const counts = {}
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const k = kinds[e.detail?.kind ?? e.kind] ?? "other"
      counts[k] = (counts[k] ?? 0) + 1
      if (k === "major") { const m = process.memoryUsage(); fs.writeSync(2, `GC major t=${Date.now() - t0} ms=${e.duration.toFixed(1)} arrayBuffersAfter=${(m.arrayBuffers / 1048576).toFixed(1)} rss=${(m.rss / 1048576).toFixed(1)} counts=${JSON.stringify(counts)}\n`) }
    }
  }).observe({ entryTypes: ["gc"] })
}
