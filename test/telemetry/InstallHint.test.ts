/**
 * What `NodeTelemetry` says when the optional OpenTelemetry packages are missing: a defect whose install line names
 * the ranges that go with our Effect line (without them npm resolves `@effect/opentelemetry` 4.x, which wants
 * Effect 4, and refuses), the very line the observability guide gives. A child process runs the packed build
 * (`dist`) with every `@effect/opentelemetry` and `@opentelemetry/*` import failing as a missing package does.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")

/** A loader hook under which the OpenTelemetry packages are not installed. */
const missing = `data:text/javascript,${
  encodeURIComponent(`
import { register } from "node:module"
register("data:text/javascript," + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (/^(@effect\\\\/opentelemetry|@opentelemetry\\\\/)/.test(specifier)) {
    throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: "ERR_MODULE_NOT_FOUND" })
  }
  return next(specifier, context)
}\`))
`)
}`

/** The defect's message when the layer exports what `env` says. */
const defectWith = async (env: Record<string, string>): Promise<string> => {
  const script = `
import { NodeTelemetry } from "@effect-mcp/platform-node"
import { Cause, Effect, Exit, Layer } from "effect"
const settings = NodeTelemetry.settingsFromEnv({ env: ${JSON.stringify(env)}, serviceName: "hint" })
const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(NodeTelemetry.layer(settings))))
const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
process.stdout.write(defect instanceof Error ? defect.message : "no defect")
`
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", missing, "--input-type=module", "-e", script],
    { cwd: here, encoding: "utf8" }
  )
  return stdout
}

/** The install line of the observability guide. */
const guideLine = (): string => {
  const guide = fs.readFileSync(path.join(root, "docs/observability.md"), "utf8")
  const line = guide.split("\n").find((line) => line.startsWith("npm install @effect/opentelemetry"))
  assert.isDefined(line, "the observability guide gives the install line")
  return line!
}

describe("NodeTelemetry without the OpenTelemetry packages", () => {
  it("says what to install, with the ranges of our Effect line: the guide's line", async () => {
    const message = await defectWith({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_METRICS_EXPORTER: "none"
    })
    assert.include(message, `(${guideLine()})`)
    assert.include(message, "Cannot find package '@effect/opentelemetry")
  })

  it("over OTLP/JSON, the JSON exporter; for metrics alone, @effect/opentelemetry", async () => {
    const json = await defectWith({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRICS_EXPORTER: "none"
    })
    assert.include(json, guideLine().replace("exporter-trace-otlp-proto", "exporter-trace-otlp-http"))
    const metrics = await defectWith({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_TRACES_EXPORTER: "none"
    })
    assert.include(metrics, "(npm install @effect/opentelemetry@^0.64)")
  })
})
