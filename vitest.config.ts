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
    testTimeout: 30_000
  }
})
