/**
 * A set of listeners in a `Ref`: one is in it for the lifetime of a scope. (The registry's list
 * changes and the server's logs outside any request are each told to such a set.)
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"

/** Adds `listener` to `listeners` until the scope closes. */
export const listen = <L>(
  listeners: Ref.Ref<ReadonlySet<L>>,
  listener: L
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Ref.update(listeners, (all) => new Set(all).add(listener)),
    () =>
      Ref.update(listeners, (all) => {
        const next = new Set(all)
        next.delete(listener)
        return next
      })
  )
