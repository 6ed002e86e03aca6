/**
 * One HTTP exchange with the server, for both HTTP transports, bounded and said in typed errors:
 *
 * - a connection that cannot be made is `ConnectionFailed` (the address and the platform's reason);
 * - redirects are followed only to the same origin, and only 307/308 (a POST stays a POST, the
 *   body and the headers with it), at most five; any other is an `HttpError` saying why;
 * - a body or an SSE event larger than `maxMessageSize` is `MessageTooLarge`, and no more of it is
 *   read; the SSE parser scans each chunk once;
 * - a POST's JSON answer comes back read, with its response (`post`).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as ClientError from "../ClientError.js"
import * as Challenges from "./challenges.js"

/** The default `maxMessageSize`: 16 MiB. */
export const defaultMaxMessageSize = 16 * 1024 * 1024

const maxRedirects = 5

/** What the platform said, in the words a person reads (the error codes of Node's sockets and undici). */
const reasons: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the name could not be looked up",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CONNECT_TIMEOUT: "timed out connecting",
  UND_ERR_HEADERS_TIMEOUT: "timed out waiting for the headers",
  UND_ERR_BODY_TIMEOUT: "timed out reading the body",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "its TLS certificate chain is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its TLS certificate cannot be verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate names another host"
}

/** The reason of a failed connection: the first known code down the cause chain, else its last message. */
export const reasonOf = (error: unknown): string => {
  let said: string | undefined
  let current: unknown = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const { code, message } = current as { readonly code?: unknown; readonly message?: unknown }
    if (typeof code === "string") return reasons[code] ?? code
    if (typeof message === "string" && message.length > 0) said = message
    current = (current as { readonly cause?: unknown }).cause
  }
  return said ?? "the request could not be sent"
}

/** The start of a body, whitespace folded: at most 200 characters. */
export const excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat
}

/** An HTTP status without a JSON-RPC answer, as the caller of `method` sees it. */
export const httpError = (
  method: string,
  response: HttpClientResponse.HttpClientResponse,
  body: string,
  detail?: string
): ClientError.HttpError => {
  const header = response.headers["www-authenticate"]
  return new ClientError.HttpError({
    method,
    httpMethod: response.request.method,
    url: response.request.url,
    status: response.status,
    headers: { ...response.headers },
    body: excerpt(body),
    challenges: (response.status === 401 || response.status === 403) && header !== undefined
      ? Challenges.parse(header)
      : [],
    ...(detail !== undefined ? { detail } : {})
  })
}

/** A request that could not be sent: why, or the authorization that failed for it (`McpAuth`). */
const connectionFailed = (url: string, error: HttpClientError.HttpClientError) =>
  ClientError.isAuthError(error.cause)
    ? error.cause
    : new ClientError.ConnectionFailed({ url, reason: reasonOf(error.cause ?? error), cause: error })

/** Our own redirect handling: fetch's would follow any redirect anywhere, with our headers. */
export const manualRedirects = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.serviceOption(FetchHttpClient.RequestInit),
    (init) =>
      Effect.provideService(effect, FetchHttpClient.RequestInit, {
        ...Option.getOrElse(init, () => ({})),
        redirect: "manual"
      })
  )

/**
 * Sends `request` (for the caller of `method`), following same-origin 307/308 redirects; a
 * response of any other status is the caller's to read.
 */
export const execute = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  method: string
): Effect.Effect<
  HttpClientResponse.HttpClientResponse,
  ClientError.HttpError | ClientError.ConnectionFailed | ClientError.AuthError
> => {
  const go = (
    current: HttpClientRequest.HttpClientRequest,
    hops: number
  ): Effect.Effect<
    HttpClientResponse.HttpClientResponse,
    ClientError.HttpError | ClientError.ConnectionFailed | ClientError.AuthError
  > =>
    Effect.flatMap(
      Effect.mapError(manualRedirects(client.execute(current)), (error) => connectionFailed(current.url, error)),
      (response) => {
        // A browser's fetch says nothing of a redirect it was told not to follow (status 0).
        if (response.status === 0) return Effect.fail(httpError(method, response, "", "a redirect, not followed"))
        if (response.status < 300 || response.status >= 400 || response.status === 304) return Effect.succeed(response)
        const location = response.headers["location"]
        const target = location === undefined ? undefined : URL.canParse(location, current.url)
          ? new URL(location, current.url)
          : undefined
        const refuse = (detail: string) => Effect.fail(httpError(method, response, "", detail))
        if (target === undefined) return refuse("a redirect without a usable Location")
        if (target.origin !== new URL(current.url).origin) {
          return refuse(`a redirect to another origin, ${target.origin}, is not followed`)
        }
        if (response.status !== 307 && response.status !== 308) {
          return refuse(`only 307 and 308 redirects are followed (to ${target.href})`)
        }
        if (hops >= maxRedirects) return refuse(`more than ${maxRedirects} redirects`)
        return go(HttpClientRequest.setUrl(current, target.href), hops + 1)
      }
    )
  return go(request, 0)
}

/**
 * Runs `f` on each piece of `stream` while it returns true. Not `Stream.runForEachWhile`: in
 * effect 3 its sink nests a `catchAll` per piece that is only left when the stream ends, and each
 * keeps its piece, so a stream read with it holds every byte it ever read until it ends (an SSE
 * stream of 240 MB read by the gateway held 240 MB). A sink per chunk keeps nothing of the chunks
 * before.
 */
const forEachWhile = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (piece: A) => Effect.Effect<boolean, E2, R2>
): Effect.Effect<void, E | E2, R | R2> =>
  Stream.run(
    stream,
    Sink.forEachChunkWhile((chunk) => {
      const pieces = Chunk.toReadonlyArray(chunk)
      const from = (i: number): Effect.Effect<boolean, E2, R2> =>
        i === pieces.length
          ? Effect.succeed(true)
          : Effect.flatMap(f(pieces[i]), (more) => more ? from(i + 1) : Effect.succeed(false))
      return pieces.length === 1 ? f(pieces[0]) : from(0)
    })
  )

/** Why a body could not be read whole. */
export type ReadFailure = ClientError.MessageTooLarge | ClientError.ConnectionFailed | ClientError.AuthError

/**
 * A body read whole, up to `limit` bytes: more is `MessageTooLarge`, and the rest is not read.
 * `headers`: the response's, when the caller has them (a platform may build them anew on each
 * `response.headers`).
 */
export const readText = (
  response: HttpClientResponse.HttpClientResponse,
  limit: number,
  method: string,
  headers: HttpClientResponse.HttpClientResponse["headers"] = response.headers
): Effect.Effect<string, ReadFailure> => {
  const length = headers["content-length"]
  const declared = length === undefined ? NaN : Number(length)
  if (Number.isFinite(declared) && declared > limit) {
    return Effect.fail(new ClientError.MessageTooLarge({ method, limit }))
  }
  // A length within the limit bounds the body already, unless it is compressed (a fetch decodes
  // it, and the length is the encoded one's): read whole, no stream to run and abort.
  const encoding = headers["content-encoding"]
  if (Number.isSafeInteger(declared) && declared >= 0 && (encoding === undefined || encoding === "identity")) {
    return Effect.mapError(response.text, (error) => connectionFailed(response.request.url, error))
  }
  return Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    return forEachWhile(
      Stream.mapError(response.stream, (error) => connectionFailed(response.request.url, error)),
      (chunk) => {
        size += chunk.byteLength
        if (size > limit) return Effect.succeed(false)
        chunks.push(chunk)
        return Effect.succeed(true)
      }
    ).pipe(
      Effect.flatMap(() =>
        size > limit
          ? Effect.fail(new ClientError.MessageTooLarge({ method, limit }))
          : Effect.sync(() => {
            const whole = new Uint8Array(size)
            let offset = 0
            for (const chunk of chunks) {
              whole.set(chunk, offset)
              offset += chunk.byteLength
            }
            return new TextDecoder().decode(whole)
          })
      )
    )
  })
}

/** A response to a POST, and its body when it was read whole (see {@link post}). */
export interface Answer {
  readonly response: HttpClientResponse.HttpClientResponse
  /** Its headers, read once (a platform may build them anew on each `response.headers`). */
  readonly headers: HttpClientResponse.HttpClientResponse["headers"]
  /**
   * The body read whole, up to the limit, or why it could not be (an `Either` is an `Effect`: yield
   * it for the text); undefined when it was left unread.
   */
  readonly body: Either.Either<string, ReadFailure> | undefined
}

/**
 * Whether a response's body is read whole as it comes: all but an event stream (a 2xx
 * `text/event-stream`, read event by event), a response without a body (202, 204), and a 404 (a
 * session the server forgot: the caller renews it and sends again, the body unread).
 */
const readWhole = (status: number, headers: HttpClientResponse.HttpClientResponse["headers"]) => {
  if (status === 202 || status === 204 || status === 404) return false
  const ok = status >= 200 && status < 300
  return !(ok && (headers["content-type"] ?? "").startsWith("text/event-stream"))
}

/**
 * A POST (see {@link execute}) and, unless its answer is a stream, a 404 or empty, its body read
 * whole up to `limit` bytes (see {@link readText}): the JSON text of an answer comes back with its
 * response, in one step.
 */
export const post = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  method: string,
  limit: number
): Effect.Effect<Answer, ClientError.HttpError | ClientError.ConnectionFailed | ClientError.AuthError> =>
  Effect.flatMap(
    execute(client, request, method),
    (response): Effect.Effect<Answer> => {
      const headers = response.headers
      return readWhole(response.status, headers)
        ? Effect.map(Effect.either(readText(response, limit, method, headers)), (body) => ({ response, headers, body }))
        : Effect.succeed({ response, headers, body: undefined })
    }
  )

/** One SSE event: its type (`message` unless named), data and id. */
export interface SseEvent {
  readonly event: string
  readonly data: string
  readonly id: string | undefined
}

/** An event (its data, or one line) grew past the limit. */
export class EventTooLarge {
  readonly _tag = "EventTooLarge"
}

/**
 * A Server-Sent Events parser: `push` takes the next chunk of text and returns the events it
 * completes. Each character is scanned once; only the unfinished line is kept, and an event's data
 * or a line longer than `limit` characters throws `EventTooLarge`.
 */
export const sseParser = (limit: number, onRetry: (millis: number) => void) => {
  /** The unfinished line, in pieces. */
  let pending: Array<string> = []
  let pendingLength = 0
  /** A chunk ended with CR: a LF that starts the next one belongs to it. */
  let afterCr = false
  let data: Array<string> = []
  let dataLength = 0
  let id: string | undefined
  let event = "message"
  const line = (text: string, out: Array<SseEvent>) => {
    if (text === "") {
      if (data.length > 0) out.push({ event, data: data.join("\n"), id })
      data = []
      dataLength = 0
      event = "message"
      return
    }
    if (text.charCodeAt(0) === 58) return // ":" a comment
    const colon = text.indexOf(":")
    const field = colon < 0 ? text : text.slice(0, colon)
    let value = colon < 0 ? "" : text.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === "data") {
      dataLength += value.length + 1
      if (dataLength > limit) throw new EventTooLarge()
      data.push(value)
    } else if (field === "event") event = value
    else if (field === "id" && !value.includes("\0")) id = value
    else if (field === "retry" && /^\d+$/.test(value)) onRetry(Number(value))
  }
  return (chunk: string): ReadonlyArray<SseEvent> => {
    const out: Array<SseEvent> = []
    let from = 0
    if (afterCr && chunk.charCodeAt(0) === 10) from = 1
    afterCr = false
    for (let i = from; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i)
      if (c !== 10 && c !== 13) continue
      const piece = chunk.slice(from, i)
      const text = pending.length === 0 ? piece : pending.join("") + piece
      pending = []
      pendingLength = 0
      line(text, out)
      if (c === 13) {
        if (i + 1 < chunk.length) {
          if (chunk.charCodeAt(i + 1) === 10) i++
        } else afterCr = true
      }
      from = i + 1
    }
    if (from < chunk.length) {
      pendingLength += chunk.length - from
      if (pendingLength > limit) throw new EventTooLarge()
      pending.push(chunk.slice(from))
    }
    return out
  }
}

/**
 * Reads an SSE body to its end, handing each event to `onEvent` as it completes; an event larger
 * than `limit` is `MessageTooLarge`, and the stream is read no further.
 */
export const readEvents = <E, R>(
  response: HttpClientResponse.HttpClientResponse,
  options: {
    readonly limit: number
    readonly method: string
    readonly onRetry: (millis: number) => void
    readonly onEvent: (event: SseEvent) => Effect.Effect<void, E, R>
    /** Read no further once true (checked after each chunk's events). */
    readonly done?: (() => boolean) | undefined
  }
): Effect.Effect<void, E | ClientError.MessageTooLarge | ClientError.ConnectionFailed | ClientError.AuthError, R> =>
  Effect.suspend(() => {
    const decoder = new TextDecoder()
    const push = sseParser(options.limit, options.onRetry)
    return forEachWhile(
      Stream.mapError(response.stream, (error) => connectionFailed(response.request.url, error)),
      (bytes) =>
        Effect.suspend((): Effect.Effect<boolean, E | ClientError.MessageTooLarge, R> => {
          let events: ReadonlyArray<SseEvent>
          try {
            events = push(decoder.decode(bytes, { stream: true }))
          } catch {
            return Effect.fail(new ClientError.MessageTooLarge({ method: options.method, limit: options.limit }))
          }
          const more = () => options.done === undefined || !options.done()
          return events.length === 0
            ? Effect.succeed(more())
            : Effect.map(Effect.forEach(events, options.onEvent, { discard: true }), more)
        })
    )
  })
