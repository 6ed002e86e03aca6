/**
 * An upstream's log messages, to the gateway's clients: each `notifications/message` the upstream
 * sends is logged by its part of the gateway's server (`McpServer.log` on `Mount.under`: the
 * logger is the upstream's name, or `name/logger`), which tells every handshake session whose level
 * admits it. What the clients ask for reaches the upstreams as the most verbose level any of them
 * set (`lowest`): each session then hears only what its own level admits.
 */
import type { McpClient } from "@effect-mcp/client"
import { Schema as McpSchema } from "@effect-mcp/core"
import type { McpServer } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

type LoggingLevel = McpSchema.Base.LoggingLevel

const isLevel = (level: unknown): level is LoggingLevel =>
  typeof level === "string" && (McpSchema.Logging.levels as ReadonlyArray<string>).includes(level)

/** The more verbose of two levels (`undefined`: none set yet). */
export const lowest = (a: LoggingLevel | undefined, b: LoggingLevel): LoggingLevel =>
  a === undefined || McpSchema.Logging.isAtLeast(a, b) ? b : a

/** The most log messages of one upstream waiting for the clients. */
export const maxBehind = 256

/**
 * Follows the upstream's log messages for the lifetime of the scope, logging each on `part` (its
 * view of the gateway's server). A message that is not one (no known level) is dropped.
 */
export const follow = (client: McpClient.Service, part: McpServer.Service): Effect.Effect<void, never, Scope.Scope> =>
  client.notifications.pipe(
    Stream.filter((n) => n.method === "notifications/message"),
    // Taken at once from the client's queue: while the clients are slower than the upstream logs,
    // at most `maxBehind` wait here, the oldest dropped first.
    Stream.buffer({ capacity: maxBehind, strategy: "sliding" }),
    Stream.runForEach((n) => {
      const params = n.params as { readonly level?: unknown; readonly data?: unknown; readonly logger?: unknown }
      if (params === undefined || !isLevel(params.level)) return Effect.void
      return part.log(params.level, params.data, typeof params.logger === "string" ? params.logger : undefined)
    }),
    Effect.forkScoped,
    Effect.asVoid
  )
