/**
 * A listing followed page by page (`tools/list`, `resources/list`, `resources/templates/list`,
 * `prompts/list`, `tasks/list`), bounded: at most `maxPages` pages and `maxListingBytes` of items
 * (their size estimated as the notifications' backlog estimates it), and a cursor the server gives
 * twice ends it at once. Past a bound the listing fails with `ListingExceeded`, never returns a
 * silent part of it: a server whose `nextCursor` never ends, or repeats, cannot loop the client or
 * grow it without end.
 */
import * as Effect from "effect/Effect"
import * as ClientError from "../ClientError.js"
import { sizeOf } from "./backlog.js"

/** One page of a listing: its items and the cursor of the next, if any. */
export interface Listed<A> {
  readonly items: ReadonlyArray<A>
  readonly next: string | undefined
}

/** The bounds of one listing. */
export interface Bounds {
  readonly maxPages: number
  readonly maxBytes: number
}

/** The bounds of `options` (default 100 pages, 64 MiB of items). */
export const boundsOf = (
  options: { readonly maxPages?: number | undefined; readonly maxListingBytes?: number | undefined }
): Bounds => ({ maxPages: options.maxPages ?? 100, maxBytes: options.maxListingBytes ?? 64 * 1024 * 1024 })

/** Every page of the listing `method`, each fetched by `page` from a cursor, within `bounds`. */
export const all = <A, E>(
  method: string,
  bounds: Bounds,
  page: (cursor: string | undefined) => Effect.Effect<Listed<A>, E>
): Effect.Effect<ReadonlyArray<A>, E | ClientError.ListingExceeded> =>
  Effect.suspend(() => {
    const items: Array<A> = []
    /** The cursors asked for so far. */
    const asked = new Set<string>()
    let pages = 0
    let bytes = 0
    const exceeded = (unit: ClientError.ListingExceeded["unit"], limit: number) =>
      Effect.fail(new ClientError.ListingExceeded({ method, unit, limit, pages }))
    const from = (cursor: string | undefined): Effect.Effect<ReadonlyArray<A>, E | ClientError.ListingExceeded> =>
      Effect.flatMap(page(cursor), (listed) => {
        pages++
        for (const item of listed.items) {
          bytes += sizeOf(item, bounds.maxBytes - bytes)
          if (bytes > bounds.maxBytes) return exceeded("bytes", bounds.maxBytes)
          items.push(item)
        }
        const next = listed.next
        if (typeof next !== "string") return Effect.succeed(items)
        if (asked.has(next)) return exceeded("repeated cursor", pages)
        if (pages >= bounds.maxPages) return exceeded("pages", bounds.maxPages)
        asked.add(next)
        bytes += next.length
        return from(next)
      })
    return from(undefined)
  })
