/**
 * The schemas of `Schema/TasksExtension.ts`, built when first asked for (`tasksExtension()`), not when the module is
 * evaluated: a server that never uses the feature never builds them (`Schema/TasksExtension.ts` re-exports
 * them, built on its import).
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { JsonObject, JsonValue } from "../../Schema/Base.js"
import * as Stateless from "../../Schema/Stateless.js"
import { DeferredId } from "../guard.js"
import { inputRequired } from "./inputRequired.js"
import * as Tasks from "./tasks.js"

/** The extension identifier (`Schema/TasksExtension.ts` re-exports it). */
export const extensionId = "io.modelcontextprotocol/tasks" as const

const make = () => {
  const { InputRequests, InputResponses } = inputRequired()
  const TasksExtensionCapability = Schema.Struct({}).annotations({ identifier: "TasksExtensionCapability" })

  const TaskStatus = Tasks.TaskStatus

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

  const Task = Schema.Struct(taskFields).annotations({ identifier: "Task" })

  const TaskError = Schema.Struct({
    code: Schema.Int,
    message: Schema.String,
    data: Schema.optional(JsonValue)
  }).annotations({ identifier: "Error" })

  const detailedFields = {
    working: { ...taskFields, status: Schema.Literal("working") },
    input_required: { ...taskFields, status: Schema.Literal("input_required"), inputRequests: InputRequests },
    completed: { ...taskFields, status: Schema.Literal("completed"), result: JsonObject },
    failed: { ...taskFields, status: Schema.Literal("failed"), error: TaskError },
    cancelled: { ...taskFields, status: Schema.Literal("cancelled") }
  }

  const WorkingTask = Schema.Struct(detailedFields.working).annotations({ identifier: "WorkingTask" })

  const InputRequiredTask = Schema.Struct(detailedFields.input_required).annotations({
    identifier: "InputRequiredTask"
  })

  const CompletedTask = Schema.Struct(detailedFields.completed).annotations({ identifier: "CompletedTask" })

  const FailedTask = Schema.Struct(detailedFields.failed).annotations({ identifier: "FailedTask" })

  const CancelledTask = Schema.Struct(detailedFields.cancelled).annotations({ identifier: "CancelledTask" })

  const DetailedTask = Schema.Union(WorkingTask, InputRequiredTask, CompletedTask, FailedTask, CancelledTask)
    .annotations({ identifier: "DetailedTask" })

  const CreateTaskResult = Schema.Struct({
    resultType: Schema.Literal("task"),
    _meta: Schema.optional(Stateless.ResultMeta),
    ...taskFields
  }).annotations({ identifier: "CreateTaskResult" })

  const taskIdParams = {
    _meta: Stateless.RequestMeta,
    taskId: Schema.String
  }

  const GetTaskRequestParams = Schema.Struct(taskIdParams).annotations({ identifier: "GetTaskRequestParams" })

  const completeFields = {
    resultType: Schema.Literal("complete"),
    _meta: Schema.optional(Stateless.ResultMeta)
  }

  const GetTaskResult = Schema.Union(
    Schema.Struct({ ...completeFields, ...detailedFields.working }),
    Schema.Struct({ ...completeFields, ...detailedFields.input_required }),
    Schema.Struct({ ...completeFields, ...detailedFields.completed }),
    Schema.Struct({ ...completeFields, ...detailedFields.failed }),
    Schema.Struct({ ...completeFields, ...detailedFields.cancelled })
  ).annotations({ identifier: "GetTaskResult" })

  // Any record on the wire. What a sender puts there (and what tests generate) is input responses:
  // the arbitrary is theirs, given as the declaration's type parameter (`arbitrary: () =>
  // Arbitrary.makeLazy(InputResponses)` kept effect's Arbitrary module, 11 KB, in every Worker's
  // bundle). It checks as the record it stands for (`DeferredId`, as `internal/shapes.ts`'s deferred).
  const Responses = Schema.Record({ key: Schema.String, value: Schema.Unknown })
  const AnyResponses = Schema.declare([InputResponses], {
    decode: () => (input, options) => ParseResult.decodeUnknownEither(Responses)(input, options),
    encode: () => (input, options) => ParseResult.encodeUnknownEither(Responses)(input, options)
  }, {
    [DeferredId]: () => Responses.ast,
    arbitrary: (responses) => responses
  })

  const UpdateTaskRequestParams = Schema.Struct({
    ...taskIdParams,
    inputResponses: AnyResponses
  }).annotations({ identifier: "UpdateTaskRequestParams" })

  const UpdateTaskResult = Schema.Struct(completeFields).annotations({ identifier: "UpdateTaskResult" })

  const CancelTaskRequestParams = Schema.Struct(taskIdParams).annotations({
    identifier: "CancelTaskRequestParams"
  })

  const CancelTaskResult = Schema.Struct(completeFields).annotations({ identifier: "CancelTaskResult" })

  const notificationFields = { _meta: Schema.optional(Stateless.NotificationMeta) }

  const TaskStatusNotificationParams = Schema.Union(
    Schema.Struct({ ...notificationFields, ...detailedFields.working }),
    Schema.Struct({ ...notificationFields, ...detailedFields.input_required }),
    Schema.Struct({ ...notificationFields, ...detailedFields.completed }),
    Schema.Struct({ ...notificationFields, ...detailedFields.failed }),
    Schema.Struct({ ...notificationFields, ...detailedFields.cancelled })
  ).annotations({ identifier: "TaskStatusNotificationParams" })

  const TaskSubscriptionNotifications = Schema.Struct({
    taskIds: Schema.optional(Schema.Array(Schema.String))
  }).annotations({ identifier: "TaskSubscriptionNotifications" })

  const TaskSubscriptionAcknowledgedNotifications = TaskSubscriptionNotifications.annotations({
    identifier: "TaskSubscriptionAcknowledgedNotifications"
  })
  return {
    TasksExtensionCapability,
    TaskStatus,
    Task,
    TaskError,
    WorkingTask,
    InputRequiredTask,
    CompletedTask,
    FailedTask,
    CancelledTask,
    DetailedTask,
    CreateTaskResult,
    GetTaskRequestParams,
    GetTaskResult,
    UpdateTaskRequestParams,
    UpdateTaskResult,
    CancelTaskRequestParams,
    CancelTaskResult,
    TaskStatusNotificationParams,
    TaskSubscriptionNotifications,
    TaskSubscriptionAcknowledgedNotifications
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/TasksExtension.ts`, built on the first call. */
export const tasksExtension = (): ReturnType<typeof make> => built ??= make()
