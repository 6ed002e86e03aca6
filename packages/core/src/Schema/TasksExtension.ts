/**
 * The 2026-07-28 tasks extension `io.modelcontextprotocol/tasks` (SEP-2663). The server
 * decides: a `tools/call` from a client that declared the extension may be answered with
 * a {@link CreateTaskResult} (`resultType: "task"`), which the client then polls with
 * `tasks/get`, answers with `tasks/update` and may cancel with `tasks/cancel`. Status
 * changes can be streamed with `subscriptions/listen` (`notifications.taskIds`).
 *
 * Every type here exists only in 2026-07-28, so each carries its own envelope: results
 * their `resultType` and `_meta`, requests the required per-request `_meta` (the extension
 * schema leaves it out, the core rules require it).
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import { JsonObject, JsonValue } from "./Base.js"
import { InputRequests, InputResponses } from "./InputRequired.js"
import * as Stateless from "./Stateless.js"
import * as Tasks from "./Tasks.js"

/**
 * The extension identifier, the key in `capabilities.extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const extensionId = "io.modelcontextprotocol/tasks" as const

/**
 * The extension's settings object: none defined, so empty.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TasksExtensionCapability = Schema.Struct({}).annotations({ identifier: "TasksExtensionCapability" })

/**
 * @since 0.1.0
 * @category models
 */
export type TasksExtensionCapability = typeof TasksExtensionCapability.Type

/**
 * The state of a task (same values as in 2025-11-25).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatus = Tasks.TaskStatus

/**
 * @since 0.1.0
 * @category models
 */
export type TaskStatus = Tasks.TaskStatus

const taskFields = {
  taskId: Schema.String,
  status: TaskStatus,
  statusMessage: Schema.optional(Schema.String),
  createdAt: Schema.String,
  lastUpdatedAt: Schema.String,
  /** Milliseconds from creation; `null` for unlimited. May change. */
  ttlMs: Schema.NullOr(Schema.Int),
  /** Suggested polling interval in milliseconds. May change. */
  pollIntervalMs: Schema.optional(Schema.Int)
}

/**
 * A task (`ttlMs` / `pollIntervalMs`, renamed from the 2025-11-25 `ttl` / `pollInterval`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Task = Schema.Struct(taskFields).annotations({ identifier: "Task" })

/**
 * @since 0.1.0
 * @category models
 */
export type Task = typeof Task.Type

/**
 * The JSON-RPC error object of a failed task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskError = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optional(JsonValue)
}).annotations({ identifier: "Error" })

/**
 * @since 0.1.0
 * @category models
 */
export type TaskError = typeof TaskError.Type

const detailedFields = {
  working: { ...taskFields, status: Schema.Literal("working") },
  input_required: { ...taskFields, status: Schema.Literal("input_required"), inputRequests: InputRequests },
  completed: { ...taskFields, status: Schema.Literal("completed"), result: JsonObject },
  failed: { ...taskFields, status: Schema.Literal("failed"), error: TaskError },
  cancelled: { ...taskFields, status: Schema.Literal("cancelled") }
}

/**
 * A task that is running.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkingTask = Schema.Struct(detailedFields.working).annotations({ identifier: "WorkingTask" })

/**
 * A task waiting for input: every outstanding input request (answer with `tasks/update`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputRequiredTask = Schema.Struct(detailedFields.input_required).annotations({
  identifier: "InputRequiredTask"
})

/**
 * A finished task: `result` is exactly the underlying request's result (a tool result
 * with `isError: true` included).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CompletedTask = Schema.Struct(detailedFields.completed).annotations({ identifier: "CompletedTask" })

/**
 * A task whose request ended in a JSON-RPC error.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FailedTask = Schema.Struct(detailedFields.failed).annotations({ identifier: "FailedTask" })

/**
 * A cancelled task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelledTask = Schema.Struct(detailedFields.cancelled).annotations({ identifier: "CancelledTask" })

/**
 * A task with what its status carries, discriminated by `status`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DetailedTask = Schema.Union(WorkingTask, InputRequiredTask, CompletedTask, FailedTask, CancelledTask)
  .annotations({ identifier: "DetailedTask" })

/**
 * @since 0.1.0
 * @category models
 */
export type DetailedTask = typeof DetailedTask.Type

/**
 * The answer to a request the server runs as a task: the task's fields at the top level
 * (no nested `task`), `resultType: "task"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateTaskResult = Schema.Struct({
  resultType: Schema.Literal("task"),
  _meta: Schema.optional(Stateless.ResultMeta),
  ...taskFields
}).annotations({ identifier: "CreateTaskResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type CreateTaskResult = typeof CreateTaskResult.Type

const taskIdParams = {
  _meta: Stateless.RequestMeta,
  taskId: Schema.String
}

/**
 * Params of `tasks/get`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskRequestParams = Schema.Struct(taskIdParams).annotations({ identifier: "GetTaskRequestParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type GetTaskRequestParams = typeof GetTaskRequestParams.Type

const completeFields = {
  resultType: Schema.Literal("complete"),
  _meta: Schema.optional(Stateless.ResultMeta)
}

/**
 * Result of `tasks/get`: the detailed task, `resultType: "complete"`. A union by
 * `status`, so it carries its own envelope (do not wrap it with `Stateless.result`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskResult = Schema.Union(
  Schema.Struct({ ...completeFields, ...detailedFields.working }),
  Schema.Struct({ ...completeFields, ...detailedFields.input_required }),
  Schema.Struct({ ...completeFields, ...detailedFields.completed }),
  Schema.Struct({ ...completeFields, ...detailedFields.failed }),
  Schema.Struct({ ...completeFields, ...detailedFields.cancelled })
).annotations({ identifier: "GetTaskResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type GetTaskResult = typeof GetTaskResult.Type

/**
 * Params of `tasks/update`: answers to (some of) the task's input requests. Read as any values
 * by key: a receiver ignores keys it did not ask (whatever they hold) and checks the answers to
 * those it did against what it asked (`InputResponses` is what a sender puts there).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UpdateTaskRequestParams = Schema.Struct({
  ...taskIdParams,
  inputResponses: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    // What a sender puts there (and what tests generate): input responses.
    arbitrary: () => Arbitrary.makeLazy(InputResponses)
  })
}).annotations({ identifier: "UpdateTaskRequestParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type UpdateTaskRequestParams = typeof UpdateTaskRequestParams.Type

/**
 * Result of `tasks/update`: empty (the update applies eventually).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UpdateTaskResult = Schema.Struct(completeFields).annotations({ identifier: "UpdateTaskResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type UpdateTaskResult = typeof UpdateTaskResult.Type

/**
 * Params of `tasks/cancel`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelTaskRequestParams = Schema.Struct(taskIdParams).annotations({
  identifier: "CancelTaskRequestParams"
})

/**
 * @since 0.1.0
 * @category models
 */
export type CancelTaskRequestParams = typeof CancelTaskRequestParams.Type

/**
 * Result of `tasks/cancel`: empty (cancellation is cooperative; the task may still end
 * `completed` or `failed`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelTaskResult = Schema.Struct(completeFields).annotations({ identifier: "CancelTaskResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type CancelTaskResult = typeof CancelTaskResult.Type

const notificationFields = { _meta: Schema.optional(Stateless.NotificationMeta) }

/**
 * Params of `notifications/tasks` (delivered on a `subscriptions/listen` stream only):
 * the detailed task. A union by `status`, so it carries its own `_meta` (do not wrap it
 * with `Stateless.notificationParams`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatusNotificationParams = Schema.Union(
  Schema.Struct({ ...notificationFields, ...detailedFields.working }),
  Schema.Struct({ ...notificationFields, ...detailedFields.input_required }),
  Schema.Struct({ ...notificationFields, ...detailedFields.completed }),
  Schema.Struct({ ...notificationFields, ...detailedFields.failed }),
  Schema.Struct({ ...notificationFields, ...detailedFields.cancelled })
).annotations({ identifier: "TaskStatusNotificationParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type TaskStatusNotificationParams = typeof TaskStatusNotificationParams.Type

/**
 * The extension's part of a `subscriptions/listen` filter: the tasks to watch.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskSubscriptionNotifications = Schema.Struct({
  taskIds: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "TaskSubscriptionNotifications" })

/**
 * @since 0.1.0
 * @category models
 */
export type TaskSubscriptionNotifications = typeof TaskSubscriptionNotifications.Type

/**
 * The extension's part of a `notifications/subscriptions/acknowledged` filter: the task
 * ids the server accepted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskSubscriptionAcknowledgedNotifications = TaskSubscriptionNotifications.annotations({
  identifier: "TaskSubscriptionAcknowledgedNotifications"
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskSubscriptionAcknowledgedNotifications = typeof TaskSubscriptionAcknowledgedNotifications.Type
