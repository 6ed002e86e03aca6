/**
 * The server-wide notification bus: what changed on a server (a list, a resource), as plain
 * data. `McpServer` publishes to it every edit (`addTool`, `removeTool`, `addPrompt`,
 * `addResource`, `resourceUpdated`, …), and tells its clients of what it receives from it as of
 * its own edits: `notifications/…/list_changed` and `notifications/resources/updated` to its
 * initialized handshake sessions and its 2026-07-28 subscriptions (`subscriptions/listen`), each
 * reaching exactly those that asked.
 *
 * **When to use**: a server is given its bus by its context (`Effect.serviceOption`); without
 * one it makes its own, in memory, for itself alone. Provide one to share changes: the in-memory
 * {@link layer} between servers of one process, a layer of your own (Redis pub/sub, say) between
 * processes, so that a tool added in one process reaches the subscriptions held open by another.
 *
 * **Details**: events are plain serializable data ({@link Event} is their schema), so a bus
 * across processes need only encode them. A server tells its own clients of its own changes at
 * once, and publishes them marked with its `origin`; when the bus delivers them back (a bus may
 * or may not deliver to the publisher) the server skips them, so its clients hear of a change
 * once, and even while the bus is down. An event without an origin (published by anything else)
 * reaches every server on the bus.
 *
 * ```ts
 * // A bus of one's own: publish to a channel, subscribe to it (sketch).
 * const RedisBus = Layer.scoped(NotificationBus.NotificationBus, Effect.gen(function*() {
 *   const redis = yield* Redis
 *   return {
 *     publish: (event) => redis.publish("mcp", JSON.stringify(NotificationBus.encode(event))),
 *     subscribe: Effect.gen(function*() {
 *       const queue = yield* Effect.acquireRelease(Queue.unbounded<NotificationBus.Event>(), Queue.shutdown)
 *       yield* redis.subscribe("mcp", (text) => Queue.unsafeOffer(queue, NotificationBus.decode(JSON.parse(text))))
 *       return queue
 *     })
 *   }
 * }))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/**
 * The lists a server may change.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListKind = Schema.Literal("tools", "prompts", "resources")

/**
 * @since 0.1.0
 * @category models
 */
export type ListKind = typeof ListKind.Type

/**
 * A list changed (an entry added, replaced or removed): `notifications/<kind>/list_changed`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListChanged = Schema.TaggedStruct("ListChanged", {
  kind: ListKind,
  /** The server that made the change (it skips its own when the bus delivers them back). */
  origin: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ListChanged = typeof ListChanged.Type

/**
 * A resource changed: `notifications/resources/updated` for those that asked for its URI.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceUpdated = Schema.TaggedStruct("ResourceUpdated", {
  uri: Schema.String,
  /** The server that made the change (it skips its own when the bus delivers them back). */
  origin: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceUpdated = typeof ResourceUpdated.Type

/**
 * One event of the bus: plain data, its encoded form the same JSON object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Event = Schema.Union(ListChanged, ResourceUpdated)

/**
 * @since 0.1.0
 * @category models
 */
export type Event = typeof Event.Type

/**
 * An event as JSON-ready data (for a bus across processes).
 *
 * @since 0.1.0
 * @category codecs
 */
export const encode: (event: Event) => typeof Event.Encoded = (event) => codecs().encode(event)

/** Compiled on first use: importing this module compiles no parser. */
const codecs = (() => {
  let compiled:
    | { readonly encode: (event: Event) => typeof Event.Encoded; readonly decode: (u: unknown) => Event }
    | undefined
  return () => compiled ??= { encode: Schema.encodeSync(Event), decode: Schema.decodeUnknownSync(Event) }
})()

/**
 * An event from JSON-parsed data; throws on anything else (for a bus across processes).
 *
 * @since 0.1.0
 * @category codecs
 */
export const decode: (u: unknown) => Event = (u) => codecs().decode(u)

/**
 * A list changed (without an origin: every server on the bus hears of it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const listChanged = (kind: ListKind): Event => ({ _tag: "ListChanged", kind })

/**
 * A resource changed (without an origin: every server on the bus hears of it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const resourceUpdated = (uri: string): Event => ({ _tag: "ResourceUpdated", uri })

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Publishes an event to every subscriber (every server on the bus; the publisher too, or not). */
  readonly publish: (event: Event) => Effect.Effect<void>
  /**
   * Every event published from now on, for the lifetime of the scope. Subscribed once the effect
   * has completed: nothing published afterwards is missed.
   */
  readonly subscribe: Effect.Effect<Queue.Dequeue<Event>, never, Scope.Scope>
  /**
   * Whether the store can serve now (a shared one: its backing service answers), for the HTTP
   * handler's `readyPath`. Absent: always.
   */
  readonly ready?: Effect.Effect<boolean> | undefined
}

/**
 * @since 0.1.0
 * @category tags
 */
export class NotificationBus extends Context.Tag("@effect-mcp/server/NotificationBus")<NotificationBus, Service>() {}

/**
 * An in-memory bus (a `PubSub`), shut down with the scope. What every server without a bus in
 * its context makes for itself.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Service, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(PubSub.unbounded<Event>(), PubSub.shutdown),
  (pubsub): Service => ({
    publish: (event) => Effect.asVoid(PubSub.publish(pubsub, event)),
    subscribe: PubSub.subscribe(pubsub)
  })
)

/**
 * The in-memory bus as a layer: every server given it shares its changes (within one process).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<NotificationBus> = Layer.scoped(NotificationBus, make)
