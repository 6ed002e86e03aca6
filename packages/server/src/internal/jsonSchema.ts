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

const defName = (ref: unknown): string | undefined =>
  typeof ref === "string" && ref.startsWith("#/$defs/") ? decodeURIComponent(ref.slice("#/$defs/".length)) : undefined

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
      const { $ref: _, ...rest } = node
      return schema({ ...defs[name], ...rest }, depth + 1)
    }
    const out: Json = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "$defs") continue
      if (key === "title" && typeof value === "string" && generatedTitle.test(value)) continue
      if (key === "description" && typeof value === "string" && generatedDescription.test(value)) continue
      if (one.has(key)) out[key] = schema(value, depth + 1)
      else if (many.has(key) && Array.isArray(value)) out[key] = value.map((v) => schema(v, depth + 1))
      else if (named.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schema(v, depth + 1)]))
      } else out[key] = value
    }
    return out
  }

  const result = schema(root, 0) as Json
  if (recursive.size > 0) {
    result.$defs = Object.fromEntries(
      Array.from(recursive).map((name) => [name, schema(defs[name], 0)])
    )
  }
  return result
}
