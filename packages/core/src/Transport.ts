/**
 * The seam between a transport and the engine (`Peer`) that runs on it.
 *
 * A transport serves any number of clients, each with a `ClientId` of the transport's
 * choosing: stdio has one; each Streamable HTTP session is one. (A request that is its own
 * channel, a 2026-07-28 HTTP POST, has no client: it is served on its {@link Sink} by
 * `Peer.requests`.) It hands what clients send to a {@link Receiver} (the engine), and the
 * engine answers through {@link Protocol.send}, naming the client and, for messages caused
 * by a request (its response, progress, logs, server→client asks), that request: transports
 * with a channel per request route by it.
 *
 * A transport with a channel per request of ours (a client's HTTP: a POST and its response) may
 * send each of our requests with {@link Protocol.request}, handing what comes back on its channel
 * to that request's {@link Reply}: nothing is matched again by id; the engine checks that an
 * answer is its request's.
 *
 * Concrete transports: newline-delimited JSON (`Ndjson`, stdio and child processes), the
 * in-memory pair (`MemoryTransport`), HTTP (in the server package; the client's in the client
 * package).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as AuthInfo from "./AuthInfo.js"
import type * as JsonRpc from "./JsonRpc.js"
import type { TransportDescription as TelemetryDescription } from "./Telemetry.js"
import type * as Wire from "./Wire.js"

/**
 * A client of a transport, as the transport numbers it.
 *
 * @since 0.1.0
 * @category models
 */
export type ClientId = number

/**
 * The transport is closed or broken: nothing more can be sent to that client.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * Where a message being sent belongs: the inbound request it answers or was caused by
 * (progress, logs, server→client requests made by that request's handler).
 *
 * @since 0.1.0
 * @category models
 */
export interface SendContext {
  readonly related?: JsonRpc.RequestId | undefined
  /**
   * A message outside any request (no `related`) that must reach a stream the client listens on
   * now, or not be sent at all: a transport that would keep it for later (Streamable HTTP while no
   * GET stream is open) fails the send with a `TransportError` instead, and keeps nothing. Where
   * everything sent reaches the client at once (stdio), it changes nothing.
   */
  readonly live?: boolean | undefined
}

/**
 * Where an inbound frame came from, when the transport knows: `related` is the request of ours on
 * whose response stream it arrived (a client's Streamable HTTP POST stream), so a server request
 * that came there was raised by the handler of that request. `auth` is who holds the access token
 * the frame came with, verified (a server's HTTP transport with authorization on). `peer` is who
 * sent it as far as the transport can tell without a token, in a form a client cannot choose
 * freely: the address of an HTTP client's connection (or, behind proxies the server trusts, the
 * address they forwarded); absent where one connection is one client (stdio, an in-memory pair).
 * The quotas of a client without a token count against it. `anonymous` says that the transport
 * knows no `peer` although its clients are not connections it could bind to (an HTTP platform
 * that gives no client address: each POST is a client of its own): nothing names the sender, so
 * what outlives its request (a 2026-07-28 task) is reached by whoever holds its unguessable id,
 * and only global quotas apply to it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReceiveContext {
  readonly related?: JsonRpc.RequestId | undefined
  readonly auth?: AuthInfo.AuthInfo | undefined
  readonly peer?: string | undefined
  readonly anonymous?: boolean | undefined
}

/**
 * The engine's side of the channel of one request of ours, for a transport that sends each request
 * on a channel of its own ({@link Protocol.request}: a client's Streamable HTTP POST and its
 * response). The transport hands it what came back on that channel, and nothing else: the engine
 * needs no id to know whose answer it is, and checks that it is this request's (an answer to
 * another id fails the request with `Peer.UnexpectedAnswer`). Call its members as methods.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reply<F = never> {
  /**
   * One frame of the channel as it comes (a stream's event): the request's answer, or what the peer
   * sends for it first (progress, logs, its own requests: served as related to it). An error
   * without an id (`"id": null`) is the request's answer. Returns true once the request is over
   * (answered, failed or given up): nothing more need be read for it.
   */
  readonly receive: (inbound: Wire.Inbound) => boolean
  /**
   * The whole answer to the request (a JSON body): its answer, or a batch holding it. Anything else
   * (another id, a request, a notification, a body that is not JSON-RPC) fails the request with
   * `Peer.UnexpectedAnswer`, saying what came.
   */
  readonly answer: (inbound: Wire.Inbound) => void
  /** The request will not be answered, for a local reason the transport knows: it fails with `error`. */
  readonly fail: (error: F) => void
}

/**
 * How a transport with a channel per request sends one of our requests: on a channel of its own,
 * handing what comes back on it to `reply`. Resolves once the request is on its way (not when it
 * is answered); fails when it could not be sent.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestSender<F = never> = (
  client: ClientId,
  request: JsonRpc.Request,
  reply: Reply<F>,
  context?: SendContext
) => Effect.Effect<void, TransportError>

/**
 * The channel of one inbound request that has a channel of its own (a 2026-07-28 HTTP POST and its
 * response), served by `Peer.Requests`: everything the request causes goes there, and nowhere
 * else. It needs no client id and no request id to route by: it is that request's. Call its
 * members as methods.
 *
 * @since 0.2.0
 * @category models
 */
export interface Sink {
  /** The request's answer: the channel ends with it. */
  readonly answer: (response: JsonRpc.Response) => Effect.Effect<void>
  /** The request ended and nothing will be sent for it (it was interrupted): the channel ends without an answer. */
  readonly unanswered: () => void
}

/**
 * The engine side of the seam: what a transport calls as things happen. Calls are plain
 * functions, made from the transport's own callbacks; the engine forks what must run.
 *
 * `F` is what the transport may fail one of our requests with, locally (a client's HTTP transport:
 * an HTTP status without a JSON-RPC answer, a connection that could not be made, an answer too
 * large): never a peer's error, which comes through `receive`. Server transports have none.
 *
 * @since 0.1.0
 * @category models
 */
export interface Receiver<F = never> {
  /** One inbound frame from `client` (already through `Wire.decode`), and where it came from. */
  readonly receive: (client: ClientId, inbound: Wire.Inbound, context?: ReceiveContext) => void
  /**
   * `client` is gone (connection closed, session ended): its requests are interrupted, its asks fail.
   * `reason`, when the transport knows why (a child process exited, the in-memory server failed), is
   * carried by the `TransportClosed` each ask fails with; a transport that knows it also fails its
   * `run` with it, so that later asks carry it too.
   */
  readonly disconnect: (client: ClientId, reason?: TransportError) => void
  /**
   * The response channel of request `id` of `client` closed before the answer (2026-07-28 HTTP:
   * a closed response stream is a cancellation). Transports where a disconnect is not a
   * cancellation (handshake-era Streamable HTTP) never call it.
   */
  readonly responseClosed: (client: ClientId, id: JsonRpc.RequestId) => void
  /**
   * Our request `id` to `client` will not be answered, for a local reason the transport knows: the
   * caller waiting for it fails with `error` at once (unknown or finished ids are ignored).
   */
  readonly fail: (client: ClientId, id: JsonRpc.RequestId, error: F) => void
  /**
   * Whether request `id` of `client` is in flight in the engine (a new request with that id is
   * refused). For a layer in front of the engine that serves some requests itself (a relay lane):
   * it refuses what the engine would. Absent: not known.
   */
  readonly inFlight?: ((client: ClientId, id: JsonRpc.RequestId) => boolean) | undefined
}

/**
 * The transport side of the seam. `F`: what it may fail one of our requests with (see
 * {@link Receiver}); a protocol that never does is a `Protocol<F>` for every `F`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Protocol<F = never> {
  /**
   * Delivers what clients send to `receiver` until the transport ends (stdio: end of input;
   * HTTP: never, until the scope closes).
   */
  readonly run: (receiver: Receiver<F>) => Effect.Effect<void, TransportError, Scope.Scope>
  /** Sends one frame (a message or a batch) to `client`. */
  readonly send: (client: ClientId, frame: JsonRpc.Frame, context?: SendContext) => Effect.Effect<void, TransportError>
  /**
   * Sends one frame now, without an effect, where the transport can (stdio while its output has
   * room): true once it is sent; false when it was not, and `send` is to be used (it waits, or
   * fails, as it says). A relayed call's answer costs no fiber this way. Absent: always `send`.
   */
  readonly sendNow?: ((client: ClientId, frame: JsonRpc.Frame, context?: SendContext) => boolean) | undefined
  /**
   * Transports with a channel per request of ours: the engine sends its requests with this instead
   * of `send`, each with its own {@link Reply} (see {@link RequestSender}). A request whose channel
   * brings something else than its answer fails with `Peer.UnexpectedAnswer`: a transport that has
   * this member counts that error among its failures (`F`).
   */
  readonly request?: RequestSender<F> | undefined
  /**
   * Transports with a channel per request of ours: sends one request now, on a channel of its own,
   * without an effect (see {@link Protocol.request}): true once it is on its way, what comes back
   * going to `reply`; false when it was not sent, and `request` is to be used. A raw call
   * (`Peer.raw`) costs no fiber this way. Absent: always `request`.
   */
  readonly requestNow?:
    | ((client: ClientId, request: JsonRpc.Request, reply: Reply<F>, context?: SendContext) => boolean)
    | undefined
  /**
   * Transports with a stream per request (Streamable HTTP, 2025-11-25 polling): ends the HTTP
   * response stream of request `related` now, telling the client when to reconnect; later
   * messages for it are kept for the client's resumption. Absent elsewhere.
   */
  readonly closeStream?: ((client: ClientId, related: JsonRpc.RequestId) => Effect.Effect<void>) | undefined
  /**
   * Request `id` of `client` ended and the engine will send nothing for it (it was cancelled, or
   * interrupted with its client): a transport with a response channel per request stops waiting.
   */
  readonly unanswered?: ((client: ClientId, id: JsonRpc.RequestId) => void) | undefined
  /**
   * Whether request `id` of `client` is in flight outside the engine (a layer in front of it
   * serves it): the engine refuses a new request with that id as it does its own. Absent: never.
   */
  readonly inFlight?: ((client: ClientId, id: JsonRpc.RequestId) => boolean) | undefined
  /**
   * Transports that keep what they cannot deliver yet (Streamable HTTP: the frames for a session's
   * GET stream while none is open): does `client` listen now outside any request (its GET stream
   * is open, here or, with shared sessions, on the instance holding it), so that a message sent
   * with `live` (see `SendContext`) reaches it? A hint: the send itself still fails if the stream
   * closed meanwhile. Absent where everything sent reaches the client at once (stdio): always.
   */
  readonly listening?: ((client: ClientId) => Effect.Effect<boolean>) | undefined
  /**
   * What telemetry says of this transport (`network.transport`, the server's address, the session
   * of a client): see `Telemetry`. Absent, spans carry none of it.
   */
  readonly telemetry?: TelemetryDescription | undefined
}
