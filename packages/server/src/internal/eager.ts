/**
 * Combinators that keep a done effect done. Building a request's answer from handlers that
 * completed synchronously (an `Effect.succeed`, an `Effect.fail`: each an `Exit`), these apply
 * the next step at once and return an `Exit` again, so that the engine answers the request
 * without forking a fiber for it (`Peer`); any other effect is composed as usual.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/** Is `self` a success already (an `Exit`), whose value can be read at once? */
export const done = <A, E, R>(self: Effect.Effect<A, E, R>): self is Exit.Success<A, E> & Effect.Effect<A, E, R> =>
  Exit.isExit(self) && Exit.isSuccess(self)

/** `Effect.map`, applied at once when `self` is a success already. */
export const map = <A, E, R, B>(self: Effect.Effect<A, E, R>, f: (a: A) => B): Effect.Effect<B, E, R> =>
  done(self) ? Exit.succeed(f(self.value)) : Effect.map(self, f)

/** `Effect.flatMap`, applied at once when `self` is a success already. */
export const flatMap = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => done(self) ? f(self.value) : Effect.flatMap(self, f)
