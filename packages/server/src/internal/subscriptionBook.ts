/**
 * The book of the server's open 2026-07-28 subscriptions: each one's entry ({@link Live}), who asked
 * for what (an index by list kind, exact URI, prefix and task), how many each client and holder has
 * open, and the limits a listen is measured against. Synchronous state, owned by the
 * `Subscriptions` service (internal/subscriptions.ts), which sends.
 */
import type { JsonRpc, Schema as McpSchema, Transport } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/core"
import type * as DateTime from "effect/DateTime"
import type * as Deferred from "effect/Deferred"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import type * as Option from "effect/Option"
import type * as Subscription from "../Subscription.js"
import * as Holders from "./holders.js"
import type { Changes, ListKind } from "./registry.js"

export type Filter = McpSchema.Subscription.SubscriptionFilter

/**
 * What one subscription has yet to send: the changes of one or more windows that it asked for,
 * and the newest state of each task it follows that changed.
 */
export interface Delivery {
  readonly lists: ReadonlyArray<ListKind>
  readonly uris: ReadonlyArray<string>
  readonly tasks?: ReadonlyMap<string, object> | undefined
}

export interface Live {
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
  /** Its engine's client (none: a request on a channel of its own, such as an HTTP POST). */
  readonly client: Transport.ClientId | undefined
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
  /**
   * Told of each URI of its `resourceSubscriptions` once it is admitted (within the limits), before it
   * is acknowledged (`McpServer.Options.onResourceSubscribe`), at most `maxConcurrentHooks` at a time.
   */
  readonly onResourceSubscribe?: ((uri: string) => Effect.Effect<void>) | undefined
}

/** How many `onResourceSubscribe` hooks of one listen run at once. */
export const maxConcurrentHooks = 32

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
export const oversized = (limits: Limits, listen: Listen): McpError.McpError | undefined => {
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
export const tooMany = (
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

export const each = (found: Listeners | undefined, f: (live: Live) => void) => {
  if (found === undefined) return
  if (found instanceof Set) { for (const live of found) f(live) }
  else f(found)
}

/**
 * Who asked for what: each list kind, each exact URI, each prefix (an entry ending in `/`, which
 * covers every URI beneath it: `SubscriptionFilter.covers`).
 */
export class Index {
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
export const merge = (first: Delivery, second: Delivery): Delivery => ({
  lists: Array.from(new Set([...first.lists, ...second.lists])),
  uris: Array.from(new Set([...first.uris, ...second.uris])),
  tasks: first.tasks === undefined
    ? second.tasks
    : second.tasks === undefined
    ? first.tasks
    : new Map([...first.tasks, ...second.tasks])
})

/** A subscription registered, not yet acknowledged. */
export const liveOf = (
  listen: Listen,
  handle: Subscription.Handle,
  since: number,
  acknowledged: Filter,
  openedAt: DateTime.Utc
): Live => ({
  info: {
    handle,
    subscriptionId: listen.id,
    client: listen.client,
    filter: listen.filter,
    acknowledged,
    clientInfo: listen.clientInfo,
    openedAt
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
})

/**
 * The subscriptions open, with who asked for what and how many each client and holder has, kept
 * together (an entry is in all or in none). Updated in place (a copy per listen would cost O(n)
 * each): every access is synchronous, and the engine's cancel (a plain callback) deletes directly.
 */
export class Book {
  readonly byHandle = new Map<Subscription.Handle, Live>()
  readonly index = new Index()
  // How many are open per client of each engine (`maxPerClient`).
  private readonly perClient = new Map<object, Map<Transport.ClientId, number>>()
  // How many each holder has open (`maxPerHolder`), over every engine.
  private readonly perHolder: Holders.Counts

  constructor(private readonly limits: Limits) {
    this.perHolder = new Holders.Counts(limits.maxPerHolder)
  }

  /** Counts a subscription in (or out) of its client's and its holder's. */
  private count(live: Live, delta: 1 | -1): void {
    const client = live.info.client
    // A listen on a channel of its own (an HTTP POST) is its client's only one: not counted.
    if (client !== undefined) {
      let clients = this.perClient.get(live.owner)
      if (clients === undefined) this.perClient.set(live.owner, clients = new Map())
      const n = (clients.get(client) ?? 0) + delta
      if (n > 0) clients.set(client, n)
      else {
        clients.delete(client)
        if (clients.size === 0) this.perClient.delete(live.owner)
      }
    }
    if (delta > 0) this.perHolder.add(live.listen.holder)
    else this.perHolder.remove(live.listen.holder)
  }

  /** Admits a subscription, or says why not (the limits on how many are open). */
  admit(live: Live): McpError.McpError | undefined {
    const limits = this.limits
    if (this.byHandle.size >= limits.maxOpen) return tooMany("maxSubscriptions", limits.maxOpen)
    const client = live.info.client
    if (client !== undefined && (this.perClient.get(live.owner)?.get(client) ?? 0) >= limits.maxPerClient) {
      return tooMany("maxSubscriptionsPerClient", limits.maxPerClient)
    }
    if (this.perHolder.full(live.listen.holder)) return tooMany("maxSubscriptionsPerHolder", limits.maxPerHolder)
    this.byHandle.set(live.info.handle, live)
    this.index.add(live)
    this.count(live, 1)
    return undefined
  }

  /** Takes a subscription out of those open (once: a second time does nothing). */
  remove(live: Live): void {
    live.expiry?.()
    live.expiry = undefined
    if (this.byHandle.get(live.info.handle) !== live) return
    this.byHandle.delete(live.info.handle)
    this.index.remove(live)
    this.count(live, -1)
  }
}

/** What of a batch reaches whom: each subscription that asked, only of changes made after it opened. */
export const deliveriesOf = (changes: Changes, index: Index, served: boolean): Map<Live, Delivery> => {
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
  return deliveries
}
