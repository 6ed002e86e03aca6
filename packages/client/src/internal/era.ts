/**
 * The era of the connection: pinned, or probed (`auto`) with `server/discover`. The probe's
 * timeout runs from when the server has shown it is up (the transport's `started`: a child's first
 * line on stdout, or its floor); on such a transport a probe that timed out is still heard while
 * the handshake goes ahead, and picks the stateless era if it answers once `initialize` has been
 * answered (within another `probeTimeout`), before the session is begun.
 */
import { Revision } from "@effect-mcp/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as ClientError from "../ClientError.js"
import type { EraChoice, RequestResult } from "../McpClient.js"
import type * as Session from "./session.js"

type Discovered = RequestResult<"server/discover">

/** The era picked, with what picking it learned of the server. */
export type Picked =
  | { readonly era: "stateless"; readonly discovered: Discovered }
  | { readonly era: "handshake"; readonly initialized: Session.Initialized }

export interface Options {
  readonly choice: EraChoice
  /** `server/discover`, its result checked. */
  readonly discover: Effect.Effect<Discovered, ClientError.ClientError>
  /** `initialize`, its result checked (the session not yet begun). */
  readonly initialize: Effect.Effect<Session.Initialized, ClientError.ClientError>
  /** `notifications/initialized`: the session begun. */
  readonly confirm: Effect.Effect<void, ClientError.ClientError>
  readonly probeTimeout: Duration.DurationInput | undefined
  /** The transport's `started` (see `McpClientTransport.Service`). */
  readonly started: Effect.Effect<void> | undefined
}

/**
 * What a probe's failure says: the error the client fails with (no era would do better), or none
 * (a handshake server, most likely).
 */
const fatal = (error: ClientError.ClientError): Option.Option<ClientError.ClientError> =>
  // A modern server that speaks no revision of ours, and no handshake one either.
  (error._tag === "VersionMismatch" &&
      !error.offered.some((v) => (Revision.handshake as ReadonlyArray<string>).includes(v))) ||
    // No connection, or a refusal to authorize, or an authorization that failed: no era would do
    // better (and asking again in another would start another authorization).
    error._tag === "ConnectionFailed" || ClientError.isAuthError(error) ||
    (error._tag === "HttpError" && (error.status === 401 || error.status === 403))
    ? Option.some(error)
    : Option.none()

export const pick = (options: Options): Effect.Effect<Picked, ClientError.ClientError> => {
  const handshake = Effect.map(
    Effect.tap(options.initialize, () => options.confirm),
    (initialized): Picked => ({ era: "handshake", initialized })
  )
  if (options.choice === "handshake") return handshake
  if (options.choice === "stateless") {
    return Effect.map(options.discover, (discovered): Picked => ({ era: "stateless", discovered }))
  }
  const timeout = options.probeTimeout ?? Duration.seconds(5)
  const { started } = options
  return Effect.scoped(Effect.gen(function*() {
    // Forked, so that it may still be heard once its time is over (interrupted with the scope).
    const probe = yield* Effect.forkScoped(Effect.either(options.discover))
    /** The probe's answer if it comes within `timeout` of `from` completing. */
    const answer = (from: Effect.Effect<void>) =>
      Effect.raceFirst(
        Effect.map(Fiber.join(probe), Option.some),
        Effect.as(Effect.zipRight(from, Effect.sleep(timeout)), Option.none())
      )
    const first = yield* answer(started ?? Effect.void)
    if (Option.isSome(first)) {
      if (Either.isRight(first.value)) return { era: "stateless", discovered: first.value.right } satisfies Picked
      const error = fatal(first.value.left)
      return Option.isSome(error) ? yield* error.value : yield* handshake
    }
    // No answer in time: a handshake server, most likely. Where the server may have been slow to
    // start, the probe is still heard: `initialize` was sent after it, so once that is answered the
    // server is up, and a server that speaks 2026-07-28 answers the probe too.
    if (started === undefined) {
      yield* Fiber.interrupt(probe)
      return yield* handshake
    }
    const initialized = yield* Effect.either(options.initialize)
    const late = yield* answer(Effect.void)
    if (Option.isSome(late) && Either.isRight(late.value)) {
      // The session is never begun (no `notifications/initialized`); the server forgets it with the
      // connection.
      return { era: "stateless", discovered: late.value.right } satisfies Picked
    }
    yield* Fiber.interrupt(probe)
    if (Either.isLeft(initialized)) return yield* initialized.left
    yield* options.confirm
    return { era: "handshake", initialized: initialized.right } satisfies Picked
  }))
}
