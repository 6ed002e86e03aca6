/**
 * The official MCP conformance suite against our client: `mcp <url>` (apps/cli, whose driver
 * mode runs McpClient over Streamable HTTP) is the command the suite runs with each scenario's
 * mock server, for the
 * client scenarios of 2025-11-25 and of 2026-07-28 (the authorization ones are
 * ClientAuthConformance.test.ts). A scenario passes when every check passes and nothing warns. Each scenario may
 * run twice: one run out of many timed out once in CI on this machine (not reproduced since).
 */
import { describe, it } from "@effect/vitest"
import { passed, scenario } from "./clientSuite.js"

const scenarios = {
  "2025-11-25": [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "json-schema-2020-12-preservation"
  ],
  "2026-07-28": [
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation"
  ]
} as const

for (const [version, names] of Object.entries(scenarios) as Array<[keyof typeof scenarios, ReadonlyArray<string>]>) {
  describe(`official conformance suite, client, ${version}`, () => {
    for (const name of names) {
      it(name, { timeout: 60_000, retry: 1 }, async () => passed(await scenario(name, version)))
    }
  })
}
