import { type SchemaSet, validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { parseOptions, RequestParams } from "../src/Schema/Base.js"
import * as Discovery from "../src/Schema/Discovery.js"
import * as Elicitation from "../src/Schema/Elicitation.js"
import * as InputRequired from "../src/Schema/InputRequired.js"
import * as Lifecycle from "../src/Schema/Lifecycle.js"
import * as Roots from "../src/Schema/Roots.js"
import * as Sampling from "../src/Schema/Sampling.js"
import * as Stateless from "../src/Schema/Stateless.js"
import * as Subscription from "../src/Schema/Subscription.js"
import * as Tasks from "../src/Schema/Tasks.js"
import * as TasksExtension from "../src/Schema/TasksExtension.js"
import * as Wire from "../src/Wire.js"
import { holds } from "./utils/Property.js"

type Any = Schema.Schema<any, any, never>

/** Params wrapped in a JSON-RPC request, for revisions without a standalone `…Params` definition. */
const request = (method: string, params: Any): Any =>
  Schema.Struct({
    jsonrpc: Schema.Literal("2.0"),
    id: Schema.Literal(1),
    method: Schema.Literal(method),
    params
  })

/** Params wrapped in a JSON-RPC notification. */
const notification = (method: string, params: Any): Any =>
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), method: Schema.Literal(method), params })

/** A bare `{ method, params }` input request (2026-07-28 `InputRequest` members, ext-tasks requests' params). */
const inputRequest = (method: string, params: Any): Any => Schema.Struct({ method: Schema.Literal(method), params })

/** Error `data` wrapped in a JSON-RPC error response. */
const errorResponse = (code: number, data: Any): Any =>
  Schema.Struct({
    jsonrpc: Schema.Literal("2.0"),
    id: Schema.Literal(1),
    error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String, data })
  })

const all: ReadonlyArray<SchemaSet> = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
const legacy: ReadonlyArray<SchemaSet> = ["2024-11-05", "2025-03-26", "2025-06-18"]
const handshake: ReadonlyArray<SchemaSet> = [...legacy, "2025-11-25"]
const elicitForms: ReadonlyArray<SchemaSet> = ["2025-06-18", "2025-11-25", "2026-07-28", "ext-tasks-draft"]
const modernElicit: ReadonlyArray<SchemaSet> = ["2025-11-25", "2026-07-28", "ext-tasks-draft"]
const modern: ReadonlyArray<SchemaSet> = ["2026-07-28", "ext-tasks-draft"]

const property = (name: string, schema: Any, official: string, sets: ReadonlyArray<SchemaSet>) =>
  it(`${name} ≙ ${official} @ ${sets.join(", ")}`, () => holds({ schema, official, sets }))

describe("Lifecycle", () => {
  property("InitializeRequestParams", Lifecycle.InitializeRequestParams, "InitializeRequestParams", ["2025-11-25"])
  property(
    "InitializeRequestParams",
    request("initialize", Lifecycle.InitializeRequestParams),
    "InitializeRequest",
    legacy
  )
  property("InitializeResult", Lifecycle.InitializeResult, "InitializeResult", handshake)
  property("InitializedNotificationParams", Lifecycle.InitializedNotificationParams, "NotificationParams", [
    "2025-11-25"
  ])
  property(
    "InitializedNotificationParams",
    notification("notifications/initialized", Lifecycle.InitializedNotificationParams),
    "InitializedNotification",
    legacy
  )
  property("PingRequestParams", Lifecycle.PingRequestParams, "RequestParams", ["2025-11-25"])
  property("PingRequestParams", request("ping", Lifecycle.PingRequestParams), "PingRequest", legacy)
  property("CancelledNotificationParams", Lifecycle.CancelledNotificationParams, "CancelledNotificationParams", [
    "2025-11-25",
    "2026-07-28"
  ])
  property(
    "CancelledNotificationParams",
    notification("notifications/cancelled", Lifecycle.CancelledNotificationParams),
    "CancelledNotification",
    legacy
  )
  property(
    "CancelledNotificationParams20251125",
    Lifecycle.CancelledNotificationParams20251125,
    "CancelledNotificationParams",
    ["2025-11-25"]
  )
  property("ProgressNotificationParams", Lifecycle.ProgressNotificationParams, "ProgressNotificationParams", [
    "2025-11-25",
    "2026-07-28"
  ])
  property(
    "ProgressNotificationParams",
    notification("notifications/progress", Lifecycle.ProgressNotificationParams),
    "ProgressNotification",
    legacy
  )
})

describe("Roots", () => {
  property("Root", Roots.Root, "Root", [...all, "ext-tasks-draft"])
  property("ListRootsRequestParams", Roots.ListRootsRequestParams, "RequestParams", ["2025-11-25"])
  property("ListRootsRequestParams", request("roots/list", Roots.ListRootsRequestParams), "ListRootsRequest", legacy)
  property(
    "ListRootsRequestParams",
    inputRequest("roots/list", Roots.ListRootsRequestParams),
    "ListRootsRequest",
    modern
  )
  property("ListRootsResult", Roots.ListRootsResult, "ListRootsResult", [...all, "ext-tasks-draft"])
  property("RootsListChangedNotificationParams", Roots.RootsListChangedNotificationParams, "NotificationParams", [
    "2025-11-25"
  ])
  property(
    "RootsListChangedNotificationParams",
    notification("notifications/roots/list_changed", Roots.RootsListChangedNotificationParams),
    "RootsListChangedNotification",
    legacy
  )
})

describe("Elicitation", () => {
  property("StringSchema", Elicitation.StringSchema, "StringSchema", elicitForms)
  property("NumberSchema", Elicitation.NumberSchema, "NumberSchema", elicitForms)
  property("BooleanSchema", Elicitation.BooleanSchema, "BooleanSchema", elicitForms)
  for (
    const [name, schema] of [
      ["UntitledSingleSelectEnumSchema", Elicitation.UntitledSingleSelectEnumSchema],
      ["TitledSingleSelectEnumSchema", Elicitation.TitledSingleSelectEnumSchema],
      ["UntitledMultiSelectEnumSchema", Elicitation.UntitledMultiSelectEnumSchema],
      ["TitledMultiSelectEnumSchema", Elicitation.TitledMultiSelectEnumSchema],
      ["LegacyTitledEnumSchema", Elicitation.LegacyTitledEnumSchema],
      ["PrimitiveSchemaDefinition", Elicitation.PrimitiveSchemaDefinition]
    ] as const
  ) {
    property(name, schema, name, modernElicit)
  }
  property("SingleSelectEnumSchema", Elicitation.SingleSelectEnumSchema, "SingleSelectEnumSchema", [
    "2025-11-25",
    "2026-07-28"
  ])
  property("MultiSelectEnumSchema", Elicitation.MultiSelectEnumSchema, "MultiSelectEnumSchema", [
    "2025-11-25",
    "2026-07-28"
  ])
  property("EnumSchema", Elicitation.EnumSchema, "EnumSchema", ["2025-11-25", "2026-07-28"])
  property("EnumSchema20250618", Elicitation.EnumSchema20250618, "EnumSchema", ["2025-06-18"])
  property(
    "PrimitiveSchemaDefinition20250618",
    Elicitation.PrimitiveSchemaDefinition20250618,
    "PrimitiveSchemaDefinition",
    ["2025-06-18"]
  )
  property(
    "RequestedSchema",
    Schema.Struct({ message: Schema.String, requestedSchema: Elicitation.RequestedSchema }),
    "ElicitRequestFormParams",
    modernElicit
  )
  property(
    "RequestedSchema20250618",
    request(
      "elicitation/create",
      Schema.Struct({ message: Schema.String, requestedSchema: Elicitation.RequestedSchema20250618 })
    ),
    "ElicitRequest",
    ["2025-06-18"]
  )
  property("ElicitRequestFormParams", Elicitation.ElicitRequestFormParams, "ElicitRequestFormParams", modernElicit)
  property("ElicitRequestURLParams", Elicitation.ElicitRequestURLParams, "ElicitRequestURLParams", modern)
  property("ElicitRequestURLParams20251125", Elicitation.ElicitRequestURLParams20251125, "ElicitRequestURLParams", [
    "2025-11-25"
  ])
  property("ElicitRequestParams", Elicitation.ElicitRequestParams, "ElicitRequestParams", modern)
  property("ElicitRequestParams20251125", Elicitation.ElicitRequestParams20251125, "ElicitRequestParams", [
    "2025-11-25"
  ])
  property(
    "ElicitRequestParams20250618",
    request("elicitation/create", Elicitation.ElicitRequestParams20250618),
    "ElicitRequest",
    ["2025-06-18"]
  )
  property("ElicitAction", Schema.Struct({ action: Elicitation.ElicitAction }), "ElicitResult", elicitForms)
  property("ElicitResult", Elicitation.ElicitResult, "ElicitResult", modernElicit)
  property("ElicitResult20250618", Elicitation.ElicitResult20250618, "ElicitResult", ["2025-06-18"])
  property(
    "ElicitationCompleteNotificationParams",
    notification("notifications/elicitation/complete", Elicitation.ElicitationCompleteNotificationParams),
    "ElicitationCompleteNotification",
    ["2025-11-25"]
  )
  property(
    "URLElicitationRequiredErrorData",
    errorResponse(-32042, Elicitation.URLElicitationRequiredErrorData),
    "URLElicitationRequiredError",
    ["2025-11-25"]
  )
})

describe("Sampling", () => {
  property("ModelHint", Sampling.ModelHint, "ModelHint", [...all, "ext-tasks-draft"])
  property("ModelPreferences", Sampling.ModelPreferences, "ModelPreferences", [...all, "ext-tasks-draft"])
  property("ToolUseContent", Sampling.ToolUseContent, "ToolUseContent", modernElicit)
  property("ToolResultContent", Sampling.ToolResultContent, "ToolResultContent", modern)
  property("ToolResultContent20251125", Sampling.ToolResultContent20251125, "ToolResultContent", ["2025-11-25"])
  property("SamplingMessageContentBlock", Sampling.SamplingMessageContentBlock, "SamplingMessageContentBlock", modern)
  property(
    "SamplingMessageContentBlock20251125",
    Sampling.SamplingMessageContentBlock20251125,
    "SamplingMessageContentBlock",
    ["2025-11-25"]
  )
  property("SamplingMessage", Sampling.SamplingMessage, "SamplingMessage", modern)
  property("SamplingMessage20251125", Sampling.SamplingMessage20251125, "SamplingMessage", ["2025-11-25"])
  property("SamplingMessage20250326", Sampling.SamplingMessage20250326, "SamplingMessage", [
    "2025-03-26",
    "2025-06-18"
  ])
  property("SamplingMessage20241105", Sampling.SamplingMessage20241105, "SamplingMessage", ["2024-11-05"])
  property("ToolChoice", Sampling.ToolChoice, "ToolChoice", modernElicit)
  property(
    "IncludeContext",
    Schema.Struct({
      includeContext: Sampling.IncludeContext,
      maxTokens: Schema.Int,
      messages: Schema.Tuple()
    }),
    "CreateMessageRequestParams",
    modernElicit
  )
  property("CreateMessageRequestParams", Sampling.CreateMessageRequestParams, "CreateMessageRequestParams", modern)
  property(
    "CreateMessageRequestParams20251125",
    Sampling.CreateMessageRequestParams20251125,
    "CreateMessageRequestParams",
    ["2025-11-25"]
  )
  property(
    "CreateMessageRequestParams20250326",
    request("sampling/createMessage", Sampling.CreateMessageRequestParams20250326),
    "CreateMessageRequest",
    ["2025-03-26", "2025-06-18"]
  )
  property(
    "CreateMessageRequestParams20241105",
    request("sampling/createMessage", Sampling.CreateMessageRequestParams20241105),
    "CreateMessageRequest",
    ["2024-11-05"]
  )
  property("CreateMessageResult", Sampling.CreateMessageResult, "CreateMessageResult", modern)
  property("CreateMessageResult20251125", Sampling.CreateMessageResult20251125, "CreateMessageResult", ["2025-11-25"])
  property("CreateMessageResult20250326", Sampling.CreateMessageResult20250326, "CreateMessageResult", [
    "2025-03-26",
    "2025-06-18"
  ])
  property("CreateMessageResult20241105", Sampling.CreateMessageResult20241105, "CreateMessageResult", ["2024-11-05"])
})

describe("Tasks (2025-11-25)", () => {
  const only: ReadonlyArray<SchemaSet> = ["2025-11-25"]
  for (
    const [name, schema] of [
      ["TaskStatus", Tasks.TaskStatus],
      ["TaskMetadata", Tasks.TaskMetadata],
      ["Task", Tasks.Task],
      ["RelatedTaskMetadata", Tasks.RelatedTaskMetadata],
      ["CreateTaskResult", Tasks.CreateTaskResult],
      ["GetTaskResult", Tasks.GetTaskResult],
      ["GetTaskPayloadResult", Tasks.GetTaskPayloadResult],
      ["CancelTaskResult", Tasks.CancelTaskResult],
      ["ListTasksResult", Tasks.ListTasksResult],
      ["TaskStatusNotificationParams", Tasks.TaskStatusNotificationParams]
    ] as const
  ) {
    property(name, schema, name, only)
  }
  property("GetTaskRequestParams", request("tasks/get", Tasks.GetTaskRequestParams), "GetTaskRequest", only)
  property(
    "GetTaskPayloadRequestParams",
    request("tasks/result", Tasks.GetTaskPayloadRequestParams),
    "GetTaskPayloadRequest",
    only
  )
  property("CancelTaskRequestParams", request("tasks/cancel", Tasks.CancelTaskRequestParams), "CancelTaskRequest", only)
  property("ListTasksRequestParams", request("tasks/list", Tasks.ListTasksRequestParams), "ListTasksRequest", only)
  property("taskField", Schema.Struct(Tasks.taskField), "TaskAugmentedRequestParams", only)
})

describe("InputRequired (2026-07-28)", () => {
  property("ElicitInputRequest", InputRequired.ElicitInputRequest, "ElicitRequest", modern)
  property("CreateMessageInputRequest", InputRequired.CreateMessageInputRequest, "CreateMessageRequest", modern)
  property("ListRootsInputRequest", InputRequired.ListRootsInputRequest, "ListRootsRequest", modern)
  property("InputRequest", InputRequired.InputRequest, "InputRequest", modern)
  property("InputRequests", InputRequired.InputRequests, "InputRequests", modern)
  property("InputResponse", InputRequired.InputResponse, "InputResponse", modern)
  property("InputResponses", InputRequired.InputResponses, "InputResponses", modern)
  property("InputRequiredResult", InputRequired.InputRequiredResult, "InputRequiredResult", ["2026-07-28"])
  property(
    "withInputResponses",
    InputRequired.withInputResponses(Stateless.params(RequestParams)),
    "InputResponseRequestParams",
    ["2026-07-28"]
  )
})

describe("Discovery and subscriptions (2026-07-28)", () => {
  const only: ReadonlyArray<SchemaSet> = ["2026-07-28"]
  property("DiscoverRequestParams", Discovery.DiscoverRequestParams, "RequestParams", only)
  property(
    "DiscoverRequestParams",
    request("server/discover", Discovery.DiscoverRequestParams),
    "DiscoverRequest",
    only
  )
  property("DiscoverResult", Discovery.DiscoverResult, "DiscoverResult", only)
  property("SubscriptionFilter", Subscription.SubscriptionFilter, "SubscriptionFilter", only)
  property(
    "SubscriptionsListenRequestParams",
    Subscription.SubscriptionsListenRequestParams,
    "SubscriptionsListenRequestParams",
    only
  )
  property(
    "SubscriptionsListenResultMeta",
    Subscription.SubscriptionsListenResultMeta,
    "SubscriptionsListenResultMetaObject",
    only
  )
  property("SubscriptionsListenResult", Subscription.SubscriptionsListenResult, "SubscriptionsListenResult", only)
  property(
    "SubscriptionsAcknowledgedNotificationParams",
    Subscription.SubscriptionsAcknowledgedNotificationParams,
    "SubscriptionsAcknowledgedNotificationParams",
    only
  )
  property(
    "SubscriptionFilter.taskIds",
    Subscription.SubscriptionFilter.pipe(Schema.pick("taskIds")),
    "TaskSubscriptionNotifications",
    ["ext-tasks-draft"]
  )
})

describe("TasksExtension (ext-tasks-draft)", () => {
  const ext: ReadonlyArray<SchemaSet> = ["ext-tasks-draft"]
  for (
    const [name, schema, official] of [
      ["TasksExtensionCapability", TasksExtension.TasksExtensionCapability, "TasksExtensionCapability"],
      ["TaskStatus", TasksExtension.TaskStatus, "TaskStatus"],
      ["Task", TasksExtension.Task, "Task"],
      ["TaskError", TasksExtension.TaskError, "Error"],
      ["WorkingTask", TasksExtension.WorkingTask, "WorkingTask"],
      ["InputRequiredTask", TasksExtension.InputRequiredTask, "InputRequiredTask"],
      ["CompletedTask", TasksExtension.CompletedTask, "CompletedTask"],
      ["FailedTask", TasksExtension.FailedTask, "FailedTask"],
      ["CancelledTask", TasksExtension.CancelledTask, "CancelledTask"],
      ["DetailedTask", TasksExtension.DetailedTask, "DetailedTask"],
      ["CreateTaskResult", TasksExtension.CreateTaskResult, "CreateTaskResult"],
      ["GetTaskResult", TasksExtension.GetTaskResult, "GetTaskResult"],
      ["UpdateTaskResult", TasksExtension.UpdateTaskResult, "UpdateTaskResult"],
      ["CancelTaskResult", TasksExtension.CancelTaskResult, "CancelTaskResult"],
      ["TaskStatusNotificationParams", TasksExtension.TaskStatusNotificationParams, "TaskStatusNotificationParams"],
      ["TaskSubscriptionNotifications", TasksExtension.TaskSubscriptionNotifications, "TaskSubscriptionNotifications"],
      [
        "TaskSubscriptionAcknowledgedNotifications",
        TasksExtension.TaskSubscriptionAcknowledgedNotifications,
        "TaskSubscriptionAcknowledgedNotifications"
      ]
    ] as const
  ) {
    property(name, schema, official, ext)
  }
  property("GetTaskRequestParams", request("tasks/get", TasksExtension.GetTaskRequestParams), "GetTaskRequest", ext)
  property(
    "UpdateTaskRequestParams",
    request("tasks/update", TasksExtension.UpdateTaskRequestParams),
    "UpdateTaskRequest",
    ext
  )
  property(
    "CancelTaskRequestParams",
    request("tasks/cancel", TasksExtension.CancelTaskRequestParams),
    "CancelTaskRequest",
    ext
  )
  property(
    "TaskStatusNotificationParams",
    notification("notifications/tasks", TasksExtension.TaskStatusNotificationParams),
    "TaskStatusNotification",
    ext
  )
  property("GetTaskRequestParams (core _meta)", TasksExtension.GetTaskRequestParams, "RequestParams", ["2026-07-28"])
})

describe("each variant is needed: the newer shape breaks the older revision", () => {
  const breaks = (name: string, schema: Any, official: string, set: SchemaSet) =>
    it(`${name} ≠ ${official} @ ${set}`, () =>
      assert.throws(() => holds({ schema, official, sets: [set], samples: 300 })))
  breaks(
    "CancelledNotificationParams20251125",
    Lifecycle.CancelledNotificationParams20251125,
    "CancelledNotificationParams",
    "2026-07-28"
  )
  breaks("PrimitiveSchemaDefinition", Elicitation.PrimitiveSchemaDefinition, "PrimitiveSchemaDefinition", "2025-06-18")
  breaks("ElicitRequestURLParams", Elicitation.ElicitRequestURLParams, "ElicitRequestURLParams", "2025-11-25")
  breaks("ElicitResult", Elicitation.ElicitResult, "ElicitResult", "2025-06-18")
  breaks("ToolResultContent", Sampling.ToolResultContent, "ToolResultContent", "2025-11-25")
  breaks("SamplingMessage", Sampling.SamplingMessage, "SamplingMessage", "2025-06-18")
  breaks("SamplingMessage20250326", Sampling.SamplingMessage20250326, "SamplingMessage", "2024-11-05")
  breaks("CreateMessageResult", Sampling.CreateMessageResult, "CreateMessageResult", "2025-11-25")
  breaks("CreateMessageResult20250326", Sampling.CreateMessageResult20250326, "CreateMessageResult", "2024-11-05")
})

const valid = (set: SchemaSet, name: string, value: unknown) =>
  assert.strictEqual(validate(set, name, value), undefined)

describe("unit", () => {
  it("form constructors build what every elicitation revision accepts", () => {
    const params = Elicitation.form("Your details", {
      properties: {
        name: Elicitation.string({ title: "Name", minLength: 1, default: "Ada" }),
        email: Elicitation.string({ format: "email" }),
        age: Elicitation.integer({ minimum: 0, maximum: 150 }),
        ratio: Elicitation.number({ default: 0.5 }),
        subscribe: Elicitation.boolean({ default: true }),
        color: Elicitation.enumOf(["red", "green"], { default: "red" }),
        size: Elicitation.titledEnum([{ const: "s", title: "Small" }, { const: "l", title: "Large" }]),
        tags: Elicitation.multiSelect(["a", "b", "c"], { minItems: 1, maxItems: 2, default: ["a"] }),
        pets: Elicitation.titledMultiSelect([{ const: "cat", title: "Cat" }])
      },
      required: ["name", "email"]
    })
    assert.deepStrictEqual(params.requestedSchema.required, ["name", "email"])
    assert.deepStrictEqual(params.requestedSchema.properties.tags, {
      type: "array",
      items: { type: "string", enum: ["a", "b", "c"] },
      minItems: 1,
      maxItems: 2,
      default: ["a"]
    })
    for (const set of modernElicit) valid(set, "ElicitRequestFormParams", params)
    valid("2025-11-25", "ElicitRequest", { jsonrpc: "2.0", id: 1, method: "elicitation/create", params })
    assert.deepStrictEqual(Schema.decodeUnknownSync(Elicitation.ElicitRequestFormParams, parseOptions)(params), params)

    const simple = Elicitation.form("Confirm", {
      properties: { ok: Elicitation.boolean(), why: Elicitation.string(), pick: Elicitation.enumOf(["x"]) }
    })
    assert.isUndefined(simple.requestedSchema.required)
    assert.isUndefined(simple.mode)
    valid("2025-06-18", "ElicitRequest", { jsonrpc: "2.0", id: 1, method: "elicitation/create", params: simple })
    assert.deepStrictEqual<unknown>(
      Schema.decodeUnknownSync(Elicitation.ElicitRequestParams20250618, parseOptions)(simple),
      simple
    )
  })

  it("an ElicitResult with a float and a string[] decodes", () => {
    const wire: unknown = {
      action: "accept",
      content: { ratio: 0.25, tags: ["a", "b"], name: "Ada", ok: false, n: 3 }
    }
    const decoded = Schema.decodeUnknownSync(Elicitation.ElicitResult, parseOptions)(wire)
    assert.deepStrictEqual<unknown>(decoded, wire)
    assert.strictEqual(decoded.content?.ratio, 0.25)
    valid("2025-11-25", "ElicitResult", wire)
    valid("2026-07-28", "ElicitResult", wire)
    // 2025-06-18 has no string arrays
    assert.throws(() => Schema.decodeUnknownSync(Elicitation.ElicitResult20250618, parseOptions)(wire))
    const old: unknown = { action: "accept", content: { ratio: 0.25 } }
    assert.deepStrictEqual<unknown>(Schema.decodeUnknownSync(Elicitation.ElicitResult20250618, parseOptions)(old), old)
  })

  it("decoding keeps unknown fields and namespaced _meta keys verbatim at depth 2+", () => {
    const wire = {
      messages: [
        {
          role: "user",
          content: [
            {
              type: "text",
              text: "hi",
              "x-extra": { nested: [1, null, { deep: true }] },
              _meta: {
                "com.example/trace": { span: "abc", tags: ["t"] },
                "io.modelcontextprotocol/related-task": { taskId: "t1" }
              }
            },
            {
              type: "tool_result",
              toolUseId: "u1",
              content: [{ type: "text", text: "ok", _meta: { "dev.acme/level3": { a: { b: 1 } } } }],
              structuredContent: [1, "two", null],
              futureField: 42
            }
          ],
          _meta: { "com.example/msg": 1 }
        }
      ],
      maxTokens: 100,
      newTopLevel: { kept: true }
    }
    const decoded = Schema.decodeUnknownSync(Sampling.CreateMessageRequestParams, parseOptions)(wire)
    assert.deepStrictEqual(decoded, wire as any)
    const encoded = Schema.encodeSync(Sampling.CreateMessageRequestParams, parseOptions)(decoded)
    assert.deepStrictEqual(encoded, wire as any)

    const task = {
      resultType: "complete",
      taskId: "t1",
      status: "input_required",
      createdAt: "2026-01-01T00:00:00Z",
      lastUpdatedAt: "2026-01-01T00:00:01Z",
      ttlMs: null,
      inputRequests: {
        ask: {
          method: "elicitation/create",
          params: { mode: "url", message: "Log in", url: "https://example.com/login", "com.example/hint": { x: 1 } }
        }
      },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" }, "com.example/k": { v: [1] } }
    }
    assert.deepStrictEqual(Schema.decodeUnknownSync(TasksExtension.GetTaskResult, parseOptions)(task), task as any)
    valid("ext-tasks-draft", "GetTaskResult", task)
  })

  it("a `__proto__` key in `_meta` is dropped at the wire boundary, the other keys kept", () => {
    const text = `{"requestId":1,"_meta":{"__proto__":{"injected":true},"com.example/k":{"__proto__":1,"v":2}}}`
    const decoded: any = Schema.decodeUnknownSync(Lifecycle.CancelledNotificationParams, parseOptions)(Wire.parse(text))
    assert.deepStrictEqual(decoded, { requestId: 1, _meta: { "com.example/k": { v: 2 } } })
    assert.strictEqual(Object.getPrototypeOf(decoded._meta), Object.prototype)
    assert.isUndefined(decoded._meta.injected)
  })

  it("CancelledNotificationParams: requestId optional only in 2025-11-25", () => {
    const decode20251125 = Schema.decodeUnknownSync(Lifecycle.CancelledNotificationParams20251125, parseOptions)
    assert.deepStrictEqual(decode20251125({ reason: "r" }), { reason: "r" })
    assert.throws(() => Schema.decodeUnknownSync(Lifecycle.CancelledNotificationParams, parseOptions)({ reason: "r" }))
    assert.isDefined(validate("2026-07-28", "CancelledNotificationParams", { reason: "r" }))
  })
})
