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
import type { JsonRpc, Schema as McpSchema, Transport } from "@effect-mcp/core"
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
import * as Timer from "./timer.js"

type Filter = McpSchema.Subscription.SubscriptionFilter

/**
 * What one subscription has yet to send: the changes of one or more windows that it asked for,
 * and the newest state of each task it follows that changed.
 */
interface Delivery {
  readonly lists: ReadonlyArray<ListKind>
  readonly uris: ReadonlyArray<string>
  readonly tasks?: ReadonlyMap<string, object> | undefined
}

interface Live {
  readonly info: Subscription.Subscription
  /** The registry's version when it was opened: it hears of later changes only. */
  readonly since: number
  /** The engine serving it. */
  readonly owner: object
  readonly listen: Listen
  /** What it has yet to send (fan-out adds, its sender takes). */
  backlog: Delivery | undefined
  /** Closed by the server: its sender sends the backlog, then answers the listen request. */
  closing: boolean
  /** Acknowledged and held: what it is given may be sent. */
  ready: boolean
  /** Answers the held listen request (until it is answered or cancelled). */
  answer: ((exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>) | undefined
  /** The fiber sending its backlog, while one runs. */
  sender: Fiber.RuntimeFiber<void> | undefined
  /** Once it is closing: whether its answer was sent, for the close to wait on. */
  done: Deferred.Deferred<boolean> | undefined
  /** Cancelled (by its client, or its client gone): nothing more is sent. */
  gone: boolean
  /** Cancels the timer that closes it when its token expires. */
  expiry: (() => void) | undefined
}

/** One listen request, as the stateless era hands it over. */
export interface Listen {
  readonly client: Transport.ClientId
  readonly id: JsonRpc.RequestId
  /** The listen request's params as they arrived (measured against `Limits.maxLength`). */
  readonly params: unknown
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
  /**
   * Holds the listen request open once its fiber ends (`Peer.hold`); `onCancel` runs if it is
   * cancelled. What answers it, or undefined when it is no longer in flight.
   */
  readonly hold: (
    onCancel: () => void
  ) => ((exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>) | undefined
  /** What answers the listen request when the server closes it. */
  readonly result: unknown
  /** When the token it came with expires (epoch milliseconds): it is closed then, gracefully. */
  readonly expiresAt?: number | undefined
  /** Whose tasks it may hear of (`taskIds`): only those this owner reaches (`Holders.reaches`). */
  readonly taskOwner?: string | undefined
  /**
   * Who holds it, for `maxPerHolder` (`Holders`: its token's holder, else its client's address);
   * undefined where a connection is one client (stdio, an in-memory pair) or nothing names the
   * client (an HTTP platform that gives no address).
   */
  readonly holder?: string | undefined
}

/** How much the server's subscriptions may hold (see `McpServer.Options`). */
export interface Limits {
  /** Most open subscriptions, over every engine and client. */
  readonly maxOpen: number
  /** Most open subscriptions of one client of one engine (stdio's one; an HTTP POST holds one). */
  readonly maxPerClient: number
  /** Most open subscriptions of one holder (a token's holder, an HTTP client's address), over every engine. */
  readonly maxPerHolder: number
  /** Most `resourceSubscriptions` in one filter. */
  readonly maxUris: number
  /** The longest listen params, in characters of their JSON. */
  readonly maxLength: number
}

/**
 * The defaults: a thousand open (well below `NodeMcpServer.layerHttp`'s 4,096 connections, each
 * listen holding one, so other clients always get in), 16 per client, a thousand URIs and 64 KiB
 * per listen. At worst, every listen full (a thousand URIs, 64 KiB), about 120 MB of heap
 * (measured over the in-memory pair): within a default Node heap.
 */
export const defaultLimits: Limits = {
  maxOpen: 1_000,
  maxPerClient: 16,
  maxPerHolder: 100,
  maxUris: 1_000,
  maxLength: 65_536
}

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

const asks = (filter: Filter, kind: ListKind): boolean =>
  kind === "tools"
    ? filter.toolsListChanged === true
    : kind === "prompts"
    ? filter.promptsListChanged === true
    : filter.resourcesListChanged === true

/** The length of `value` as JSON text (escapes aside), counted until it passes `max` (then more than `max`). */
const jsonLength = (value: unknown, max: number): number => {
  let length = 0
  const walk = (v: unknown): void => {
    if (length > max) return
    if (typeof v === "string") length += v.length + 2
    else if (typeof v === "number" || typeof v === "boolean") length += String(v).length
    else if (v === null || typeof v !== "object") length += 4
    else if (Array.isArray(v)) {
      length += 1 + v.length
      for (const item of v) {
        walk(item)
        if (length > max) return
      }
    } else {
      length += 1
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue
        length += key.length + 4
        walk((v as Record<string, unknown>)[key])
        if (length > max) return
      }
    }
  }
  walk(value)
  return length
}

/** Why a listen's params are refused (-32602), or undefined. */
const oversized = (limits: Limits, listen: Listen): McpError.McpError | undefined => {
  const uris = listen.filter.resourceSubscriptions?.length ?? 0
  if (uris > limits.maxUris) {
    return new McpError.InvalidParams({
      message: `Invalid params: notifications.resourceSubscriptions has ${uris} URIs, more than ` +
        `maxSubscriptionUris (${limits.maxUris})`,
      data: { limit: "maxSubscriptionUris", max: limits.maxUris }
    })
  }
  if (jsonLength(listen.params, limits.maxLength) > limits.maxLength) {
    return new McpError.InvalidParams({
      message: `Invalid params: subscriptions/listen params are longer than ` +
        `subscriptionMaxLength (${limits.maxLength} characters)`,
      data: { limit: "subscriptionMaxLength", max: limits.maxLength }
    })
  }
  return undefined
}

/** Too many open: -32000, which HTTP answers 503. */
const tooMany = (
  limit: "maxSubscriptions" | "maxSubscriptionsPerClient" | "maxSubscriptionsPerHolder",
  max: number
) =>
  new McpError.RpcError({
    code: -32000,
    message: limit === "maxSubscriptions"
      ? `Too many subscriptions: this server holds ${max} open (maxSubscriptions); try again later`
      : `Too many subscriptions: this client holds ${max} open (${limit}); close one first`,
    data: { limit, max }
  })

/** Who listens for something: one subscription, or several (the common case costs no set). */
type Listeners = Live | Set<Live>

const addTo = (map: Map<string, Listeners>, key: string, live: Live) => {
  const found = map.get(key)
  if (found === undefined) map.set(key, live)
  else if (found instanceof Set) found.add(live)
  else if (found !== live) map.set(key, new Set([found, live]))
}

const removeFrom = (map: Map<string, Listeners>, key: string, live: Live) => {
  const found = map.get(key)
  if (found === live) map.delete(key)
  else if (found instanceof Set) {
    found.delete(live)
    if (found.size === 1) map.set(key, found.values().next().value!)
  }
}

const each = (found: Listeners | undefined, f: (live: Live) => void) => {
  if (found === undefined) return
  if (found instanceof Set) { for (const live of found) f(live) }
  else f(found)
}

/**
 * Who asked for what: each list kind, each exact URI, each prefix (an entry ending in `/`, which
 * covers every URI beneath it: `SubscriptionFilter.covers`).
 */
class Index {
  readonly kinds = new Map<ListKind, Set<Live>>([["tools", new Set()], ["prompts", new Set()], [
    "resources",
    new Set()
  ]])
  readonly exact = new Map<string, Listeners>()
  readonly prefixes = new Map<string, Listeners>()
  readonly tasks = new Map<string, Listeners>()

  add(live: Live): void {
    const { filter } = live.info
    for (const taskId of live.info.acknowledged.taskIds ?? []) addTo(this.tasks, taskId, live)
    for (const [kind, set] of this.kinds) if (asks(filter, kind)) set.add(live)
    for (const uri of filter.resourceSubscriptions ?? []) {
      addTo(uri.endsWith("/") ? this.prefixes : this.exact, uri, live)
    }
  }

  remove(live: Live): void {
    for (const taskId of live.info.acknowledged.taskIds ?? []) removeFrom(this.tasks, taskId, live)
    for (const set of this.kinds.values()) set.delete(live)
    for (const uri of live.info.filter.resourceSubscriptions ?? []) {
      removeFrom(uri.endsWith("/") ? this.prefixes : this.exact, uri, live)
    }
  }

  /** Calls `f` with every subscription whose filter covers `uri` (once per entry that does). */
  covering(uri: string, f: (live: Live) => void): void {
    each(this.exact.get(uri), f)
    if (this.prefixes.size === 0) return
    for (let slash = uri.indexOf("/"); slash >= 0; slash = uri.indexOf("/", slash + 1)) {
      each(this.prefixes.get(uri.slice(0, slash + 1)), f)
    }
  }

  get hasUris(): boolean {
    return this.exact.size > 0 || this.prefixes.size > 0
  }
}

/** Two deliveries that piled up, as one: each kind and URI once, in order of arrival; each task's newest state. */
const merge = (first: Delivery, second: Delivery): Delivery => ({
  lists: Array.from(new Set([...first.lists, ...second.lists])),
  uris: Array.from(new Set([...first.uris, ...second.uris])),
  tasks: first.tasks === undefined
    ? second.tasks
    : second.tasks === undefined
    ? first.tasks
    : new Map([...first.tasks, ...second.tasks])
})

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
    // Updated in place (a copy per listen would cost O(n) each): every access is synchronous, and
    // the engine's cancel (a plain callback) deletes from it directly.
    const byHandle = new Map<Subscription.Handle, Live>()
    const open = yield* Ref.make(byHandle)
    const counter = yield* Ref.make(0)
    // Who asked for what, kept with `byHandle` (an entry is in both or in neither).
    const index = new Index()
    // How many are open per client of each engine (`maxPerClient`).
    const perClient = new Map<object, Map<Transport.ClientId, number>>()
    // How many each holder has open (`maxPerHolder`), over every engine.
    const perHolder = new Holders.Counts(limits.maxPerHolder)

    /** Counts a subscription in (or out) of its client's. */
    const count = (live: Live, delta: 1 | -1) => {
      let clients = perClient.get(live.owner)
      if (clients === undefined) perClient.set(live.owner, clients = new Map())
      const n = (clients.get(live.info.client) ?? 0) + delta
      if (n > 0) clients.set(live.info.client, n)
      else {
        clients.delete(live.info.client)
        if (clients.size === 0) perClient.delete(live.owner)
      }
      if (delta > 0) perHolder.add(live.listen.holder)
      else perHolder.remove(live.listen.holder)
    }

    /** Admits a subscription, or says why not (the limits on how many are open). */
    const admit = (live: Live): McpError.McpError | undefined => {
      if (byHandle.size >= limits.maxOpen) return tooMany("maxSubscriptions", limits.maxOpen)
      if ((perClient.get(live.owner)?.get(live.info.client) ?? 0) >= limits.maxPerClient) {
        return tooMany("maxSubscriptionsPerClient", limits.maxPerClient)
      }
      if (perHolder.full(live.listen.holder)) return tooMany("maxSubscriptionsPerHolder", limits.maxPerHolder)
      byHandle.set(live.info.handle, live)
      index.add(live)
      count(live, 1)
      return undefined
    }

    /** Takes a subscription out of those open (once: a second time does nothing). */
    const remove = (live: Live) => {
      live.expiry?.()
      live.expiry = undefined
      if (byHandle.get(live.info.handle) !== live) return
      byHandle.delete(live.info.handle)
      index.remove(live)
      count(live, -1)
    }

    /** What of a batch reaches whom: each subscription that asked, only of changes made after it opened. */
    const fanOut = (changes: Changes): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (byHandle.size === 0) return Effect.void
        const uris = changes.uris.size > 0 && index.hasUris
        return Effect.flatMap(uris ? resources : Effect.succeed(false), (served) =>
          Effect.sync(() => {
            const deliveries = new Map<Live, { lists: Array<ListKind>; uris: Array<string> }>()
            const of = (live: Live) => {
              let delivery = deliveries.get(live)
              if (delivery === undefined) deliveries.set(live, delivery = { lists: [], uris: [] })
              return delivery
            }
            for (const [kind, seq] of changes.lists) {
              for (const live of index.kinds.get(kind)!) if (seq > live.since) of(live).lists.push(kind)
            }
            if (served) {
              for (const [uri, seq] of changes.uris) {
                index.covering(uri, (live) => {
                  if (seq <= live.since) return
                  const delivery = of(live)
                  // Covered by more than one of its entries: told once.
                  if (delivery.uris[delivery.uris.length - 1] !== uri) delivery.uris.push(uri)
                })
              }
            }
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
          listen,
          backlog: undefined,
          closing: false,
          ready: false,
          answer: undefined,
          sender: undefined,
          done: undefined,
          gone: false,
          expiry: undefined
        }
        // Counted and kept in one synchronous step: no other listen is admitted in between.
        const denied = admit(live)
        if (denied !== undefined) return yield* Effect.fail(denied)
        return live
      })

    /** Sends what a subscription has yet to send; closing, answers its listen request last. */
    const drain = (live: Live): Effect.Effect<void> =>
      Effect.suspend(() => {
        const backlog = live.backlog
        if (backlog !== undefined) {
          live.backlog = undefined
          const tag = { [Meta.subscriptionId]: live.listen.id }
          const { notify } = live.listen
          return Effect.zipRight(
            Effect.zipRight(
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
            ),
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
                  listen.notify("notifications/subscriptions/acknowledged", {
                    notifications: live.info.acknowledged,
                    _meta: { [Meta.subscriptionId]: listen.id }
                  }),
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
