/**
 * 2026-07-28 subscriptions as a server sees them: each `subscriptions/listen` request held open,
 * carrying the change notifications its filter asks for until the client cancels it or the
 * server closes it (`McpServer.closeSubscription`, `closeAllSubscriptions`, or its shutdown).
 *
 * A subscription's id on the wire (`_meta["io.modelcontextprotocol/subscriptionId"]`) is its
 * listen request's JSON-RPC id, which is unique only per client: two HTTP POSTs may both use
 * id 1, two transports may both have a client 0. The server therefore names each subscription by
 * a {@link Handle} of its own, unique for its lifetime; `McpServer.activeSubscriptions` lists
 * both.
 *
 * @since 0.1.0
 */
import type { JsonRpc, Schema as McpSchema, Transport } from "@effect-mcp/core"
import type * as Brand from "effect/Brand"
import type * as DateTime from "effect/DateTime"
import type * as Option from "effect/Option"

/**
 * The server's name for one subscription, unique among every subscription the server has held
 * (over every transport and client). Not the wire id: see {@link Subscription.subscriptionId}.
 *
 * @since 0.1.0
 * @category models
 */
export type Handle = string & Brand.Brand<"@effect-mcp/server/Subscription/Handle">

/**
 * The filter of a `subscriptions/listen` request (`toolsListChanged`, `promptsListChanged`,
 * `resourcesListChanged`, `resourceSubscriptions`).
 *
 * @since 0.1.0
 * @category models
 */
export type Filter = McpSchema.Subscription.SubscriptionFilter

/**
 * One open subscription, as `McpServer.activeSubscriptions` reports it (a snapshot).
 *
 * @since 0.1.0
 * @category models
 */
export interface Subscription {
  /** The server's name for it: what `McpServer.closeSubscription` takes. */
  readonly handle: Handle
  /** Its id on the wire: the JSON-RPC id of its listen request (unique per client only). */
  readonly subscriptionId: JsonRpc.RequestId
  /**
   * The client of the transport it was opened on (stdio's one, a session's); none for a listen
   * that came with a channel of its own (a 2026-07-28 HTTP POST), which no other request shares.
   */
  readonly client: Transport.ClientId | undefined
  /**
   * The filter it asked for, which is what is delivered: a kind the server gains later (a first
   * tool, say) reaches it. A `resourceSubscriptions` entry ending in `/` covers every URI beneath
   * it; any other matches exactly.
   */
  readonly filter: Filter
  /** What its acknowledgement said the server could serve when it was opened. */
  readonly acknowledged: Filter
  /** The client's `_meta["io.modelcontextprotocol/clientInfo"]` on the listen request. */
  readonly clientInfo: Option.Option<McpSchema.Base.Implementation>
  readonly openedAt: DateTime.Utc
}
