/**
 * Preloaded into a server under soak (`node --import dist/peak.js …`): samples the process's
 * memory every 20 ms and keeps the peaks of the V8 heap in use and of the resident set, written
 * as JSON to the file `PEAK_FILE` names (every 200 ms, and at exit). Nothing touches stdout.
 *
 * A benchmark helper, not a test.
 */
import { writeFileSync } from "node:fs"

const file = process.env.PEAK_FILE
if (file !== undefined) {
  let heapUsed = 0
  let rss = 0
  const sample = () => {
    const memory = process.memoryUsage()
    heapUsed = Math.max(heapUsed, memory.heapUsed)
    rss = Math.max(rss, memory.rss)
  }
  const write = () => {
    sample()
    writeFileSync(file, JSON.stringify({ heapUsed, rss }))
  }
  setInterval(sample, 20).unref()
  setInterval(write, 200).unref()
  process.on("exit", write)
}
