/**
 * The version ranges a new project is given: ours as published together (this package's own
 * version, every `@effect-mcp` package has it), and the Effect 3 line they are built on. An
 * unranged `effect`, `@effect/platform-node` or `@effect/opentelemetry` resolves to the 4.x line
 * today, which these packages do not support; `@effect/vitest` 0.30 goes with `vitest` 3.
 * `apps/create/test/Create.test.ts` checks each against what this repository builds and tests
 * with.
 *
 * @since 0.1.0
 */

/**
 * The version of every `@effect-mcp` package published with this one.
 *
 * @since 0.1.0
 * @category versions
 */
export const effectMcp = "0.1.0"

/**
 * The ranges of everything else a project depends on, by package name.
 *
 * @since 0.1.0
 * @category versions
 */
export const ranges = {
  "effect": "^3.22.4",
  "@effect/platform": "^0.97.2",
  "@effect/platform-node": "^0.108.2",
  "@effect/vitest": "^0.30.0",
  "vitest": "^3.2.7",
  "typescript": "^5.9.3",
  "@types/node": "^20.19.0",
  "@effect/opentelemetry": "^0.64.1",
  "@opentelemetry/api": "^1.9.0",
  "@opentelemetry/resources": "^2.12.1",
  "@opentelemetry/sdk-trace-base": "^2.12.1",
  "@opentelemetry/sdk-trace-node": "^2.12.1",
  "@opentelemetry/exporter-trace-otlp-proto": "^0.223.1"
} as const

/**
 * A package name known to {@link ranges}.
 *
 * @since 0.1.0
 * @category versions
 */
export type Known = keyof typeof ranges
