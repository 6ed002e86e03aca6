/**
 * The JSON-RPC engine both the server and the client run on. One engine serves every client
 * of a transport (`Transport.Protocol`): stdio's one, each HTTP session. A request that comes
 * with a channel of its own (a 2026-07-28 HTTP POST) needs no engine: `requests` serves it on
 * that channel.
 *
 * - Inbound (`internal/inbound`): each request runs in its own fiber, in flight by (client,
 *   id), answered exactly once unless it was interrupted; `notifications/cancelled` interrupts
 *   it (when its method is cancellable, see `Method.Definition.cancellable`); a typed failure
 *   becomes the JSON-RPC error rendered for the revision of that request; a defect becomes
 *   -32603 for that request (and a log line) and the engine serves the next message.
 * - Outbound (`internal/outbound`): each call waits on an `Effect.async` of its own, its timeout
 *   a deadline that one sweeper fiber per engine watches; interrupting a call, or its timeout,
 *   sends `notifications/cancelled`; progress may reset a timeout, up to a hard maximum.
 *
 * - Channels per request: a transport that sends each of our requests on a channel of its own
 *   (`Transport.Protocol.request`, a client's HTTP POST) hands what comes back on it to that
 *   request's `Transport.Reply`: the answer reaches its call without a lookup, and is checked
 *   here, once, to be that request's (else `UnexpectedAnswer`).
 *
 * - Requests with a channel of their own (`requests`: a 2026-07-28 HTTP POST and its response):
 *   each served as the engine serves one (its fiber, span, Debug line, error rendering, hold), on
 *   its own `Transport.Sink`, with no client id and no matching by id. A closed channel interrupts
 *   it.
 *
 * Nothing in the engine is per idle client: a client costs an entry in a map while it has a
 * request in flight, and nothing otherwise.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { RequestTimeout, TransportClosed } from "./internal/errors.js"
import * as Inbound from "./internal/inbound.js"
import * as Outbound from "./internal/outbound.js"
import * as Serving from "./internal/served.js"
import * as Telemetry from "./internal/telemetry.js"
import type * as JsonRpc from "./JsonRpc.js"
import type * as McpError from "./McpError.js"
import * as Revision from "./Revision.js"
import * as TelemetryConfig from "./Telemetry.js"
import type * as Transport from "./Transport.js"
import type * as Wire from "./Wire.js"

export {
  /**
   * An outbound request got no answer in time (a local error: never sent by a peer).
   *
   * @since 0.1.0
   * @category errors
   */
  RequestTimeout,
  /**
   * The connection closed before the answer arrived, or the request could not be sent.
   *
   * @since 0.1.0
   * @category errors
   */
  TransportClosed,
  /**
   * What came back on the channel of a request was not its answer (transports with a channel per
   * request only: see `Transport.Protocol.request`).
   *
   * @since 0.1.0
   * @category errors
   */
  UnexpectedAnswer
} from "./internal/errors.js"

/**
 * The params of a progress notification, as handed to `onProgress`.
 *
 * @since 0.1.0
 * @category models
 */
export type Progress = Outbound.Progress

/**
 * The params of a log message that came on a request's own channel, as handed to `onLog`.
 *
 * @since 0.2.0
 * @category models
 */
export type LogMessage = Outbound.LogMessage

/**
 * What a raw request (`Peer.raw`) is told: its answer as the peer sent it, or why none will come
 * (the time ran out, the connection ended, the transport failed it); and the log messages on its
 * own channel.
 *
 * @since 0.2.0
 * @category models
 */
export type RawHandlers<F = never> = Outbound.RawHandlers<F>

/**
 * A raw request in flight (`Peer.raw`): cancelling it forgets it and tells the peer.
 *
 * @since 0.2.0
 * @category models
 */
export type RawCall = Outbound.RawCall

/**
 * Options of one outbound request.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestOptions = Outbound.RequestOptions

/**
 * How one inbound request is served: an effect, or an effect and services its fiber starts with
 * (added to the engine's context as the fiber is forked, which costs nothing more, where
 * providing them inside the fiber would).
 *
 * @since 0.1.0
 * @category models
 */
export type Handling<R> = Serving.Handling<R>

/**
 * What the engine needs from the side that runs it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R, F = never> {
  /** The transport; `F` is what it may fail one of our requests with, locally (see `Transport.Receiver`). */
  readonly protocol: Transport.Protocol<F>
  /**
   * Serves one inbound request of `client`: the result object, or a wire error (`McpError`).
   * `context` says where it came from when the transport knows (see `Transport.ReceiveContext`).
   */
  readonly onRequest: (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    context: Transport.ReceiveContext | undefined
  ) => Handling<R>
  /**
   * Handles one inbound notification (other than cancellation and progress of our own calls).
   * `context` says where it came from when the transport knows: `related` is the request of ours
   * on whose channel it came (see `Transport.ReceiveContext`).
   */
  readonly onNotification?: (
    client: Transport.ClientId,
    notification: JsonRpc.Notification,
    context: Transport.ReceiveContext | undefined
  ) => Effect.Effect<void, never, R>
  /** A client is gone: drop what is kept for it. */
  readonly onDisconnect?: (client: Transport.ClientId) => void
  /**
   * What the engine takes of what it receives (a client drops a hostile server's garbage, say): the
   * frame as the transport handed it, or what is kept of it (a batch without some items), or
   * undefined to drop it. It sees what the transport delivers and, on a channel per request, what
   * comes there other than the request's answer (each item of a batch apart); never the answer
   * itself, which the engine checks. Default: everything is taken.
   */
  readonly keep?: ((inbound: Wire.Inbound) => Wire.Inbound | undefined) | undefined
  /**
   * The revision a wire error for `client` is rendered for: the request's own (stateless) or
   * its session's (handshake); `request` is undefined for a frame that is not a request.
   * Default: the latest revision.
   */
  readonly revision?: (
    client: Transport.ClientId,
    request: JsonRpc.Request | undefined
  ) => Effect.Effect<Revision.Revision, never, R>
  /** Are JSON-RPC batches accepted from `client` right now? Default: never. */
  readonly batching?: (client: Transport.ClientId) => Effect.Effect<boolean, never, R>
  /** Default timeout of outbound requests (default 60 seconds). */
  readonly timeout?: Duration.DurationInput
  /** Default hard maximum of outbound requests whose timeout progress resets (default 10 minutes). */
  readonly maxTimeout?: Duration.DurationInput
  /** The first id of outbound requests (default 0). */
  readonly firstId?: number
  /**
   * The tool and prompt names this side serves (a server's): its histograms are labelled with these
   * only, any other name a peer sends being `_OTHER` (see `Telemetry.Known`). Absent: any name
   * within the attribute length limit, up to a bound on the label sets.
   */
  readonly known?: TelemetryConfig.Known | undefined
}

/**
 * A running engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface Peer<F = never> {
  /**
   * Sends a request to `client` and waits for its answer. Interrupting it sends `notifications/cancelled`.
   * It fails with the peer's error (`McpError`), a timeout, the connection's end, or what the
   * transport failed it with (`F`).
   */
  readonly request: (
    client: Transport.ClientId,
    method: string,
    params?: unknown,
    options?: RequestOptions
  ) => Effect.Effect<unknown, McpError.McpError | RequestTimeout | TransportClosed | F>
  /**
   * Sends a request to `client` without an effect of its own (a gateway relaying a call it does not
   * read): its id from the same counter as `request`'s, its answer handed on as it came (see
   * {@link RawHandlers}); it times out, and fails with the connection, as `request`'s calls do.
   * It makes no span and asks no progress.
   */
  readonly raw: Outbound.Outbound<F>["raw"]
  /** Sends a notification to `client`. */
  readonly notify: (
    client: Transport.ClientId,
    method: string,
    params?: unknown,
    context?: Transport.SendContext
  ) => Effect.Effect<void, TransportClosed>
  /** Inbound requests being served right now, over every client. */
  readonly inflight: Effect.Effect<number>
  /** Cancels (interrupts) an inbound request being served, as `notifications/cancelled` would. */
  readonly cancel: (client: Transport.ClientId, id: JsonRpc.RequestId) => Effect.Effect<void>
  /** Ends what `client` has in flight, as its transport's disconnect would. */
  readonly disconnect: (client: Transport.ClientId) => Effect.Effect<void>
  /**
   * Holds inbound request `id` of `client` open past the end of its fiber, costing no fiber while
   * it waits (a `subscriptions/listen` held until the server closes it): called from the request's
   * own handling, whose result is then not sent. Returns what answers it later (true once the
   * answer is sent; false when it was cancelled meanwhile), or undefined when it is not in flight.
   * `onCancel` runs, synchronously, if it is cancelled or its client goes first (nothing is sent
   * then), or if its handling fails (that failure is its answer).
   */
  readonly hold: (
    client: Transport.ClientId,
    id: JsonRpc.RequestId,
    onCancel: () => void
  ) => ((exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>) | undefined
  /** Completes when the transport has ended (stdio: end of input). */
  readonly closed: Effect.Effect<void>
}

/** Spans and metrics of what is served, when something records them (see `Telemetry`): decided once, here. */
const telemetryOf = (
  transport: TelemetryConfig.TransportDescription | undefined,
  known: TelemetryConfig.Known | undefined
): Effect.Effect<Telemetry.Telemetry | undefined> =>
  Effect.flatMap(
    Effect.clock,
    (clock) =>
      Effect.withFiberRuntime<Telemetry.Telemetry | undefined>((fiber) =>
        Effect.succeed(Telemetry.make({
          switches: Telemetry.switches(
            Context.get(fiber.currentContext, TelemetryConfig.Config),
            fiber.currentTracer,
            fiber.getFiberRef(FiberRef.currentTracerEnabled)
          ),
          config: Context.get(fiber.currentContext, TelemetryConfig.Config),
          tracer: fiber.currentTracer,
          clock,
          context: fiber.currentContext,
          transport,
          known
        }))
      )
  )

/**
 * Starts an engine on `options.protocol` for the lifetime of the scope: the transport runs in
 * a fiber of that scope; closing the scope interrupts everything in flight. Request fibers
 * are forked from the runtime of the caller of `make` (its context and its fiber refs).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never, F = never>(options: Options<R, F>): Effect.Effect<Peer<F>, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const { protocol } = options
    const runtime = yield* Effect.runtime<R>()
    const fork = Runtime.runFork(runtime)
    const closed = yield* Deferred.make<void>()
    const latest = () => Effect.succeed(Revision.latest)
    const revision = options.revision ?? latest
    const send = protocol.send
    // Spans and metrics, when something records them (see `Telemetry`): decided once, here.
    const clock = yield* Effect.clock
    const telemetry = yield* telemetryOf(protocol.telemetry, options.known)

    // What is received, through the side's filter (`keep`), if it has one.
    const { keep } = options
    const kept: Transport.Receiver["receive"] | undefined = keep === undefined ?
      undefined :
      (client, frame, context): void => {
        const held = keep(frame)
        if (held !== undefined) inbound.receive(client, held, context)
      }
    const outbound = Outbound.make<F>({
      clock,
      send,
      sendNow: protocol.sendNow,
      request: protocol.request,
      requestNow: protocol.requestNow,
      // What came on a request's channel that is not its answer: served as anything received.
      receive: kept ?? ((client, frame, context): void => inbound.receive(client, frame, context)),
      fork: (effect) => void fork(effect),
      timeout: Duration.decode(options.timeout ?? Duration.seconds(60)),
      maxTimeout: Duration.decode(options.maxTimeout ?? Duration.minutes(10)),
      firstId: options.firstId ?? 0,
      telemetry,
      revision: (client) => Effect.provide(revision(client, undefined), runtime.context)
    })
    const inbound = Inbound.make({
      runtime,
      onRequest: options.onRequest,
      onNotification: options.onNotification ?? (() => Effect.void),
      revision,
      batching: options.batching ?? (() => Effect.succeed(false)),
      send,
      outbound,
      telemetry,
      unanswered: protocol.unanswered ?? (() => {}),
      inFlight: protocol.inFlight
    })
    const disconnect = (client: Transport.ClientId, reason?: Transport.TransportError) => {
      inbound.disconnect(client)
      outbound.disconnect(client, reason)
      options.onDisconnect?.(client)
    }

    yield* Effect.addFinalizer(() => Effect.zipRight(Effect.sync(() => outbound.close()), inbound.interruptAll))
    yield* Effect.forkScoped(Effect.interruptible(outbound.sweeper))
    // How the transport failed, if it did: what the calls still waiting, and later ones, fail with.
    let failed: Transport.TransportError | undefined
    yield* protocol.run({
      receive: kept ?? inbound.receive,
      disconnect,
      responseClosed: inbound.cancel,
      fail: outbound.fail,
      inFlight: inbound.isBusy
    }).pipe(
      Effect.catchAll((error) => {
        failed = error
        return Effect.logDebug("effect-mcp: transport failed", error)
      }),
      Effect.ensuring(Effect.zipRight(Effect.sync(() => outbound.close(failed)), Deferred.succeed(closed, undefined))),
      Effect.scoped,
      Effect.forkScoped,
      Effect.interruptible
    )

    return {
      request: outbound.request,
      raw: outbound.raw,
      notify: outbound.notify,
      inflight: Effect.sync(inbound.size),
      cancel: (client, id) => Effect.sync(() => inbound.cancel(client, id)),
      disconnect: (client) => Effect.sync(() => disconnect(client)),
      hold: inbound.hold,
      closed: Deferred.await(closed)
    } satisfies Peer<F>
  })

/**
 * One inbound request served on a channel of its own (see {@link Requests}).
 *
 * @since 0.2.0
 * @category models
 */
export interface Served {
  /** Its channel closed: the request is interrupted, and nothing more is sent for it. */
  readonly interrupt: () => void
  /**
   * Holds the request open past the end of its fiber, costing no fiber while it waits (see
   * {@link Peer.hold}): called from its own handling, whose result is then not sent. What answers
   * it later, or undefined when it is over.
   */
  readonly hold: (onCancel: () => void) => ((exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>) | undefined
}

/**
 * Serving of inbound requests that each come with a channel of their own (`Transport.Sink`: a
 * 2026-07-28 HTTP POST and its response), without an engine: no client id, no registry of clients,
 * no matching of answers by id. Each request is served as the engine serves one: in its own fiber,
 * started at once, with its span and metrics when something records them and its Debug line when
 * the runtime logs Debug; a typed failure becomes the JSON-RPC error rendered for the request's
 * revision, a defect -32603 (and a log line); interrupted (its channel closed), nothing is sent.
 *
 * @since 0.2.0
 * @category models
 */
export interface Requests<R> {
  /**
   * Starts serving `request`, answered on `sink`. `handling` is asked for once the request's
   * `Served` exists, so that what it makes may hold the request open.
   */
  readonly serve: (
    request: JsonRpc.Request,
    sink: Transport.Sink,
    handling: (served: Served) => Handling<R>
  ) => Served
  /** Requests being served right now. */
  readonly size: () => number
  /**
   * Does serving a request record something of it (a span, a metric, a Debug line)? When not, a
   * request whose answer is there at once may be answered by its caller without being served here.
   */
  readonly records: boolean
  /**
   * Records a request its caller answers at once, without serving it here (its `response` there
   * already: a handler that completed synchronously), answered in `revision`: its span and
   * histogram sample, begun and ended now, with no fiber. Undefined when serving a request records
   * more than that (its Debug line): serve it then. Nothing recorded, it does nothing.
   */
  readonly answeredAtOnce:
    | ((request: JsonRpc.Request, response: JsonRpc.Response, revision: string) => void)
    | undefined
  /** Interrupts every request being served (nothing is sent for them) and waits for them to end. */
  readonly interruptAll: Effect.Effect<void>
}

/**
 * What serving requests on channels of their own needs (see {@link requests}).
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestsOptions<R> {
  /** The revision a request's wire errors are rendered for (its own). */
  readonly revision: (request: JsonRpc.Request) => Effect.Effect<Revision.Revision, never, R>
  /** The tool and prompt names served, for metric labels (see `Options.known`). */
  readonly known?: TelemetryConfig.Known | undefined
  /** What telemetry says of the transport (see `Transport.Protocol.telemetry`). */
  readonly telemetry?: TelemetryConfig.TransportDescription | undefined
}

/** A request served on a sink: out of flight when it ends, its sink told when nobody answered it. */
class OnSink<R> extends Serving.Call<R> implements Served {
  constructor(
    serving: Serving.Serving<R>,
    owner: Serving.Owner,
    request: JsonRpc.Request,
    readonly sink: Transport.Sink,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>,
    active: ReturnType<Serving.Serving<R>["received"]>["active"]
  ) {
    super(serving, owner, undefined, request, respond, active, undefined)
  }
}

const settledOnSink: Served = { interrupt: () => {}, hold: () => undefined }

/**
 * A sink's answer, as a call's `respond`: made apart from `serve`, so that the closure a call keeps
 * for as long as it is in flight (a listen: hours) holds the sink alone, not `serve`'s scope (the
 * handling given, and whatever that holds: the request prepared, its effects).
 */
const answerOn = (sink: Transport.Sink) => (response: JsonRpc.Response) => sink.answer(response)

/**
 * Serves requests that each come with a channel of their own (see {@link Requests}), on the runtime
 * of the caller (its context and fiber refs), with its telemetry as `make` decides it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const requests = <R = never>(options: RequestsOptions<R>): Effect.Effect<Requests<R>, never, R> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<R>()
    const telemetry = yield* telemetryOf(options.telemetry, options.known)
    const serving = new Serving.Serving<R>(runtime, telemetry, (_, request) => options.revision(request!))
    const open = new Set<OnSink<R>>()
    const owner: Serving.Owner = {
      forget: (call) => void open.delete(call as OnSink<R>),
      unanswered: (call) => (call as OnSink<R>).sink.unanswered()
    }
    const serve: Requests<R>["serve"] = (request, sink, handling) => {
      // Its span starts before its handler does, and ends with its answer.
      const { active, respond } = serving.received(undefined, request, answerOn(sink))
      const call = new OnSink(serving, owner, request, sink, respond, active)
      const { context, effect } = Serving.handlingOf(() => handling(call))
      // Done already (a handler that completed synchronously): answered without a fiber of its own.
      if (Exit.isExit(effect)) {
        serving.fork(serving.settled(undefined, request, effect, respond))
        return settledOnSink
      }
      open.add(call)
      call.start(effect, context)
      return call
    }
    const answeredAtOnce: Requests<R>["answeredAtOnce"] = serving.logRequests
      ? undefined
      : telemetry === undefined
      ? () => {}
      : (request, response, revision) =>
        telemetry.served(undefined, request).end(Telemetry.outcomeOfResponse(request.method, response), revision)
    return {
      serve,
      size: () => open.size,
      records: telemetry !== undefined || serving.logRequests,
      answeredAtOnce,
      interruptAll: Effect.suspend(() => Serving.interruptAll(open))
    }
  })
