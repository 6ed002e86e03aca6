/**
 * The server-wide registry: tools, prompts, resources and templates (with their requirements
 * already provided), and the changes made to them.
 *
 * Changes (a list changed, a resource was updated) are numbered: this server's own as they are
 * made, other servers' (from the notification bus, `NotificationBus`) as they arrive. They are
 * coalesced by one server-level fiber over a short window and handed, as one batch, to every
 * listener (each engine serving handshake sessions registers one for its lifetime; the server's
 * subscriptions one). A window runs from the server's start, then from each batch handed: a
 * change that comes after its window ended goes at once (with what came with it), one within it
 * waits for its end. Nothing is kept or run per session. On a Worker (`workers.ts`), or with a
 * window of zero, there is no window: a batch is what came since the fiber last woke (the
 * window's timer would be the request's that made the first change of it, cancelled with it, and
 * the fiber would never wake again).
 *
 * This server's own changes are also published to the bus, marked with its `origin` (so that it
 * skips them when the bus delivers them back): they reach its own clients even when the bus is
 * slow or down, and exactly once. A server given no bus (none in its context) has no one to tell
 * and none to hear: it publishes nothing and reads nothing.
 *
 * The coalescing fiber is started by the first change (in the registry's scope), not when the
 * server is built: a server whose entries never change (most, and every cold Worker's first
 * request) runs no fiber for it.
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as MutableRef from "effect/MutableRef"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as NotificationBus from "../NotificationBus.js"
import type * as Prompt from "../Prompt.js"
import type * as Resource from "../Resource.js"
import type * as Tool from "../Tool.js"
import * as Listeners from "./listeners.js"
import * as Workers from "./workers.js"

export interface Entries {
  readonly tools: ReadonlyMap<string, Tool.Tool>
  readonly prompts: ReadonlyMap<string, Prompt.Prompt>
  readonly resources: ReadonlyMap<string, Resource.Resource>
  readonly templates: ReadonlyMap<string, Resource.Template>
}

export type ListKind = NotificationBus.ListKind

export type Change =
  | { readonly _tag: "ListChanged"; readonly kind: ListKind; readonly seq: number }
  | { readonly _tag: "ResourceUpdated"; readonly uri: string; readonly seq: number }

/**
 * What changed during one coalescing window, with the sequence number of the last change of
 * each: a listener tells a session only of changes made after it was ready to hear them.
 */
export interface Changes {
  readonly lists: ReadonlyMap<ListKind, number>
  readonly uris: ReadonlyMap<string, number>
}

export type Listener = (changes: Changes) => Effect.Effect<void>

export interface Registry {
  readonly entries: Ref.Ref<Entries>
  /** The entries now, read synchronously (what a transport checks a request against before it runs). */
  readonly unsafeEntries: () => Entries
  readonly edit: (kind: ListKind, f: (entries: Entries) => Entries) => Effect.Effect<void>
  readonly updated: (uri: string) => Effect.Effect<void>
  /** The sequence number of the last change made or received so far. */
  readonly version: Effect.Effect<number>
  /** Receives every batch of changes for the lifetime of the scope. */
  readonly listen: (listener: Listener) => Effect.Effect<void, never, Scope.Scope>
}

const byName = <A>(items: ReadonlyArray<A>, key: (a: A) => string): ReadonlyMap<string, A> =>
  new Map(items.map((item) => [key(item), item]))

const kinds: ReadonlySet<string> = new Set(NotificationBus.ListKind.literals)

const coalesce = (chunk: Chunk.Chunk<Change>): Changes => {
  const lists = new Map<ListKind, number>()
  const uris = new Map<string, number>()
  for (const change of chunk) {
    if (change._tag === "ListChanged") lists.set(change.kind, change.seq)
    else uris.set(change.uri, change.seq)
  }
  return { lists, uris }
}

/** An event, numbered; undefined for one that is not an event (a foreign bus's mistake). */
const numbered = (event: NotificationBus.Event, seq: number): Change | undefined =>
  event._tag === "ListChanged"
    ? kinds.has(event.kind) ? { _tag: "ListChanged", kind: event.kind, seq } : undefined
    : event._tag === "ResourceUpdated" && typeof event.uri === "string"
    ? { _tag: "ResourceUpdated", uri: event.uri, seq }
    : undefined

export const make = (initial: {
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly prompts: ReadonlyArray<Prompt.Prompt>
  readonly resources: ReadonlyArray<Resource.Resource>
  readonly templates: ReadonlyArray<Resource.Template>
  /** The coalescing window of change notifications. */
  readonly window: Duration.DurationInput
  /** Where changes are published, and other servers' received from; none: this server's alone. */
  readonly bus: NotificationBus.Service | undefined
}): Effect.Effect<Registry, never, Scope.Scope> =>
  Effect.gen(function*() {
    const mirror = MutableRef.make<Entries>({
      tools: byName(initial.tools, (t) => t.name),
      prompts: byName(initial.prompts, (p) => p.name),
      resources: byName(initial.resources, (r) => r.uri),
      templates: byName(initial.templates, (t) => t.uriTemplate)
    })
    const entries = yield* Ref.make(MutableRef.get(mirror))
    const { bus } = initial
    // This server on the bus (none without one).
    const origin = bus === undefined ? "" : globalThis.crypto.randomUUID()
    const changes = yield* Effect.acquireRelease(Queue.unbounded<Change>(), Queue.shutdown)
    const version = yield* Ref.make(0)
    const listeners = yield* Ref.make<ReadonlySet<Listener>>(new Set())
    // The coalescing fiber (below), started by the first change: on the server's runtime, in its scope.
    const fork = Runtime.runFork(yield* Effect.runtime<never>())
    const scope = yield* Effect.scope
    let coalescing: Effect.Effect<void> | undefined
    /** Numbers a change and hands it to the coalescing fiber (started now if this is the first). */
    const change = (event: NotificationBus.Event) =>
      Effect.flatMap(Ref.updateAndGet(version, (n) => n + 1), (seq) => {
        const numberedChange = numbered(event, seq)
        if (numberedChange === undefined) return Effect.void
        const offer = Effect.asVoid(Queue.offer(changes, numberedChange))
        const start = coalescing
        if (start === undefined) return offer
        coalescing = undefined
        return Effect.zipRight(Effect.sync(() => fork(start, { scope })), offer)
      })
    /** A change of this server: numbered now, published for the others. */
    const local = (event: NotificationBus.Event) =>
      bus === undefined ? change(event) : Effect.zipRight(change(event), bus.publish({ ...event, origin }))
    // Other servers' changes (this server's own come back marked with its origin).
    if (bus !== undefined) {
      const events = yield* bus.subscribe
      yield* Effect.forkScoped(Effect.forever(
        Effect.flatMap(Queue.take(events), (event) => event.origin === origin ? Effect.void : change(event))
      ))
    }
    const deliver = (chunk: Chunk.Chunk<Change>) =>
      Effect.flatMap(Ref.get(listeners), (all) => {
        const batch = coalesce(chunk)
        return Effect.forEach(all, (listener) => listener(batch), { discard: true })
      })
    const windowed = Duration.toMillis(initial.window) > 0 && !Workers.onWorkers()
    // A batch is the first change and what follows it until the window's end (at most 1,024 changes), or,
    // without a window, what the queue holds when the fiber wakes (as much as a stream's chunk). Read from
    // the queue directly: a server's registry runs without `effect/Stream`. The window's end is reckoned
    // from the server's start and then from each batch (not from a batch's first change): a server run
    // on a `TestClock` moved before a change gets that change without moving the clock again, as with
    // the stream's `groupedWithin` this replaces.
    const windowMillis = Duration.toMillis(initial.window)
    let windowEnd = (yield* Clock.currentTimeMillis) + windowMillis
    const batch = Effect.flatMap(Queue.take(changes), (first) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.zipRight(
          now < windowEnd ? Effect.sleep(windowEnd - now) : Effect.void,
          Effect.flatMap(Queue.takeUpTo(changes, 1023), (rest) =>
            Effect.zipRight(
              Effect.flatMap(Clock.currentTimeMillis, (end) =>
                Effect.sync(() => windowEnd = end + windowMillis)),
              deliver(Chunk.prepend(rest, first))
            ))
        )))
    coalescing = Effect.forever(windowed ? batch : Effect.flatMap(Queue.takeBetween(changes, 1, 4096), deliver))
    return {
      entries,
      unsafeEntries: () =>
        MutableRef.get(mirror),
      edit: (kind, f) =>
        Effect.zipRight(
          // The mirror is set within the update: both hold the same entries at every instant.
          Ref.update(entries, (before) => MutableRef.set(mirror, f(before)).current),
          local(NotificationBus.listChanged(kind))
        ),
      updated: (uri) => local(NotificationBus.resourceUpdated(uri)),
      version: Ref.get(version),
      listen: (listener) => Listeners.listen(listeners, listener)
    }
  })

/** Returns a copy of `map` with `key` set to `value`. */
export const set = <A>(map: ReadonlyMap<string, A>, key: string, value: A): ReadonlyMap<string, A> =>
  new Map(map).set(key, value)

/** Returns a copy of `map` without `key`. */
export const remove = <A>(map: ReadonlyMap<string, A>, key: string): ReadonlyMap<string, A> => {
  const next = new Map(map)
  next.delete(key)
  return next
}
