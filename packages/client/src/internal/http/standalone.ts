/**
 * The session's own stream (the standalone GET) of the client's Streamable HTTP transport: what the
 * server sends outside any request (its requests, list changes, resource updates). Opened once the
 * session is initialized, and at once then only when the server gave a session id (a server
 * without one may have a stream too, but such a GET is sent only once a subscription asks: many
 * answer it 400 or 409); reopened from its last event id; a 405 means the server has none, a 404
 * that the session is gone.
 */
import type { Transport } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import type * as ClientError from "../../ClientError.js"
import * as Events from "./events.js"
import type { Connection, Session } from "./session.js"

/** Whether the session's own stream (the standalone GET) is open, or why not. */
export type EventStream = { readonly open: true } | { readonly open: false; readonly reason: string }

export interface Standalone {
  /** What the stream is now known to be (the legacy transport's one stream: open). */
  readonly is: (outcome: EventStream) => Effect.Effect<void>
  /** The session is initialized: the stream is started if it is wanted. */
  readonly initialized: () => void
  /** A new session (renewed): its own stream (the one before ended with its session). */
  readonly restart: () => void
  /** Whether it is open, or why not: its GET started if need be, its first answer awaited (bounded). */
  readonly now: Effect.Effect<EventStream>
}

/** The server is the protocol's one client. */
const server = 0

export const make = (options: {
  readonly connection: Connection
  readonly session: Session
  readonly receiver: Deferred.Deferred<Transport.Receiver<ClientError.TransportFailure>>
  /** Runs the stream on the transport's runtime, until it ends or the transport does. */
  readonly run: (effect: Effect.Effect<void>) => void
  /** The transport fell back to HTTP+SSE, whose one stream carries everything. */
  readonly legacy: () => boolean
  readonly timeout: Duration.DurationInput | undefined
}): Effect.Effect<Standalone> =>
  Effect.gen(function*() {
    const { connection, session } = options
    /** Whether the stream is open, or why not, as its last GET told (none yet: undefined). */
    const state = yield* Ref.make<EventStream | undefined>(undefined)
    /** Done at the first thing the stream's GET told. */
    const known = yield* Deferred.make<void>()
    const is = (outcome: EventStream) =>
      Effect.zipRight(Ref.set(state, outcome), Effect.asVoid(Deferred.done(known, Exit.void)))
    const flags = { initialized: false, wanted: false, started: false }

    const stream = Effect.flatMap(Deferred.await(options.receiver), (receiver) => {
      const at = Events.newProgress()
      const sink: Events.Sink = (inbound) => {
        receiver.receive(server, inbound)
        return false
      }
      let failures = 0
      let seen = 0
      const loop: Effect.Effect<void> = Effect.flatMap(
        Effect.either(Events.get(connection, session, at, "the session's event stream", sink, is({ open: true }))),
        (result) => {
          // 405: the server has no such stream; 404: the session is gone.
          if (result._tag === "Right" && (result.right === 405 || result.right === 404)) {
            return is({ open: false, reason: `its GET answered HTTP ${result.right}` })
          }
          if (result._tag === "Left") {
            return Effect.zipRight(
              Effect.logWarning(`effect-mcp client: ${result.left.message}`),
              ++failures > 5
                ? is({ open: false, reason: `its GET failed: ${result.left.message}` })
                : Effect.zipRight(Effect.sleep(at.retry), loop)
            )
          }
          // A stream that brought something starts the count again; an empty one is a failure.
          failures = result.right === 200 && at.events > seen ? 0 : failures + 1
          seen = at.events
          // Another status (400, 409, a 200 that is not an event stream): not open now, said at once;
          // tried again after the server's retry, up to five times.
          const refused = result.right === 200
            ? Effect.void
            : is({ open: false, reason: `its GET answered HTTP ${result.right}` })
          return Effect.zipRight(
            refused,
            failures > 5
              ? is({ open: false, reason: `its GET answered HTTP ${result.right}, not an event stream` })
              : Effect.zipRight(Effect.sleep(at.retry), loop)
          )
        }
      )
      return loop
    })

    /** Starts the stream, once: when the session is initialized and it is wanted. */
    const start = () => {
      if (flags.started || !flags.initialized || options.legacy()) return
      if (session.id === undefined && !flags.wanted) return
      flags.started = true
      options.run(stream)
    }

    const timeout = Duration.decode(options.timeout ?? "10 seconds")

    const now: Effect.Effect<EventStream> = Effect.suspend(() => {
      flags.wanted = true
      start()
      return Deferred.await(known).pipe(
        Effect.timeout(timeout),
        Effect.matchEffect({
          onFailure: () =>
            Effect.succeed<EventStream>({
              open: false,
              reason: `its GET had no answer within ${Duration.format(timeout)}`
            }),
          onSuccess: () =>
            Effect.map(
              Ref.get(state),
              (known): EventStream => known ?? { open: false, reason: "its GET had no answer" }
            )
        })
      )
    })

    return {
      is,
      initialized: () => {
        flags.initialized = true
        start()
      },
      restart: () => options.run(stream),
      now
    }
  })
