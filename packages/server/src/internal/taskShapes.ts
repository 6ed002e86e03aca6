/**
 * What the two revisions' tasks look like on the wire (2025-11-25's `Task`, the extension's `Task`
 * and `DetailedTask`), and what both sides of the tasks runtime say of a record: ended or not, the
 * errors of an unknown task and of a store that is unavailable or full.
 */
import { McpError } from "@effect-mcp/core"
import type { Schema as McpSchema } from "@effect-mcp/core"
import type * as TaskStore from "../TaskStore.js"

type TaskRecord = TaskStore.TaskRecord

/** Has the task ended (completed, failed or cancelled)? */
export const isTerminal = (status: TaskStore.Status): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/** A task the caller cannot reach, or that is gone: -32602. */
export const unknownTask = (taskId: string) => new McpError.InvalidParams({ message: `Unknown task: ${taskId}` })

export const unavailable = (error: TaskStore.TaskStoreUnavailable | TaskStore.TaskStoreFull): McpError.McpError =>
  new McpError.InternalError({ message: error.message })

const iso = (millis: number) => new Date(millis).toISOString()

/** A task as 2025-11-25 puts it (`ttl`, `pollInterval`). */
export const task20251125 = (record: TaskRecord): McpSchema.Tasks.Task => ({
  taskId: record.taskId,
  status: record.status,
  ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
  createdAt: iso(record.createdAt),
  lastUpdatedAt: iso(record.lastUpdatedAt),
  ttl: record.ttlMs,
  pollInterval: record.pollIntervalMs
})

/** A task as the extension puts it (`ttlMs`, `pollIntervalMs`). */
export const taskExtension = (record: TaskRecord): McpSchema.TasksExtension.Task => ({
  taskId: record.taskId,
  status: record.status,
  ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
  createdAt: iso(record.createdAt),
  lastUpdatedAt: iso(record.lastUpdatedAt),
  ttlMs: record.ttlMs,
  pollIntervalMs: record.pollIntervalMs
})

/** The extension's `DetailedTask`: the task with its open input requests, result or error. */
export const detailed = (record: TaskRecord): Record<string, unknown> => {
  const task: Record<string, unknown> = { ...taskExtension(record) }
  if (record.status === "input_required") task.inputRequests = record.inputRequests
  if (record.status === "completed" && record.outcome?._tag === "Result") task.result = record.outcome.result
  if (record.status === "failed") {
    task.error = record.outcome?._tag === "Error"
      ? record.outcome.error
      : { code: -32603, message: "The task failed" }
  }
  return task
}
