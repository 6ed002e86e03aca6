/**
 * The schemas of `Schema/Tasks.ts`, built when first asked for (`tasks()`), not when the
 * module is evaluated: a server without tasks of 2025-11-25 never builds them (`Schema/Tasks.ts`
 * re-exports them, built on its import). The status and the `params.task` metadata a request of any
 * revision may carry (`tools/call`, sampling, elicitation) are built with the module: they are small.
 */
import * as Schema from "effect/Schema"
import {
  JsonValue,
  metaField,
  PaginatedRequestParams,
  paginatedResultFields,
  RequestParams
} from "../../Schema/Base.js"

/** `Schema/Tasks.ts`' `TaskStatus`. */
export const TaskStatus = Schema.Literal("working", "input_required", "completed", "failed", "cancelled").annotations({
  identifier: "TaskStatus"
})

/** `Schema/Tasks.ts`' `TaskMetadata`. */
export const TaskMetadata = Schema.Struct({
  ttl: Schema.optional(Schema.Int)
}).annotations({ identifier: "TaskMetadata" })

/** `Schema/Tasks.ts`' `taskField`. */
export const taskField = { task: Schema.optional(TaskMetadata) }

const make = () => {
  const Task = Schema.Struct({
    taskId: Schema.String,
    status: TaskStatus,
    statusMessage: Schema.optional(Schema.String),
    createdAt: Schema.String,
    lastUpdatedAt: Schema.String,
    ttl: Schema.NullOr(Schema.Int),
    pollInterval: Schema.optional(Schema.Int)
  }).annotations({ identifier: "Task" })

  const RelatedTaskMetadata = Schema.Struct({
    taskId: Schema.String
  }).annotations({ identifier: "RelatedTaskMetadata" })

  const CreateTaskResult = Schema.Struct({
    ...metaField,
    task: Task
  }).annotations({ identifier: "CreateTaskResult" })

  const taskIdParams = {
    ...RequestParams.fields,
    taskId: Schema.String
  }

  const GetTaskRequestParams = Schema.Struct(taskIdParams).annotations({ identifier: "GetTaskRequestParams" })

  const GetTaskResult = Schema.Struct({
    ...metaField,
    ...Task.fields
  }).annotations({ identifier: "GetTaskResult" })

  const GetTaskPayloadRequestParams = Schema.Struct(taskIdParams).annotations({
    identifier: "GetTaskPayloadRequestParams"
  })

  const GetTaskPayloadResult = Schema.Struct(
    metaField,
    Schema.Record({ key: Schema.String, value: JsonValue })
  ).annotations({ identifier: "GetTaskPayloadResult" })

  const CancelTaskRequestParams = Schema.Struct(taskIdParams).annotations({
    identifier: "CancelTaskRequestParams"
  })

  const CancelTaskResult = Schema.Struct({
    ...metaField,
    ...Task.fields
  }).annotations({ identifier: "CancelTaskResult" })

  const ListTasksRequestParams = PaginatedRequestParams.annotations({ identifier: "ListTasksRequestParams" })

  const ListTasksResult = Schema.Struct({
    ...paginatedResultFields,
    tasks: Schema.Array(Task)
  }).annotations({ identifier: "ListTasksResult" })

  const TaskStatusNotificationParams = Schema.Struct({
    ...metaField,
    ...Task.fields
  }).annotations({ identifier: "TaskStatusNotificationParams" })

  return {
    Task,
    RelatedTaskMetadata,
    CreateTaskResult,
    GetTaskRequestParams,
    GetTaskResult,
    GetTaskPayloadRequestParams,
    GetTaskPayloadResult,
    CancelTaskRequestParams,
    CancelTaskResult,
    ListTasksRequestParams,
    ListTasksResult,
    TaskStatusNotificationParams
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Tasks.ts`, built on the first call. */
export const tasks = (): ReturnType<typeof make> => built ??= make()
