/**
 * The @effect/platform side of the MCP HTTP handler: exchanges from `HttpServerRequest`s, and
 * the routes of an `HttpLayerRouter`. Loaded only when a router mounts the endpoints, so that
 * serving stdio (or `node:http` directly) never loads @effect/platform's HTTP modules.
 *
 * What waits to be written is counted per response (the platform shows no connection): an SSE
 * stream's events, and a JSON answer over `whole` bytes, go out as a stream of pieces the platform
 * pulls one at a time as it writes them, each released when the next is pulled. Over a bound, the
 * response is cut: the pieces not pulled yet are dropped and the stream ends (a JSON answer over
 * the bound before it starts is a 503).
 */
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import type * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import type { Handler, Options, WriteAccount, Writes } from "../../HttpTransport.js"
import type { McpServer } from "../../McpServer.js"
import type { Body, Exchange } from "./exchange.js"
import * as Front from "./front.js"
import type { Reply } from "./front.js"
import * as internal from "./handler.js"
import { decode, drainBytes, drainMillis, encoder, piecesOf, tooMuch, whole } from "./pieces.js"

/** A mailbox of pieces, and what drops those not pulled yet and ends it (both run on the handler's runtime). */
const queue = (runtime: Runtime.Runtime<never>) => {
  const run = Runtime.runSync(runtime)
  const mailbox = run(Mailbox.make<Uint8Array>())
  return {
    mailbox,
    cut: () => {
      run(Effect.ignore(mailbox.clear))
      mailbox.unsafeDone(Exit.void)
    }
  }
}

/**
 * A response body the platform pulls one piece at a time (it waits for each write to drain before
 * it pulls the next), each piece released from `account` when the next is pulled or the body ends.
 */
const counted = (
  pieces: Stream.Stream<Uint8Array>,
  account: WriteAccount,
  ended: () => void
): Stream.Stream<Uint8Array> => {
  let pulled = 0
  return pieces.pipe(
    Stream.rechunk(1),
    Stream.map((bytes) => {
      account.release(pulled)
      pulled = bytes.length
      return bytes
    }),
    Stream.ensuring(Effect.sync(() => {
      account.close()
      ended()
    }))
  )
}

/**
 * The response of a reply. Given while the body is still arriving (`rest`), the whole answer goes
 * out at once but the response ends only once the rest was read and dropped (or cut, `readBody`):
 * closing a connection with bytes unread resets it, and the reset can overtake the answer.
 */
const toResponse = (reply: Reply, rest: Deferred.Deferred<void> | undefined): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...given } = reply.headers
  // The rest of an oversized body is not kept: the connection closes once it has arrived.
  const headers = reply.status === 413 ? { ...given, connection: "close" } : given
  const typed = contentType !== undefined ? { contentType } : {}
  if (rest !== undefined) {
    const bytes = encoder.encode(reply.body ?? "")
    return HttpServerResponse.stream(
      Stream.concat(Stream.succeed(bytes), Stream.drain(Stream.fromEffect(Deferred.await(rest)))),
      { status: reply.status, headers: { ...headers, "content-length": String(bytes.length) }, ...typed }
    )
  }
  return reply.body === undefined
    ? HttpServerResponse.empty({ status: reply.status, headers })
    : HttpServerResponse.text(reply.body, { status: reply.status, headers, ...typed })
}

/** What one route call has to do after the handler saw the exchange. */
interface Pending {
  /** The handler asked for the body (at most `maxBytes`): the route's fiber reads it. */
  body: { readonly maxBytes: number; readonly done: (body: Body) => void } | undefined
  readonly closed: Array<() => void>
  answered: boolean
  /** The client went away before the response ended. */
  gone: boolean
  /** The body was refused while still arriving: done once its rest was read and dropped, or cut. */
  rest: Deferred.Deferred<void> | undefined
  /**
   * Asks for the body once the handler's synchronous call returned (after an asynchronous step:
   * a bearer token verified first); undefined while it runs, when the route's fiber reads it.
   */
  late: ((maxBytes: number, done: (body: Body) => void) => void) | undefined
}

/** A sleep on the runtime's own timers, not the Effect clock: a test's TestClock must not hold a connection. */
const sleep = (millis: number): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

/**
 * Reads the body, counted as it arrives (chunked bodies too): a known length within the limit in
 * the route's fiber, read whole by the platform; otherwise from the platform's stream in a fiber
 * of its own. A body over the limit is answered (`TooLarge`, `pending.rest` set first) as soon
 * as that is known, its length said or its bytes counted, and its rest is still read and dropped:
 * up to `drainBytes` or `drainMillis` after the answer, after which the stream is left, which
 * destroys the connection.
 */
const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  pending: Pending,
  maxBytes: number,
  done: (body: Body) => void
): Effect.Effect<void> => {
  const length = request.headers["content-length"]
  const refused = length !== undefined && Number(length) > maxBytes
  if (length !== undefined && !refused) {
    return Effect.match(request.text, {
      onFailure: () => done({ _tag: "Failed" }),
      onSuccess: (text) => done({ _tag: "Text", text })
    })
  }
  return Effect.suspend(() => {
    const rest = Deferred.unsafeMake<void>(FiberId.none)
    const answered = Deferred.unsafeMake<void>(FiberId.none)
    let size = 0
    let over = false
    let dropped = 0
    const chunks: Array<Uint8Array> = []
    const refuse = () => {
      over = true
      pending.rest = rest
      Deferred.unsafeDone(answered, Exit.void)
      done({ _tag: "TooLarge" })
    }
    if (refused) refuse()
    const read = Stream.runForEachWhile(request.stream, (chunk) =>
      Effect.sync(() => {
        if (over) return (dropped += chunk.length) <= drainBytes
        size += chunk.length
        if (size > maxBytes) refuse()
        else chunks.push(chunk)
        return true
      }))
    const bounded = Effect.raceFirst(read, Effect.zipRight(Deferred.await(answered), sleep(drainMillis)))
    return Effect.asVoid(Effect.forkDaemon(
      Effect.match(bounded, {
        onFailure: () => {
          if (!over) done({ _tag: "Failed" })
        },
        onSuccess: () => {
          if (!over) done({ _tag: "Text", text: decode(chunks, size) })
        }
      }).pipe(Effect.ensuring(Deferred.succeed(rest, undefined)))
    ))
  })
}

/** An exchange from an @effect/platform request, answered through `resolve`, its writes counted in `writes`. */
const fromPlatform = (
  request: HttpServerRequest.HttpServerRequest,
  pending: Pending,
  resolve: (response: HttpServerResponse.HttpServerResponse) => void,
  writes: Writes,
  runtime: Runtime.Runtime<never>
): Exchange => {
  const url = request.url
  const q = url.indexOf("?")
  const { closed } = pending
  const gone = () => {
    if (pending.gone) return
    pending.gone = true
    for (const listener of closed) listener()
  }
  return {
    method: request.method,
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? "" : url.slice(q + 1),
    header: (name) => request.headers[name],
    remoteAddress: Option.getOrUndefined(request.remoteAddress),
    body: (maxBytes, done) => {
      if (pending.late !== undefined) pending.late(maxBytes, done)
      else pending.body = { maxBytes, done }
    },
    reply: (reply) => {
      if (reply.body === undefined || reply.body.length <= whole || pending.rest !== undefined) {
        return resolve(toResponse(reply, pending.rest))
      }
      // A large answer: counted while it waits, written in pieces.
      const bytes = encoder.encode(reply.body)
      const { cut, mailbox } = queue(runtime)
      const account = writes.open(cut)
      if (!account.add(bytes.length)) return resolve(toResponse(tooMuch, undefined))
      mailbox.unsafeOfferAll(piecesOf(bytes))
      mailbox.unsafeDone(Exit.void)
      const { "content-type": contentType, ...headers } = reply.headers
      resolve(HttpServerResponse.stream(
        counted(Mailbox.toStream(mailbox), account, () => {}),
        {
          status: reply.status,
          headers: { ...headers, "content-length": String(bytes.length) },
          ...(contentType !== undefined ? { contentType } : {})
        }
      ))
    },
    stream: (headers) => {
      const { cut, mailbox } = queue(runtime)
      let ended = false
      // Over a bound: what was not pulled yet is dropped, and the stream ends, as if the client went
      // away (told once the write that went over returned, as a closed connection would be: the
      // writer may be the very request that is cancelled then).
      const account = writes.open(() => {
        cut()
        if (ended) return
        ended = true
        setTimeout(gone, 0)
      })
      const offer = (text: string) => {
        const bytes = encoder.encode(text)
        if (account.add(bytes.length)) mailbox.unsafeOfferAll(piecesOf(bytes))
      }
      const { "content-type": contentType, ...rest } = headers
      // The platform sends a stream's headers with its first chunk: when nothing is written at once
      // (no priming event, an empty replay), a comment opens it.
      let written = false
      queueMicrotask(() => {
        if (!written && !ended) offer(Front.sseComment("open"))
      })
      resolve(HttpServerResponse.stream(
        counted(Mailbox.toStream(mailbox), account, () => {
          if (!ended) gone()
          ended = true
        }),
        { headers: rest, ...(contentType !== undefined ? { contentType } : {}) }
      ))
      return {
        write: (text) => {
          written = true
          if (!ended) offer(text)
        },
        end: () => {
          if (ended) return
          ended = true
          mailbox.unsafeDone(Exit.void)
        }
      }
    },
    onClose: (listener) => {
      if (pending.gone) listener()
      else closed.push(listener)
    }
  }
}

/**
 * The handler as an @effect/platform route handler: the route's own fiber waits for the answer
 * (`Effect.async`, nothing else per call: no Deferred, no fiber, no scope), and reads the body
 * when the handler asks for it while it runs.
 */
export const toHttpApp = (
  handler: Handler
): Effect.Effect<
  (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse>
> =>
  Effect.map(Effect.runtime<never>(), (runtime) => (request) =>
    Effect.suspend(() => {
      // The answer given before the route's fiber waits for it, or what resumes the waiting fiber.
      let given: HttpServerResponse.HttpServerResponse | undefined
      let resume: ((answer: Effect.Effect<HttpServerResponse.HttpServerResponse>) => void) | undefined
      const pending: Pending = {
        body: undefined,
        closed: [],
        answered: false,
        gone: false,
        rest: undefined,
        late: undefined
      }
      // The first answer counts.
      const resolve = (r: HttpServerResponse.HttpServerResponse) => {
        if (pending.answered) return
        pending.answered = true
        if (resume !== undefined) resume(Effect.succeed(r))
        else given = r
      }
      // Interrupted before the response: the client went away.
      const gone = () => {
        if (pending.answered || pending.gone) return
        pending.gone = true
        for (const listener of pending.closed) listener()
      }
      handler.handle(fromPlatform(request, pending, resolve, handler.writes, runtime))
      const wanted = pending.body
      // Asked for later: read in a fiber of its own, the route's fiber waiting for the response.
      if (wanted === undefined) {
        pending.late = (maxBytes, done) => void Runtime.runFork(runtime)(readBody(request, pending, maxBytes, done))
      }
      // The answer given by now is taken when the fiber comes to wait (not only before: the body's read
      // may yield first).
      const answer = Effect.suspend(() =>
        given !== undefined ? Effect.succeed(given) : Effect.async<HttpServerResponse.HttpServerResponse>((k) => {
          if (given !== undefined) return k(Effect.succeed(given))
          resume = k
          return Effect.sync(gone)
        })
      )
      // Interrupted anywhere between the body's read and the wait: the client went away too.
      return wanted === undefined
        ? answer
        : Effect.onInterrupt(
          Effect.zipRight(readBody(request, pending, wanted.maxBytes, wanted.done), answer),
          () => Effect.sync(gone)
        )
    }))

/** The MCP endpoints as routes of an `HttpLayerRouter`, every method. */
export const layer = (options: Options): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | McpServer> =>
  HttpLayerRouter.addAll(Effect.gen(function*() {
    const handler = yield* internal.make(options)
    const app = yield* toHttpApp(handler)
    return handler.paths.map((path) => HttpLayerRouter.route("*", path as `/${string}`, app))
  }))
