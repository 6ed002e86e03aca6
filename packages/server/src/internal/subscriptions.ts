/**
 * The server's 2026-07-28 subscriptions (`subscriptions/listen`), over every engine it serves:
 * one scoped service owning the open ones (a `Ref` of a map by handle, in opening order), fed by
 * one registry listener.
 *
 * A subscription is its listen request, held open by the engine with no fiber (`Peer.hold`: the
 * engine tells it of a cancel or of its client going), and what it has yet to send. Its request's
 * fiber registers it, sends its acknowledgement and ends. The fan-out only adds to what the
 * subscriptions that asked have yet to send and starts, for each that has no sender running, a
 * fiber that sends its backlog and ends (never waiting on a client), so nothing of a subscription
 * precedes its acknowledgement, and a slow client only makes its own backlog longer (merged as it
 * piles up: a kind or a URI once).
 *
 * Idle, a subscription costs its entry here and the engine's held request: no fiber, no
 * continuation; the backlog and its sender are plain fields of the entry, touched only
 * synchronously by the fan-out, a close, a cancel and the sender itself.
 *
 * Ending: a close marks the entry closing and starts its sender, which sends what was left and
 * answers the held request with the listen result; the close waits for the answer to be sent.
 * The end of an engine closes the subscriptions it serves, the end of the server every one (the
 * wait is bounded).
 *
 * Bounded against hostile clients ({@link Limits}): a listen whose params are too long, or whose
 * filter names too many URIs, is refused with -32602 before anything is kept; one past the open
 * subscriptions of the server, or of its client, with -32000 (an HTTP 503). A change reaches the
 * subscriptions through an index (who asked for each kind, each URI, each `/`-ending prefix): a
 * resource update costs the subscriptions that asked for it, not every URI of every one.
 */
import { McpError, Meta, Revision } from "@effect-mcp/core"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type * as Subscription from "../Subscription.js"
import * as Holders from "./holders.js"
import type { Changes, ListKind, Registry } from "./registry.js"
import type { Config } from "./serving.js"
import * as Serving from "./serving.js"
import type { Delivery, Limits, Listen, Live } from "./subscriptionBook.js"
import {
  Book,
  defaultLimits,
  deliveriesOf,
  each,
  liveOf,
  maxConcurrentHooks,
  merge,
  oversized
} from "./subscriptionBook.js"
import * as Timer from "./timer.js"

export type { Limits, Listen } from "./subscriptionBook.js"
export { defaultLimits } from "./subscriptionBook.js"

export interface Subscriptions {
  /**
   * Serves one listen request in its own fiber: registers it, acknowledges it and holds it open
   * (returning then: its fiber ends); what it asked for is delivered, and the server's close
   * answers it with `result`. Interrupted before it is held, it is forgotten. Refused (and
   * nothing kept) past the limits: -32602 for its params, -32000 for the number open.
   */
  readonly serve: (listen: Listen) => Effect.Effect<void, McpError.McpError>
  /** The open subscriptions, oldest first. */
  readonly active: Effect.Effect<ReadonlyArray<Subscription.Subscription>>
  /** Closes one gracefully; true once its answer is sent, false when it was not (no longer) open. */
  readonly close: (subscription: Subscription.Handle | Subscription.Subscription) => Effect.Effect<boolean>
  /** Closes every one gracefully; how many were answered. */
  readonly closeAll: Effect.Effect<number>
  /** Closes gracefully those an engine serves (it is ending), waiting a bounded time. */
  readonly closeOwned: (owner: object) => Effect.Effect<void>
  /**
   * A task changed: `notifications/tasks` with `params` (its detailed state) to the subscriptions
   * that follow it (`taskIds`) and belong to its owner.
   */
  readonly taskChanged: (taskId: string, owner: string, params: object) => void
}

const listChanged: Record<ListKind, string> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed"
}

/** Sends a subscription's backlog on its listen request's stream, tagged with its id. */
const sendBacklog = (listen: Listen, backlog: Delivery): Effect.Effect<void> => {
  const tag = { [Meta.subscriptionId]: listen.id }
  const { notify } = listen
  return Effect.zipRight(
    Effect.forEach(backlog.lists, (kind) => notify(listChanged[kind], { _meta: tag }), { discard: true }),
    Effect.zipRight(
      Effect.forEach(
        backlog.uris,
        (uri) => notify("notifications/resources/updated", { uri, _meta: tag }),
        { discard: true }
      ),
      backlog.tasks === undefined ? Effect.void : Effect.forEach(
        backlog.tasks.values(),
        (task) => notify("notifications/tasks", { ...task, _meta: tag }),
        { discard: true }
      )
    )
  )
}

/**
 * The senders of subscriptions: each sends its backlog in a fiber of `fork` (one at a time per
 * subscription) and, when it is closing, answers its listen request last.
 */
const senders = (fork: (effect: Effect.Effect<void>) => Fiber.RuntimeFiber<void>, remove: (live: Live) => void) => {
  /** Sends what a subscription has yet to send; closing, answers its listen request last. */
  const drain = (live: Live): Effect.Effect<void> =>
    Effect.suspend(() => {
      const backlog = live.backlog
      if (backlog !== undefined) {
        live.backlog = undefined
        return Effect.zipRight(
          sendBacklog(live.listen, backlog),
          drain(live)
        )
      }
      if (!live.closing) return Effect.void
      const answer = live.answer
      live.answer = undefined
      return Effect.flatMap(
        answer === undefined ? Effect.succeed(false) : answer(Exit.succeed(live.listen.result)),
        (answered) => settle(live, answered)
      )
    })

  /** Tells a close how the subscription ended. */
  const settle = (live: Live, answered: boolean) =>
    Effect.sync(() => {
      if (live.done !== undefined) Deferred.unsafeDone(live.done, Exit.succeed(answered))
    })

  /** Starts a sender when a ready subscription has something to send (or is closing) and none runs. */
  const kick = (live: Live) => {
    if (!live.ready || live.gone || live.sender !== undefined) return
    if (live.backlog === undefined && !live.closing) return
    const sender = fork(drain(live))
    if (sender.unsafePoll() !== null) return
    live.sender = sender
    sender.addObserver(() => {
      live.sender = undefined
      // What came as it ended.
      kick(live)
    })
  }

  /** Adds to what a subscription has yet to send. */
  const offer = (live: Live, delivery: Delivery) => {
    if (live.closing) return
    live.backlog = live.backlog === undefined ? delivery : merge(live.backlog, delivery)
    kick(live)
  }

  /** Forgets a subscription (cancelled, its client gone, or never held): nothing more is sent. */
  const forget = (live: Live) => {
    live.gone = true
    live.answer = undefined
    remove(live)
    live.sender?.unsafeInterruptAsFork(FiberId.none)
    if (live.done !== undefined) Deferred.unsafeDone(live.done, Exit.succeed(false))
  }

  return { forget, kick, offer }
}

/** The server's hook on each URI of a listen, a bounded number at once. */
const hooks = (listen: Listen): Effect.Effect<void> => {
  const told = listen.onResourceSubscribe
  const uris = listen.filter.resourceSubscriptions ?? []
  return told === undefined || uris.length === 0
    ? Effect.void
    : Effect.forEach(uris, told, { concurrency: maxConcurrentHooks, discard: true })
}

/**
 * A listen's hooks, then its acknowledgement. It was admitted first: a listen past the limits is
 * refused before any hook runs.
 */
const acknowledge = (listen: Listen, live: Live): Effect.Effect<void> =>
  Effect.zipRight(
    hooks(listen),
    listen.notify("notifications/subscriptions/acknowledged", {
      notifications: live.info.acknowledged,
      _meta: { [Meta.subscriptionId]: listen.id }
    })
  )

/** How long the end of an engine or of the server waits for subscriptions to be answered. */
const grace = "1 second"

/** The server's subscriptions, for the lifetime of the scope (whose end closes them all). */
export const make = (
  registry: Registry,
  config: Config,
  limits: Limits = defaultLimits
): Effect.Effect<Subscriptions, never, Scope.Scope> =>
  Effect.gen(function*() {
    const features = Revision.features("2026-07-28")
    // Is resources/updated served right now (`resources.subscribe`)? Asked only of a batch with URIs.
    const resources = Effect.map(
      Ref.get(registry.entries),
      (entries) => Serving.capabilities(entries, config, features).resources?.subscribe === true
    )
    const book = new Book(limits)
    const byHandle = book.byHandle
    const open = yield* Ref.make(byHandle)
    const counter = yield* Ref.make(0)
    const index = book.index
    const admit = (live: Live) => book.admit(live)
    const remove = (live: Live) => book.remove(live)

    /** What of a batch reaches whom: each subscription that asked, only of changes made after it opened. */
    const fanOut = (changes: Changes): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (byHandle.size === 0) return Effect.void
        const uris = changes.uris.size > 0 && index.hasUris
        return Effect.flatMap(uris ? resources : Effect.succeed(false), (served) =>
          Effect.sync(() => {
            const deliveries = deliveriesOf(changes, index, served)
            for (const [live, delivery] of deliveries) offer(live, delivery)
          }))
      })
    yield* registry.listen(fanOut)

    // Senders are started from the server's runtime, by the fan-out, a close or the listen itself.
    const runtime = yield* Effect.runtime<never>()
    const fork = Runtime.runFork(runtime)
    // A listen's end when its token expires, on the server's clock.
    const timerAt = Timer.make(runtime, yield* Effect.scope)

    const register = (listen: Listen, handle: Subscription.Handle) =>
      Effect.gen(function*() {
        const refused = oversized(limits, listen)
        if (refused !== undefined) return yield* Effect.fail(refused)
        const since = yield* registry.version
        const live = liveOf(listen, handle, since, yield* listen.acknowledge, yield* DateTime.now)
        // Counted and kept in one synchronous step: no other listen is admitted in between.
        const denied = admit(live)
        if (denied !== undefined) return yield* Effect.fail(denied)
        return live
      })

    const { forget, kick, offer } = senders(fork, remove)

    const serve = (listen: Listen): Effect.Effect<void, McpError.McpError> =>
      Effect.flatMap(Ref.updateAndGet(counter, (n) => n + 1), (n) => {
        const handle = `sub-${n}` as Subscription.Handle
        // Registered and watched as one step: a cancel between the two cannot leave it in `open`.
        return Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(register(listen, handle), (live) =>
            Effect.onInterrupt(
              restore(
                // First: nothing of this subscription may precede its acknowledgement.
                Effect.zipRight(
                  acknowledge(listen, live),
                  Effect.sync(() => {
                    const answer = listen.hold(() => forget(live))
                    if (answer === undefined) return forget(live)
                    live.answer = answer
                    live.ready = true
                    if (listen.expiresAt !== undefined && byHandle.get(handle) === live) {
                      // Its token expires: closed gracefully then, so that the client authorizes again.
                      live.expiry = timerAt(listen.expiresAt, () => fork(closeOne(handle)))
                    }
                    // What came, or a close, while it was being acknowledged.
                    kick(live)
                  })
                )
              ),
              () => Effect.sync(() => forget(live))
            ))
        )
      })

    /** Ends the subscriptions (taken out of `open` already) and waits for their answers. */
    const end = (lives: ReadonlyArray<Live>): Effect.Effect<number> =>
      Effect.zipRight(
        Effect.sync(() => {
          for (const live of lives) {
            live.closing = true
            live.done ??= Deferred.unsafeMake<boolean>(FiberId.none)
            if (live.gone) Deferred.unsafeDone(live.done, Exit.succeed(false))
            else kick(live)
          }
        }),
        Effect.map(
          Effect.forEach(lives, (live) => Deferred.await(live.done!), { concurrency: "unbounded" }),
          (answered) => answered.filter(Boolean).length
        )
      )

    const take = (select: (live: Live) => boolean) =>
      Ref.modify(open, (all) => {
        const taken = Array.from(all.values()).filter(select)
        for (const live of taken) remove(live)
        return [taken, all] as const
      })

    /** Closes one subscription gracefully: true once its listen request was answered. */
    const closeOne = (handle: Subscription.Handle): Effect.Effect<boolean> =>
      Effect.flatMap(
        Ref.modify(open, (all) => {
          const live = Option.fromNullable(all.get(handle))
          if (Option.isSome(live)) remove(live.value)
          return [live, all] as const
        }),
        Option.match({
          onNone: () => Effect.succeed(false),
          // Within the grace a close is given elsewhere: a client that stops reading cannot hold it.
          onSome: (live) =>
            Effect.map(Effect.timeout(end([live]), grace), (n) => n > 0).pipe(
              Effect.catchTag("TimeoutException", () => Effect.sync(() => (forget(live), false)))
            )
        })
      )

    const closeAll = Effect.flatMap(take(() => true), end)

    yield* Effect.addFinalizer(() => Effect.ignore(Effect.timeout(closeAll, grace)))

    return {
      serve,
      active: Effect.map(
        Ref.get(open),
        (all) => Array.from(all.values(), (live) => live.info)
      ),
      close: (subscription) => closeOne(typeof subscription === "string" ? subscription : subscription.handle),
      closeAll,
      closeOwned: (owner) =>
        Effect.ignore(Effect.timeout(Effect.flatMap(take((live) => live.owner === owner), end), grace)),
      taskChanged: (taskId, owner, params) =>
        each(index.tasks.get(taskId), (live) => {
          if (Holders.reaches(live.listen.taskOwner, taskId, owner)) {
            offer(live, { lists: [], uris: [], tasks: new Map([[taskId, params]]) })
          }
        })
    }
  })
