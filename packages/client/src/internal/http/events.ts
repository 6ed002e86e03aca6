/**
 * The event streams of the client's Streamable HTTP transport: an SSE response read to its end,
 * each event decoded once and handed on as it comes; a GET of the session's stream (from the last
 * event id seen); and the resumption of a POST's stream that ended before its answer (2025-11-25
 * polling, a dropped connection): GET with `Last-Event-ID` after the server's `retry`, until the
 * answer comes, given up after five resumptions in a row that bring no event.
 */
import { type JsonRpc, type Transport, Wire } from "@effect-mcp/core"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as ClientError from "../../ClientError.js"
import * as Exchange from "../exchange.js"
import { type Connection, type Session, sessionHeaders } from "./session.js"

/** Where an SSE stream got to: what a resumption starts from. */
export interface Progress {
  lastEventId: string | undefined
  retry: number
  /** The request the stream is for is over (answered, or given up): nothing more is read for it. */
  answered: boolean
  /** Events read, over every resumption. */
  events: number
}

export const newProgress = (): Progress => ({ lastEventId: undefined, retry: 1_000, answered: false, events: 0 })

/** The server's `retry`, kept within reason: no tighter than 100 ms, no longer than a minute. */
const retryOf = (millis: number) => Math.min(60_000, Math.max(100, millis))

/** Resumptions in a row that bring no event before a stream is given up. */
const maxStalls = 5

/**
 * Where the messages of a stream go: a request's `Transport.Reply` (true once the request is over),
 * or the engine's receiver (the session's own stream: never over).
 */
export type Sink = (inbound: Wire.Inbound) => boolean

/** Reads an SSE response to its end (or until its request is over), each event to `sink`. */
export const read = (
  connection: Connection,
  response: HttpClientResponse.HttpClientResponse,
  at: Progress,
  method: string,
  sink: Sink
) =>
  Exchange.readEvents(response, {
    limit: connection.limit,
    method,
    onRetry: (millis) => at.retry = retryOf(millis),
    // Its request is over: the rest of the stream is not its to wait for.
    done: () => at.answered,
    onEvent: (event) =>
      Effect.sync(() => {
        at.events++
        if (event.id !== undefined) at.lastEventId = event.id
        if (event.data.trim().length === 0) return
        if (sink(Wire.decode(event.data, connection.decodeOptions))) at.answered = true
      })
  })

/**
 * One GET of the session's stream, from `at.lastEventId` when there is one; its status
 * (`opened`: run when an event stream is answered, before it is read).
 */
export const get = (
  connection: Connection,
  session: Session,
  at: Progress,
  method: string,
  sink: Sink,
  opened: Effect.Effect<void> = Effect.void
) =>
  Exchange.execute(
    connection.client,
    HttpClientRequest.get(connection.url).pipe(
      HttpClientRequest.setHeaders({
        ...sessionHeaders(connection, session),
        accept: "text/event-stream",
        ...(at.lastEventId !== undefined ? { "last-event-id": at.lastEventId } : {})
      })
    ),
    method
  ).pipe(
    Effect.flatMap((response) =>
      response.status === 200 && (response.headers["content-type"] ?? "").startsWith("text/event-stream")
        ? Effect.as(Effect.zipRight(opened, read(connection, response, at, method, sink)), 200)
        : Effect.succeed(response.status)
    )
  )

/**
 * A POST's stream ended before its answer: resumed with GET and `Last-Event-ID` after the server's
 * `retry`, what comes to the request's `reply`, until it is over.
 */
export const resume = (
  connection: Connection,
  session: Session,
  request: JsonRpc.Request,
  at: Progress,
  reply: Transport.Reply<ClientError.TransportFailure>,
  stalls = 0
): Effect.Effect<void, ClientError.TransportFailure> =>
  Effect.suspend(() => {
    if (at.answered) return Effect.void
    const gaveUp = (received: string) =>
      Effect.fail(new ClientError.UnexpectedAnswer({ method: request.method, expected: request.id, received }))
    if (stalls >= maxStalls) return gaveUp(`an event stream resumed ${stalls} times without an event`)
    const before = at.events
    if (at.lastEventId === undefined) return gaveUp("an event stream that ended without it")
    return Effect.zipRight(
      Effect.sleep(at.retry),
      Effect.flatMap(
        get(connection, session, at, request.method, (inbound) => reply.receive(inbound)),
        (status) =>
          status === 200
            ? resume(connection, session, request, at, reply, at.events === before ? stalls + 1 : 0)
            : gaveUp(`HTTP ${status} when its event stream was resumed`)
      )
    )
  })
