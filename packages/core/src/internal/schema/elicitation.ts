/**
 * The schemas of `Schema/Elicitation.ts`, built when first asked for (`elicitation()`), not when the module is
 * evaluated: a server that never uses the feature never builds them (`Schema/Elicitation.ts` re-exports
 * them, built on its import).
 */
import * as Schema from "effect/Schema"
import { metaField, NonNegativeInt, RequestParams, Uri } from "../../Schema/Base.js"
import { taskField } from "./tasks.js"

const part1 = () => {
  const describedFields = {
    title: Schema.optional(Schema.String),
    description: Schema.optional(Schema.String)
  }

  const StringSchema = Schema.Struct({
    type: Schema.Literal("string"),
    ...describedFields,
    minLength: Schema.optional(NonNegativeInt),
    maxLength: Schema.optional(NonNegativeInt),
    format: Schema.optional(Schema.Literal("email", "uri", "date", "date-time")),
    default: Schema.optional(Schema.String)
  }).annotations({ identifier: "StringSchema" })

  const NumberSchema = Schema.Struct({
    type: Schema.Literal("number", "integer"),
    ...describedFields,
    minimum: Schema.optional(Schema.Finite),
    maximum: Schema.optional(Schema.Finite),
    default: Schema.optional(Schema.Finite)
  }).annotations({ identifier: "NumberSchema" })

  const BooleanSchema = Schema.Struct({
    type: Schema.Literal("boolean"),
    ...describedFields,
    default: Schema.optional(Schema.Boolean)
  }).annotations({ identifier: "BooleanSchema" })

  const TitledOption = Schema.Struct({ const: Schema.String, title: Schema.String })

  const UntitledSingleSelectEnumSchema = Schema.Struct({
    type: Schema.Literal("string"),
    ...describedFields,
    enum: Schema.Array(Schema.String),
    default: Schema.optional(Schema.String)
  }).annotations({ identifier: "UntitledSingleSelectEnumSchema" })

  const TitledSingleSelectEnumSchema = Schema.Struct({
    type: Schema.Literal("string"),
    ...describedFields,
    oneOf: Schema.Array(TitledOption),
    default: Schema.optional(Schema.String)
  }).annotations({ identifier: "TitledSingleSelectEnumSchema" })

  const UntitledMultiSelectEnumSchema = Schema.Struct({
    type: Schema.Literal("array"),
    ...describedFields,
    minItems: Schema.optional(NonNegativeInt),
    maxItems: Schema.optional(NonNegativeInt),
    items: Schema.Struct({ type: Schema.Literal("string"), enum: Schema.Array(Schema.String) }),
    default: Schema.optional(Schema.Array(Schema.String))
  }).annotations({ identifier: "UntitledMultiSelectEnumSchema" })

  const TitledMultiSelectEnumSchema = Schema.Struct({
    type: Schema.Literal("array"),
    ...describedFields,
    minItems: Schema.optional(NonNegativeInt),
    maxItems: Schema.optional(NonNegativeInt),
    items: Schema.Struct({ anyOf: Schema.Array(TitledOption) }),
    default: Schema.optional(Schema.Array(Schema.String))
  }).annotations({ identifier: "TitledMultiSelectEnumSchema" })

  const LegacyTitledEnumSchema = Schema.Struct({
    type: Schema.Literal("string"),
    ...describedFields,
    enum: Schema.Array(Schema.String),
    enumNames: Schema.optional(Schema.Array(Schema.String)),
    default: Schema.optional(Schema.String)
  }).annotations({ identifier: "LegacyTitledEnumSchema" })

  const EnumSchema20250618 = Schema.Struct(LegacyTitledEnumSchema.fields).annotations({
    identifier: "EnumSchema"
  })

  const SingleSelectEnumSchema = Schema.Union(UntitledSingleSelectEnumSchema, TitledSingleSelectEnumSchema)
    .annotations({ identifier: "SingleSelectEnumSchema" })

  const MultiSelectEnumSchema = Schema.Union(UntitledMultiSelectEnumSchema, TitledMultiSelectEnumSchema)
    .annotations({ identifier: "MultiSelectEnumSchema" })

  const EnumSchema = Schema.Union(
    TitledSingleSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
    TitledMultiSelectEnumSchema,
    UntitledMultiSelectEnumSchema,
    LegacyTitledEnumSchema
  ).annotations({ identifier: "EnumSchema" })

  const PrimitiveSchemaDefinition = Schema.Union(
    TitledSingleSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
    TitledMultiSelectEnumSchema,
    UntitledMultiSelectEnumSchema,
    LegacyTitledEnumSchema,
    StringSchema,
    NumberSchema,
    BooleanSchema
  ).annotations({ identifier: "PrimitiveSchemaDefinition" })

  const PrimitiveSchemaDefinition20250618 = Schema.Union(
    EnumSchema20250618,
    StringSchema,
    NumberSchema,
    BooleanSchema
  ).annotations({ identifier: "PrimitiveSchemaDefinition" })

  const RequestedSchema = Schema.Struct({
    $schema: Schema.optional(Schema.String),
    type: Schema.Literal("object"),
    properties: Schema.Record({ key: Schema.String, value: PrimitiveSchemaDefinition }),
    required: Schema.optional(Schema.Array(Schema.String))
  }).annotations({ identifier: "RequestedSchema" })

  const RequestedSchema20250618 = Schema.Struct({
    type: Schema.Literal("object"),
    properties: Schema.Record({ key: Schema.String, value: PrimitiveSchemaDefinition20250618 }),
    required: Schema.optional(Schema.Array(Schema.String))
  }).annotations({ identifier: "RequestedSchema" })
  return {
    describedFields,
    StringSchema,
    NumberSchema,
    BooleanSchema,
    TitledOption,
    UntitledSingleSelectEnumSchema,
    TitledSingleSelectEnumSchema,
    UntitledMultiSelectEnumSchema,
    TitledMultiSelectEnumSchema,
    LegacyTitledEnumSchema,
    EnumSchema20250618,
    SingleSelectEnumSchema,
    MultiSelectEnumSchema,
    EnumSchema,
    PrimitiveSchemaDefinition,
    PrimitiveSchemaDefinition20250618,
    RequestedSchema,
    RequestedSchema20250618
  }
}

type Part1 = ReturnType<typeof part1>

const pick = (previous: Part1) => ({
  StringSchema: previous.StringSchema,
  NumberSchema: previous.NumberSchema,
  BooleanSchema: previous.BooleanSchema,
  UntitledSingleSelectEnumSchema: previous.UntitledSingleSelectEnumSchema,
  TitledSingleSelectEnumSchema: previous.TitledSingleSelectEnumSchema,
  UntitledMultiSelectEnumSchema: previous.UntitledMultiSelectEnumSchema,
  TitledMultiSelectEnumSchema: previous.TitledMultiSelectEnumSchema,
  LegacyTitledEnumSchema: previous.LegacyTitledEnumSchema,
  EnumSchema20250618: previous.EnumSchema20250618,
  SingleSelectEnumSchema: previous.SingleSelectEnumSchema,
  MultiSelectEnumSchema: previous.MultiSelectEnumSchema,
  EnumSchema: previous.EnumSchema,
  PrimitiveSchemaDefinition: previous.PrimitiveSchemaDefinition,
  PrimitiveSchemaDefinition20250618: previous.PrimitiveSchemaDefinition20250618,
  RequestedSchema: previous.RequestedSchema,
  RequestedSchema20250618: previous.RequestedSchema20250618
})

const last = (previous: Part1) => {
  const { RequestedSchema, RequestedSchema20250618 } = previous
  const ElicitRequestFormParams = Schema.Struct({
    ...RequestParams.fields,
    ...taskField,
    mode: Schema.optional(Schema.Literal("form")),
    message: Schema.String,
    requestedSchema: RequestedSchema
  }).annotations({ identifier: "ElicitRequestFormParams" })

  const ElicitRequestURLParams = Schema.Struct({
    mode: Schema.Literal("url"),
    message: Schema.String,
    url: Uri
  }).annotations({ identifier: "ElicitRequestURLParams" })

  const ElicitRequestURLParams20251125 = Schema.Struct({
    ...RequestParams.fields,
    ...taskField,
    mode: Schema.Literal("url"),
    message: Schema.String,
    url: Uri,
    elicitationId: Schema.String
  }).annotations({ identifier: "ElicitRequestURLParams" })

  const ElicitRequestParams = Schema.Union(ElicitRequestFormParams, ElicitRequestURLParams).annotations({
    identifier: "ElicitRequestParams"
  })

  const ElicitRequestParams20251125 = Schema.Union(ElicitRequestFormParams, ElicitRequestURLParams20251125)
    .annotations({ identifier: "ElicitRequestParams" })

  const ElicitRequestParams20250618 = Schema.Struct({
    ...RequestParams.fields,
    message: Schema.String,
    requestedSchema: RequestedSchema20250618
  }).annotations({ identifier: "ElicitRequestParams" })

  const ElicitAction = Schema.Literal("accept", "decline", "cancel").annotations({ identifier: "ElicitAction" })

  const ElicitResult = Schema.Struct({
    ...metaField,
    action: ElicitAction,
    content: Schema.optional(Schema.Record({
      key: Schema.String,
      value: Schema.Union(Schema.String, Schema.Finite, Schema.Boolean, Schema.Array(Schema.String))
    }))
  }).annotations({ identifier: "ElicitResult" })

  const ElicitResult20250618 = Schema.Struct({
    ...metaField,
    action: ElicitAction,
    content: Schema.optional(Schema.Record({
      key: Schema.String,
      value: Schema.Union(Schema.String, Schema.Finite, Schema.Boolean)
    }))
  }).annotations({ identifier: "ElicitResult" })

  const ElicitationCompleteNotificationParams = Schema.Struct({
    ...metaField,
    elicitationId: Schema.String
  }).annotations({ identifier: "ElicitationCompleteNotificationParams" })

  const URLElicitationRequiredErrorData = Schema.Struct({
    elicitations: Schema.Array(ElicitRequestURLParams20251125)
  }).annotations({ identifier: "URLElicitationRequiredErrorData" })
  return {
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitRequestURLParams20251125,
    ElicitRequestParams,
    ElicitRequestParams20251125,
    ElicitRequestParams20250618,
    ElicitAction,
    ElicitResult,
    ElicitResult20250618,
    ElicitationCompleteNotificationParams,
    URLElicitationRequiredErrorData,
    ...pick(previous)
  }
}

const make = () => last(part1())

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Elicitation.ts`, built on the first call. */
export const elicitation = (): ReturnType<typeof make> => built ??= make()
