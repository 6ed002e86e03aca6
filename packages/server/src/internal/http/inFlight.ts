/**
 * Requests in flight over one HTTP handler, in total and per holder (`Holders.holderOf`: a token's
 * holder, else an address), in both eras: a handshake session's requests (answered on their POSTs,
 * or legacy, on the session's stream; a cut POST runs on in that era) and 2026-07-28 requests
 * still being served on their POSTs (a listen is bounded by the subscriptions' own caps). Past a
 * bound a POST of requests is refused whole: 429, a JSON-RPC error with its (first) request's id.
 */
import type { JsonRpc } from "@effect-mcp/core"
import * as Front from "./front.js"

/**
 * The reply to a POST of requests past a bound on requests in flight: 429, a JSON-RPC error (-32000)
 * with the request's id; nothing of the POST runs. `who` says whose requests are counted, by which bound.
 */
export const tooManyRequests = (id: JsonRpc.RequestId, who: string): Front.Reply =>
  Front.error(
    429,
    Front.transportError,
    `Too Many Requests: ${who}; wait for one to be answered, or cancel one`,
    { id }
  )

/** The requests in flight of one handler: in total, and per holder. */
export class InFlightTally {
  total = 0
  private readonly perHolder = new Map<string, number>()

  constructor(
    /** `HttpTransport.Options.maxRequestsInFlightPerHolder`. */
    readonly maxPerHolder: number,
    /** `HttpTransport.Options.maxRequestsInFlightTotal`. */
    readonly maxTotal: number
  ) {}

  of(holder: string | undefined): number {
    return holder === undefined ? 0 : this.perHolder.get(holder) ?? 0
  }

  add(holder: string | undefined, n: number): void {
    this.total += n
    if (holder === undefined) return
    const held = (this.perHolder.get(holder) ?? 0) + n
    if (held > 0) this.perHolder.set(holder, held)
    else this.perHolder.delete(holder)
  }

  /** Why `n` more requests of `holder` (the first `id`) are refused, or undefined. */
  refusal(holder: string | undefined, n: number, id: JsonRpc.RequestId): Front.Reply | undefined {
    if (holder !== undefined && this.of(holder) + n > this.maxPerHolder) {
      return tooManyRequests(
        id,
        `this client has ${this.maxPerHolder} requests in flight (maxRequestsInFlightPerHolder)`
      )
    }
    if (this.total + n > this.maxTotal) {
      return tooManyRequests(id, `the server has ${this.maxTotal} requests in flight (maxRequestsInFlightTotal)`)
    }
    return undefined
  }
}
