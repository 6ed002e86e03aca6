/**
 * Elicitation: the server asks the user for input through the client, with a flat form
 * (2025-06-18+) or by sending the user to a URL (2025-11-25+). Handshake era: the
 * `elicitation/create` request. 2026-07-28: an input request of an `input_required`
 * result only.
 *
 * The form constructors ({@link form}, {@link string}, {@link enumOf}, ...) build the
 * restricted JSON Schema of a form.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { metaField, NonNegativeInt, RequestParams, Uri } from "./Base.js"
import { taskField } from "./Tasks.js"

const describedFields = {
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String)
}

/**
 * A text field. `default` from 2025-11-25.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StringSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describedFields,
  minLength: Schema.optional(NonNegativeInt),
  maxLength: Schema.optional(NonNegativeInt),
  format: Schema.optional(Schema.Literal("email", "uri", "date", "date-time")),
  default: Schema.optional(Schema.String)
}).annotations({ identifier: "StringSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type StringSchema = typeof StringSchema.Type

/**
 * A number or integer field. `default` from 2025-11-25.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NumberSchema = Schema.Struct({
  type: Schema.Literal("number", "integer"),
  ...describedFields,
  minimum: Schema.optional(Schema.Finite),
  maximum: Schema.optional(Schema.Finite),
  default: Schema.optional(Schema.Finite)
}).annotations({ identifier: "NumberSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type NumberSchema = typeof NumberSchema.Type

/**
 * A checkbox.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BooleanSchema = Schema.Struct({
  type: Schema.Literal("boolean"),
  ...describedFields,
  default: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "BooleanSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type BooleanSchema = typeof BooleanSchema.Type

const TitledOption = Schema.Struct({ const: Schema.String, title: Schema.String })

/**
 * Pick one of a list of strings (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UntitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describedFields,
  enum: Schema.Array(Schema.String),
  default: Schema.optional(Schema.String)
}).annotations({ identifier: "UntitledSingleSelectEnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type UntitledSingleSelectEnumSchema = typeof UntitledSingleSelectEnumSchema.Type

/**
 * Pick one of a list of values, each with a display title (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describedFields,
  oneOf: Schema.Array(TitledOption),
  default: Schema.optional(Schema.String)
}).annotations({ identifier: "TitledSingleSelectEnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type TitledSingleSelectEnumSchema = typeof TitledSingleSelectEnumSchema.Type

/**
 * Pick any number of a list of strings (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UntitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  ...describedFields,
  minItems: Schema.optional(NonNegativeInt),
  maxItems: Schema.optional(NonNegativeInt),
  items: Schema.Struct({ type: Schema.Literal("string"), enum: Schema.Array(Schema.String) }),
  default: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "UntitledMultiSelectEnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type UntitledMultiSelectEnumSchema = typeof UntitledMultiSelectEnumSchema.Type

/**
 * Pick any number of a list of values, each with a display title (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  ...describedFields,
  minItems: Schema.optional(NonNegativeInt),
  maxItems: Schema.optional(NonNegativeInt),
  items: Schema.Struct({ anyOf: Schema.Array(TitledOption) }),
  default: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "TitledMultiSelectEnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type TitledMultiSelectEnumSchema = typeof TitledMultiSelectEnumSchema.Type

/**
 * A single-select enum with parallel display names (`enumNames`, not JSON Schema).
 * Deprecated in 2025-11-25 in favour of {@link TitledSingleSelectEnumSchema}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LegacyTitledEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describedFields,
  enum: Schema.Array(Schema.String),
  enumNames: Schema.optional(Schema.Array(Schema.String)),
  default: Schema.optional(Schema.String)
}).annotations({ identifier: "LegacyTitledEnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type LegacyTitledEnumSchema = typeof LegacyTitledEnumSchema.Type

/**
 * The 2025-06-18 `EnumSchema`: `enum` with optional `enumNames`. The same fields as
 * {@link LegacyTitledEnumSchema} (whose `default`, added in 2025-11-25, older peers ignore).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EnumSchema20250618 = Schema.Struct(LegacyTitledEnumSchema.fields).annotations({
  identifier: "EnumSchema"
})

/**
 * @since 0.1.0
 * @category models
 */
export type EnumSchema20250618 = typeof EnumSchema20250618.Type

/**
 * A single-select enum (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SingleSelectEnumSchema = Schema.Union(UntitledSingleSelectEnumSchema, TitledSingleSelectEnumSchema)
  .annotations({ identifier: "SingleSelectEnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type SingleSelectEnumSchema = typeof SingleSelectEnumSchema.Type

/**
 * A multi-select enum (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const MultiSelectEnumSchema = Schema.Union(UntitledMultiSelectEnumSchema, TitledMultiSelectEnumSchema)
  .annotations({ identifier: "MultiSelectEnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type MultiSelectEnumSchema = typeof MultiSelectEnumSchema.Type

/**
 * Any enum field (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EnumSchema = Schema.Union(
  TitledSingleSelectEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  LegacyTitledEnumSchema
).annotations({ identifier: "EnumSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type EnumSchema = typeof EnumSchema.Type

/**
 * A form field (2025-11-25+). Decoding tries the enum shapes before the plain string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PrimitiveSchemaDefinition = Schema.Union(
  TitledSingleSelectEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  LegacyTitledEnumSchema,
  StringSchema,
  NumberSchema,
  BooleanSchema
).annotations({ identifier: "PrimitiveSchemaDefinition" })

/**
 * @since 0.1.0
 * @category models
 */
export type PrimitiveSchemaDefinition = typeof PrimitiveSchemaDefinition.Type

/**
 * A form field in 2025-06-18: no titled or multi-select enums.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PrimitiveSchemaDefinition20250618 = Schema.Union(
  EnumSchema20250618,
  StringSchema,
  NumberSchema,
  BooleanSchema
).annotations({ identifier: "PrimitiveSchemaDefinition" })

/**
 * @since 0.1.0
 * @category models
 */
export type PrimitiveSchemaDefinition20250618 = typeof PrimitiveSchemaDefinition20250618.Type

/**
 * The `requestedSchema` of a form: a flat object schema (2025-11-25+ fields).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestedSchema = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  type: Schema.Literal("object"),
  properties: Schema.Record({ key: Schema.String, value: PrimitiveSchemaDefinition }),
  required: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "RequestedSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type RequestedSchema = typeof RequestedSchema.Type

/**
 * The `requestedSchema` of a 2025-06-18 form.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestedSchema20250618 = Schema.Struct({
  type: Schema.Literal("object"),
  properties: Schema.Record({ key: Schema.String, value: PrimitiveSchemaDefinition20250618 }),
  required: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "RequestedSchema" })

/**
 * @since 0.1.0
 * @category models
 */
export type RequestedSchema20250618 = typeof RequestedSchema20250618.Type

/**
 * Params of a form elicitation (2025-11-25+). An absent `mode` means form. `_meta` and
 * `task` are 2025-11-25 only (2026-07-28 input requests carry neither).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestFormParams = Schema.Struct({
  ...RequestParams.fields,
  ...taskField,
  mode: Schema.optional(Schema.Literal("form")),
  message: Schema.String,
  requestedSchema: RequestedSchema
}).annotations({ identifier: "ElicitRequestFormParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestFormParams = typeof ElicitRequestFormParams.Type

/**
 * Params of a URL elicitation in 2026-07-28: no `elicitationId` (correlate through
 * `requestState`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestURLParams = Schema.Struct({
  mode: Schema.Literal("url"),
  message: Schema.String,
  url: Uri
}).annotations({ identifier: "ElicitRequestURLParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestURLParams = typeof ElicitRequestURLParams.Type

/**
 * Params of a URL elicitation in 2025-11-25: `elicitationId` required, answered later by
 * `notifications/elicitation/complete`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestURLParams20251125 = Schema.Struct({
  ...RequestParams.fields,
  ...taskField,
  mode: Schema.Literal("url"),
  message: Schema.String,
  url: Uri,
  elicitationId: Schema.String
}).annotations({ identifier: "ElicitRequestURLParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestURLParams20251125 = typeof ElicitRequestURLParams20251125.Type

/**
 * Params of `elicitation/create` in 2026-07-28: a form or a URL.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestParams = Schema.Union(ElicitRequestFormParams, ElicitRequestURLParams).annotations({
  identifier: "ElicitRequestParams"
})

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

/**
 * Params of `elicitation/create` in 2025-11-25: a form or a URL with `elicitationId`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestParams20251125 = Schema.Union(ElicitRequestFormParams, ElicitRequestURLParams20251125)
  .annotations({ identifier: "ElicitRequestParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestParams20251125 = typeof ElicitRequestParams20251125.Type

/**
 * Params of `elicitation/create` in 2025-06-18: a form only, with the 2025-06-18 fields.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestParams20250618 = Schema.Struct({
  ...RequestParams.fields,
  message: Schema.String,
  requestedSchema: RequestedSchema20250618
}).annotations({ identifier: "ElicitRequestParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestParams20250618 = typeof ElicitRequestParams20250618.Type

/**
 * The user's answer: `accept`, `decline` or `cancel`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitAction = Schema.Literal("accept", "decline", "cancel").annotations({ identifier: "ElicitAction" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitAction = typeof ElicitAction.Type

/**
 * Result of an elicitation (2025-11-25+). `content` (form mode, `accept` only) maps
 * field names to strings, numbers (fractional too), booleans or, for multi-selects,
 * string arrays.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitResult = Schema.Struct({
  ...metaField,
  action: ElicitAction,
  content: Schema.optional(Schema.Record({
    key: Schema.String,
    value: Schema.Union(Schema.String, Schema.Finite, Schema.Boolean, Schema.Array(Schema.String))
  }))
}).annotations({ identifier: "ElicitResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitResult = typeof ElicitResult.Type

/**
 * Result of an elicitation in 2025-06-18: no string arrays in `content`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitResult20250618 = Schema.Struct({
  ...metaField,
  action: ElicitAction,
  content: Schema.optional(Schema.Record({
    key: Schema.String,
    value: Schema.Union(Schema.String, Schema.Finite, Schema.Boolean)
  }))
}).annotations({ identifier: "ElicitResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitResult20250618 = typeof ElicitResult20250618.Type

/**
 * Params of `notifications/elicitation/complete` (2025-11-25 only): the out-of-band
 * step of a URL elicitation finished.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitationCompleteNotificationParams = Schema.Struct({
  ...metaField,
  elicitationId: Schema.String
}).annotations({ identifier: "ElicitationCompleteNotificationParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitationCompleteNotificationParams = typeof ElicitationCompleteNotificationParams.Type

/**
 * The `data` of a `-32042` URL-elicitation-required error (2025-11-25 only): the URL
 * elicitations to complete before retrying.
 *
 * @since 0.1.0
 * @category schemas
 */
export const URLElicitationRequiredErrorData = Schema.Struct({
  elicitations: Schema.Array(ElicitRequestURLParams20251125)
}).annotations({ identifier: "URLElicitationRequiredErrorData" })

/**
 * @since 0.1.0
 * @category models
 */
export type URLElicitationRequiredErrorData = typeof URLElicitationRequiredErrorData.Type

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * The options of a field constructor: the schema without its fixed keys.
 *
 * @since 0.1.0
 * @category models
 */
export type FieldOptions<A, Fixed extends keyof A> = Omit<A, Fixed>

/**
 * A text field.
 *
 * @since 0.1.0
 * @category constructors
 */
export const string = (options: FieldOptions<StringSchema, "type"> = {}): StringSchema => ({
  type: "string",
  ...options
})

/**
 * A number field (fractional numbers allowed).
 *
 * @since 0.1.0
 * @category constructors
 */
export const number = (options: FieldOptions<NumberSchema, "type"> = {}): NumberSchema => ({
  type: "number",
  ...options
})

/**
 * An integer field.
 *
 * @since 0.1.0
 * @category constructors
 */
export const integer = (options: FieldOptions<NumberSchema, "type"> = {}): NumberSchema => ({
  type: "integer",
  ...options
})

/**
 * A checkbox.
 *
 * @since 0.1.0
 * @category constructors
 */
export const boolean = (options: FieldOptions<BooleanSchema, "type"> = {}): BooleanSchema => ({
  type: "boolean",
  ...options
})

/**
 * Pick one of `values` (2025-11-25+; for 2025-06-18 peers it reads as the old `EnumSchema`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const enumOf = (
  values: ReadonlyArray<string>,
  options: FieldOptions<UntitledSingleSelectEnumSchema, "type" | "enum"> = {}
): UntitledSingleSelectEnumSchema => ({ type: "string", enum: values, ...options })

/**
 * Pick one of `choices`, each shown by its title (2025-11-25+).
 *
 * @since 0.1.0
 * @category constructors
 */
export const titledEnum = (
  choices: ReadonlyArray<{ readonly const: string; readonly title: string }>,
  options: FieldOptions<TitledSingleSelectEnumSchema, "type" | "oneOf"> = {}
): TitledSingleSelectEnumSchema => ({ type: "string", oneOf: choices, ...options })

/**
 * Pick any number of `values` (2025-11-25+).
 *
 * @since 0.1.0
 * @category constructors
 */
export const multiSelect = (
  values: ReadonlyArray<string>,
  options: FieldOptions<UntitledMultiSelectEnumSchema, "type" | "items"> = {}
): UntitledMultiSelectEnumSchema => ({ type: "array", items: { type: "string", enum: values }, ...options })

/**
 * Pick any number of `choices`, each shown by its title (2025-11-25+).
 *
 * @since 0.1.0
 * @category constructors
 */
export const titledMultiSelect = (
  choices: ReadonlyArray<{ readonly const: string; readonly title: string }>,
  options: FieldOptions<TitledMultiSelectEnumSchema, "type" | "items"> = {}
): TitledMultiSelectEnumSchema => ({ type: "array", items: { anyOf: choices }, ...options })

/**
 * The params of a form elicitation: `message` and a flat object schema of `properties`,
 * `required` naming some of them. `mode` is left out (absent means form in every
 * revision).
 *
 * @since 0.1.0
 * @category constructors
 */
export const form = <const Properties extends Record<string, PrimitiveSchemaDefinition>>(
  message: string,
  schema: {
    readonly properties: Properties
    readonly required?: ReadonlyArray<Extract<keyof Properties, string>>
  }
): ElicitRequestFormParams => {
  const requestedSchema: Mutable<RequestedSchema> = { type: "object", properties: schema.properties }
  if (schema.required !== undefined) requestedSchema.required = schema.required
  return { message, requestedSchema }
}
