/**
 * What a subscription asks for, read the same way by both sides: which notifications a filter
 * wants, which URIs a subscribed URI covers, and what of a filter a server with given
 * capabilities can serve (what a 2026-07-28 `subscriptions/listen` acknowledges, and what a
 * handshake-era client can expect of its session).
 *
 * @since 0.1.0
 */
import type * as JsonRpc from "./JsonRpc.js"
import type { ServerCapabilities } from "./Schema/Capabilities.js"
import type { SubscriptionFilter } from "./Schema/Subscription.js"

/**
 * Does a subscription to `subscribed` cover an update of `uri`? The same URI, or, when the
 * subscribed URI ends with `/`, anything beneath it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const covers = (subscribed: string, uri: string): boolean =>
  subscribed === uri || (subscribed.endsWith("/") && uri.startsWith(subscribed))

/**
 * The list-changed notification of each list, and the filter field that asks for it.
 *
 * @since 0.1.0
 * @category constants
 */
export const listChanged = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged"
} as const

/**
 * Does `notification` belong to what `filter` asks for (a list change it names, an update of a
 * URI one of its `resourceSubscriptions` covers)?
 *
 * @since 0.1.0
 * @category predicates
 */
export const wants = (filter: SubscriptionFilter, notification: JsonRpc.Notification): boolean => {
  const method = notification.method
  if (Object.hasOwn(listChanged, method)) return filter[listChanged[method as keyof typeof listChanged]] === true
  if (method !== "notifications/resources/updated") return false
  const uri = (notification.params as { readonly uri?: unknown } | undefined)?.uri
  return typeof uri === "string" && (filter.resourceSubscriptions ?? []).some((s) => covers(s, uri))
}

/**
 * What of `filter` a server with `capabilities` can serve: a list only when its capability has
 * `listChanged`; `resourceSubscriptions` only with `resources.subscribe`; `taskIds` only with the
 * `io.modelcontextprotocol/tasks` extension (a task's status notifications reach only its owner).
 *
 * @since 0.1.0
 * @category constructors
 */
export const servable = (filter: SubscriptionFilter, capabilities: ServerCapabilities): SubscriptionFilter => ({
  ...(filter.toolsListChanged === true && capabilities.tools?.listChanged === true ? { toolsListChanged: true } : {}),
  ...(filter.promptsListChanged === true && capabilities.prompts?.listChanged === true
    ? { promptsListChanged: true }
    : {}),
  ...(filter.resourcesListChanged === true && capabilities.resources?.listChanged === true
    ? { resourcesListChanged: true }
    : {}),
  ...(filter.resourceSubscriptions !== undefined && capabilities.resources?.subscribe === true
    ? { resourceSubscriptions: filter.resourceSubscriptions }
    : {}),
  ...(filter.taskIds !== undefined && capabilities.extensions?.["io.modelcontextprotocol/tasks"] !== undefined
    ? { taskIds: filter.taskIds }
    : {})
})
