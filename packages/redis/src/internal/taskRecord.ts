/**
 * A task as `RedisTaskStore` keeps it: `TaskStore.TaskRecord` as JSON, encoded on every write
 * and decoded on every read (a record, and a change on the store's channel).
 *
 * JSON has no `undefined`: a field that is undefined is left out, and comes back undefined, its
 * key there (`statusMessage`, `outcome`, `lease`), as the record was; `null` reads as absent too,
 * and a record without `inputRequests`, `inputResponses`, `cancelRequested` or `ttlMs` (none
 * written by this store) as the new record has them.
 */
import type * as TaskStore from "@effect-mcp/server/TaskStore"
import * as Schema from "effect/Schema"

/** A field that may be undefined: left out of the JSON then, and read back undefined (`null` too). */
const maybe = <A, I>(schema: Schema.Schema<A, I>) =>
  Schema.optionalWith(Schema.UndefinedOr(schema), { nullable: true, default: () => undefined })

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const Status = Schema.Literal("working", "input_required", "completed", "failed", "cancelled")

const Outcome = Schema.Union(
  Schema.TaggedStruct("Result", { result: JsonObject }),
  Schema.TaggedStruct("Error", {
    error: Schema.Struct({ code: Schema.Number, message: Schema.String, data: Schema.optional(Schema.Unknown) })
  })
)

const Lease = Schema.Struct({ holder: Schema.String, expiresAt: Schema.Number })

const Fields = Schema.Struct({
  taskId: Schema.String,
  owner: Schema.String,
  revision: Schema.String,
  method: Schema.String,
  name: Schema.String,
  status: Status,
  statusMessage: maybe(Schema.String),
  createdAt: Schema.Number,
  lastUpdatedAt: Schema.Number,
  ttlMs: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null }),
  pollIntervalMs: Schema.Number,
  inputRequests: Schema.optionalWith(JsonObject, { nullable: true, default: () => ({}) }),
  inputResponses: Schema.optionalWith(JsonObject, { nullable: true, default: () => ({}) }),
  outcome: maybe(Outcome),
  cancelRequested: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false }),
  lease: maybe(Lease),
  version: Schema.Number,
  held: Schema.optionalWith(Schema.UndefinedOr(Schema.Number), { nullable: true })
})

/** A task record (its type is the server's `TaskStore.TaskRecord`). */
export const TaskRecord: Schema.Schema<TaskStore.TaskRecord, typeof Fields.Encoded> = Fields

/** A record as stored: its JSON. */
export const TaskRecordJson = Schema.parseJson(TaskRecord)

/**
 * A message on the store's channel (written by its scripts): a task's new record, or `null`
 * when it went.
 */
export const ChangeJson = Schema.parseJson(Schema.Struct({ taskId: Schema.String, record: Schema.NullOr(TaskRecord) }))
