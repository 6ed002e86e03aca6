/**
 * Web-standard `Request`s as MCP HTTP exchanges, answered with `Response`s: the fetch handler's
 * adapter, made straight from the `Request` as the `node:http` one is from Node's request (no
 * @effect/platform request, response or fiber per request: that path cost a fetch runtime about
 * ten times a bare handler).
 *
 * - A body whose `Content-Length` is within the limit is read whole by the runtime (which reads
 *   no more than that length: it frames the body), with no stream made in JavaScript. Any other
 *   is read from the request's stream, counted as bytes arrive; one over the limit (said or
 *   counted) is refused at once, and its rest is still read and dropped (up to `drainBytes` or
 *   `drainMillis` after the answer) before the stream is let go.
 * - An SSE stream, and a JSON answer over `whole` bytes, are a `ReadableStream` the runtime pulls
 *   one piece at a time; what waits is counted per response in the handler's write bounds, each
 *   piece released when the runtime pulls the next. Over a bound the response is cut: the pieces
 *   not pulled are dropped and the stream ends.
 * - The client is gone when the request's `signal` aborts or the response's body is cancelled.
 *   The signal is read only once something waits on the client: an answer given at once never
 *   reads it (Deno makes it on demand, and aborts it with a `DOMException` as each request ends:
 *   a quarter of a request's time there).
 * - A request without a `Host` header is judged by the authority of its URL.
 */
import type { Handler, WriteAccount } from "../../HttpTransport.js"
import type { Body, Exchange, Stream } from "./exchange.js"
import * as Front from "./front.js"
import type { Headers, Reply } from "./front.js"
import { decode, decoder, drainBytes, drainMillis, encoder, piecesOf, tooMuch, whole } from "./pieces.js"

/** The path and query of a request's URL (`http://host/path?query`), without parsing the rest. */
const target = (url: string): { readonly path: string; readonly query: string } => {
  const scheme = url.indexOf("://")
  const slash = url.indexOf("/", scheme < 0 ? 0 : scheme + 3)
  if (slash < 0) return { path: "/", query: "" }
  const q = url.indexOf("?", slash)
  const end = url.indexOf("#", slash)
  return q < 0
    ? { path: url.slice(slash, end < 0 ? undefined : end), query: "" }
    : { path: url.slice(slash, q), query: url.slice(q + 1, end < 0 ? undefined : end) }
}

/** The authority of a request's URL: its host when it has no `Host` header. */
const authority = (url: string): string | undefined => {
  try {
    const host = new URL(url).host
    return host === "" ? undefined : host
  } catch {
    return undefined
  }
}

/**
 * A body the runtime pulls one piece at a time, each released from `account` when the next is
 * pulled or the body ends (`finished` is told then); `write` adds pieces, `end` ends it once they
 * are pulled, `cut` drops what was not pulled and ends it now, `stop` (its client gone) lets go of
 * all of it at once, whether or not the runtime pulls again.
 */
const pulled = (account: WriteAccount, cancelled: () => void, finished: () => void) => {
  const queue: Array<Uint8Array> = []
  let held = 0
  let ended = false
  let closed = false
  let wake: (() => void) | undefined
  const finish = () => {
    if (closed) return
    closed = true
    account.release(held)
    held = 0
    account.close()
    finished()
  }
  const body = new ReadableStream<Uint8Array>({
    pull: (controller): Promise<void> | void => {
      account.release(held)
      held = 0
      const next = queue.shift()
      if (next !== undefined) {
        held = next.length
        return controller.enqueue(next)
      }
      if (ended) {
        finish()
        return controller.close()
      }
      return new Promise<void>((resolve) => wake = resolve).then(() => {
        const next = queue.shift()
        if (next !== undefined) {
          held = next.length
          controller.enqueue(next)
        } else {
          finish()
          controller.close()
        }
      })
    },
    cancel: () => {
      queue.length = 0
      ended = true
      finish()
      cancelled()
    }
  }, { highWaterMark: 0 })
  const poke = () => {
    const woken = wake
    wake = undefined
    woken?.()
  }
  return {
    body,
    /** Adds the pieces of `bytes` (false: over a bound, nothing added: the account cut the response). */
    write: (bytes: Uint8Array): boolean => {
      if (ended || !account.add(bytes.length)) return false
      for (const part of piecesOf(bytes)) queue.push(part)
      poke()
      return true
    },
    end: () => {
      ended = true
      poke()
    },
    cut: () => {
      for (const part of queue) account.release(part.length)
      queue.length = 0
      ended = true
      poke()
    },
    stop: () => {
      for (const part of queue) account.release(part.length)
      queue.length = 0
      ended = true
      finish()
      poke()
    }
  }
}

/**
 * The body of an answer given while the request's body still arrives: its bytes at once, then
 * the end once `rest` (reading and dropping the rest of the request's body) is done. Closing a
 * connection with bytes unread resets it, and the reset can overtake the answer.
 */
const early = (bytes: Uint8Array, rest: () => Promise<void>): ReadableStream<Uint8Array> => {
  let sent = false
  return new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (sent) return rest().then(() => controller.close())
      sent = true
      controller.enqueue(bytes)
    }
  }, { highWaterMark: 0 })
}

/** What one request's exchange keeps: whether it was answered, and who is told when its client goes. */
interface Pending {
  answered: boolean
  gone: boolean
  readonly closed: Array<() => void>
  /** A refused body still arriving: what reads and drops its rest (bounded), done when it is. */
  drain: (() => Promise<void>) | undefined
  /** The body it answers with, pulled piece by piece (a stream, a large answer): let go of when its client goes. */
  out: { readonly stop: () => void } | undefined
}

/**
 * What the promise of a request whose client went before it was answered settles with: nobody reads
 * it (499, as proxies log a client that closed its request).
 */
const closedByClient = (): Response => new Response(null, { status: 499 })

const goneOf = (pending: Pending, answer: (response: Response) => void) => () => {
  if (pending.gone) return
  pending.gone = true
  // A runtime may drop a response without cancelling its body: what waits is let go of now.
  pending.out?.stop()
  for (const listener of pending.closed) listener()
  // Not answered yet (a 2025-11-25 request runs on after its POST is cut, for a resumption): the
  // handler's promise settles now, not when the request ends (up to `maxRequestDuration`).
  answer(closedByClient())
}

const digits = /^[0-9]{1,16}$/

/**
 * Reads the body: whole when its length is said and within `maxBytes`; else counted as it arrives,
 * over `maxBytes` (its length said, or its bytes counted) it is `TooLarge` at once, and the rest
 * is read and dropped after the answer (`pending.drain`).
 */
const readBody = (request: Request, pending: Pending, maxBytes: number, done: (body: Body) => void): void => {
  const length = request.headers.get("content-length")
  const declared = length === null || !digits.test(length) ? Number.NaN : Number(length)
  if (declared <= maxBytes) {
    // Its length said, and within the limit: the runtime reads no more than that (it is how the
    // body is framed), so it is read whole, by the runtime, without a stream made in JavaScript.
    request.arrayBuffer().then(
      (buffer) =>
        done(buffer.byteLength > maxBytes ? { _tag: "TooLarge" } : { _tag: "Text", text: decoder.decode(buffer) }),
      () => done({ _tag: "Failed" })
    )
    return
  }
  const stream = request.body
  if (stream === null) return done({ _tag: "Text", text: "" })
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  let over = false
  let dropped = 0
  const drain = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer)
        reader.cancel().catch(() => {})
        resolve()
      }
      const timer = setTimeout(stop, drainMillis)
      const next = (): Promise<void> =>
        reader.read().then((read) => {
          if (read.done) {
            clearTimeout(timer)
            return resolve()
          }
          dropped += read.value.length
          return dropped > drainBytes ? stop() : next()
        }, stop)
      void next()
    })
  const refuse = () => {
    over = true
    // What was read is not kept while the rest drains.
    chunks.length = 0
    pending.drain = drain
    done({ _tag: "TooLarge" })
  }
  if (declared > maxBytes) return refuse()
  const next = (): Promise<void> =>
    reader.read().then((read) => {
      if (read.done) return done({ _tag: "Text", text: decode(chunks, size) })
      size += read.value.length
      if (size > maxBytes) return refuse()
      chunks.push(read.value)
      return next()
    }, () => {
      if (!over) done({ _tag: "Failed" })
    })
  void next()
}

const responseOf = (status: number, headers: Headers, body: BodyInit | null): Response =>
  new Response(body, { status, headers: headers as Record<string, string> })

/** The exchange of one `Request`, answered through `resolve`, its writes counted in the handler's bounds. */
const exchangeOf = (
  request: Request,
  handler: Handler,
  resolve: (response: Response) => void
): Exchange => {
  const url = request.url
  const headers = request.headers
  const { path, query } = target(url)
  const pending: Pending = { answered: false, gone: false, closed: [], drain: undefined, out: undefined }
  const answer = (response: Response) => {
    if (pending.answered) return
    pending.answered = true
    resolve(response)
  }
  const gone = goneOf(pending, answer)
  // The request's signal, read only once something waits on the client (a request served in a
  // fiber, a stream, a large answer).
  let signal: AbortSignal | undefined
  const watch = () => {
    if (signal !== undefined) return
    signal = request.signal
    if (signal.aborted) gone()
    else signal.addEventListener("abort", gone, { once: true })
  }
  // Answered whole, or its body ended: nobody waits on the client any more (Deno aborts the signal
  // of every request once its response is sent, and warns of it where a listener is left).
  const unwatch = () => signal?.removeEventListener("abort", gone)
  return {
    method: request.method,
    path,
    query,
    header: (name) => {
      const value = headers.get(name)
      return value !== null ? value : name === "host" ? authority(url) : undefined
    },
    body: (maxBytes, done) => readBody(request, pending, maxBytes, done),
    reply: (reply: Reply) => {
      // Its client went first: the promise settled then, nothing is written.
      if (pending.gone) return
      const { body } = reply
      if (pending.drain !== undefined) {
        // Refused while the body still arrives: the rest is not kept, the connection closes once it
        // has arrived; the answer goes out at once, and its response ends once the rest was read.
        const bytes = encoder.encode(body ?? "")
        const headers = { ...reply.headers, connection: "close", "content-length": String(bytes.length) }
        return answer(responseOf(reply.status, headers, early(bytes, pending.drain)))
      }
      if (body === undefined || body.length <= whole) {
        answer(responseOf(reply.status, reply.headers, body ?? null))
        return unwatch()
      }
      // A large answer: counted while it waits, written in pieces.
      watch()
      const bytes = encoder.encode(body)
      const out = pulled(handler.writes.open(() => out.cut()), gone, unwatch)
      pending.out = out
      if (!out.write(bytes)) return answer(responseOf(tooMuch.status, tooMuch.headers, tooMuch.body ?? null))
      out.end()
      answer(responseOf(reply.status, { ...reply.headers, "content-length": String(bytes.length) }, out.body))
    },
    stream: (headers): Stream => {
      // Its client went first: the promise settled then, nothing is written.
      if (pending.gone) return { write: () => {}, end: () => {} }
      // Over a bound: what was not pulled is dropped and the stream ends, as if the client went away
      // (told once the write that went over returned: the writer may be the very request cancelled).
      const out = pulled(
        handler.writes.open(() => {
          out.cut()
          setTimeout(gone, 0)
        }),
        gone,
        unwatch
      )
      pending.out = out
      watch()
      answer(responseOf(200, headers, out.body))
      // A runtime may hold a stream's headers until its first bytes: when nothing is written at once
      // (no priming event, an empty replay), a comment opens it.
      let written = false
      queueMicrotask(() => {
        if (!written) out.write(encoder.encode(Front.sseComment("open")))
      })
      return {
        write: (text) => {
          written = true
          out.write(encoder.encode(text))
        },
        end: out.end
      }
    },
    onClose: (listener) => {
      watch()
      if (pending.gone) listener()
      else pending.closed.push(listener)
    }
  }
}

/** The handler as a fetch handler: each `Request` an exchange, answered with the `Response` it resolves. */
export const toFetch = (handler: Handler) => (request: Request): Promise<Response> =>
  new Promise<Response>((resolve) => handler.handle(exchangeOf(request, handler, resolve)))
