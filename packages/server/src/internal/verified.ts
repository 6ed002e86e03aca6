/**
 * The verified tokens a verifier keeps (`TokenVerifier.CacheOptions`): by their exact text, oldest
 * first (a Map keeps insertion order), bounded in count and in characters (tokens and claims), each
 * entry and together. An entry is taken until its token expires or `maxAge` passes, whichever comes
 * first, as the verifier's `Clock` says.
 *
 * Read synchronously: the transport's fast path (`Service.cached`) takes a token verified a short
 * while ago with no fiber, at every request of a client. An Effect `Cache` bounds its entries by
 * count only (this store bounds the characters of the claims it holds too), and a `Ref` is read by
 * an effect; the store is owned by its verifier and touched by nothing else.
 */
import { AuthInfo } from "@effect-mcp/core"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import type { CacheOptions, Expected } from "../TokenVerifier.js"

export interface Verified {
  /** The holder of `token`, verified for `expected`, while its entry holds; else undefined (and the entry gone). */
  readonly get: (token: string, expected: Expected) => AuthInfo.AuthInfo | undefined
  /** Keeps `auth` for `token` (unless the entry would be too long), the oldest going first past the bounds. */
  readonly set: (token: string, auth: AuthInfo.AuthInfo, expected: Expected) => void
}

interface Entry {
  readonly auth: AuthInfo.AuthInfo
  /** `Clock` milliseconds: not taken from then on. */
  readonly until: number
  readonly expected: Expected
  readonly length: number
}

/** The characters of claims as JSON (Infinity when they are none). */
const claimsLength = (claims: Record<string, unknown>): number => {
  try {
    return JSON.stringify(claims).length
  } catch {
    return Infinity
  }
}

export const make = (options: CacheOptions, clock: Clock.Clock): Verified => {
  const maxEntries = options.maxEntries ?? 10_000
  const maxLength = options.maxLength ?? 8 * 1024 * 1024
  const maxEntryLength = Math.min(options.maxEntryLength ?? 64 * 1024, maxLength)
  const maxAgeMillis = Duration.toMillis(options.maxAge ?? "5 minutes")
  const entries = new Map<string, Entry>()
  const total = { length: 0 }

  const remove = (token: string): void => {
    const entry = entries.get(token)
    if (entry === undefined) return
    entries.delete(token)
    total.length -= entry.length
  }

  return {
    get: (token, expected) => {
      const entry = entries.get(token)
      if (entry === undefined) return undefined
      if (entry.until <= clock.unsafeCurrentTimeMillis() || entry.expected !== expected) {
        remove(token)
        return undefined
      }
      return entry.auth
    },
    set: (token, auth, expected) => {
      if (maxEntries <= 0 || token.length > maxEntryLength || entries.has(token)) return
      const length = token.length + claimsLength(auth.claims)
      if (length > maxEntryLength) return
      const expires = AuthInfo.expiresAtMillis(auth)
      const until = Math.min(clock.unsafeCurrentTimeMillis() + maxAgeMillis, expires ?? Infinity)
      while (entries.size >= maxEntries || total.length + length > maxLength) {
        remove(entries.keys().next().value!)
      }
      entries.set(token, { auth, until, expected, length })
      total.length += length
    }
  }
}
