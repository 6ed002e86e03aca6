/**
 * Garbage collection on demand for tests that count what stays live (`--expose-gc` set at run
 * time, so the suite needs no flag of its own).
 */
import * as Effect from "effect/Effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"

v8.setFlagsFromString("--expose-gc")
const gc: () => void = vm.runInNewContext("gc")

/** Full collections, a turn apart (a `WeakRef`'s target is kept until the turn that made it ends). */
export const collect: Effect.Effect<void> = Effect.promise(async () => {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
  }
})
