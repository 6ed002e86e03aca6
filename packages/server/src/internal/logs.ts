/**
 * The server's log messages outside any request (`McpServer.log`): handed to every engine that
 * serves handshake sessions (each registers a listener for its lifetime), which tells each of its
 * sessions whose level admits it. The 2026-07-28 era has no session: its logs travel only on the
 * response stream of the request that asked for them (`McpRequest.log`), so a broadcast reaches
 * none of its clients.
 */
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Listeners from "./listeners.js"

/** One `notifications/message`'s params. */
export interface Message {
  readonly level: McpSchema.Base.LoggingLevel
  readonly data: unknown
  readonly logger?: string
}

export type Listener = (message: Message) => Effect.Effect<void>

export interface Logs {
  /** Receives every message for the lifetime of the scope. */
  readonly listen: (listener: Listener) => Effect.Effect<void, never, Scope.Scope>
  /** Hands a message to every listener. */
  readonly log: (message: Message) => Effect.Effect<void>
}

export const make: Effect.Effect<Logs> = Effect.map(
  Ref.make<ReadonlySet<Listener>>(new Set()),
  (listeners) => ({
    listen: (listener) => Listeners.listen(listeners, listener),
    log: (message) =>
      Effect.flatMap(
        Ref.get(listeners),
        (all) => Effect.forEach(all, (listener) => listener(message), { discard: true })
      )
  })
)
