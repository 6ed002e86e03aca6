/**
 * What of an upstream's tools a gateway serves, and how (`"tools"` of an upstream in the
 * configuration): included or excluded by name or by annotation, renamed, described anew, some
 * arguments fixed (no longer the caller's: left out of the input schema) or given defaults.
 * Names here are the upstream's own.
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Schema from "effect/Schema"

const Args = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const ToolPolicy = Schema.Struct({
  /** Only these tools (default: all). */
  include: Schema.optional(Schema.Array(Schema.String)),
  /** Not these tools. */
  exclude: Schema.optional(Schema.Array(Schema.String)),
  /** Not the tools annotated with any of these hints true (`destructiveHint`, `openWorldHint`, …). */
  excludeHints: Schema.optional(Schema.Array(Schema.String)),
  /** Only the tools annotated `readOnlyHint: true`. */
  readOnly: Schema.optional(Schema.Boolean),
  /** Served names, by the upstream's (then mounted under the upstream's name). */
  rename: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  /** Descriptions served instead of the upstream's, by tool. */
  descriptions: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  /** Arguments always sent, whatever the caller says, by tool; left out of the input schema. */
  fixed: Schema.optional(Schema.Record({ key: Schema.String, value: Args })),
  /** Arguments sent when the caller gives none, by tool; no longer required. */
  defaults: Schema.optional(Schema.Record({ key: Schema.String, value: Args }))
})

export type ToolPolicy = typeof ToolPolicy.Type

/** `record[key]` if it is the record's own (not `constructor`, `toString`… of every object). */
const own = <A>(record: Readonly<Record<string, A>> | undefined, key: string): A | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined

/** Is the upstream's tool served? */
export const admits = (policy: ToolPolicy | undefined, tool: McpSchema.Tool.Tool): boolean => {
  if (policy === undefined) return true
  const hints = (tool.annotations ?? {}) as Readonly<Record<string, unknown>>
  if (policy.include !== undefined && !policy.include.includes(tool.name)) return false
  if (policy.exclude?.includes(tool.name) === true) return false
  if (policy.excludeHints?.some((hint) => hints[hint] === true) === true) return false
  return policy.readOnly !== true || hints.readOnlyHint === true
}

/** The upstream's tool as it is served: its name, description and input schema as the policy says. */
export const served = (policy: ToolPolicy | undefined, tool: McpSchema.Tool.Tool): McpSchema.Tool.Tool => {
  if (policy === undefined) return tool
  const fixed = own(policy.fixed, tool.name) ?? {}
  const defaults = own(policy.defaults, tool.name) ?? {}
  const schema = tool.inputSchema as {
    readonly properties?: Readonly<Record<string, object>>
    readonly required?: ReadonlyArray<string>
  }
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).filter(([key]) => !Object.hasOwn(fixed, key)).map((
      [key, property]
    ) => [key, Object.hasOwn(defaults, key) ? { ...property, default: defaults[key] } : property])
  )
  const required = (schema.required ?? []).filter((key) => !Object.hasOwn(fixed, key) && !Object.hasOwn(defaults, key))
  const description = own(policy.descriptions, tool.name)
  const { required: _, ...inputSchema } = tool.inputSchema as Record<string, unknown>
  return {
    ...tool,
    name: own(policy.rename, tool.name) ?? tool.name,
    ...(description !== undefined ? { description } : {}),
    inputSchema: {
      ...inputSchema,
      ...(schema.properties !== undefined ? { properties } : {}),
      ...(required.length > 0 ? { required } : {})
    } as unknown as McpSchema.Tool.Tool["inputSchema"]
  }
}

/** A call's arguments as sent upstream: the defaults under the caller's, the fixed ones over them. */
export const argsOf = (policy: ToolPolicy | undefined, name: string, args: unknown): unknown =>
  policy === undefined ? args : {
    ...own(policy.defaults, name),
    ...(typeof args === "object" && args !== null ? args : {}),
    ...own(policy.fixed, name)
  }
