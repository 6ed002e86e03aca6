/**
 * A client's raw lane (`RawLane`): kept on its service under a symbol of its own, so that the
 * service's shape (what users see of `McpClient`) does not change.
 */
import type { Revision } from "@effect-mcp/core"
import type { RawLane } from "../RawLane.js"

/** A session's requests, sent as given and answered as they came (see `RawLane`). */
export type Lane = RawLane

const key: unique symbol = Symbol.for("@effect-mcp/client/RawLane")

/** `service` with its lane (a property no spread or listing sees). */
export const attach = <S extends object>(service: S, lane: Lane): S =>
  Object.defineProperty(service, key, { value: lane, enumerable: false })

/** The lane of a client's service, if it has one. */
export const of = (service: object): Lane | undefined => (service as { readonly [key]?: Lane })[key]

/** `service` with its lane, in a session (the 2026-07-28 era's requests need an envelope the lane does not make). */
export const withLane = <S extends object>(
  service: S,
  era: Revision.Era,
  revision: Revision.Revision,
  request: Lane["request"]
): S => era === "handshake" ? attach(service, { revision, request }) : service
