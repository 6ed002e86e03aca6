/**
 * Validators for the official MCP JSON Schemas (`schema/<revision>/schema.json` in this package, copied verbatim
 * from the MCP projects: `schema/SOURCES.md` says from where), with the known generator artefacts of those files
 * patched in memory, each one listed and explained here.
 *
 * @since 0.1.0
 */
import Ajv from "ajv"
import addFormats from "ajv-formats"
import Ajv2020 from "ajv/dist/2020.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

/**
 * The folder holding `<revision>/schema.json`: this package's own `schema` folder (the tests read nothing outside
 * the repository).
 *
 * @since 0.1.0
 * @category constants
 */
export const schemaDir: string = path.resolve(here, "../schema")

/**
 * The schema sets: one per MCP revision (the revisions of `@effect-mcp/core`'s `Revision.all`),
 * the draft of the tasks extension, and the Apps extension (`io.modelcontextprotocol/ui`: its own
 * types only, `McpUiResourceMeta`, `McpUiToolMeta`, ...).
 *
 * @since 0.1.0
 * @category constants
 */
export const schemaSets = [
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25",
  "2026-07-28",
  "ext-tasks-draft",
  "ext-apps"
] as const

/**
 * A folder of `schemaDir`.
 *
 * @since 0.1.0
 * @category models
 */
export type SchemaSet = typeof schemaSets[number]

const loaded = new Map<SchemaSet, any>()

/** The parsed schema.json of a set (a fresh copy: callers may patch it). */
const load = (set: SchemaSet): any => {
  let text = loaded.get(set)
  if (text === undefined) {
    text = read(set)
    loaded.set(set, text)
  }
  return JSON.parse(text)
}

const read = (set: SchemaSet): string => {
  const file = path.join(schemaDir, set, "schema.json")
  if (!fs.existsSync(file)) {
    throw new Error(`official schema not found at ${file}: the package's schema folder is incomplete`)
  }
  return fs.readFileSync(file, "utf8")
}

/**
 * Known artefacts of the generated schema.json files, patched before compiling. Each is a place
 * where schema.json is stricter than the normative schema.ts:
 *
 * 1. 2026-07-28 `JSONValue` is `object | array | string|integer|boolean`: it drops `null` and
 *    uses `integer` where schema.ts says `number`. Patched to the TS meaning (any JSON value).
 * 2. `ElicitResult.content` values are `string|integer|boolean` (+ `string[]` from 2025-11-25) where
 *    schema.ts says `number`. Patched to `number`.
 * 3. The ext-tasks draft has the same `JSONValue` artefact as (1).
 */
const patch = (set: SchemaSet, schema: any): any => {
  const defs = schema.$defs ?? schema.definitions
  if (defs.JSONValue) {
    defs.JSONValue = {} // any JSON value (schema.ts: JSONValue includes null and non-integer numbers)
  }
  const elicitContent = defs.ElicitResult?.properties?.content?.additionalProperties
  if (elicitContent) {
    const widen = (s: any): void => {
      if (Array.isArray(s.type)) s.type = s.type.map((t: string) => (t === "integer" ? "number" : t))
      for (const key of ["anyOf", "oneOf"]) if (Array.isArray(s[key])) s[key].forEach(widen)
    }
    widen(elicitContent)
  }
  return schema
}

const cache = new Map<SchemaSet, { ajv: any; key: string; defsKey: string }>()

const compiled = (set: SchemaSet) => {
  let entry = cache.get(set)
  if (entry === undefined) {
    const schema = patch(set, load(set))
    const draft07 = schema.definitions !== undefined
    const ajv = draft07
      ? new (Ajv as any)({ strict: false, allErrors: true })
      : new (Ajv2020 as any)({ strict: false, allErrors: true })
    ;(addFormats as any)(ajv)
    const key = `mcp-${set}`
    const { $id: _id, ...rest } = schema
    ajv.addSchema(rest, key)
    entry = { ajv, key, defsKey: draft07 ? "definitions" : "$defs" }
    cache.set(set, entry)
  }
  return entry
}

const patchedDefs = new Map<SchemaSet, Record<string, any>>()

const defsOf = (set: SchemaSet): Record<string, any> => {
  let defs = patchedDefs.get(set)
  if (defs === undefined) {
    const schema = patch(set, load(set))
    defs = schema.$defs ?? schema.definitions
    patchedDefs.set(set, defs!)
  }
  return defs!
}

/**
 * The names of every definition of a schema set.
 *
 * @since 0.1.0
 * @category accessors
 */
export const definitions = (set: SchemaSet): ReadonlyArray<string> => Object.keys(defsOf(set))

/**
 * The (patched) definition of a schema set. Do not modify it.
 *
 * @since 0.1.0
 * @category accessors
 */
export const definition = (set: SchemaSet, name: string): any => defsOf(set)[name]

/**
 * Validates `value` against definition `name` of `set`; returns the error text, or undefined when valid.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (set: SchemaSet, name: string, value: unknown): string | undefined => {
  const { ajv, defsKey, key } = compiled(set)
  const fn = ajv.getSchema(`${key}#/${defsKey}/${name}`)
  if (fn === undefined) throw new Error(`no definition ${name} in ${set}`)
  return fn(value) ? undefined : ajv.errorsText(fn.errors, { dataVar: name })
}
