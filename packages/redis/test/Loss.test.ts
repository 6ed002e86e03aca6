/**
 * What a Redis part does with a record it cannot read: counted each time, logged at most once
 * every 10 seconds (by the `Clock`, so moved here with `TestClock`), the next warning saying how
 * many went unlogged.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as Loss from "../src/internal/loss.js"
import * as Losses from "./utils/losses.js"

describe("records lost", () => {
  it.effect("each counted; a warning at once, none within 10 seconds, then one that tells how many were not", () =>
    Losses.withWarnings((warnings) =>
      Effect.gen(function*() {
        const lose = yield* Loss.make
        const before = yield* Losses.lost("task")
        yield* lose("task", "t:task:1", new Error("first"))
        yield* lose("task", "t:task:2", new Error("second"))
        yield* TestClock.adjust("9999 millis")
        yield* lose("task", "t:task:3", new Error("third"))
        assert.strictEqual((yield* Losses.lost("task")) - before, 3)
        assert.deepStrictEqual(warnings, [
          "effect-mcp: a task record read from Redis (t:task:1) did not decode and was skipped: first"
        ])
        yield* TestClock.adjust("1 millis")
        yield* lose("task", "t:task:4", new Error("fourth"))
        assert.deepStrictEqual(warnings.slice(1), [
          "effect-mcp: a task record read from Redis (t:task:4) did not decode and was skipped: fourth " +
          "(and 2 more since the last warning)"
        ])
      })
    ))
})
