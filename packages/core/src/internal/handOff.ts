/**
 * What an outbound call hands to its caller's callbacks (`onProgress`, `onLog`), bounded (see
 * `outbound.ts`).
 */
import * as Effect from "effect/Effect"
import type * as JsonRpc from "../JsonRpc.js"

/** The params of a progress notification, as handed to `onProgress`. */
export interface Progress {
  readonly progressToken: JsonRpc.RequestId
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/**
 * The params of a `notifications/message` that came on a request's own channel, as handed to
 * `onLog` (a level the revision does not name is handed on as it came: the caller checks it).
 */
export interface LogMessage {
  readonly level: string
  readonly data: unknown
  readonly logger?: string
}

/**
 * What a call hands to its caller's callback (`onProgress`, `onLog`), so that a peer sending faster
 * than the callback takes them grows no fibers without end:
 *
 * - `serial` (progress): one at a time, in order; while one runs, at most `max` wait, the oldest
 *   dropped past it (each progress says what those before it did);
 * - else (logs): each started at once, as it comes (a caller that orders them sees them in order),
 *   at most `max` running; more are dropped until one ends.
 */
export class HandOff<A> {
  private running = 0
  private readonly waiting: Array<A> = []
  constructor(
    private readonly callback: (a: A) => Effect.Effect<void>,
    private readonly max: number,
    private readonly serial: boolean,
    private readonly fork: (effect: Effect.Effect<void>) => void
  ) {}
  push(a: A): void {
    if (this.serial ? this.running === 0 : this.running < this.max) return this.run(a)
    if (!this.serial) return
    if (this.waiting.length >= this.max) this.waiting.shift()
    this.waiting.push(a)
  }
  private run(a: A): void {
    this.running++
    this.fork(Effect.ensuring(this.callback(a), Effect.sync(this.next)))
  }
  private readonly next = (): void => {
    this.running--
    if (this.waiting.length > 0) this.run(this.waiting.shift()!)
  }
}

/** The most progress notifications of one call waiting while its `onProgress` runs. */
export const maxProgressWaiting = 16

/** The most `onLog`s of one call running at once. */
export const maxLogsRunning = 256
