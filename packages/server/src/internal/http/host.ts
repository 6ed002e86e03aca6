/**
 * The protocol host of the handshake HTTP back end (the 2026-07-28 one runs no engine: each POST is
 * served on its own sink, `Peer.requests`): the `Transport.Protocol` its engine runs on, made of how
 * the back end sends (its `send`, and its `closeStream` and `unanswered` when it has them), and
 * the engine's receiver once the engine runs. An HTTP protocol's `run` only hands the receiver
 * over and waits, until the scope closes: the exchanges come from the platform's callbacks.
 */
import type { Transport } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import type * as Shared from "../sharedSessions.js"

/** How a back end sends: the protocol but its `run` (and its shared sessions, when it has them). */
export type Sending = Omit<Shared.SharedProtocol, "run">

export class ProtocolHost {
  private engine: Transport.Receiver | undefined = undefined
  private readonly running = Deferred.unsafeMake<void>(FiberId.none)
  /** The protocol the engine runs on. */
  readonly protocol: Shared.SharedProtocol

  constructor(sending: Sending) {
    this.protocol = {
      ...sending,
      run: (receiver) =>
        Effect.zipRight(
          Effect.sync(() => {
            this.engine = receiver
            Deferred.unsafeDone(this.running, Effect.void)
          }),
          Effect.never
        )
    }
  }

  /** Completes once the engine runs on this protocol. */
  get ready(): Effect.Effect<void> {
    return Deferred.await(this.running)
  }

  /** The engine's receiver, once it runs (undefined before). */
  get receiver(): Transport.Receiver | undefined {
    return this.engine
  }
}
