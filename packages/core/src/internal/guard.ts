/**
 * A schema's check as a plain predicate: what `Schema.is` answers, without building the value
 * it would decode to.
 *
 * `Schema.is` runs the full parser and throws its output away: for a `tools/call` result that
 * is a new object per level, an `Either` per field and a `ParseIssue` per union member tried,
 * a few hundred bytes of garbage per message, on each side of every call. The predicate here
 * walks the same AST and allocates nothing on success.
 *
 * It answers exactly as `Schema.is` does for the nodes it knows (with `exact` property checks
 * and excess properties ignored, as `Schema.is` has them), which are every node an MCP wire
 * schema is made of. A schema with anything else gets no predicate (`undefined`), and the
 * caller keeps `Schema.is`: a `Declaration` (a class, a `Date`, an `Option`…), a
 * `Transformation` (a schema that does more than check), or a node annotated with parse options
 * or a decoding fallback (which change how the parser below them answers).
 *
 * The schema's own AST is walked, not its type side (`AST.typeAST`, which builds a new
 * `Suspend` at every visit): without transformations the two are the same, and a recursive
 * schema then meets itself in the memo, so the whole schema is known when `compile` returns.
 *
 * One difference is possible and harmless: a refinement of an object is given the value as it
 * came, where `Schema.is` gives it the value decoded, without excess properties (the full decode
 * the caller falls back to keeps them, so this matches the fallback).
 */
import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"

type Guard = (u: unknown) => boolean

/**
 * The annotation of a schema built on first use (`deferred` in `internal/shapes.ts`): a
 * `Declaration` whose annotation gives the AST of the schema it stands for, a wire schema that only
 * checks. Its predicate is that schema's, compiled when a value first reaches it.
 */
export const DeferredId: unique symbol = Symbol.for("@effect-mcp/core/DeferredSchema")

/** The schema a deferred `Declaration` stands for, built by the call, if `ast` is one. */
export const deferredOf = (ast: AST.AST): (() => AST.AST) | undefined => {
  const deferred = ast.annotations[DeferredId]
  return typeof deferred === "function" ? deferred as () => AST.AST : undefined
}

/** What `Schema.is` passes to filters. */
const filterOptions: AST.ParseOptions = { exact: true }

const hasOwn = Object.prototype.hasOwnProperty

const isRecord = (u: unknown): u is Record<PropertyKey, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

class Unsupported {
  readonly _tag = "Unsupported"
}

/**
 * The predicate of a schema that only checks, or `undefined` when a node of it is not one known here.
 * With `exact`, an object with a key its schema does not name (a property, or a key of an index
 * signature) fails too: what passes is then what a decode that drops excess properties would give.
 */
export const compile = (ast: AST.AST, exact = false): Guard | undefined => {
  const memo: Memo = { guards: new Map(), exact }
  try {
    return go(ast, memo)
  } catch (error) {
    if (error instanceof Unsupported) return undefined
    throw error
  }
}

interface Memo {
  readonly guards: Map<AST.AST, Guard>
  readonly exact: boolean
}

const go = (ast: AST.AST, memo: Memo): Guard => {
  const known = memo.guards.get(ast)
  if (known !== undefined) return known
  if (Option.isSome(AST.getParseOptionsAnnotation(ast)) || Option.isSome(AST.getDecodingFallbackAnnotation(ast))) {
    throw new Unsupported()
  }
  // A forward reference first: a cycle (through `Suspend`) finds it and calls the real one later.
  let real: Guard | undefined
  memo.guards.set(ast, (u) => real!(u))
  real = build(ast, memo)
  memo.guards.set(ast, real)
  return real
}

const build = (ast: AST.AST, memo: Memo): Guard => {
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "UniqueSymbol": {
      const symbol = ast.symbol
      return (u) => u === symbol
    }
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "NeverKeyword":
      return () => false
    case "UnknownKeyword":
    case "AnyKeyword":
    case "VoidKeyword":
      return () => true
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "BigIntKeyword":
      return (u) => typeof u === "bigint"
    case "SymbolKeyword":
      return (u) => typeof u === "symbol"
    case "ObjectKeyword":
      return (u) => (typeof u === "object" && u !== null) || typeof u === "function"
    case "Enums": {
      const values = ast.enums.map(([, value]) => value)
      return (u) => values.some((value) => value === u)
    }
    case "TemplateLiteral": {
      const regex = AST.getTemplateLiteralRegExp(ast)
      return (u) => typeof u === "string" && regex.test(u)
    }
    case "Refinement": {
      const from = go(ast.from, memo)
      return (u) => from(u) && Option.isNone(ast.filter(u, filterOptions, ast))
    }
    case "Suspend":
      // At once: a node it does not know, however deep, is found before `compile` returns.
      return go(ast.f(), memo)
    case "Union": {
      const members = ast.types.map((member) => go(member, memo))
      return (u) => {
        for (const member of members) if (member(u)) return true
        return false
      }
    }
    case "TupleType":
      return tuple(ast, memo)
    case "TypeLiteral":
      return typeLiteral(ast, memo)
    case "Declaration": {
      const deferred = deferredOf(ast)
      if (deferred === undefined) throw new Unsupported()
      // Built and compiled when a value first reaches it; a schema without a predicate answers
      // false, so the caller decodes fully (what a predicate saying false always means).
      let inner: Guard | undefined
      return (u) => (inner ??= compile(deferred(), memo.exact) ?? (() => false))(u)
    }
    case "Transformation":
      throw new Unsupported()
  }
}

const tuple = (ast: AST.TupleType, memo: Memo): Guard => {
  const elements = ast.elements.map((element) => ({ check: go(element.type, memo), optional: element.isOptional }))
  const [head, ...tail] = ast.rest.map((rest) => go(rest.type, memo))
  const required = ast.elements.filter((element) => !element.isOptional).length + Math.max(0, ast.rest.length - 1)
  return (u) => {
    if (!Array.isArray(u)) return false
    const length = u.length
    if (length < required) return false
    if (head === undefined && length > elements.length) return false
    let i = 0
    for (; i < elements.length; i++) {
      if (length < i + 1) {
        if (elements[i].optional) continue
        return false
      }
      if (!elements[i].check(u[i])) return false
    }
    if (head !== undefined) {
      for (; i < length - tail.length; i++) if (!head(u[i])) return false
      for (let j = 0; j < tail.length; j++) {
        if (length < i + j + 1) continue
        if (!tail[j](u[i + j])) return false
      }
    }
    return true
  }
}

const typeLiteral = (ast: AST.TypeLiteral, memo: Memo): Guard => {
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
    // `{}`: anything but null and undefined; exact, an object with no key of its own.
    return memo.exact
      ? (u) => u !== null && u !== undefined && (typeof u !== "object" || Object.keys(u).length === 0)
      : (u) => u !== null && u !== undefined
  }
  const properties = ast.propertySignatures.map((property) => ({
    name: property.name,
    optional: property.isOptional,
    check: go(property.type, memo)
  }))
  const names = new Set<PropertyKey>(ast.propertySignatures.map((property) => property.name))
  const indexes = ast.indexSignatures.map((index) => ({
    keys: keysOf(index.parameter),
    key: go(index.parameter, memo),
    check: go(index.type, memo)
  }))
  // An index signature whose values may be anything (`_meta`, a tool's `arguments`) checks no
  // value: its keys are not walked (but under `exact`, where they say which keys are named).
  const checked = indexes.filter((_, i) => !isAnything(ast.indexSignatures[i].type))
  return (u) => {
    if (!isRecord(u)) return false
    for (const property of properties) {
      // `exact`: a key that is absent is not a key whose value is undefined.
      if (!hasOwn.call(u, property.name)) {
        if (property.optional) continue
        return false
      }
      if (!property.check(u[property.name])) return false
    }
    for (const index of checked) {
      for (const key of index.keys(u)) {
        if (index.key(key) && !index.check(u[key])) return false
      }
    }
    if (memo.exact) {
      // Every key is one the schema names: none a decode would drop.
      for (const key of Object.keys(u)) {
        if (names.has(key)) continue
        if (!indexes.some((index) => index.key(key))) return false
      }
    }
    return true
  }
}

/** A node every value passes, with nothing to check. */
const isAnything = (ast: AST.AST): boolean =>
  (ast._tag === "UnknownKeyword" || ast._tag === "AnyKeyword") &&
  Option.isNone(AST.getParseOptionsAnnotation(ast)) && Option.isNone(AST.getDecodingFallbackAnnotation(ast))

/** The keys an index signature ranges over: strings, or symbols. */
const keysOf = (parameter: AST.Parameter): (u: object) => ReadonlyArray<PropertyKey> => {
  switch (parameter._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return Object.keys
    case "SymbolKeyword":
      return Object.getOwnPropertySymbols
    case "Refinement":
      return keysOf(parameter.from)
  }
}
