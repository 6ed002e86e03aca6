/**
 * The client's response cache (2026-07-28): cacheable results (`server/discover`, the lists,
 * `resources/read`) kept for their `ttlMs`, `public` ones shared, `private` ones kept apart per
 * authorization context (the client's `cachePartition`). A change notification drops what it
 * makes stale at once: `list_changed` the list, `resources/updated` the reads of that URI. The
 * store is pluggable; `memory` is the default.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"

/**
 * One cached result.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly method: string
  /** The URI of a `resources/read`. */
  readonly uri: string | undefined
  readonly value: unknown
  /** Epoch millis after which it is stale. */
  readonly expiresAt: number
}

/**
 * Where results are kept: by key, with invalidation by a predicate.
 *
 * @since 0.1.0
 * @category models
 */
export interface Store {
  readonly get: (key: string) => Effect.Effect<Option.Option<Entry>>
  readonly set: (key: string, entry: Entry) => Effect.Effect<void>
  readonly invalidate: (stale: (entry: Entry) => boolean) => Effect.Effect<void>
}

/**
 * An in-memory store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memory: Effect.Effect<Store> = Effect.map(Ref.make(new Map<string, Entry>()), (entries) => ({
  get: (key) => Effect.map(Ref.get(entries), (all) => Option.fromNullable(all.get(key))),
  set: (key, entry) => Ref.update(entries, (all) => new Map(all).set(key, entry)),
  invalidate: (stale) => Ref.update(entries, (all) => new Map(Array.from(all).filter(([, entry]) => !stale(entry))))
}))

/**
 * The methods whose results may be cached.
 *
 * @since 0.1.0
 * @category constants
 */
export const cacheable: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])

/**
 * What a notification makes stale (undefined: nothing).
 *
 * @since 0.1.0
 * @category invalidation
 */
export const staleAfter = (
  method: string,
  params: unknown
): ((entry: Entry) => boolean) | undefined => {
  switch (method) {
    case "notifications/tools/list_changed":
      return (entry) => entry.method === "tools/list" || entry.method === "server/discover"
    case "notifications/prompts/list_changed":
      return (entry) => entry.method === "prompts/list" || entry.method === "server/discover"
    case "notifications/resources/list_changed":
      return (entry) =>
        entry.method === "resources/list" || entry.method === "resources/templates/list" ||
        entry.method === "server/discover"
    case "notifications/resources/updated": {
      const uri = (params as { readonly uri?: unknown } | undefined)?.uri
      return (entry) => entry.method === "resources/read" && entry.uri === uri
    }
    default:
      return undefined
  }
}
