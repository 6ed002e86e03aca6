/**
 * The experimental core tasks of 2025-11-25 (SEP-1686): a request carrying `params.task`
 * may be answered with a {@link CreateTaskResult}, then polled with `tasks/get`, fetched
 * with `tasks/result`, listed with `tasks/list` and cancelled with `tasks/cancel`.
 *
 * 2026-07-28 moved tasks into the `io.modelcontextprotocol/tasks` extension, which has
 * its own shapes: see the `TasksExtension` module.
 *
 * @since 0.1.0
 */
import * as Internal from "../internal/schema/tasks.js"

const built = Internal.tasks()

/**
 * The state of a task. `working` and `input_required` may alternate; `completed`,
 * `failed` and `cancelled` are terminal.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatus = Internal.TaskStatus

/**
 * @since 0.1.0
 * @category models
 */
export type TaskStatus = typeof TaskStatus.Type

/**
 * The `params.task` of a task-augmented request: the requested time to live in
 * milliseconds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskMetadata = Internal.TaskMetadata

/**
 * @since 0.1.0
 * @category models
 */
export type TaskMetadata = typeof TaskMetadata.Type

/**
 * The optional `task` field of a task-augmented request (`tools/call`,
 * `sampling/createMessage`, `elicitation/create` in 2025-11-25), for spreading into a
 * struct's fields.
 *
 * @since 0.1.0
 * @category fields
 */
export const taskField = Internal.taskField

/**
 * A task. `ttl` is milliseconds from creation, `null` for unlimited; `pollInterval`
 * is the suggested polling interval in milliseconds.
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
 * The value of `_meta["io.modelcontextprotocol/related-task"]`, which tags every
 * message that belongs to a task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RelatedTaskMetadata = built.RelatedTaskMetadata

/**
 * @since 0.1.0
 * @category models
 */
export type RelatedTaskMetadata = typeof RelatedTaskMetadata.Type

/**
 * The immediate answer to an accepted task-augmented request.
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
 * Result of `tasks/get`: the task's fields.
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
 * Params of `tasks/result`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskPayloadRequestParams = built.GetTaskPayloadRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type GetTaskPayloadRequestParams = typeof GetTaskPayloadRequestParams.Type

/**
 * Result of `tasks/result`: exactly the result of the underlying request, so an open
 * object. Decode it with that request's result schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetTaskPayloadResult = built.GetTaskPayloadResult

/**
 * @since 0.1.0
 * @category models
 */
export type GetTaskPayloadResult = typeof GetTaskPayloadResult.Type

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
 * Result of `tasks/cancel`: the task, now `cancelled`.
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
 * Params of `tasks/list`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListTasksRequestParams = built.ListTasksRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type ListTasksRequestParams = typeof ListTasksRequestParams.Type

/**
 * Result of `tasks/list`: a page of tasks.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListTasksResult = built.ListTasksResult

/**
 * @since 0.1.0
 * @category models
 */
export type ListTasksResult = typeof ListTasksResult.Type

/**
 * Params of `notifications/tasks/status`: the task's fields.
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
