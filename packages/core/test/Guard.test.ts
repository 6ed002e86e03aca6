/**
 * The check that builds nothing (internal/guard) answers as `Schema.is` does: for every wire
 * schema of the catalog, on generated values and on values broken at a random place; and for each
 * kind of node on its own.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { inspect } from "node:util"
import * as Guard from "../src/internal/guard.js"
import * as Method from "../src/Method.js"
import * as Revision from "../src/Revision.js"
import { checksOnly, codec, parseOptions } from "../src/Schema/Base.js"

/** Every node of a JSON value, by path (the root is the empty path). */
const paths = (value: unknown, at: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  const here = [at]
  if (Array.isArray(value)) return here.concat(...value.map((item, i) => paths(item, [...at, i])))
  if (typeof value === "object" && value !== null) {
    return here.concat(...Object.entries(value).map(([key, item]) => paths(item, [...at, key])))
  }
  return here
}

type Mutation = { readonly pick: number; readonly how: "delete" | "replace" | "add"; readonly with: unknown }

/** The value with one node deleted, replaced, or given a new key (a copy; the root is replaced). */
const mutate = (value: unknown, m: Mutation): unknown => {
  const copy = JSON.parse(JSON.stringify(value))
  const all = paths(copy)
  const path = all[m.pick % all.length]
  if (path.length === 0) return m.how === "replace" ? m.with : copy
  let parent: any = copy
  for (const step of path.slice(0, -1)) parent = parent[step]
  const last = path[path.length - 1]
  if (m.how === "delete") {
    if (Array.isArray(parent)) parent.splice(last as number, 1)
    else delete parent[last]
  } else if (m.how === "replace") parent[last] = m.with
  else {
    const target = parent[last]
    if (typeof target === "object" && target !== null && !Array.isArray(target)) target.extra = m.with
    else parent[last] = m.with
  }
  return copy
}

const mutation: FastCheck.Arbitrary<Mutation> = FastCheck.record({
  pick: FastCheck.nat(),
  how: FastCheck.constantFrom("delete" as const, "replace" as const, "add" as const),
  with: FastCheck.jsonValue({ maxDepth: 2 })
})

/** The guard and `Schema.is` agree on values of `schema` and on broken ones. */
const agrees = (name: string, schema: Schema.Schema<any, any>, samples: number) => {
  const guard = Guard.compile(schema.ast)
  assert.isDefined(guard, `${name}: no guard (a node it does not know)`)
  const is = Schema.is(schema)
  const encode = Schema.encodeSync(schema, parseOptions)
  FastCheck.assert(
    FastCheck.property(Arbitrary.make(schema), mutation, (value, m) => {
      const wire = JSON.parse(JSON.stringify(encode(value)))
      assert.isTrue(guard!(wire), `${name}: a generated value refused: ${JSON.stringify(wire)}`)
      assert.strictEqual(guard!(wire), is(wire))
      const broken = mutate(wire, m)
      const answer = guard!(broken)
      // Schema.is itself throws on some values (a union member given `{ "toString": 0 }` makes
      // Effect call String on it): then the guard only has to answer, without throwing.
      let expected: boolean | undefined
      try {
        expected = is(broken)
      } catch {
        expected = undefined
      }
      if (expected !== undefined) assert.strictEqual(answer, expected, `${name}: ${JSON.stringify(broken)}`)
      else assert.isBoolean(answer)
    }),
    { numRuns: samples }
  )
}

describe("Guard: the catalog's wire schemas", () => {
  for (const revision of Revision.all) {
    for (const [method, entry] of Method.table(revision)) {
      it(`${revision} ${method}: params and result checked as Schema.is checks them`, () => {
        const parts = [["params", entry.shape.params], ["result", entry.shape.result]] as const
        // Every wire schema only checks (what Base.codec gives the guard to): none is left out.
        for (const [part, schema] of parts) {
          if (schema === undefined) continue
          assert.isTrue(checksOnly(schema), `${method} ${part} transforms`)
          agrees(`${method} ${part}`, schema, 30)
        }
      })
    }
  }
})

/** Both answer the same for each input, and the guard exists. */
const same = (schema: Schema.Schema<any, any>, inputs: ReadonlyArray<unknown>) => {
  const guard = Guard.compile(schema.ast)
  assert.isDefined(guard)
  const is = Schema.is(schema)
  for (const input of inputs) assert.strictEqual(guard!(input), is(input), inspect(input))
}

describe("Guard: each kind of node", () => {
  const values = [undefined, null, 0, 1.5, NaN, -1, "", "a", true, false, [], [1], {}, { a: 1 }, 10n, Symbol.for("s")]

  it("keywords and literals", () => {
    for (
      const schema of [
        Schema.String,
        Schema.Number,
        Schema.Boolean,
        Schema.BigIntFromSelf,
        Schema.SymbolFromSelf,
        Schema.Object,
        Schema.Undefined,
        Schema.Null,
        Schema.Unknown,
        Schema.Never,
        Schema.Literal("a", 1, true),
        Schema.UniqueSymbolFromSelf(Symbol.for("s"))
      ] as ReadonlyArray<Schema.Schema<any, any>>
    ) same(schema, values)
  })

  it("enums and template literals", () => {
    enum Color {
      Red = "red",
      Blue = 2
    }
    same(Schema.Enums(Color), ["red", 2, "Red", "Blue", 0, ...values])
    same(Schema.TemplateLiteral("a", Schema.String, "-", Schema.String, "z"), [
      "a-z",
      "abc-defz",
      "a--z",
      "az",
      "a-",
      "b-z",
      "a-z ",
      ...values
    ])
    same(Schema.TemplateLiteral("urn:", Schema.String, ":", Schema.Number), [
      "urn:a:1",
      "urn::2",
      "urn:a:b",
      "urn:a:",
      "x:a:1",
      ...values
    ])
  })

  it("refinements: the filter runs only on what the base accepts", () => {
    same(Schema.Int.pipe(Schema.nonNegative()), [0, 1, -1, 1.5, "1", ...values])
    same(Schema.String.pipe(Schema.pattern(/^[a-z]+$/), Schema.maxLength(3)), ["abc", "abcd", "ABC", "", ...values])
    same(
      Schema.Struct({ a: Schema.Number, b: Schema.Number }).pipe(Schema.filter((o) => o.a < o.b)),
      [{ a: 1, b: 2 }, { a: 2, b: 1 }, { a: 1 }, ...values]
    )
  })

  it("structs: required, optional, exact optional, undefined values, excess keys, arrays", () => {
    const schema = Schema.Struct({
      a: Schema.String,
      b: Schema.optional(Schema.Number),
      c: Schema.optionalWith(Schema.Number, { exact: true }),
      d: Schema.UndefinedOr(Schema.Number)
    })
    same(schema, [
      { a: "x", d: 1 },
      { a: "x", d: undefined },
      { a: "x" },
      { a: "x", b: undefined, d: 1 },
      { a: "x", c: undefined, d: 1 },
      { a: "x", c: 2, b: 1, d: 1, extra: {} },
      { b: 1, d: 1 },
      Object.assign([], { a: "x", d: 1 }),
      ...values
    ])
    same(Schema.Struct({}), values)
  })

  it("records and index signatures beside properties", () => {
    same(Schema.Record({ key: Schema.String, value: Schema.Number }), [{}, { a: 1 }, { a: "1" }, ...values])
    same(
      Schema.Struct({ kind: Schema.Literal("k") }, Schema.Record({ key: Schema.String, value: Schema.String })),
      [{ kind: "k" }, { kind: "k", x: "y" }, { kind: "k", x: 1 }, { x: "y" }, ...values]
    )
    same(
      Schema.Record({ key: Schema.String.pipe(Schema.startsWith("x-")), value: Schema.Number }),
      [{ "x-a": 1 }, { "x-a": "1" }, { y: "1" }, ...values]
    )
    same(
      Schema.Record({ key: Schema.TemplateLiteral("n", Schema.Number), value: Schema.Boolean }),
      [{ n1: true }, { n1: 1 }, { m: 1 }, ...values]
    )
    const s = Symbol.for("k")
    same(Schema.Record({ key: Schema.SymbolFromSelf, value: Schema.Number }), [{ [s]: 1 }, { [s]: "1" }, { a: "1" }])
  })

  it("tuples: optional elements, rest, elements after the rest", () => {
    same(Schema.Tuple(Schema.String, Schema.optionalElement(Schema.Number)), [
      ["a"],
      ["a", 1],
      ["a", "b"],
      ["a", 1, 2],
      [],
      ["a", undefined],
      ...values
    ])
    same(Schema.Tuple([Schema.String], Schema.Number, Schema.Boolean), [
      ["a", true],
      ["a", 1, 2, true],
      ["a", 1, "2", true],
      ["a", 1],
      ["a"],
      ...values
    ])
    same(Schema.Tuple([Schema.String, Schema.optionalElement(Schema.Number)], Schema.Boolean), [
      ["a"],
      ["a", 1],
      ["a", 1, true, false],
      ["a", true],
      ["a", 1, 2],
      [],
      ...values
    ])
    same(Schema.Array(Schema.Number), [[], [1, 2], [1, "2"], ...values])
    same(Schema.NonEmptyArray(Schema.String), [[], ["a"], [1], ...values])
  })

  it("unions, and recursion through suspend", () => {
    same(Schema.Union(Schema.String, Schema.Struct({ type: Schema.Literal("a") }), Schema.Number), [
      { type: "a" },
      { type: "b" },
      ...values
    ])
    interface Tree {
      readonly value: number
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Schema<Tree> = Schema.Struct({
      value: Schema.Number,
      children: Schema.Array(Schema.suspend(() => Tree))
    })
    same(Tree, [
      { value: 1, children: [] },
      { value: 1, children: [{ value: 2, children: [{ value: 3, children: [] }] }] },
      { value: 1, children: [{ value: "2", children: [] }] },
      { value: 1 },
      ...values
    ])
  })

  it("a schema with a node it does not know gets no guard (Schema.is is kept), however deep the node", () => {
    class Thing extends Schema.Class<Thing>("Thing")({ a: Schema.Number }) {}
    assert.isUndefined(Guard.compile(Thing.ast))
    assert.isUndefined(Guard.compile(Schema.Struct({ at: Schema.DateFromSelf }).ast))
    assert.isUndefined(Guard.compile(Schema.Struct({ at: Schema.OptionFromSelf(Schema.Number) }).ast))
    assert.isUndefined(Guard.compile(Schema.NumberFromString.ast))
    assert.isUndefined(Guard.compile(Schema.Struct({ at: Schema.suspend(() => Schema.DateFromSelf) }).ast))
    // Parse options below the root change how that part answers; a fallback changes what it accepts.
    assert.isUndefined(
      Guard.compile(
        Schema.Struct({ inner: Schema.Struct({ a: Schema.Number }).annotations({ parseOptions: { exact: false } }) })
          .ast
      )
    )
    assert.isUndefined(
      Guard.compile(Schema.Number.annotations({ decodingFallback: () => Either.right(0) }).ast)
    )
  })
})

describe("Guard: exact, for a codec that drops excess properties (issue 35, item 1)", () => {
  const Args = Schema.Struct({
    seconds: Schema.Number,
    inner: Schema.optional(Schema.Struct({ a: Schema.String })),
    tags: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number }))
  })

  it("a value with a key the schema does not name fails the exact guard, at any depth", () => {
    const exact = Guard.compile(Args.ast, true)!
    assert.isTrue(exact({ seconds: 1, inner: { a: "x" }, tags: { any: 1 } }))
    assert.isFalse(exact({ seconds: 1, dropped: "x" }))
    assert.isFalse(exact({ seconds: 1, inner: { a: "x", dropped: 1 } }))
    assert.isFalse(Guard.compile(Schema.Struct({}).ast, true)!({ dropped: 1 }))
    // Not exact: as Schema.is, excess keys are no failure.
    assert.isTrue(Guard.compile(Args.ast)!({ seconds: 1, dropped: "x" }))
  })

  it("codec with onExcessProperty ignore: what the schema does not name is dropped (a value without any is itself)", () => {
    const decode = codec(Args, "decode", { errors: "all", onExcessProperty: "ignore" })
    const big = "x".repeat(100_000)
    assert.deepStrictEqual(
      Either.getOrThrow(decode({ seconds: 1, dropped: big, inner: { a: "y", also: big } })),
      { seconds: 1, inner: { a: "y" } }
    )
    const clean = { seconds: 2, tags: { a: 1 } }
    assert.strictEqual(Either.getOrThrow(decode(clean)), clean)
    // Refused, with onExcessProperty error; kept, with the wire's parse options.
    assert.isTrue(Either.isLeft(codec(Args, "decode", { onExcessProperty: "error" })({ seconds: 1, dropped: 1 })))
    assert.deepStrictEqual(Either.getOrThrow(codec(Args, "decode", parseOptions)({ seconds: 1, kept: 1 })), {
      seconds: 1,
      kept: 1
    })
  })
})
