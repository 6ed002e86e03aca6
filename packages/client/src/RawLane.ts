/**
 * The raw lane of a client in a session (handshake era): a request sent as it is given and its
 * answer handed on as it came, with no Schema decode and no fiber of its own, through the same
 * book of calls as the client's other requests (ids never collide; a cancel, a timeout and the end
 * of the connection end it as they end any call). It is for a gateway relaying a call it does not
 * read (`mcp gateway`): most code wants `McpClient.request`. Over Streamable HTTP a raw call is
 * POSTed with the platform's `McpClientTransport.HttpPoster` when one is in context (Node's
 * `NodeMcpClient.layerHttpClientWith` gives one), with no fiber; else as any request. Such a POST
 * does not pass through the `HttpClient`'s middleware: it carries the session's headers and those
 * configured for the connection, and goes through the `HttpClient` (with its middleware, such as
 * `McpAuth`) only when the server says it was not served (401, 403, a redirect). Where every request
 * must pass a middleware of its own, provide no `HttpPoster`.
 *
 * A raw request has no caller (`McpClient.currentCaller`): an ask the server makes while it runs is
 * routed as any ask of nobody's request.
 *
 * @since 0.2.0
 */
import type { Peer, Revision } from "@effect-mcp/core"
import type * as ClientError from "./ClientError.js"
import * as Raw from "./internal/raw.js"
import type * as McpClient from "./McpClient.js"

/**
 * A client's raw lane.
 *
 * @since 0.2.0
 * @category models
 */
export interface RawLane {
  /** The revision of the session. */
  readonly revision: Revision.Revision
  /** Sends `method` with `params` as given; `handlers` are told its answer as it came, or why none will come. */
  readonly request: (
    method: string,
    params: unknown,
    handlers: Peer.RawHandlers<ClientError.TransportFailure>
  ) => Peer.RawCall
}

/**
 * The raw lane of `client`: a client in a session has one; a client in the 2026-07-28 era (whose
 * requests carry an envelope the lane does not make) has none.
 *
 * @since 0.2.0
 * @category accessors
 */
export const of = (client: McpClient.Service): RawLane | undefined => Raw.of(client)
