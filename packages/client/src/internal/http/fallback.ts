/**
 * The legacy fallback of the client's Streamable HTTP transport: a server that has no Streamable
 * HTTP endpoint at the URL (its `initialize` refused with 400, 404 or 405 and no JSON-RPC error,
 * the back-compat rule of 2025-03-26 and later) is spoken to as a legacy HTTP+SSE endpoint there,
 * for the rest of the connection: every message, and every answer, go through that transport.
 */
import type { JsonRpc, Transport } from "@effect-mcp/core"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as ClientError from "../../ClientError.js"
import * as Legacy from "../legacy.js"
import type { Connection } from "./session.js"

type Failure = ClientError.TransportFailure

/** The statuses of a server that has no Streamable HTTP endpoint at the URL. */
export const statuses: ReadonlySet<number> = new Set([400, 404, 405])

/** The server is the protocol's one client. */
const server = 0

export interface Fallback {
  /** The legacy transport, once the connection fell back to it. */
  readonly current: () => Transport.Protocol<Failure> | undefined
  /** Falls back (once), and sends `message` there; `tried` says what was refused. */
  readonly send: (message: JsonRpc.Message, tried: string) => Effect.Effect<void, Failure>
}

export const make = (options: {
  readonly connection: Connection
  readonly maxDepth: number | undefined
  readonly scope: Scope.Scope
  readonly receiver: Deferred.Deferred<Transport.Receiver<Failure>>
  /** Its one stream carries every server message: told that it is open. */
  readonly opened: Effect.Effect<void>
  /** Runs its stream on the transport's runtime, until it ends or the transport does. */
  readonly run: (effect: Effect.Effect<void>) => void
}): Fallback => {
  const { connection } = options
  let legacy: Transport.Protocol<Failure> | undefined
  const send = (message: JsonRpc.Message, tried: string) =>
    Effect.gen(function*() {
      if (legacy === undefined) {
        const made = yield* Legacy.make({
          url: connection.url,
          ...(connection.headers ? { headers: connection.headers } : {}),
          maxMessageSize: connection.limit,
          ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
          tried
        }).pipe(Effect.provideService(HttpClient.HttpClient, connection.client), Scope.extend(options.scope))
        legacy = made
        yield* options.opened
        const r = yield* Deferred.await(options.receiver)
        options.run(Effect.ignore(Effect.scoped(made.run(r))))
      }
      yield* Effect.mapError(
        legacy.send(server, message),
        (error) => new ClientError.ConnectionFailed({ url: connection.url, reason: error.message, cause: error })
      )
    })
  return { current: () => legacy, send }
}
