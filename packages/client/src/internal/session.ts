/**
 * The handshake era of the client: `initialize` with our latest handshake revision (an older
 * offer we speak is accepted; any other is a `VersionMismatch` naming both), then
 * `notifications/initialized`. Everything after rides on the session the transport keeps.
 */
import { type Peer, Revision, type Schema as McpSchema } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as ClientError from "../ClientError.js"
import type { RequestResult } from "../McpClient.js"
import { decoded, isObject, server } from "./request.js"

export interface Initialized {
  readonly revision: Revision.Revision
  readonly result: RequestResult<"initialize">
}

/** The handshake's options. */
export interface Options {
  readonly peer: Peer.Peer<ClientError.TransportFailure>
  readonly capabilities: McpSchema.Capabilities.ClientCapabilities
  readonly clientInfo: McpSchema.Base.Implementation
  /** Told to speak this era only (`era: "handshake"`): no other revision would be tried. */
  readonly pinned: boolean
}

/** The handshake: `initialize`, then `notifications/initialized`. */
export const initialize = (options: Options): Effect.Effect<Initialized, ClientError.ClientError> =>
  Effect.tap(request(options), () => confirm(options.peer))

/**
 * `initialize` alone, its result checked against the revision the server chose: the session is
 * not begun until {@link confirm} (the era probe may still pick the stateless era meanwhile).
 */
export const request = (options: Options): Effect.Effect<Initialized, ClientError.ClientError> =>
  Effect.gen(function*() {
    const { peer } = options
    const pinned = options.pinned ? "handshake" as const : undefined
    const result = yield* Effect.catchTag(
      peer.request(server, "initialize", {
        protocolVersion: Revision.latestHandshake,
        capabilities: options.capabilities,
        clientInfo: options.clientInfo
      }),
      // A stateless-only server says which revisions would work.
      "UnsupportedProtocolVersion",
      (error) =>
        Effect.fail(
          new ClientError.VersionMismatch({ offered: error.supported, supported: Revision.handshake, pinned })
        )
    )
    const offered = isObject(result) ? result.protocolVersion : undefined
    if (!Revision.isRevision(offered) || !Revision.handshake.includes(offered)) {
      return yield* new ClientError.VersionMismatch({
        offered: [String(offered)],
        supported: Revision.handshake,
        pinned
      })
    }
    const checked = yield* decoded(offered, "initialize", result)
    return { revision: offered, result: checked }
  })

/** `notifications/initialized`: the session begun. */
export const confirm = (peer: Peer.Peer<ClientError.TransportFailure>): Effect.Effect<void, ClientError.ClientError> =>
  peer.notify(server, "notifications/initialized", {})
