/**
 * A parse failure as a user reads it: one line per problem, each with its path, what was
 * expected in plain words (from the schema's constraints, not from a description annotation,
 * which says what a field means rather than what it must be) and what came.
 *
 *   by: expected an integer greater than 0, got -1
 *   items[2].name: missing (expected a string)
 */
import type * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"

/** At most this many problems are listed; "(and more)" says there were others. */
const maxLines = 10

const show = (actual: unknown): string => {
  if (actual === undefined) return "undefined"
  if (typeof actual === "function") return "a function"
  if (typeof actual === "bigint") return `${actual}n`
  let text: string
  try {
    text = JSON.stringify(actual) ?? String(actual)
  } catch {
    // Too deep (or cyclic) to print: what it is, not what is in it.
    text = Array.isArray(actual) ? "an array" : typeof actual === "object" && actual !== null ? "an object" : "a value"
  }
  return text.length > 60 ? `${text.slice(0, 59)}…` : text
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`

/** The constraints of a refinement's JSON Schema annotation, in words. */
const constraints = (json: Record<string, unknown>): ReadonlyArray<string> => {
  const words: Array<string> = []
  const { exclusiveMaximum, exclusiveMinimum, maximum, maxItems, maxLength, minimum, minItems, minLength } = json
  if (typeof minimum === "number" && typeof maximum === "number") words.push(`between ${minimum} and ${maximum}`)
  else {
    if (typeof minimum === "number") words.push(`greater than or equal to ${minimum}`)
    if (typeof maximum === "number") words.push(`less than or equal to ${maximum}`)
  }
  if (typeof exclusiveMinimum === "number") words.push(`greater than ${exclusiveMinimum}`)
  if (typeof exclusiveMaximum === "number") words.push(`less than ${exclusiveMaximum}`)
  if (typeof json.multipleOf === "number") words.push(`that is a multiple of ${json.multipleOf}`)
  if (typeof minLength === "number" && minLength === maxLength) {
    words.push(`exactly ${plural(minLength, "character")} long`)
  } else {
    if (typeof minLength === "number") words.push(`at least ${plural(minLength, "character")} long`)
    if (typeof maxLength === "number") words.push(`at most ${plural(maxLength, "character")} long`)
  }
  if (typeof minItems === "number") words.push(`with at least ${plural(minItems, "item")}`)
  if (typeof maxItems === "number") words.push(`with at most ${plural(maxItems, "item")}`)
  if (typeof json.pattern === "string") words.push(`matching /${json.pattern}/`)
  if (typeof json.format === "string") words.push(`in ${json.format} format`)
  return words
}

/** What a schema accepts, in words ("a number greater than 0", "one of \"a\", \"b\""). */
export const expected = (ast: AST.AST, depth = 0): string => {
  if (depth > 20) return "a valid value"
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "a boolean"
    case "BigIntKeyword":
      return "a bigint"
    case "UndefinedKeyword":
    case "VoidKeyword":
      return "nothing"
    case "Literal":
      return ast.literal === null ? "null" : show(ast.literal)
    case "Enums":
      return `one of ${ast.enums.map(([, value]) => show(value)).join(", ")}`
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "an array"
    case "Union": {
      // `undefined` is how an optional property is typed; JSON never sends it.
      const types = ast.types.filter((member) => member._tag !== "UndefinedKeyword")
      const members = Array.from(new Set((types.length > 0 ? types : ast.types).map((m) => expected(m, depth + 1))))
      return members.every((m) => m.startsWith("\"") || /^-?\d/.test(m) || m === "null")
        ? `one of ${members.join(", ")}`
        : members.join(" or ")
    }
    case "Suspend":
      return expected(ast.f(), depth + 1)
    case "Transformation":
      return expected(ast.to, depth + 1)
    case "Refinement": {
      const json = AST.getJSONSchemaAnnotation(ast)
      const given = json._tag === "Some" && typeof json.value === "object" && json.value !== null
        ? json.value as Record<string, unknown>
        : undefined
      const words = given === undefined ? [] : constraints(given)
      const base = given?.type === "integer" ? "an integer" : expected(ast.from, depth + 1)
      if (words.length > 0) return `${base} ${words.join(" and ")}`
      if (given?.type === "integer") return base
      // A filter of its own: its description says what it accepts (unless it only names the field).
      const description = AST.getDescriptionAnnotation(ast)
      return description._tag === "Some" ? description.value : base
    }
    case "Declaration": {
      const named = AST.getDescriptionAnnotation(ast)
      if (named._tag === "Some") return named.value
      const title = AST.getTitleAnnotation(ast)
      return title._tag === "Some" ? title.value : "a valid value"
    }
    default:
      return String(ast)
  }
}

/** A missing property's issue names its property signature: the type of the property. */
const typeOf = (ast: unknown): AST.AST => {
  const node = ast as { readonly type?: AST.AST; readonly _tag?: string }
  return node._tag === undefined && node.type !== undefined ? node.type : ast as AST.AST
}

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (text, key) =>
      typeof key === "number" ? `${text}[${key}]` : text.length === 0 ? String(key) : `${text}.${String(key)}`,
    ""
  )

const line = (path: ReadonlyArray<PropertyKey>, text: string) => path.length === 0 ? text : `${pathText(path)}: ${text}`

const collect = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>, out: Array<string>): void => {
  if (out.length > maxLines) return
  switch (issue._tag) {
    case "Type":
      out.push(line(
        path,
        issue.message !== undefined
          ? issue.message
          : `expected ${expected(issue.ast)}, got ${show(issue.actual)}`
      ))
      return
    case "Missing":
      out.push(line(path, `missing (expected ${expected(typeOf(issue.ast))})`))
      return
    case "Unexpected":
      out.push(line(path, issue.message ?? "not allowed here"))
      return
    case "Forbidden":
      out.push(line(path, issue.message ?? "cannot be checked here"))
      return
    case "Pointer":
      collect(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])], out)
      return
    case "Refinement":
      // A failed predicate: what the refinement accepts; a failure inside it: that failure.
      if (issue.kind === "Predicate" && issue.issue._tag === "Type" && issue.issue.message === undefined) {
        out.push(line(path, `expected ${expected(issue.ast)}, got ${show(issue.actual)}`))
        return
      }
      collect(issue.issue, path, out)
      return
    case "Transformation":
      collect(issue.issue, path, out)
      return
    case "Composite": {
      const issues = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      if (issue.ast._tag === "Union" && issues.length !== 1) {
        // Members of one kind (objects, say): the problems of the one that came closest.
        const described = expected(issue.ast)
        if (!described.includes(" or ") && !described.startsWith("one of")) {
          let best: Array<string> | undefined
          for (const each of issues) {
            const lines: Array<string> = []
            collect(each, path, lines)
            if (best === undefined || lines.length < best.length) best = lines
          }
          out.push(...(best ?? []))
          return
        }
        // Members of different kinds: what the union accepts, in one line.
        out.push(line(path, `expected ${described}, got ${show(issue.actual)}`))
        return
      }
      for (const each of issues) collect(each, path, out)
      return
    }
  }
}

/** The problems of a parse failure, one line each. */
export const describe = (error: ParseResult.ParseError): string => {
  const out: Array<string> = []
  collect(error.issue, [], out)
  if (out.length > maxLines) {
    out.length = maxLines
    out.push("(and more)")
  }
  return out.join("\n")
}
