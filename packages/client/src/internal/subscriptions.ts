/**
 * Subscriptions, in either era: a held-open `subscriptions/listen` whose notifications carry its
 * id (2026-07-28), or, in a session, `resources/subscribe` for the URIs the server can serve and
 * the session's own list changes.
 */
import { type JsonRpc, Meta, type Peer, type Schema as McpSchema, SubscriptionFilter } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientError from "../ClientError.js"
import type { Subscription } from "../McpClient.js"
import type * as Backlog from "./backlog.js"
import { server } from "./request.js"
import type { Stateless } from "./stateless.js"

type Filter = McpSchema.Subscription.SubscriptionFilter

const subscriptionIdOf = (n: JsonRpc.Notification) => Meta.getSubscriptionId(Meta.of(n.params))

/** 2026-07-28: one held-open `subscriptions/listen`, its notifications tagged with its id. */
export const listen = (options: {
  readonly peer: Peer.Peer<ClientError.TransportFailure>
  readonly notifications: Backlog.Backlog
  readonly stateless: Stateless
  /** The listen's `_meta` (default the client's own; a listen for tasks declares the extension). */
  readonly meta?: McpSchema.Base.MetaObject | undefined
}, filter: Filter): Effect.Effect<Subscription, ClientError.ClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const { peer, stateless } = options
    const inbox = yield* options.notifications.subscribe
    const id = yield* Deferred.make<JsonRpc.RequestId>()
    const listening = yield* Effect.forkScoped(
      peer.request(
        server,
        "subscriptions/listen",
        Meta.withMeta({ notifications: filter }, options.meta ?? stateless.meta),
        {
          timeout: Duration.infinity,
          onId: (assigned) => Deferred.unsafeDone(id, Exit.succeed(assigned)),
          cancelReason: "subscription closed"
        }
      ).pipe(
        Effect.catchTag("UnsupportedProtocolVersion", (error) => Effect.fail(stateless.versionMismatch(error)))
      )
    )
    const answeredEarly = Effect.flatMap(Fiber.join(listening), () =>
      Effect.fail(
        new ClientError.InvalidResult({ method: "subscriptions/listen", detail: "answered before it was acknowledged" })
      ))
    // Its id, once it is sent (a request that could not be sent, on a closed connection, says why).
    const mine = yield* Effect.raceFirst(Deferred.await(id), answeredEarly)
    const ours = (n: JsonRpc.Notification) =>
      Option.match(subscriptionIdOf(n), { onNone: () => false, onSome: (sid) => sid === mine })
    // The acknowledgement first (or the listen's own failure, when it is refused).
    const acknowledged = yield* Effect.raceFirst(
      Effect.map(
        Effect.repeat(inbox.take, {
          until: (n) => n.method === "notifications/subscriptions/acknowledged" && ours(n)
        }),
        (n) => ((n.params as { readonly notifications?: Filter }).notifications ?? {}) as Filter
      ),
      answeredEarly
    )
    return {
      acknowledged,
      notifications: inbox.stream.pipe(
        Stream.filter((n) => ours(n) && n.method !== "notifications/subscriptions/acknowledged"),
        Stream.interruptWhen(Fiber.join(listening))
      )
    } satisfies Subscription
  })

/** A session: resource subscriptions by URI, and the session's own list changes. */
export const session = (options: {
  readonly notifications: Backlog.Backlog
  readonly capabilities: McpSchema.Capabilities.ServerCapabilities
  /** `resources/subscribe` or `resources/unsubscribe` of one URI. */
  readonly toggle: (
    method: "resources/subscribe" | "resources/unsubscribe",
    uri: string
  ) => Effect.Effect<unknown, ClientError.ClientError>
}, filter: Filter): Effect.Effect<Subscription, ClientError.ClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const inbox = yield* options.notifications.subscribe
    const acknowledged = SubscriptionFilter.servable(filter, options.capabilities)
    const uris = acknowledged.resourceSubscriptions ?? []
    yield* Effect.forEach(uris, (uri) => options.toggle("resources/subscribe", uri), { discard: true })
    // Given 2 seconds in all (as the session's DELETE): a server that does not answer would hold
    // the release for a request's whole timeout (interruptible, or the timeout could not cut a
    // finalizer short).
    yield* Effect.addFinalizer(() =>
      Effect.forEach(uris, (uri) => options.toggle("resources/unsubscribe", uri), { discard: true }).pipe(
        Effect.interruptible,
        Effect.timeout("2 seconds"),
        Effect.ignore
      )
    )
    return {
      acknowledged,
      notifications: inbox.stream.pipe(Stream.filter((n) => SubscriptionFilter.wants(acknowledged, n)))
    } satisfies Subscription
  })
