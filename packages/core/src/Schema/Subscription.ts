/**
 * `subscriptions/listen` (2026-07-28): one long-lived request whose response stream
 * carries the change notifications the client asked for, each tagged with
 * `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's id). It
 * replaces `resources/subscribe` / `resources/unsubscribe` and the HTTP GET stream.
 *
 * @since 0.1.0
 */
import { subscription } from "../internal/schema/subscription.js"

const built = subscription()

/**
 * What to deliver on a subscription stream. Omitted means not subscribed.
 * `resourceSubscriptions` lists exact resource URIs (no patterns); `taskIds` belongs to
 * the `io.modelcontextprotocol/tasks` extension.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SubscriptionFilter = built.SubscriptionFilter

/**
 * @since 0.1.0
 * @category models
 */
export type SubscriptionFilter = typeof SubscriptionFilter.Type

/**
 * Params of `subscriptions/listen`: the per-request `_meta` and the filter.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SubscriptionsListenRequestParams = built.SubscriptionsListenRequestParams

/**
 * @since 0.1.0
 * @category models
 */
export type SubscriptionsListenRequestParams = typeof SubscriptionsListenRequestParams.Type

/**
 * The `_meta` of the result that ends a subscription: the subscription id is required.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SubscriptionsListenResultMeta = built.SubscriptionsListenResultMeta

/**
 * @since 0.1.0
 * @category models
 */
export type SubscriptionsListenResultMeta = typeof SubscriptionsListenResultMeta.Type

/**
 * Result of `subscriptions/listen`, sent by a server that ends the subscription
 * gracefully.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SubscriptionsListenResult = built.SubscriptionsListenResult

/**
 * @since 0.1.0
 * @category models
 */
export type SubscriptionsListenResult = typeof SubscriptionsListenResult.Type

/**
 * Params of `notifications/subscriptions/acknowledged`, the first message of a
 * subscription: the part of the filter the server will honour.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SubscriptionsAcknowledgedNotificationParams = built.SubscriptionsAcknowledgedNotificationParams

/**
 * @since 0.1.0
 * @category models
 */
export type SubscriptionsAcknowledgedNotificationParams = typeof SubscriptionsAcknowledgedNotificationParams.Type
