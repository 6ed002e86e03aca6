/**
 * The official conformance suite's client authorization scenarios against our client (`McpAuth`
 * under the conformance driver): the 14 of 2025-11-25, the 25 of 2026-07-28, the two of 2025-03-26
 * and the six auth extensions, which are on no timeline and run without a version. A file of its
 * own, so that it runs beside the other files rather than after them.
 */
import { describe, it } from "@effect/vitest"
import { passed, scenario } from "./clientSuite.js"

/** The authorization scenarios of 2025-11-25; 2026-07-28 has them and more. */
const auth2025 = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration"
]

const authScenarios: ReadonlyArray<readonly [string, "2025-03-26" | "2025-11-25" | "2026-07-28" | undefined]> = [
  ...auth2025.map((name) => [name, "2025-11-25"] as const),
  ...[
    ...auth2025,
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch"
  ].map((name) => [name, "2026-07-28"] as const),
  ["auth/2025-03-26-oauth-metadata-backcompat", "2025-03-26"],
  ["auth/2025-03-26-oauth-endpoint-fallback", "2025-03-26"],
  // The auth extensions (ext-auth): on no timeline, so without a version.
  ["auth/client-credentials-basic", undefined],
  ["auth/client-credentials-jwt", undefined],
  ["auth/wif-jwt-bearer", undefined],
  ["auth/enterprise-managed-authorization", undefined],
  ["auth/dpop", undefined],
  ["auth/dpop-nonce", undefined]
]

// Authorization is the client's HTTP, the same on every Node: run where CI runs the suite first
// (Node 20), so that CI's other passes stay within its time.
// A few at a time: each scenario is two child processes (the suite and the driver), which use the
// core the test worker leaves idle.
describe.runIf(process.versions.node.startsWith("20."))("official conformance suite, client, authorization", () => {
  for (const [name, version] of authScenarios) {
    it.concurrent(
      `${name} (${version ?? "extension"})`,
      { timeout: 60_000, retry: 1 },
      async () => passed(await scenario(name, version))
    )
  }
})
