import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: {
    conditions: ["@effect-mcp/source"]
  },
  ssr: {
    resolve: {
      conditions: ["@effect-mcp/source"]
    }
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    reporters: ["./test/support/SummaryReporter.ts", "default"],
    // A guard against a test that hangs, not a measure: a loaded machine takes several times as long.
    testTimeout: 60_000,
    // Two test files at once (vitest's default is one fewer than the CPUs: one, on the 2-core CI machines).
    // Most of the suite waits on child processes, sockets and timers, not on a CPU.
    maxWorkers: 2,
    minWorkers: 1
  }
})
