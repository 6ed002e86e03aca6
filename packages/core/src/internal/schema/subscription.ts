/**
 * The schemas of `Schema/Subscription.ts`, built when first asked for (`subscription()`), not when the
 * module is evaluated: a server no client listens to never builds them (`Schema/Subscription.ts`
 * re-exports them, built on its import).
 */
import * as Schema from "effect/Schema"
import { Implementation, JsonValue, RequestId, Uri } from "../../Schema/Base.js"
import * as Stateless from "../../Schema/Stateless.js"

const make = () => {
  const SubscriptionFilter = Schema.Struct({
    toolsListChanged: Schema.optional(Schema.Boolean),
    promptsListChanged: Schema.optional(Schema.Boolean),
    resourcesListChanged: Schema.optional(Schema.Boolean),
    resourceSubscriptions: Schema.optional(Schema.Array(Uri)),
    taskIds: Schema.optional(Schema.Array(Schema.String))
  }).annotations({ identifier: "SubscriptionFilter" })

  const SubscriptionsListenRequestParams = Schema.Struct({
    _meta: Stateless.RequestMeta,
    notifications: SubscriptionFilter
  }).annotations({ identifier: "SubscriptionsListenRequestParams" })

  const SubscriptionsListenResultMeta = Schema.Struct(
    {
      "io.modelcontextprotocol/subscriptionId": RequestId,
      "io.modelcontextprotocol/serverInfo": Schema.optional(Implementation)
    },
    Schema.Record({ key: Schema.String, value: JsonValue })
  ).annotations({ identifier: "SubscriptionsListenResultMetaObject" })

  const SubscriptionsListenResult = Schema.Struct({
    resultType: Schema.Literal("complete"),
    _meta: SubscriptionsListenResultMeta
  }).annotations({ identifier: "SubscriptionsListenResult" })

  const SubscriptionsAcknowledgedNotificationParams = Schema.Struct({
    _meta: Schema.optional(Stateless.NotificationMeta),
    notifications: SubscriptionFilter
  }).annotations({ identifier: "SubscriptionsAcknowledgedNotificationParams" })

  return {
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResultMeta,
    SubscriptionsListenResult,
    SubscriptionsAcknowledgedNotificationParams
  }
}

let built: ReturnType<typeof make> | undefined

/** The schemas of `Schema/Subscription.ts`, built on the first call. */
export const subscription = (): ReturnType<typeof make> => built ??= make()
