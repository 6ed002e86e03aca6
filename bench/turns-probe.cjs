// Preloaded into a gateway by `gateway-paced.ts` (`--require`): on SIGUSR2 it writes one line to
// stderr, `turns-probe {…}`: libuv's loop count and events handled so far
// (`performance.nodeTiming.uvMetricsInfo`), and the process's resource usage (user and system
// CPU µs, minor page faults, context switches), plus V8's GC count and time (`PerformanceObserver`).
"use strict"
const { performance, PerformanceObserver } = require("node:perf_hooks")
let gcs = 0
let gcMillis = 0
let majors = 0
let majorMillis = 0
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcs++
    gcMillis += entry.duration
    // NODE_PERFORMANCE_GC_MAJOR (mark-compact)
    if (entry.detail?.kind === 4) {
      majors++
      majorMillis += entry.duration
    }
  }
}).observe({ entryTypes: ["gc"] })
// `TURNS_PROBE_PROFILE=<dir>`: a CPU profile of each window between two reads (V8's inspector),
// written to that directory: the measured calls only, not the start or the warm-up.
const profileDir = process.env.TURNS_PROBE_PROFILE
let session
let reads = 0
// `TURNS_PROBE_HEAP=<dir>`: V8's sampling heap profile of each window instead, read at its end:
// the allocation sites of what the window's scavenges did not collect (promoted, or still live).
const heapDir = process.env.TURNS_PROBE_HEAP
const profile = () => {
  if (profileDir === undefined && heapDir === undefined) return
  const inspector = require("node:inspector")
  if (session === undefined) {
    session = new inspector.Session()
    session.connect()
    session.post(heapDir !== undefined ? "HeapProfiler.enable" : "Profiler.enable")
  }
  if (heapDir !== undefined) {
    if (reads++ % 2 === 0) return session.post("HeapProfiler.startSampling", { samplingInterval: 1024 })
    return session.post("HeapProfiler.getSamplingProfile", (error, result) => {
      session.post("HeapProfiler.stopSampling")
      if (error === null) {
        require("node:fs").writeFileSync(
          require("node:path").join(heapDir, `window-${process.pid}-${reads >> 1}.heapprofile`),
          JSON.stringify(result.profile)
        )
      }
    })
  }
  if (reads++ % 2 === 0) return session.post("Profiler.start")
  session.post("Profiler.stop", (error, result) => {
    if (error === null) {
      require("node:fs").writeFileSync(
        require("node:path").join(profileDir, `window-${process.pid}-${reads >> 1}.cpuprofile`),
        JSON.stringify(result.profile)
      )
    }
  })
}
// `TURNS_PROBE_SNAPSHOT=<dir>`: a heap snapshot at every read (after a full collection: what stays).
let snapshots = 0
process.on("SIGUSR2", () => {
  profile()
  if (process.env.TURNS_PROBE_SNAPSHOT !== undefined) {
    require("node:v8").writeHeapSnapshot(
      require("node:path").join(process.env.TURNS_PROBE_SNAPSHOT, `heap-${process.pid}-${snapshots++}.heapsnapshot`)
    )
  }
  const uv = performance.nodeTiming.uvMetricsInfo
  const r = process.resourceUsage()
  process.stderr.write(`turns-probe ${JSON.stringify({
    loops: uv.loopCount,
    events: uv.events,
    user: r.userCPUTime,
    system: r.systemCPUTime,
    minflt: r.minorPageFault,
    vcsw: r.voluntaryContextSwitches,
    ivcsw: r.involuntaryContextSwitches,
    gcs,
    gcMillis,
    majors,
    majorMillis
  })}\n`)
})
