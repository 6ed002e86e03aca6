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

import { elicitation } from "../internal/schema/elicitation.js"

const built = elicitation()

/**
 * A text field. `default` from 2025-11-25.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StringSchema = built.StringSchema

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
export const NumberSchema = built.NumberSchema

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
export const BooleanSchema = built.BooleanSchema

/**
 * @since 0.1.0
 * @category models
 */
export type BooleanSchema = typeof BooleanSchema.Type

/**
 * Pick one of a list of strings (2025-11-25+).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UntitledSingleSelectEnumSchema = built.UntitledSingleSelectEnumSchema

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
export const TitledSingleSelectEnumSchema = built.TitledSingleSelectEnumSchema

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
export const UntitledMultiSelectEnumSchema = built.UntitledMultiSelectEnumSchema

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
export const TitledMultiSelectEnumSchema = built.TitledMultiSelectEnumSchema

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
export const LegacyTitledEnumSchema = built.LegacyTitledEnumSchema

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
export const EnumSchema20250618 = built.EnumSchema20250618

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
export const SingleSelectEnumSchema = built.SingleSelectEnumSchema

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
export const MultiSelectEnumSchema = built.MultiSelectEnumSchema

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
export const EnumSchema = built.EnumSchema

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
export const PrimitiveSchemaDefinition = built.PrimitiveSchemaDefinition

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
export const PrimitiveSchemaDefinition20250618 = built.PrimitiveSchemaDefinition20250618

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
export const RequestedSchema = built.RequestedSchema

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
export const RequestedSchema20250618 = built.RequestedSchema20250618

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
export const ElicitRequestFormParams = built.ElicitRequestFormParams

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
export const ElicitRequestURLParams = built.ElicitRequestURLParams

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
export const ElicitRequestURLParams20251125 = built.ElicitRequestURLParams20251125

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
export const ElicitRequestParams = built.ElicitRequestParams

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
export const ElicitRequestParams20251125 = built.ElicitRequestParams20251125

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
export const ElicitRequestParams20250618 = built.ElicitRequestParams20250618

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
export const ElicitAction = built.ElicitAction

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
export const ElicitResult = built.ElicitResult

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
export const ElicitResult20250618 = built.ElicitResult20250618

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
export const ElicitationCompleteNotificationParams = built.ElicitationCompleteNotificationParams

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
export const URLElicitationRequiredErrorData = built.URLElicitationRequiredErrorData

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
