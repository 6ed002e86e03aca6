/**
 * The response cache of the stateless era in front of its requests: a cacheable request is
 * answered from the store while its entry is fresh; a complete first-round result is kept for its
 * `ttlMs`, under the partition of who the client acts for when the server says `private`.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as ClientError from "../ClientError.js"
import type { CallOptions } from "../McpClient.js"
import * as ResponseCache from "../ResponseCache.js"
import type { Stateless } from "./stateless.js"

export interface Stats {
  readonly hits: number
  readonly misses: number
}

export interface Cache {
  readonly request: Stateless["request"]
  readonly stats: Effect.Effect<Stats>
}

export const make = (
  store: ResponseCache.Store | undefined,
  partition: string,
  send: Stateless["request"]
): Effect.Effect<Cache> =>
  Effect.map(Ref.make<Stats>({ hits: 0, misses: 0 }), (stats) => {
    const request = (
      method: string,
      params: object | undefined,
      call: CallOptions | undefined
    ): Effect.Effect<unknown, ClientError.ClientError> => {
      if (store === undefined || !ResponseCache.cacheable.has(method)) return send(method, params, call)
      const canonical = JSON.stringify(params ?? {})
      const publicKey = `public ${method} ${canonical}`
      const privateKey = `private ${partition} ${method} ${canonical}`
      return Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        for (const key of [privateKey, publicKey]) {
          const hit = yield* store.get(key)
          if (Option.isSome(hit) && hit.value.expiresAt > now) {
            yield* Ref.update(stats, (s) => ({ ...s, hits: s.hits + 1 }))
            return hit.value.value
          }
        }
        yield* Ref.update(stats, (s) => ({ ...s, misses: s.misses + 1 }))
        let first: Record<string, unknown> | undefined
        const value = yield* send(method, params, call, (result) => first = result)
        const ttl = first?.ttlMs
        if (typeof ttl === "number" && ttl > 0) {
          const uri = method === "resources/read" ? (params as { readonly uri?: string } | undefined)?.uri : undefined
          yield* store.set(first!.cacheScope === "private" ? privateKey : publicKey, {
            method,
            uri,
            value,
            expiresAt: (yield* Clock.currentTimeMillis) + ttl
          })
        }
        return value
      })
    }
    return { request, stats: Ref.get(stats) }
  })
