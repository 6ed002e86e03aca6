/**
 * `McpClientTransport.HttpPost` on undici: one `dispatch` on the pool's dispatcher (the lanes of
 * `lanes.ts`) with a handler of its own (`Post`), no fiber, no `AbortController` and no `request`
 * API: undici's `request` wraps each response in a `Readable` (an `AsyncResource` and a stream
 * per call, its `data` and `end` a `nextTick` each), which a body read whole does not need. The
 * response comes with its body unread: read whole up to a limit, counted as bytes arrive (the
 * chunks as undici parses them); handed over as a web `Response` for the transport's own reading
 * (a `Readable` then, fed with the chunks, undici paused while it is full); or dropped. Until one
 * of the three is chosen, undici is paused after the first chunk (what one read of the socket held,
 * at most, is kept).
 */
import type { McpClientTransport } from "@effect-mcp/client"
import type * as Undici from "@effect/platform-node/Undici"
import { Readable } from "node:stream"
import * as Lanes from "./lanes.js"

type Headers = Record<string, string | Array<string> | undefined>

const joined = (headers: Headers, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/** The parts of undici a `Post` uses (undici is loaded with the pool, not with this module). */
type UndiciModule = typeof Undici

/**
 * How the body is read, once the response's reader chose: whole (`text`), as a stream (`toWeb`)
 * or not at all (`discard`); `undefined` until then.
 */
type Reading =
  | {
    readonly _tag: "text"
    readonly limit: number
    readonly done: (text: string | undefined) => void
    readonly failed: (error: unknown) => void
  }
  | { readonly _tag: "stream"; readonly stream: Readable }
  | { readonly _tag: "discard" }

/**
 * One request, as undici's dispatch handler: whether it was put on a connection (`written`), how
 * to abort it, and its response's body read as its reader chose. A request aborted before it was
 * put on a connection was never sent: undici drops it from its queue (its `onConnect` aborts it).
 */
class Post implements Undici.Dispatcher.DispatchHandler {
  aborted = false
  /** Put on a connection (its bytes on their way) before it was aborted. */
  written = false
  /** undici's abort of the request, once on a connection. */
  private abortRequest: ((error?: Error) => void) | undefined = undefined
  /** undici's resume, while it is paused. */
  private resume: (() => void) | undefined = undefined
  private paused = false
  /** Headers came (the response was handed over): later failures go to the reading. */
  private responded = false
  private reading: Reading | undefined = undefined
  /** Read before the reader chose (what one read of the socket held, at most: undici pauses after it). */
  private early: Buffer | undefined = undefined
  /** The body's end (`true`) or failure, when it came before the reader chose. */
  private ended: true | { readonly error: unknown } | undefined = undefined
  /** `text`: the bytes so far, the first chunk alone or all of them. */
  private size = 0
  private first: Buffer | undefined = undefined
  private more: Array<Buffer> | undefined = undefined
  private over = false
  /** undici is done with it: its body ended or failed. */
  private finished = false

  constructor(
    readonly undici: UndiciModule,
    readonly handlers: Parameters<McpClientTransport.HttpPost["post"]>[3]
  ) {}

  /** A request aborted by its caller (as undici's `request` says it). */
  private abortedError(): Error {
    return new this.undici.errors.RequestAbortedError()
  }

  /** Aborts the request: true when it had been sent (or was being sent), false when it never left. */
  readonly abort = (): boolean => {
    if (this.aborted) return this.written
    this.aborted = true
    this.abortRequest?.(this.abortedError())
    return this.written
  }

  onConnect(abort: (error?: Error) => void) {
    if (this.aborted) return abort(this.abortedError())
    this.written = true
    this.abortRequest = abort
  }

  onHeaders(statusCode: number, rawHeaders: Array<Buffer>, resume: () => void): boolean {
    // 1xx: informational, the response is still to come.
    if (statusCode < 200) return true
    this.responded = true
    this.resume = resume
    const headers = this.undici.util.parseHeaders(rawHeaders) as Headers
    this.handlers.response({
      status: statusCode,
      header: (name) => joined(headers, name),
      text: (limit, done, failed) => {
        const declared = joined(headers, "content-length")
        if (declared !== undefined && Number(declared) > limit) {
          this.choose({ _tag: "discard" })
          this.abortRequest?.(this.abortedError())
          return done(undefined)
        }
        this.choose({ _tag: "text", limit, done, failed })
      },
      toWeb: () => this.toWeb(statusCode, headers),
      discard: () => this.choose({ _tag: "discard" })
    })
    return !this.paused
  }

  onData(chunk: Buffer): boolean {
    const reading = this.reading
    if (reading === undefined) {
      // Kept until the reader chooses; undici paused meanwhile.
      this.early = this.early === undefined ? chunk : Buffer.concat([this.early, chunk])
      this.paused = true
      return false
    }
    if (reading._tag === "discard") return true
    if (reading._tag === "stream") {
      if (reading.stream.push(chunk)) return true
      this.paused = true
      return false
    }
    if (this.over) return true
    this.size += chunk.length
    if (this.size > reading.limit) {
      this.over = true
      this.first = this.more = undefined
      this.abortRequest?.(this.abortedError())
      reading.done(undefined)
      return true
    }
    if (this.first === undefined) this.first = chunk
    else (this.more ??= [this.first]).push(chunk)
    return true
  }

  onComplete() {
    this.finished = true
    const reading = this.reading
    if (reading === undefined) return void (this.ended = true)
    if (reading._tag === "stream") return void reading.stream.push(null)
    if (reading._tag !== "text" || this.over) return
    this.over = true
    const { first, more, size } = this
    this.first = this.more = undefined
    reading.done(
      more !== undefined
        ? Buffer.concat(more, size).toString("utf8")
        : first === undefined
        ? ""
        : first.toString("utf8")
    )
  }

  onError(error: Error) {
    this.finished = true
    if (!this.responded) return this.handlers.error(error)
    const reading = this.reading
    if (reading === undefined) return void (this.ended = { error })
    if (reading._tag === "stream") return void reading.stream.destroy(error)
    if (reading._tag !== "text" || this.over) return
    this.over = true
    this.first = this.more = undefined
    reading.failed(error)
  }

  /** The reader's choice: what was read before it is handed over, and undici resumed if it can take more. */
  private choose(reading: Reading) {
    if (this.reading !== undefined) return
    this.reading = reading
    const wasPaused = this.paused
    this.paused = false
    const early = this.early
    this.early = undefined
    if (early !== undefined && reading._tag !== "discard") this.onData(early)
    const ended = this.ended
    if (ended === true) this.onComplete()
    else if (ended !== undefined) this.onError(ended.error as Error)
    // A stream the early chunk filled keeps undici paused until it is read (`read`: `unpause`).
    if (wasPaused && !this.paused) this.resume?.()
  }

  private unpause() {
    if (!this.paused) return
    this.paused = false
    this.resume?.()
  }

  private toWeb(status: number, headers: Headers): Response {
    const web = new globalThis.Headers()
    for (const name in headers) {
      const value = headers[name]
      if (value === undefined) continue
      if (Array.isArray(value)) { for (const v of value) web.append(name, v) }
      else web.append(name, value)
    }
    if (nullBody.has(status)) {
      this.choose({ _tag: "discard" })
      return new Response(null, { status, headers: web })
    }
    const stream = new Readable({
      read: () => this.unpause(),
      destroy: (error, callback) => {
        // The reader went away before the end: the request goes too.
        if (!this.finished) this.abortRequest?.(this.abortedError())
        callback(error)
      }
    })
    this.choose({ _tag: "stream", stream })
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, headers: web })
  }
}

/** The statuses whose web `Response` has no body. */
const nullBody = new Set([101, 204, 205, 304])

/** Where a POST to a URL goes, as undici takes it. */
interface Target {
  readonly url: string
  readonly origin: string
  readonly path: string
}

const targetOf = (url: string): Target => {
  const parsed = new URL(url)
  return { url, origin: parsed.origin, path: parsed.pathname + parsed.search }
}

/** The `HttpPost` of `dispatcher`, with the undici it comes from (`import("@effect/platform-node/Undici")`). */
export const make = (undici: UndiciModule, dispatcher: Undici.Dispatcher): McpClientTransport.HttpPost => {
  /** The last URL posted to, parsed. */
  let last: Target | undefined
  return {
    post: (url, headers, body, handlers) => {
      const post = new Post(undici, handlers)
      // A connection posts to one URL: it is parsed once, not per call (one entry kept).
      const target = last?.url === url ? last : last = targetOf(url)
      const options: Undici.Dispatcher.DispatchOptions & { readonly [Lanes.opensCall]: true } = {
        origin: target.origin,
        path: target.path,
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body,
        // A raw call's request: the pool's lanes need not read its body to know it.
        [Lanes.opensCall]: true
      }
      try {
        dispatcher.dispatch(options, post)
      } catch (error) {
        handlers.error(error)
      }
      return post.abort
    }
  }
}
