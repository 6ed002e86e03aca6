/**
 * What the compiler tells a newcomer, checked on the compiler's own words: a tool definition that
 * cannot work is refused in the types with one message that names the problem and the fix, not a
 * mismatch against types the user never wrote (the members of `McpError`, say).
 *
 * Each case is a small program type-checked here with the TypeScript compiler API, as an editor
 * would; the `@ts-expect-error` cases in `FirstDay.test.ts` check the same definitions in this
 * package's own build.
 */
import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const here = path.dirname(fileURLToPath(import.meta.url))
/** A file that exists only in the compiler's host, beside this one (so `../src/index.js` resolves). */
const fixture = path.join(here, "type-messages.fixture.ts")

const compilerOptions = (): ts.CompilerOptions => {
  const configPath = path.join(here, "../tsconfig.test.json")
  const config = ts.readConfigFile(configPath, ts.sys.readFile)
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath))
  // The sources themselves, not the referenced projects' build output.
  const { rootDir: _, ...options } = parsed.options
  return {
    ...options,
    noEmit: true,
    composite: false,
    incremental: false,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    noUnusedLocals: false,
    types: []
  }
}

const header = `
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { McpError, Tool } from "../src/index.js"

class Boom extends Schema.TaggedError<Boom>()("Boom", { message: Schema.String }) {}
class Declared extends Schema.TaggedError<Declared>()("Declared", { message: Schema.String }) {}
class Db extends Context.Tag("Db")<Db, { readonly n: number }>() {}
const P = Schema.Struct({ n: Schema.Number })
`

/** Type-checks `cases` (name -> one statement) in one program; the messages of each case, flattened. */
const diagnose = (cases: Record<string, string>): Record<string, ReadonlyArray<string>> => {
  const names = Object.keys(cases)
  const lines = header.split("\n")
  const first = lines.length
  const source = [...lines, ...names.map((name) => cases[name].replace(/\n/g, " "))].join("\n")
  const options = compilerOptions()
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  const readFile = host.readFile.bind(host)
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    path.resolve(fileName) === fixture
      ? ts.createSourceFile(fileName, source, languageVersion, true)
      : getSourceFile(fileName, languageVersion, ...rest)
  host.fileExists = (fileName) => path.resolve(fileName) === fixture || fileExists(fileName)
  host.readFile = (fileName) => path.resolve(fileName) === fixture ? source : readFile(fileName)
  const program = ts.createProgram({ rootNames: [fixture], options, host })
  const file = program.getSourceFile(fixture)!
  const out: Record<string, Array<string>> = Object.fromEntries(names.map((name) => [name, []]))
  for (const diagnostic of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
    const line = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line
    const name = names[line - first]
    assert.isDefined(
      name,
      `a diagnostic outside the cases: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`
    )
    out[name].push(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
  }
  return out
}

const undeclared =
  "the handler fails with an error the tool does not declare: declare it with `failure:` (its Schema), or map it (Effect.catchTag, Effect.mapError, Effect.orDie)"
const uncovered =
  "the handler fails with an error its `failure` schema does not cover: add it to `failure:` (Schema.Union), or map it (Effect.catchTag, Effect.mapError, Effect.orDie)"
const successArray =
  "success must be an object schema (Schema.Struct), not an array: wrap it in a field, Schema.Struct({ items: Schema.Array(...) })"
const successValue =
  "success must be an object schema (Schema.Struct): structuredContent is a JSON object, so wrap the value in a field, Schema.Struct({ value: ... })"

/** The last line of a message: the compiler's innermost reason. */
const reason = (messages: ReadonlyArray<string>): string | undefined => {
  assert.strictEqual(messages.length, 1, messages.join("\n---\n"))
  return messages[0].split("\n").at(-1)?.trim()
}

const cases = {
  // A handler failing with an error the tool does not declare.
  noFailure: `export const a = Tool.make("a", {}, () => Effect.fail(new Boom({ message: "no" })))`,
  otherFailure:
    `export const b = Tool.make("b", { failure: Declared }, () => Effect.fail(new Boom({ message: "no" })))`,
  someBranch: `export const c = Tool.make("c", { parameters: Schema.Struct({ n: Schema.Number }) },
    ({ n }) => n > 0 ? Effect.fail(new Boom({ message: "no" })) : Effect.succeed("ok"))`,
  inGenerator: `export const d = Tool.make("d", { failure: Declared }, () => Effect.gen(function*() {
    yield* Effect.fail(new Declared({ message: "fine" }))
    yield* Effect.fail(new Boom({ message: "no" }))
    return "ok"
  }))`,
  // What compiles: the declared failure, the wire errors, no failure at all, a failure mapped away.
  declared:
    `export const e = Tool.make("e", { failure: Declared }, () => Effect.fail(new Declared({ message: "ok" })))`,
  wire: `export const f = Tool.make("f", { failure: Declared }, () =>
    Effect.fail(new McpError.UrlElicitationRequired({ elicitations: [] })))`,
  wireAlone: `export const g = Tool.make("g", {}, () => Effect.fail(new McpError.InvalidParams({ message: "ok" })))`,
  mapped: `export const h = Tool.make("h", {}, () =>
    Effect.fail(new Boom({ message: "no" })).pipe(Effect.catchTag("Boom", () => Effect.succeed("ok"))))`,
  orDie: `export const i = Tool.make("i", {}, () => Effect.orDie(Effect.fail(new Boom({ message: "no" }))))`,
  // A success schema that is not an object.
  array: `export const j = Tool.make("j", { success: Schema.Array(Schema.String) }, () => Effect.succeed(["x"]))`,
  string: `export const k = Tool.make("k", { success: Schema.String }, () => Effect.succeed("x"))`,
  number: `export const l = Tool.make("l", { success: Schema.Number }, () => Effect.succeed(1))`,
  literals:
    `export const m = Tool.make("m", { success: Schema.Literal("a", "b") }, () => Effect.succeed("a" as const))`,
  // Objects of every kind compile, and so does a tool with no success schema.
  struct: `export const n = Tool.make("n", { success: Schema.Struct({ items: Schema.Array(Schema.String) }) },
    () => Effect.succeed({ items: ["x"] }))`,
  tagged: `export const o = Tool.make("o", { success: Schema.TaggedStruct("Done", { n: Schema.Number }) },
    () => Effect.succeed({ _tag: "Done" as const, n: 1 }))`,
  record: `export const p = Tool.make("p", { success: Schema.Record({ key: Schema.String, value: Schema.Number }) },
    () => Effect.succeed({ a: 1 }))`,
  none: `export const q = Tool.make("q", {}, () => Effect.succeed("text"))`,
  union: `export const r = Tool.make("r", {
    success: Schema.Union(Schema.TaggedStruct("A", { n: Schema.Number }), Schema.TaggedStruct("B", {}))
  }, () => Effect.succeed({ _tag: "B" as const }))`,
  // Type arguments given by hand keep their places; a handler's requirements are still inferred.
  explicitR: `export const s: Tool.Tool<Db> = Tool.make<Db>("s", {}, () => Effect.map(Db, (db) => String(db.n)))`,
  explicitP:
    `export const t = Tool.make<never, typeof P>("t", { parameters: P }, ({ n }) => Effect.succeed(String(n)))`,
  inferredR: `export const u: Tool.Tool<Db> = Tool.make("u", { failure: Declared }, () =>
    Effect.flatMap(Db, (db) => db.n > 0 ? Effect.succeed("ok") : Effect.fail(new Declared({ message: "no" }))))`
}

/** One program for every case (type-checking the package's sources takes seconds), checked on first use. */
const checked = (() => {
  let found: Record<string, ReadonlyArray<string>> | undefined
  return () => found ??= diagnose(cases)
})()

describe("the compiler's message", () => {
  it("for a handler failing with an error it does not declare: declare it with failure:, or map it", () => {
    const found = checked()
    assert.strictEqual(reason(found.noFailure), `Type 'Boom' is not assignable to type '"${undeclared}"'.`)
    assert.strictEqual(reason(found.otherFailure), `Type 'Boom' is not assignable to type '"${uncovered}"'.`)
    assert.strictEqual(reason(found.someBranch), `Type 'Boom' is not assignable to type '"${undeclared}"'.`)
    assert.include(found.inGenerator.join("\n"), uncovered)
    for (const messages of [...found.noFailure, ...found.otherFailure, ...found.someBranch, ...found.inGenerator]) {
      assert.notInclude(messages, "UrlElicitationRequired")
      assert.notInclude(messages, "RpcError")
    }
    for (const name of ["declared", "wire", "wireAlone", "mapped", "orDie", "explicitR", "explicitP", "inferredR"]) {
      assert.deepStrictEqual(found[name], [], name)
    }
  }, 120_000)

  it("for a success schema that is not an object: wrap it in a Schema.Struct", () => {
    const found = checked()
    assert.strictEqual(
      reason(found.array),
      `Type 'Array$<typeof String$>' is not assignable to type '"${successArray}"'.`
    )
    assert.strictEqual(reason(found.string), `Type 'typeof String$' is not assignable to type '"${successValue}"'.`)
    assert.strictEqual(reason(found.number), `Type 'typeof Number$' is not assignable to type '"${successValue}"'.`)
    assert.include(reason(found.literals), successValue)
    for (const name of ["struct", "tagged", "record", "none", "union"]) {
      assert.deepStrictEqual(found[name], [], name)
    }
  }, 120_000)
})
