/**
 * The server's own gauges and counters, beside the conventions' histograms (`Telemetry`): what a
 * dashboard of an MCP deployment watches. Recorded only where metrics are on (`Telemetry.enabled`):
 * sampled by one fiber every second, never on the request path, except a refusal's count.
 *
 * - `mcp.server.sessions`: handshake sessions held by this instance (`mcp.era`: `handshake`).
 * - `mcp.server.listens`: open `subscriptions/listen` requests.
 * - `mcp.server.tasks`: tasks by `mcp.task.status`, as this instance heard their changes.
 * - `mcp.server.event_store.bytes`: the bytes the event store holds (as its `maxBytes` counts them).
 * - `mcp.server.refused`: HTTP requests refused, by `reason` (`unauthorized`, `forbidden`,
 *   `unknown_session`, `too_large`, `unavailable`, ...) and `http.response.status_code`.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type * as TaskMemory from "./taskMemory.js"

export const sessions = Metric.gauge("mcp.server.sessions", {
  description: "Handshake-era sessions held by this instance"
})

export const listens = Metric.gauge("mcp.server.listens", {
  description: "Open subscriptions/listen requests (2026-07-28)"
})

export const tasks = Metric.gauge("mcp.server.tasks", { description: "Tasks by status, as this instance heard them" })

export const eventStoreBytes = Metric.gauge("mcp.server.event_store.bytes", {
  description: "Bytes held by the event store (resumable streams)"
})

export const refused = Metric.counter("mcp.server.refused", {
  description: "HTTP requests refused before reaching a handler, by reason",
  incremental: true
})

/** Every second, for the lifetime of the scope: `sample` (a failure of it is skipped). */
export const sampleEvery = (sample: Effect.Effect<void, unknown>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.asVoid(Effect.forkScoped(
    Effect.repeat(Effect.ignore(sample), Schedule.spaced(Duration.seconds(1)))
  ))

const statuses = ["working", "input_required", "completed", "failed", "cancelled"] as const
const statusLabels = new Map(statuses.map((s) => [s, [MetricLabel.make("mcp.task.status", s)]]))

/**
 * `mcp.server.tasks`, kept from the store's changes for the lifetime of the scope: each task's
 * last status known (at most as many as the store holds; a task removed is forgotten).
 */
export const followTasks = (store: TaskMemory.Store): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const known = new Map<string, string>()
    const counts = new Map<string, number>(statuses.map((s) => [s, 0]))
    const set = (status: string, by: number) => {
      const n = (counts.get(status) ?? 0) + by
      counts.set(status, n)
      const labels = statusLabels.get(status as typeof statuses[number])
      if (labels !== undefined) tasks.unsafeUpdate(n, labels)
    }
    for (const status of statuses) set(status, 0)
    yield* Effect.forkScoped(store.follow((change) =>
      Effect.sync(() => {
        const before = known.get(change.taskId)
        const after = change.record?.status
        if (before === after) return
        if (before !== undefined) set(before, -1)
        if (after === undefined) known.delete(change.taskId)
        else {
          known.set(change.taskId, after)
          set(after, 1)
        }
      })
    ))
  })

const reasons: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "unknown_session",
  405: "method_not_allowed",
  406: "not_acceptable",
  409: "conflict",
  413: "too_large",
  415: "unsupported_media_type",
  429: "too_many_requests",
  503: "unavailable"
}

/** Counts one refusal with HTTP `status` (4xx and 5xx; anything else is not one). */
export const countRefused = (status: number) => {
  if (status < 400) return
  refused.unsafeUpdate(1, [
    MetricLabel.make("reason", reasons[status] ?? (status >= 500 ? "server_error" : "client_error")),
    MetricLabel.make("http.response.status_code", String(status))
  ])
}
