/**
 * What the two revisions' tasks look like on the wire (2025-11-25's `Task`, the extension's `Task`
 * and `DetailedTask`), and what both sides of the tasks runtime say of a record: ended or not, the
 * errors of an unknown task and of a store that is unavailable or full, and the record's change once a run ends.
 */
import { McpError, Revision } from "@effect-mcp/core"
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as TaskStore from "../TaskStore.js"
import type * as Tool from "../Tool.js"
import * as Shape from "./shape.js"

type TaskRecord = TaskStore.TaskRecord

/**
 * No input requests, or no answers: one object for every record that has none (read-only, as
 * every record's are: a change makes new ones), rather than two empty objects a task.
 */
export const noInput: Readonly<Record<string, unknown>> = Object.freeze({})

/** Has the task ended (completed, failed or cancelled)? */
export const isTerminal = (status: TaskStore.Status): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/** A task the caller cannot reach, or that is gone: -32602. */
export const unknownTask = (taskId: string) => new McpError.InvalidParams({ message: `Unknown task: ${taskId}` })

export const unavailable = (error: TaskStore.TaskStoreUnavailable | TaskStore.TaskStoreFull): McpError.McpError =>
  new McpError.InternalError({ message: error.message })

/** A time as the wire writes it (ISO 8601). */
const iso = (millis: number): string => new Date(millis).toISOString()

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

/** The outcome of a finished run, as the record's terminal change (none while it runs on: interrupted). */
export const outcomeOf = (
  record: TaskRecord,
  exit: Exit.Exit<Tool.Result, McpError.McpError>
): Partial<TaskRecord> | undefined => {
  const f = Revision.features(record.revision as Revision.Revision)
  if (Exit.isSuccess(exit)) {
    const shaped = Shape.callToolResult(exit.value, f) as unknown as Record<string, unknown>
    const result = f.tasks === "extension" ? { ...shaped, resultType: "complete" } : shaped
    // 2025-11-25: a tool's error result fails the task; the extension keeps it completed.
    const status = f.tasks === "core" && exit.value.isError === true ? "failed" : "completed"
    return { status, outcome: { _tag: "Result", result } }
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    return {
      status: "failed",
      outcome: { _tag: "Error", error: failure.value.toWire(record.revision as Revision.Revision) }
    }
  }
  // Interrupted, not by a cancel (which ended it already): its request went as it became a task.
  if (Cause.isInterruptedOnly(exit.cause)) return { status: "cancelled", statusMessage: "Interrupted" }
  return {
    status: "failed",
    outcome: { _tag: "Error", error: { code: -32603, message: "Internal error" } }
  }
}
