/**
 * Ends a vitest run with the plain closing line `N passed, N failed` (and `, N skipped`),
 * so that any CI can count the tests whatever runner it knows; before it, the slowest test files
 * (what a CI run's time went to, to keep it within its bound).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { Reporter, TestModule } from "vitest/node"

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
      if (module.state() === "failed" && module.children.size === 0) failed++
    }
    const slowest = testModules
      .map((module) => {
        const { collectDuration, duration, setupDuration } = module.diagnostic()
        return {
          file: path.relative(process.cwd(), module.moduleId),
          seconds: (collectDuration + setupDuration + duration) / 1000
        }
      })
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 15)
      .map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(6)} s  ${file}`)
    const line = `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
    // Written as the process exits, after the default reporter's summary, so it is the last line.
    process.once("exit", () => fs.writeSync(1, `\nthe slowest test files:\n${slowest.join("\n")}\n\n${line}\n`))
  }
}
