/**
 * The server's 2026-07-28 subscriptions (`subscriptions/listen`), over every engine it serves:
 * one scoped service owning the open ones (a `Ref` of a map by handle, in opening order), fed by
 * one registry listener.
 *
 * A subscription is its listen request's own fiber (held open by the engine, which interrupts it
 * on a cancel or when its client goes) and what it has yet to send. The fan-out only adds to what
 * the subscriptions that asked have yet to send, and wakes their fibers (never waiting on a
 * client); each fiber sends its acknowledgement first, then what it is given, so nothing of a
 * subscription precedes its acknowledgement, and a slow client only makes its own backlog longer
 * (merged as it piles up: a kind or a URI once).
 *
 * Idle, a subscription costs its fiber (suspended on one wake-up callback) and its entry here:
 * the backlog and the wake-up are plain fields of the entry, touched only synchronously by the
 * fan-out, a close and the fiber itself, because a mailbox, a scope or a deferred per subscription
 * would cost more than the rest together (a held-open listen costs about 8 KB, most of it the
 * engine's in-flight request).
 *
 * Ending: a close marks the entry closing and wakes its fiber, which sends what was left and
 * returns (the listen result answers the request); the close waits for the answer to be sent.
 * The end of an engine closes the subscriptions it serves, the end of the server every one (the
 * wait is bounded).
 */
import type { JsonRpc, Schema as McpSchema, Transport } from "@effect-mcp/core"
import { Meta, Revision } from "@effect-mcp/core"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Resource from "../Resource.js"
import type * as Subscription from "../Subscription.js"
import type { Changes, ListKind, Registry } from "./registry.js"
import type { Config } from "./serving.js"
import * as Serving from "./serving.js"

type Filter = McpSchema.Subscription.SubscriptionFilter

/** What one subscription has yet to send: the changes of one or more windows that it asked for. */
interface Delivery {
  readonly lists: ReadonlyArray<ListKind>
  readonly uris: ReadonlyArray<string>
}

interface Live {
  readonly info: Subscription.Subscription
  /** The registry's version when it was opened: it hears of later changes only. */
  readonly since: number
  /** The engine serving it. */
  readonly owner: object
  /** Its listen request's fiber. */
  readonly fiber: Fiber.RuntimeFiber<unknown, unknown>
  /** What it has yet to send (fan-out adds, its fiber takes). */
  backlog: Delivery | undefined
  /** Closed by the server: its fiber sends the backlog, then returns. */
  closing: boolean
  /** Resumes its fiber when it waits for something to send. */
  wake: (() => void) | undefined
}

/** One listen request, as the stateless era hands it over. */
export interface Listen {
  readonly client: Transport.ClientId
  readonly id: JsonRpc.RequestId
  readonly filter: Filter
  /**
   * What of the filter the server can serve now: read once the subscription is registered, so a
   * change either shows in it or reaches the subscription (or both), never neither.
   */
  readonly acknowledge: Effect.Effect<Filter>
  readonly clientInfo: Option.Option<McpSchema.Base.Implementation>
  /** The engine serving it (its subscriptions are closed when it ends). */
  readonly owner: object
  /** Sends a notification on the listen request's own stream. */
  readonly notify: (method: string, params: object) => Effect.Effect<void>
}

export interface Subscriptions {
  /**
   * Serves one listen request in its own fiber: registers it, acknowledges it, delivers what it
   * asked for; returns when it is closed (answer it then), or is interrupted (and forgotten).
   */
  readonly serve: (listen: Listen) => Effect.Effect<void>
  /** The open subscriptions, oldest first. */
  readonly active: Effect.Effect<ReadonlyArray<Subscription.Subscription>>
  /** Closes one gracefully; true once its answer is sent, false when it was not (no longer) open. */
  readonly close: (subscription: Subscription.Handle | Subscription.Subscription) => Effect.Effect<boolean>
  /** Closes every one gracefully; how many were answered. */
  readonly closeAll: Effect.Effect<number>
  /** Closes gracefully those an engine serves (it is ending), waiting a bounded time. */
  readonly closeOwned: (owner: object) => Effect.Effect<void>
}

const listChanged: Record<ListKind, string> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed"
}

const asks = (filter: Filter, kind: ListKind): boolean =>
  kind === "tools"
    ? filter.toolsListChanged === true
    : kind === "prompts"
    ? filter.promptsListChanged === true
    : filter.resourcesListChanged === true

/** What of `changes` a subscription asked for (undefined: nothing). */
const deliveryFor = (live: Live, changes: Changes, resources: boolean): Delivery | undefined => {
  const { filter } = live.info
  let lists: Array<ListKind> | undefined
  for (const [kind, seq] of changes.lists) {
    if (seq > live.since && asks(filter, kind)) (lists ??= []).push(kind)
  }
  let uris: Array<string> | undefined
  const wanted = filter.resourceSubscriptions
  if (resources && wanted !== undefined && wanted.length > 0) {
    for (const [uri, seq] of changes.uris) {
      if (seq > live.since && wanted.some((subscribed) => Resource.covers(subscribed, uri))) (uris ??= []).push(uri)
    }
  }
  return lists === undefined && uris === undefined ? undefined : { lists: lists ?? [], uris: uris ?? [] }
}

/** Two deliveries that piled up, as one: each kind and URI once, in order of arrival. */
const merge = (first: Delivery, second: Delivery): Delivery => ({
  lists: Array.from(new Set([...first.lists, ...second.lists])),
  uris: Array.from(new Set([...first.uris, ...second.uris]))
})

/** Wakes a subscription's fiber, if it waits. */
const wake = (live: Live) => {
  const resume = live.wake
  if (resume !== undefined) {
    live.wake = undefined
    resume()
  }
}

/** Adds to what a subscription has yet to send. */
const offer = (live: Live, delivery: Delivery) => {
  if (live.closing) return
  live.backlog = live.backlog === undefined ? delivery : merge(live.backlog, delivery)
  wake(live)
}

/** Waits until a subscription has something to send, or is closing. */
const idle = (live: Live): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    live.wake = () => resume(Effect.void)
    return Effect.sync(() => {
      live.wake = undefined
    })
  })

/** How long the end of an engine or of the server waits for subscriptions to be answered. */
const grace = "1 second"

/** The server's subscriptions, for the lifetime of the scope (whose end closes them all). */
export const make = (registry: Registry, config: Config): Effect.Effect<Subscriptions, never, Scope.Scope> =>
  Effect.gen(function*() {
    const features = Revision.features("2026-07-28")
    // Is resources/updated served right now (`resources.subscribe`)? Asked only of a batch with URIs.
    const resources = Effect.map(
      Ref.get(registry.entries),
      (entries) => Serving.capabilities(entries, config, features).resources?.subscribe === true
    )
    // Updated in place (a copy per listen would cost O(n) each): every access is synchronous.
    const open = yield* Ref.make(new Map<Subscription.Handle, Live>())
    const counter = yield* Ref.make(0)

    const fanOut = (changes: Changes): Effect.Effect<void> =>
      Effect.flatMap(Ref.get(open), (all) => {
        if (all.size === 0) return Effect.void
        return Effect.flatMap(changes.uris.size > 0 ? resources : Effect.succeed(false), (served) =>
          Effect.sync(() => {
            for (const live of all.values()) {
              const delivery = deliveryFor(live, changes, served)
              if (delivery !== undefined) offer(live, delivery)
            }
          }))
      })
    yield* registry.listen(fanOut)

    const register = (listen: Listen, handle: Subscription.Handle) =>
      Effect.withFiberRuntime<Live>((fiber) =>
        Effect.gen(function*() {
          const since = yield* registry.version
          const live: Live = {
            info: {
              handle,
              subscriptionId: listen.id,
              client: listen.client,
              filter: listen.filter,
              acknowledged: yield* listen.acknowledge,
              clientInfo: listen.clientInfo,
              openedAt: yield* DateTime.now
            },
            since,
            owner: listen.owner,
            fiber,
            backlog: undefined,
            closing: false,
            wake: undefined
          }
          yield* Ref.update(open, (all) => all.set(handle, live))
          return live
        })
      )

    /** Sends what a subscription is given until it is closing (plain combinators: it is held open). */
    const deliver = (live: Live, listen: Listen): Effect.Effect<void> => {
      const tag = { [Meta.subscriptionId]: listen.id }
      const send = ({ lists, uris }: Delivery) =>
        Effect.zipRight(
          Effect.forEach(lists, (kind) => listen.notify(listChanged[kind], { _meta: tag }), { discard: true }),
          Effect.forEach(uris, (uri) => listen.notify("notifications/resources/updated", { uri, _meta: tag }), {
            discard: true
          })
        )
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        const backlog = live.backlog
        if (backlog !== undefined) {
          live.backlog = undefined
          return Effect.zipRight(send(backlog), loop)
        }
        return live.closing ? Effect.void : Effect.zipRight(idle(live), loop)
      })
      // First: nothing of this subscription may precede its acknowledgement.
      return Effect.zipRight(
        listen.notify("notifications/subscriptions/acknowledged", {
          notifications: live.info.acknowledged,
          _meta: tag
        }),
        loop
      )
    }

    const serve = (listen: Listen): Effect.Effect<void> =>
      Effect.flatMap(Ref.updateAndGet(counter, (n) => n + 1), (n) => {
        const handle = `sub-${n}` as Subscription.Handle
        // Forgotten however it ends: closed, cancelled, its client gone.
        return Effect.ensuring(
          Effect.flatMap(register(listen, handle), (live) => deliver(live, listen)),
          Ref.update(open, (all) => {
            all.delete(handle)
            return all
          })
        )
      })

    /** Ends the subscriptions (taken out of `open` already) and waits for their answers. */
    const end = (lives: ReadonlyArray<Live>): Effect.Effect<number> =>
      Effect.zipRight(
        Effect.sync(() => {
          for (const live of lives) {
            live.closing = true
            wake(live)
          }
        }),
        Effect.map(
          Effect.forEach(lives, (live) => Effect.map(live.fiber.await, Exit.isSuccess), { concurrency: "unbounded" }),
          (answered) => answered.filter(Boolean).length
        )
      )

    const take = (select: (live: Live) => boolean) =>
      Ref.modify(open, (all) => {
        const taken = Array.from(all.values()).filter(select)
        for (const live of taken) all.delete(live.info.handle)
        return [taken, all] as const
      })

    const closeAll = Effect.flatMap(take(() => true), end)

    yield* Effect.addFinalizer(() => Effect.ignore(Effect.timeout(closeAll, grace)))

    return {
      serve,
      active: Effect.map(
        Ref.get(open),
        (all) => Array.from(all.values(), (live) => live.info)
      ),
      close: (subscription) => {
        const handle = typeof subscription === "string" ? subscription : subscription.handle
        return Effect.flatMap(
          Ref.modify(open, (all) => {
            const live = Option.fromNullable(all.get(handle))
            all.delete(handle)
            return [live, all] as const
          }),
          Option.match({ onNone: () => Effect.succeed(false), onSome: (live) => Effect.map(end([live]), (n) => n > 0) })
        )
      },
      closeAll,
      closeOwned: (owner) =>
        Effect.ignore(Effect.timeout(Effect.flatMap(take((live) => live.owner === owner), end), grace))
    }
  })
