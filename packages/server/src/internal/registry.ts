/**
 * The server-wide registry: tools, prompts, resources and templates (with their
 * requirements already provided), and the bus of change events every session listens to.
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type * as Prompt from "../Prompt.js"
import type * as Resource from "../Resource.js"
import type * as Tool from "../Tool.js"

export interface Entries {
  readonly tools: ReadonlyMap<string, Tool.Tool>
  readonly prompts: ReadonlyMap<string, Prompt.Prompt>
  readonly resources: ReadonlyMap<string, Resource.Resource>
  readonly templates: ReadonlyMap<string, Resource.Template>
}

export type ListKind = "tools" | "prompts" | "resources"

export type Change =
  | { readonly _tag: "ListChanged"; readonly kind: ListKind }
  | { readonly _tag: "ResourceUpdated"; readonly uri: string }

export interface Registry {
  readonly entries: Ref.Ref<Entries>
  readonly changes: PubSub.PubSub<Change>
  readonly edit: (kind: ListKind, f: (entries: Entries) => Entries) => Effect.Effect<void>
  readonly updated: (uri: string) => Effect.Effect<void>
  /** A subscription to changes, for one session's lifetime. */
  readonly subscribe: Effect.Effect<import("effect/Queue").Dequeue<Change>, never, Scope.Scope>
}

const byName = <A>(items: ReadonlyArray<A>, key: (a: A) => string): ReadonlyMap<string, A> =>
  new Map(items.map((item) => [key(item), item]))

export const make = (initial: {
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly prompts: ReadonlyArray<Prompt.Prompt>
  readonly resources: ReadonlyArray<Resource.Resource>
  readonly templates: ReadonlyArray<Resource.Template>
}): Effect.Effect<Registry, never, Scope.Scope> =>
  Effect.gen(function*() {
    const entries = yield* Ref.make<Entries>({
      tools: byName(initial.tools, (t) => t.name),
      prompts: byName(initial.prompts, (p) => p.name),
      resources: byName(initial.resources, (r) => r.uri),
      templates: byName(initial.templates, (t) => t.uriTemplate)
    })
    const changes = yield* Effect.acquireRelease(PubSub.unbounded<Change>(), PubSub.shutdown)
    return {
      entries,
      changes,
      edit: (kind, f) =>
        Effect.zipRight(Ref.update(entries, f), PubSub.publish(changes, { _tag: "ListChanged", kind })),
      updated: (uri) => Effect.asVoid(PubSub.publish(changes, { _tag: "ResourceUpdated", uri })),
      subscribe: PubSub.subscribe(changes)
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
