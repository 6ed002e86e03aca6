/**
 * The JSON Schema a tool publishes, in its plain form. Effect's generator names the built-in
 * refinements (`"title": "positive"`, `"description": "a positive number"`) and moves named
 * schemas to `$defs` (`{ "$ref": "#/$defs/Int" }`). A client reads keywords, not those names:
 *
 * - a `$ref` to a definition that is not recursive is replaced by the definition itself (the
 *   referring node's own keywords win), and `$defs` keeps only the recursive ones;
 * - the titles and descriptions Effect generates for its built-in filters are dropped (the
 *   keywords say the same: `exclusiveMinimum`, `minLength`, ...); a user's own are kept.
 */

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Titles of Effect's built-in filters. */
const generatedTitle =
  /^(?:trimmed|lowercased|uppercased|capitalized|uncapitalized|nonEmptyString|finite|int|nonNaN|positive|negative|nonPositive|nonNegative|(?:maxLength|minLength|length|startsWith|endsWith|includes|greaterThan|greaterThanOrEqualTo|multipleOf|lessThan|lessThanOrEqualTo|between|minItems|maxItems|itemsCount)\(.*\))$/

/** Descriptions of Effect's built-in filters. */
const generatedDescription = new RegExp(
  "^(?:" + [
    "a string with no leading or trailing whitespace",
    "a string at most \\d+ character\\(s\\) long",
    "a string at least \\d+ character\\(s\\)(?: and at most \\d+ character\\(s\\))? long",
    "a string \\d+ character\\(s\\) long",
    "a single character",
    "a string (?:matching the pattern|starting with|ending with|including) .*",
    "a (?:lowercase|uppercase|capitalized|uncapitalized|non empty) string",
    "an uppercase string",
    "a (?:finite|positive|negative|non-negative|non-positive) number",
    "a number (?:greater than|greater than or equal to|less than|less than or equal to|divisible by) \\S+",
    "a number between \\S+ and \\S+",
    "a number excluding NaN",
    "an integer",
    "an array of (?:at least|at most|exactly) \\d+ item\\(s\\)"
  ].join("|") + ")$"
)

/** Keywords whose value is a schema, a list of schemas, or a map of them. */
const one = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"])
const many = new Set(["anyOf", "oneOf", "allOf", "prefixItems"])
const named = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"])

/** The definition a `$ref` names (a JSON Pointer token: `~1` is `/`, `~0` is `~`). */
const defName = (ref: unknown): string | undefined =>
  typeof ref === "string" && ref.startsWith("#/$defs/")
    ? ref.slice("#/$defs/".length).replace(/~1/g, "/").replace(/~0/g, "~")
    : undefined

const generated = (key: string, value: unknown): boolean =>
  typeof value === "string" &&
  ((key === "title" && generatedTitle.test(value)) || (key === "description" && generatedDescription.test(value)))

/** A node without the titles and descriptions Effect generated for it. */
const withoutGenerated = (node: Json): Json =>
  Object.fromEntries(Object.entries(node).filter(([key, value]) => !generated(key, value)))

/** The definitions a schema refers to, directly. */
const refsOf = (node: unknown, out: Set<string>): Set<string> => {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out))
  else if (isObject(node)) {
    const name = defName(node.$ref)
    if (name !== undefined) out.add(name)
    for (const [key, value] of Object.entries(node)) if (key !== "$defs") refsOf(value, out)
  }
  return out
}

export const plain = (root: Json): Json => {
  const defs = isObject(root.$defs) ? root.$defs : {}
  const edges = new Map(Object.entries(defs).map(([name, def]) => [name, refsOf(def, new Set())]))
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
    for (const next of edges.get(from) ?? []) {
      if (next === to) return true
      if (!seen.has(next)) {
        seen.add(next)
        if (reaches(next, to, seen)) return true
      }
    }
    return false
  }
  const recursive = new Set(Object.keys(defs).filter((name) => reaches(name, name)))

  const schema = (node: unknown, depth: number): unknown => {
    if (!isObject(node) || depth > 64) return node
    const name = defName(node.$ref)
    if (name !== undefined && !recursive.has(name) && isObject(defs[name])) {
      // The referring node's own keywords win, but not its generated words over the definition's own.
      const { $ref: _, ...rest } = node
      return schema({ ...defs[name], ...withoutGenerated(rest) }, depth + 1)
    }
    if (name !== undefined) kept.add(name)
    const out: Json = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "$defs") continue
      if (generated(key, value)) continue
      if (one.has(key)) out[key] = schema(value, depth + 1)
      else if (many.has(key) && Array.isArray(value)) out[key] = value.map((v) => schema(v, depth + 1))
      else if (named.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schema(v, depth + 1)]))
      } else out[key] = value
    }
    return out
  }

  /** The definitions still referred to (recursive ones, and any that could not be inlined). */
  const kept = new Set<string>()
  const result = schema(root, 0) as Json
  const out: Json = {}
  // Kept definitions may refer to more: walked until none is new.
  for (let added = true; added;) {
    added = false
    for (const name of Array.from(kept)) {
      if (name in out || !(name in defs)) continue
      out[name] = schema(defs[name], 0)
      added = true
    }
  }
  if (Object.keys(out).length > 0) result.$defs = out
  return result
}
