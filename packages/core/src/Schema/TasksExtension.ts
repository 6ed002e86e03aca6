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
import type * as Tasks from "./Tasks.js"

import * as Built from "../internal/schema/tasksExtension.js"

const built = Built.tasksExtension()

/**
 * The extension identifier, the key in `capabilities.extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const extensionId = Built.extensionId

/**
 * The extension's settings object: none defined, so empty.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TasksExtensionCapability = built.TasksExtensionCapability

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
export const TaskStatus = built.TaskStatus

/**
 * @since 0.1.0
 * @category models
 */
export type TaskStatus = Tasks.TaskStatus

/**
 * A task (`ttlMs` / `pollIntervalMs`, renamed from the 2025-11-25 `ttl` / `pollInterval`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Task = built.Task

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
export const TaskError = built.TaskError

/**
 * @since 0.1.0
 * @category models
 */
export type TaskError = typeof TaskError.Type

/**
 * A task that is running.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkingTask = built.WorkingTask

/**
 * A task waiting for input: every outstanding input request (answer with `tasks/update`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputRequiredTask = built.InputRequiredTask

/**
 * A finished task: `result` is exactly the underlying request's result (a tool result
 * with `isError: true` included).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CompletedTask = built.CompletedTask

/**
 * A task whose request ended in a JSON-RPC error.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FailedTask = built.FailedTask

/**
 * A cancelled task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelledTask = built.CancelledTask

/**
 * A task with what its status carries, discriminated by `status`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DetailedTask = built.DetailedTask

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
export const CreateTaskResult = built.CreateTaskResult

/**
 * @since 0.1.0
 * @category models
 */
export type CreateTaskResult = typeof CreateTaskResult.Type

/**
 * Params of `tasks/get`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskRequestParams = built.GetTaskRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type GetTaskRequestParams = typeof GetTaskRequestParams.Type

/**
 * Result of `tasks/get`: the detailed task, `resultType: "complete"`. A union by
 * `status`, so it carries its own envelope (do not wrap it with `Stateless.result`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskResult = built.GetTaskResult

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
export const UpdateTaskRequestParams = built.UpdateTaskRequestParams

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
export const UpdateTaskResult = built.UpdateTaskResult

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
export const CancelTaskRequestParams = built.CancelTaskRequestParams

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
export const CancelTaskResult = built.CancelTaskResult

/**
 * @since 0.1.0
 * @category models
 */
export type CancelTaskResult = typeof CancelTaskResult.Type

/**
 * Params of `notifications/tasks` (delivered on a `subscriptions/listen` stream only):
 * the detailed task. A union by `status`, so it carries its own `_meta` (do not wrap it
 * with `Stateless.notificationParams`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatusNotificationParams = built.TaskStatusNotificationParams

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
export const TaskSubscriptionNotifications = built.TaskSubscriptionNotifications

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
export const TaskSubscriptionAcknowledgedNotifications = built.TaskSubscriptionAcknowledgedNotifications

/**
 * @since 0.1.0
 * @category models
 */
export type TaskSubscriptionAcknowledgedNotifications = typeof TaskSubscriptionAcknowledgedNotifications.Type
