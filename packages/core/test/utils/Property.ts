/**
 * The property every wire schema must hold: for arbitrary values of our schema,
 * the encoded JSON validates against the official definition of each revision that
 * uses it, and decode(encode(m)) equals m.
 */
import { type SchemaSet, validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { parseOptions } from "../../src/Schema/Base.js"
import * as Wire from "../../src/Wire.js"

export interface Case {
  /** Our schema. */
  readonly schema: Schema.Schema<any, any, never>
  /** The official definition name, per schema set; or one name for all of `sets`. */
  readonly official: string
  /** The schema sets (revisions) in which `official` describes `schema`. */
  readonly sets: ReadonlyArray<SchemaSet>
  /** Number of generated samples (default 60). */
  readonly samples?: number
}

/** Runs the property for one case; throws with the first counterexample. */
export const holds = (c: Case): void => {
  const encode = Schema.encodeSync(c.schema, parseOptions)
  const decode = Schema.decodeUnknownSync(c.schema, parseOptions)
  FastCheck.assert(
    FastCheck.property(Arbitrary.make(c.schema), (value) => {
      // Through the wire boundary, as every inbound message goes (own `__proto__` keys are dropped there).
      const json = Wire.parse(JSON.stringify(encode(value)))
      for (const set of c.sets) {
        const error = validate(set, c.official, json)
        if (error !== undefined) {
          throw new Error(`${c.official} @ ${set}: ${error}\n${JSON.stringify(json)}`)
        }
      }
      assert.deepStrictEqual(decode(json), Wire.parse(JSON.stringify(value)))
    }),
    { numRuns: c.samples ?? 60 }
  )
}
