/**
 * `subscriptions/listen` in the stateless era (2026-07-28): validated, handed to the server's
 * subscriptions (`subscriptions.ts`) with the request's channel (its stream, its hold), and
 * answered with the era's envelope when the server closes it.
 */
import { AuthInfo, McpError, Meta, Revision, SubscriptionFilter } from "@effect-mcp/core"
import { tasksExtensionId } from "@effect-mcp/core/FeatureSchemas"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Holders from "./holders.js"
import * as McpSchema from "./mcpSchema.js"
import type { Registry } from "./registry.js"
import type { Config } from "./serving.js"
import * as Serving from "./serving.js"
import type { StatelessRequest } from "./statelessRequest.js"
import type { Subscriptions } from "./subscriptions.js"
import * as Tasks from "./tasks.js"

/** `subscriptions/listen` of the server's open subscriptions. */
export const listenOf = (
  registry: Registry,
  config: Config,
  subscriptions: Subscriptions,
  /** The era's envelope of a complete result (`Stateless`'s). */
  complete: (result: object, request: StatelessRequest) => object
) => {
  const features = Revision.features("2026-07-28")
  /**
   * `subscriptions/listen`: held open until the server closes it (then answered with the
   * envelope and its subscription id) or the client cancels it (then answered by nobody).
   * Plain combinators: what a held-open request keeps costs memory while it is idle.
   */
  const tasks = tasksExtensionId
  const listen = (
    params: McpSchema.Subscription.SubscriptionsListenRequestParams,
    request: StatelessRequest
  ): Effect.Effect<McpSchema.Subscription.SubscriptionsListenResult, McpError.McpError> => {
    const filter = params.notifications
    if (filter.taskIds !== undefined && request.clientCapabilities.extensions?.[tasks] === undefined) {
      return Effect.fail(
        new McpError.MissingRequiredClientCapability({
          requiredCapabilities: { extensions: { [tasks]: {} } },
          detail: `taskIds in a subscriptions/listen filter needs the ${tasks} extension`
        })
      )
    }
    const { id, sink: channel } = request
    const result = complete(
      { _meta: { [Meta.subscriptionId]: id } },
      request
    ) as McpSchema.Subscription.SubscriptionsListenResult
    // Held open with no fiber once acknowledged (`Peer.hold`): `result` answers it when the server
    // closes it; what this effect returns is then not sent.
    return Effect.as(
      subscriptions.serve({
        client: channel.client,
        id,
        params: request.request.params,
        filter,
        acknowledge: Effect.map(
          Ref.get(registry.entries),
          (entries) => SubscriptionFilter.servable(filter, Serving.capabilities(entries, config, features))
        ),
        clientInfo: request.clientInfo,
        owner: channel.owner,
        notify: (method, params) => channel.notify(method, params),
        hold: (onCancel) => channel.hold(onCancel),
        result,
        expiresAt: Option.isSome(request.auth) ? AuthInfo.expiresAtMillis(request.auth.value) : undefined,
        taskOwner: Tasks.ownerOf(request),
        holder: Holders.holderOf(request.auth, request.client.address),
        onResourceSubscribe: config.onResourceSubscribe
      }),
      result
    )
  }

  return listen
}
