/**
 * `subscriptions/listen` (2026-07-28): one long-lived request whose response stream
 * carries the change notifications the client asked for, each tagged with
 * `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's id). It
 * replaces `resources/subscribe` / `resources/unsubscribe` and the HTTP GET stream.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Implementation, JsonValue, RequestId, Uri } from "./Base.js"
import * as Stateless from "./Stateless.js"

/**
 * What to deliver on a subscription stream. Omitted means not subscribed.
 * `resourceSubscriptions` lists exact resource URIs (no patterns); `taskIds` belongs to
 * the `io.modelcontextprotocol/tasks` extension.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SubscriptionFilter = Schema.Struct({
  toolsListChanged: Schema.optional(Schema.Boolean),
  promptsListChanged: Schema.optional(Schema.Boolean),
  resourcesListChanged: Schema.optional(Schema.Boolean),
  resourceSubscriptions: Schema.optional(Schema.Array(Uri)),
  taskIds: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "SubscriptionFilter" })

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
export const SubscriptionsListenRequestParams = Schema.Struct({
  _meta: Stateless.RequestMeta,
  notifications: SubscriptionFilter
}).annotations({ identifier: "SubscriptionsListenRequestParams" })

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
export const SubscriptionsListenResultMeta = Schema.Struct(
  {
    "io.modelcontextprotocol/subscriptionId": RequestId,
    "io.modelcontextprotocol/serverInfo": Schema.optional(Implementation)
  },
  Schema.Record({ key: Schema.String, value: JsonValue })
).annotations({ identifier: "SubscriptionsListenResultMetaObject" })

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
export const SubscriptionsListenResult = Schema.Struct({
  resultType: Schema.Literal("complete"),
  _meta: SubscriptionsListenResultMeta
}).annotations({ identifier: "SubscriptionsListenResult" })

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
export const SubscriptionsAcknowledgedNotificationParams = Schema.Struct({
  _meta: Schema.optional(Stateless.NotificationMeta),
  notifications: SubscriptionFilter
}).annotations({ identifier: "SubscriptionsAcknowledgedNotificationParams" })

/**
 * @since 0.1.0
 * @category models
 */
export type SubscriptionsAcknowledgedNotificationParams = typeof SubscriptionsAcknowledgedNotificationParams.Type
