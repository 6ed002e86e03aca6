import * as path from "node:path"
import type { TestSpecification } from "vitest/node"
import { BaseSequencer } from "vitest/node"
import { defineConfig } from "vitest/config"

/**
 * The files that take longest (minutes each: packed projects installed from tarballs, the CLI's and the OAuth
 * flows' child processes, the client authorization conformance), longest first. A fresh clone has no timings of
 * an earlier run, and vitest then starts the largest files first: one of these started last kept its worker busy
 * for minutes after the other had finished.
 */
const slowest = [
  // Not the slowest: the API reference (docgen), a CPU's minute and a half, started first beside the others.
  "test/readme/ApiReference.test.ts",
  "test/pack/Create.test.ts",
  "test/cli/Cli.test.ts",
  "test/cli/App.test.ts",
  "test/pack/Pack.test.ts",
  "test/conformance/ClientAuthConformance.test.ts",
  "test/auth/Cli.test.ts",
  "test/cli/Tasks.test.ts",
  "test/cluster/Cluster.test.ts",
  "test/gateway/GatewayRedis.test.ts",
  "test/gateway/GatewayRawLane.test.ts",
  "apps/create/test/Create.test.ts"
]

/** vitest's own order (failed first, then longest by an earlier run's timings, else largest), the slowest first. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) => {
      const index = slowest.indexOf(path.relative(file.project.config.root, file.moduleId).split(path.sep).join("/"))
      return index === -1 ? slowest.length : index
    }
    // A stable sort: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}

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
    // `mcp` and the demo bundled from the built `dist/` before any file runs: what the test kit spawns.
    globalSetup: ["./test/support/bundles.ts"],
    // A guard against a test that hangs, not a measure: a loaded machine takes several times as long.
    testTimeout: 60_000,
    // Two test files at once (vitest's default is one fewer than the CPUs: one, on the 2-core CI machines).
    // Most of the suite waits on child processes, sockets and timers, not on a CPU.
    maxWorkers: 2,
    minWorkers: 1,
    sequence: { sequencer: SlowestFirst }
  }
})
