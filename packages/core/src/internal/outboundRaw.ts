/**
 * Raw calls of the outbound half (`Peer.raw`): calls of the same book as `request`'s (ids from the
 * same counter, timeouts swept, failed when the connection ends), made without an effect of their
 * own: sent at once where the transport can (`Transport.Protocol.sendNow`, `requestNow`), else on a fiber of the
 * engine; the answer handed to the caller's handlers as it came, a failure as what it is.
 */
import * as Effect from "effect/Effect"
import * as JsonRpc from "../JsonRpc.js"
import type * as Transport from "../Transport.js"
import { type RequestTimeout, TransportClosed, type UnexpectedAnswer } from "./errors.js"
import type { LogMessage, Pending } from "./outbound.js"

/** What a raw call is told: its answer as it came, or why none will come. */
export interface RawHandlers<F = never> {
  /** The answer, as the peer sent it (its id is the call's). */
  readonly answer: (message: JsonRpc.Response) => void
  /** No answer will come: the time ran out, the connection ended, or the transport failed the call. */
  readonly fail: (error: RequestTimeout | TransportClosed | UnexpectedAnswer | F) => void
  /** The log messages that come on the call's own channel (see `RequestOptions.onLog`). */
  readonly onLog?: ((message: LogMessage) => Effect.Effect<void>) | undefined
}

/** A raw call in flight. */
export interface RawCall {
  /** Forgets the call and tells the peer it is cancelled (nothing more is told of it). */
  readonly cancel: (reason: string) => void
}

const noRawCall: RawCall = { cancel: () => {} }

/** What raw calls need of the book of calls. */
export interface Book<F> {
  /** The error a call made now fails with at once (the connection ended), if any. */
  readonly closed: (method: string) => TransportClosed | undefined
  /** A new call in the book, its answer going to `handlers.answer`. */
  readonly start: (
    client: Transport.ClientId,
    method: string,
    related: JsonRpc.RequestId | undefined,
    handlers: RawHandlers<F>
  ) => Pending<F>
  readonly send: (call: Pending<F>, message: JsonRpc.Request) => Effect.Effect<void, Transport.TransportError>
  /**
   * Sends the call now, where the transport can (`Transport.Protocol.sendNow`, or `requestNow` on
   * a transport with a channel per request): true once it is on its way.
   */
  readonly sendNow: ((call: Pending<F>, message: JsonRpc.Request) => boolean) | undefined
  readonly fork: (effect: Effect.Effect<void>) => void
  /** Is the call still waiting for its answer? */
  readonly waiting: (call: Pending<F>) => boolean
  /** The call is sent: its time runs. */
  readonly armed: (call: Pending<F>) => void
  readonly forget: (call: Pending<F>) => void
  /** Tells the peer the call is cancelled. */
  readonly cancel: (call: Pending<F>, reason: string) => void
}

/** A raw call in flight: what cancels it (one object per call; its handlers are the call's `raw`). */
class Sent<F> implements RawCall {
  constructor(readonly book: Book<F>, readonly call: Pending<F>) {}
  cancel(reason: string) {
    const { book, call } = this
    if (!book.waiting(call)) return
    book.forget(call)
    call.raw = undefined
    book.cancel(call, reason)
  }
}

export const make = <F>(book: Book<F>) =>
(
  client: Transport.ClientId,
  method: string,
  params: unknown,
  handlers: RawHandlers<F>,
  related?: JsonRpc.RequestId
): RawCall => {
  const closed = book.closed(method)
  if (closed !== undefined) {
    handlers.fail(closed)
    return noRawCall
  }
  const call = book.start(client, method, related, handlers)
  const raw = new Sent(book, call)
  const message = JsonRpc.request(call.id, method, params)
  if (book.sendNow !== undefined && book.sendNow(call, message)) {
    book.armed(call)
    return raw
  }
  book.fork(Effect.matchEffect(book.send(call, message), {
    onFailure: (cause) =>
      Effect.sync(() => {
        if (!book.waiting(call)) return
        book.forget(call)
        handlers.fail(new TransportClosed({ method, cause }))
      }),
    onSuccess: () => Effect.sync(() => book.waiting(call) && book.armed(call))
  }))
  return raw
}
