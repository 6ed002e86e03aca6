/**
 * An OTLP/HTTP receiver (JSON) on a free port, for the tests whose children export by the standard
 * OTEL_* variables: it keeps the spans posted to /v1/traces and the metrics posted to /v1/metrics,
 * each with the service that sent it, until the scope closes; and the children themselves.
 */
import { Services } from "@effect-mcp/test-support"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** A span as OTLP/JSON carries it (kind: 1 INTERNAL, 2 SERVER, 3 CLIENT; status code: 2 ERROR). */
export interface ReceivedSpan {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly statusCode: number
  readonly statusMessage: string | undefined
  readonly attributes: Record<string, unknown>
  /** The attributes of each of its events (an exception's message and stack trace). */
  readonly events: ReadonlyArray<Record<string, unknown>>
}

/** One data point of a metric and its unit: a histogram's bounds and count, or a gauge's or a sum's value. */
export interface ReceivedPoint {
  readonly service: string
  readonly name: string
  readonly unit: string
  readonly type: "histogram" | "gauge" | "sum"
  readonly attributes: Record<string, unknown>
  readonly explicitBounds?: ReadonlyArray<number>
  readonly count?: number
  readonly value?: number
}

type Value = Record<string, unknown> | undefined
type Attribute = { readonly key: string; readonly value: Value }

const valueOf = (v: Value): unknown =>
  v === undefined ? undefined : v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue

const attributesOf = (list: ReadonlyArray<Attribute> | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]))

const serviceOf = (resource: { attributes?: ReadonlyArray<Attribute> } | undefined): string =>
  String(attributesOf(resource?.attributes)["service.name"])

/** Who waits for something to arrive (at a receiver, or from a child): each checks again at every arrival. */
const waiting = new Set<() => void>()

const arrived = () => {
  for (const check of [...waiting]) check()
}

/**
 * Waits until `found` finds something (not `undefined` or `false`) in what a receiver or a child
 * has, checked again each time something arrives: no polling. The guard (60 s) only bounds a wait
 * for what never comes: a child's start and its exports on a loaded machine take what they take.
 */
export const until = <A>(found: () => A | undefined | false, what: string) =>
  Effect.async<A>((resume) => {
    const check = () => {
      const value = found()
      if (value === undefined || value === false) return
      waiting.delete(check)
      resume(Effect.succeed(value))
    }
    waiting.add(check)
    check()
    return Effect.sync(() => waiting.delete(check))
  }).pipe(
    Effect.timeoutFail({ duration: Duration.seconds(60), onTimeout: () => new Error(`nothing arrived: ${what}`) }),
    Effect.orDie
  )

/** Starts the receiver: its base URL (for OTEL_EXPORTER_OTLP_ENDPOINT) and what it has received. */
export const receiver = Effect.gen(function*() {
  const spans: Array<ReceivedSpan> = []
  const points: Array<ReceivedPoint> = []
  const port = yield* Services.freePort
  const server = http.createServer((req, res) => {
    let body = ""
    req.on("data", (chunk: Buffer) => body += chunk.toString())
    req.on("end", () => {
      const parsed = body === "" ? {} : JSON.parse(body)
      if (req.url === "/v1/traces") {
        for (const resourceSpans of parsed.resourceSpans ?? []) {
          const service = serviceOf(resourceSpans.resource)
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                statusCode: span.status?.code ?? 0,
                statusMessage: span.status?.message || undefined,
                attributes: attributesOf(span.attributes),
                events: (span.events ?? []).map((event: { attributes?: ReadonlyArray<Attribute> }) =>
                  attributesOf(event.attributes)
                )
              })
            }
          }
        }
      } else if (req.url === "/v1/metrics") {
        for (const resourceMetrics of parsed.resourceMetrics ?? []) {
          const service = serviceOf(resourceMetrics.resource)
          for (const scope of resourceMetrics.scopeMetrics ?? []) {
            for (const metric of scope.metrics ?? []) {
              const type = metric.histogram ? "histogram" : metric.gauge ? "gauge" : metric.sum ? "sum" : undefined
              if (type === undefined) continue
              for (const point of metric[type].dataPoints ?? []) {
                points.push({
                  service,
                  name: metric.name,
                  unit: metric.unit,
                  type,
                  attributes: attributesOf(point.attributes),
                  ...(type === "histogram"
                    ? { explicitBounds: point.explicitBounds, count: Number(point.count) }
                    : { value: Number(point.asDouble ?? point.asInt) })
                })
              }
            }
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
      arrived()
    })
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
    () => Effect.sync(() => server.close())
  )
  return { url: `http://127.0.0.1:${port}`, spans, points }
})

/** The variables that point a child's export at `url`, in JSON, flushed often. */
export const exportTo = (url: string): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "100",
  OTEL_METRIC_EXPORT_INTERVAL: "100"
})

/**
 * `node <args>` with `env` added to this process's, once it has said `ready` on stderr (when given):
 * what it writes to stdout, line by line; `stop` (SIGTERM, then its exit: it flushes what it
 * buffered) and `exited` (its exit, unasked). Killed when the scope closes.
 */
export const start = (args: ReadonlyArray<string>, env: Record<string, string>, ready?: string) =>
  Effect.gen(function*() {
    const child: ChildProcess = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
    )
    const lines: Array<string> = []
    let partial = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split("\n")
      partial = parts.pop()!
      lines.push(...parts.filter((line) => line !== ""))
      arrived()
    })
    let said = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString()
      arrived()
    })
    if (ready !== undefined) {
      yield* Effect.async<void>((resume) => {
        const check = () => said.includes(ready) && resume(Effect.void)
        check()
        child.stderr!.on("data", check)
      }).pipe(Effect.timeout(Duration.seconds(45)))
    }
    const exited = Effect.async<void>((resume) => {
      if (child.exitCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
    }).pipe(Effect.timeout(Duration.seconds(10)), Effect.ignore)
    const stop = Effect.suspend(() => {
      if (child.exitCode === null) child.kill("SIGTERM")
      return exited
    })
    return { child, lines, stop, exited, stderr: () => said }
  })
