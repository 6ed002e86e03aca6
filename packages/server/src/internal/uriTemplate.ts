/**
 * RFC 6570 URI templates: matching a URI against a template and extracting its
 * variables (levels 1–3 and the explode modifier of level 4), and expansion.
 */

interface VarSpec {
  readonly name: string
  readonly explode: boolean
}

interface Expression {
  readonly operator: "" | "+" | "#" | "." | "/" | ";" | "?" | "&"
  readonly vars: ReadonlyArray<VarSpec>
}

type Part = string | Expression

const parse = (template: string): ReadonlyArray<Part> => {
  const parts: Array<Part> = []
  let i = 0
  while (i < template.length) {
    const open = template.indexOf("{", i)
    if (open < 0) {
      parts.push(template.slice(i))
      break
    }
    if (open > i) parts.push(template.slice(i, open))
    const close = template.indexOf("}", open)
    if (close < 0) throw new Error(`unclosed expression in URI template ${template}`)
    let body = template.slice(open + 1, close)
    const operator = "+#./;?&".includes(body[0] ?? "") ? body[0] as Expression["operator"] : ""
    if (operator !== "") body = body.slice(1)
    const vars = body.split(",").map((v) => {
      const explode = v.endsWith("*")
      const name = (explode ? v.slice(0, -1) : v).replace(/:\d+$/, "")
      return { name, explode }
    })
    parts.push({ operator, vars })
    i = close + 1
  }
  return parts
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** A compiled template. */
export interface UriTemplate {
  readonly template: string
  readonly variableNames: ReadonlyArray<string>
  /** The variables of `uri`, or undefined when it does not match. */
  readonly match: (uri: string) => Readonly<Record<string, string | ReadonlyArray<string>>> | undefined
  readonly expand: (variables: Readonly<Record<string, string | ReadonlyArray<string>>>) => string
}

const separator: Record<Expression["operator"], string> = {
  "": ",",
  "+": ",",
  "#": ",",
  ".": ".",
  "/": "/",
  ";": ";",
  "?": "&",
  "&": "&"
}

/** Compiles a template. Throws on a malformed one. */
export const compile = (template: string): UriTemplate => {
  const parts = parse(template)
  const groups: Array<{ readonly expression: Expression }> = []
  let source = "^"
  for (const part of parts) {
    if (typeof part === "string") {
      source += escapeRegExp(part)
      continue
    }
    groups.push({ expression: part })
    switch (part.operator) {
      case "":
        source += "([^/?#&]*)"
        break
      case "+":
        source += "([^?#]*)"
        break
      case "#":
        source += "(?:#(.*))?"
        break
      case ".":
        source += "((?:\\.[^/?#.]*)*)"
        break
      case "/":
        source += "((?:/[^/?#]*)*)"
        break
      case ";":
        source += "((?:;[^/?#;]*)*)"
        break
      case "?":
      case "&":
        source += `((?:[?&][^#]*)?)`
        break
    }
  }
  const regex = new RegExp(source + "$")

  const extract = (expression: Expression, raw: string, out: Record<string, string | ReadonlyArray<string>>) => {
    const { operator, vars } = expression
    if (operator === "?" || operator === "&" || operator === ";") {
      const pairs = raw.replace(/^[?&;]/, "").split(operator === ";" ? ";" : "&").filter((s) => s.length > 0)
      for (const pair of pairs) {
        const eq = pair.indexOf("=")
        const key = decode(eq < 0 ? pair : pair.slice(0, eq))
        const value = eq < 0 ? "" : pair.slice(eq + 1)
        const spec = vars.find((v) => v.name === key)
        if (spec === undefined) continue
        out[key] = spec.explode ? [...(out[key] as ReadonlyArray<string> ?? []), decode(value)] : decode(value)
      }
      return
    }
    const body = operator === "." || operator === "/" ? raw.slice(1) : raw
    if (vars.length === 1) {
      const spec = vars[0]
      if (spec.explode) {
        out[spec.name] = body.length === 0 ? [] : body.split(separator[operator]).map(decode)
      } else if (raw.length > 0 || operator === "") {
        out[spec.name] = operator === "+" || operator === "#" ? decode(body) : decode(body)
      }
      return
    }
    const values = body.split(separator[operator])
    vars.forEach((spec, index) => {
      if (index < values.length) out[spec.name] = decode(values[index])
    })
  }

  const encodeValue = (value: string, reserved: boolean) =>
    reserved ? encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, "%$1") : encodeURIComponent(value)

  return {
    template,
    variableNames: groups.flatMap((g) => g.expression.vars.map((v) => v.name)),
    match: (uri) => {
      const m = regex.exec(uri)
      if (m === null) return undefined
      const out: Record<string, string | ReadonlyArray<string>> = {}
      groups.forEach((group, index) => extract(group.expression, m[index + 1] ?? "", out))
      return out
    },
    expand: (variables) =>
      parts.map((part) => {
        if (typeof part === "string") return part
        const reserved = part.operator === "+" || part.operator === "#"
        const rendered = part.vars.flatMap((spec) => {
          const value = variables[spec.name]
          if (value === undefined) return []
          const values = typeof value === "string" ? [value] : value
          const encoded = values.map((v) => encodeValue(v, reserved))
          const named = part.operator === "?" || part.operator === "&" || part.operator === ";"
          if (named) {
            return spec.explode
              ? encoded.map((v) => `${spec.name}=${v}`)
              : [`${spec.name}=${encoded.join(",")}`]
          }
          return spec.explode ? encoded : [encoded.join(",")]
        })
        if (rendered.length === 0) return ""
        const prefix = part.operator === "" || part.operator === "+" ? "" : part.operator === "&" ? "&" : part.operator
        return prefix + rendered.join(separator[part.operator])
      }).join("")
  }
}
