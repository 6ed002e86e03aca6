/**
 * `McpClientTransport.HttpPost` on undici: one `request` on the pool's dispatcher (the lanes of
 * `lanes.ts`), with no fiber and no `AbortController` (undici takes any object with
 * `addEventListener` as its signal: one made here, told once, when the call is aborted). The
 * response comes with its body unread: read whole up to a limit, counted as bytes arrive; handed
 * over as a web `Response` for the transport's own reading; or dropped.
 */
import type { McpClientTransport } from "@effect-mcp/client"
import type * as Undici from "@effect/platform-node/Undici"
import { Readable } from "node:stream"
import * as Lanes from "./lanes.js"

/** A handler's `onConnect` as undici calls it. */
interface Connected {
  readonly onConnect: (abort: (err?: Error) => void, context?: unknown) => void
}

/**
 * One request: the abort signal undici listens on, and the handler of its dispatch around
 * undici's own (`request`'s), told when the request is put on a connection (`written`). A request
 * aborted before that was never sent: undici drops it from its queue.
 */
class Post implements Undici.Dispatcher.DispatchHandler {
  aborted = false
  /** Put on a connection (its bytes on their way) before it was aborted. */
  written = false
  handler: Undici.Dispatcher.DispatchHandler | undefined = undefined
  private listener: (() => void) | undefined = undefined
  addEventListener(_type: "abort", listener: () => void) {
    this.listener = listener
  }
  removeEventListener() {
    this.listener = undefined
  }
  /** Aborts the request: true when it had been sent (or was being sent), false when it never left. */
  readonly abort = (): boolean => {
    if (this.aborted) return this.written
    this.aborted = true
    this.listener?.()
    return this.written
  }
  onConnect(abort: (err?: Error) => void, context?: unknown) {
    if (!this.aborted) this.written = true
    // undici's `request` handler takes its context too (the types say only `abort`).
    return (this.handler as unknown as Connected).onConnect(abort, context)
  }
  onHeaders(statusCode: number, headers: Array<Buffer>, resume: () => void, statusText: string) {
    return this.handler!.onHeaders!(statusCode, headers, resume, statusText)
  }
  onData(chunk: Buffer) {
    return this.handler!.onData!(chunk)
  }
  onComplete(trailers: Array<string> | null) {
    return this.handler!.onComplete!(trailers)
  }
  onError(error: Error) {
    return this.handler!.onError!(error)
  }
}

type Body = Undici.Dispatcher.ResponseData["body"]
type Headers = Undici.Dispatcher.ResponseData["headers"]

const joined = (headers: Headers, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/** A body read whole, at most `limit` bytes: its text, or undefined past them (the rest not read). */
const readText = (
  body: Body,
  declared: string | undefined,
  limit: number,
  done: (text: string | undefined) => void,
  failed: (error: unknown) => void
) => {
  if (declared !== undefined && Number(declared) > limit) {
    body.destroy()
    return done(undefined)
  }
  let first: Buffer | undefined
  let more: Array<Buffer> | undefined
  let size = 0
  let over = false
  body.on("data", (chunk: Buffer) => {
    if (over) return
    size += chunk.length
    if (size > limit) {
      over = true
      body.destroy()
      return done(undefined)
    }
    if (first === undefined) first = chunk
    else (more ??= [first]).push(chunk)
  })
  body.on("end", () => {
    if (over) return
    over = true
    done(
      more !== undefined
        ? Buffer.concat(more, size).toString("utf8")
        : first === undefined
        ? ""
        : first.toString("utf8")
    )
  })
  body.on("error", (error) => {
    if (over) return
    over = true
    failed(error)
  })
}

/** The statuses whose web `Response` has no body. */
const nullBody = new Set([101, 204, 205, 304])

const toWeb = (status: number, headers: Headers, body: Body): Response => {
  const web = new globalThis.Headers()
  for (const name in headers) {
    const value = headers[name]
    if (value === undefined) continue
    if (Array.isArray(value)) { for (const v of value) web.append(name, v) }
    else web.append(name, value)
  }
  if (nullBody.has(status)) body.destroy()
  return new Response(
    nullBody.has(status) ? null : (Readable.toWeb(body) as ReadableStream<Uint8Array>),
    { status, headers: web }
  )
}

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

/** The `HttpPost` of `dispatcher`. */
export const make = (dispatcher: Undici.Dispatcher): McpClientTransport.HttpPost => {
  // undici's `request` on `dispatcher`, its handler inside the request's `Post` (its signal).
  /** The last URL posted to, parsed. */
  let last: Target | undefined
  const through: Undici.Dispatcher = Object.create(dispatcher, {
    dispatch: {
      value: (opts: Undici.Dispatcher.DispatchOptions, handler: Undici.Dispatcher.DispatchHandler) => {
        const post = (opts as { readonly signal?: unknown }).signal as Post
        post.handler = handler
        return dispatcher.dispatch(opts, post)
      }
    }
  })
  return {
    post: (url, headers, body, handlers) => {
      const signal = new Post()
      // A connection posts to one URL: it is parsed once, not per call (one entry kept).
      const target = last?.url === url ? last : last = targetOf(url)
      const options: Undici.Dispatcher.RequestOptions<null> & { readonly [Lanes.opensCall]: true } = {
        origin: target.origin,
        path: target.path,
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body,
        signal: signal as never,
        // A raw call's request: the pool's lanes need not read its body to know it.
        [Lanes.opensCall]: true
      }
      through.request(
        options,
        (error, data) => {
          if (error !== null) return handlers.error(error)
          const { statusCode, headers: answered, body: stream } = data
          handlers.response({
            status: statusCode,
            header: (name) => joined(answered, name),
            text: (limit, done, failed) => readText(stream, joined(answered, "content-length"), limit, done, failed),
            toWeb: () => toWeb(statusCode, answered, stream),
            discard: () => void stream.resume().on("error", () => {})
          })
        }
      )
      return signal.abort
    }
  }
}
