/**
 * The JSON-RPC engine both the server and the client run on.
 *
 * - Inbound requests run in their own fiber, in a `FiberMap` keyed by request id; each
 *   is answered exactly once, unless it was cancelled (then nothing is sent).
 * - `notifications/cancelled` interrupts the handler fiber of that id; unknown or
 *   finished ids are ignored.
 * - A typed failure becomes the matching JSON-RPC error; a defect becomes -32603 for
 *   that request (and a log line), and the loop serves the next message.
 * - Outbound calls wait on a `Deferred`; interrupting one sends `notifications/cancelled`;
 *   timeouts may be reset by progress notifications, up to a hard maximum.
 * - A duplicate in-flight id is answered with -32600; a notification is never answered;
 *   batches are accepted only where the caller says the revision allows them.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as JsonRpc from "./JsonRpc.js"
import * as McpError from "./McpError.js"
import * as Meta from "./Meta.js"
import type * as Revision from "./Revision.js"
import type * as Transport from "./Transport.js"
import type * as Wire from "./Wire.js"

/**
 * An outbound request got no answer in time (a local error: never sent by a peer).
 *
 * @since 0.1.0
 * @category errors
 */
export class RequestTimeout extends Data.TaggedError("RequestTimeout")<{
  readonly method: string
  readonly id: JsonRpc.RequestId
  readonly timeout: Duration.Duration
}> {
  override get message(): string {
    return `Request ${this.method} (id ${JSON.stringify(this.id)}) timed out after ${Duration.format(this.timeout)}`
  }
}

/**
 * The connection closed before the answer arrived, or the request could not be sent
 * (a local error: never sent by a peer).
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportClosed extends Data.TaggedError("TransportClosed")<{
  readonly method: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `Transport closed before ${this.method} was answered`
  }
}

/**
 * The params of a progress notification, as handed to `onProgress`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly progressToken: JsonRpc.RequestId
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/**
 * Options of one outbound request.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestOptions {
  /** Time to wait for the answer (default: the peer's `timeout`). */
  readonly timeout?: Duration.DurationInput
  /** A progress notification for this request restarts the timeout (default false). */
  readonly resetTimeoutOnProgress?: boolean
  /** Hard maximum whatever progress arrives (default: the peer's `maxTimeout`). */
  readonly maxTimeout?: Duration.DurationInput
  /** Receives this request's progress; asks for progress by adding a `progressToken` to `_meta`. */
  readonly onProgress?: (progress: Progress) => Effect.Effect<void>
  /** The inbound request this one is made on behalf of (routing on per-request transports). */
  readonly related?: JsonRpc.RequestId
  /** The reason sent with `notifications/cancelled` when this call is interrupted. */
  readonly cancelReason?: string
}

/**
 * What the peer needs from the side that runs it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R> {
  readonly transport: Transport.Transport
  /** Serves one inbound request: the result object, or a wire error. */
  readonly onRequest: (request: JsonRpc.Request) => Effect.Effect<unknown, McpError.McpError, R>
  /** Handles one inbound notification (other than cancellation and progress of our own calls). */
  readonly onNotification?: (notification: JsonRpc.Notification) => Effect.Effect<void, never, R>
  /** The revision errors are rendered for (resource-not-found differs). Default: the latest. */
  readonly revision?: Effect.Effect<Revision.Revision>
  /** Are JSON-RPC batches accepted right now? Default: never. */
  readonly batching?: Effect.Effect<boolean>
  /** Default timeout of outbound requests (default 60 seconds). */
  readonly timeout?: Duration.DurationInput
  /** Default hard maximum of outbound requests whose timeout progress resets (default 10 minutes). */
  readonly maxTimeout?: Duration.DurationInput
  /** The first id of outbound requests (default 0). */
  readonly firstId?: number
}

/**
 * A running JSON-RPC peer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Peer {
  /** Sends a request and waits for its answer. Interrupting it sends `notifications/cancelled`. */
  readonly request: (
    method: string,
    params?: unknown,
    options?: RequestOptions
  ) => Effect.Effect<unknown, McpError.McpError | RequestTimeout | TransportClosed>
  /** Sends a notification. */
  readonly notify: (
    method: string,
    params?: unknown,
    context?: Transport.SendContext
  ) => Effect.Effect<void, TransportClosed>
  /** Sends a raw frame (responses for a transport that produced them elsewhere, say). */
  readonly send: (frame: JsonRpc.Frame, context?: Transport.SendContext) => Effect.Effect<void, TransportClosed>
  /** Inbound requests being served right now. */
  readonly inflight: Effect.Effect<number>
  /** Cancels (interrupts) an inbound request being served, as `notifications/cancelled` would. */
  readonly cancel: (id: JsonRpc.RequestId) => Effect.Effect<void>
  /** Completes when the inbound stream has ended (the other side closed). */
  readonly closed: Effect.Effect<void>
}

interface Pending {
  readonly method: string
  readonly deferred: Deferred.Deferred<unknown, McpError.McpError | TransportClosed>
  readonly progress: Queue.Queue<void> | undefined
  readonly onProgress: ((progress: Progress) => Effect.Effect<void>) | undefined
}

const internalError = { code: JsonRpc.Code.InternalError, message: "Internal error" } as const

/**
 * Starts a peer on a transport, for the lifetime of the scope: the inbound loop runs
 * in a fiber of that scope; closing the scope interrupts everything in flight.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never>(
  options: Options<R>
): Effect.Effect<Peer, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const { transport } = options
    const revision: Effect.Effect<Revision.Revision> = options.revision ?? Effect.succeed("2026-07-28")
    const batching = options.batching ?? Effect.succeed(false)
    const onNotification = options.onNotification ?? (() => Effect.void)
    const defaultTimeout = Duration.decode(options.timeout ?? Duration.seconds(60))
    const defaultMaxTimeout = Duration.decode(options.maxTimeout ?? Duration.minutes(10))

    const inflight = yield* FiberMap.make<JsonRpc.RequestId>()
    // Outbound calls waiting for their answer, by id. Owned by this peer's scope.
    const pending = new Map<JsonRpc.RequestId, Pending>()
    const progressTokens = new Map<JsonRpc.RequestId, JsonRpc.RequestId>()
    const nextId = yield* Ref.make(options.firstId ?? 0)
    const closed = yield* Deferred.make<void>()
    const scope = yield* Effect.scope

    const sendQuiet = (frame: JsonRpc.Frame, related?: JsonRpc.RequestId) =>
      Effect.catchAll(
        transport.send(frame, { related }),
        (error) => Effect.logDebug("effect-mcp: could not send", error)
      )

    // ------------------------------------------------------------------ inbound requests

    const toFailure = (id: JsonRpc.RequestId, cause: Cause.Cause<McpError.McpError>) =>
      Effect.gen(function*() {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure) && McpError.isMcpError(failure.value)) {
          return JsonRpc.failure(id, failure.value.toWire(yield* revision))
        }
        yield* Effect.logError("effect-mcp: request handler failed", cause)
        return JsonRpc.failure(id, internalError)
      })

    /** Serves one request; `undefined` when it was interrupted (cancelled: nothing is sent). */
    const respond = (request: JsonRpc.Request): Effect.Effect<JsonRpc.Response | undefined, never, R> =>
      Effect.suspend(() => options.onRequest(request)).pipe(
        Effect.exit,
        Effect.flatMap((exit): Effect.Effect<JsonRpc.Response | undefined> => {
          if (Exit.isSuccess(exit)) return Effect.succeed(JsonRpc.success(request.id, exit.value))
          if (Cause.isInterruptedOnly(exit.cause)) return Effect.succeed(undefined)
          return toFailure(request.id, exit.cause)
        })
      )

    const serve = (request: JsonRpc.Request): Effect.Effect<void, never, R> =>
      Effect.flatMap(respond(request), (response) =>
        response === undefined ? Effect.void : sendQuiet(response, request.id))

    const duplicate = (id: JsonRpc.RequestId) =>
      JsonRpc.failure(id, {
        code: JsonRpc.Code.InvalidRequest,
        message: `Invalid Request: id ${JSON.stringify(id)} is already in flight`
      })

    // One runtime for every request fiber (the loop's context), rather than one made per request.
    const fork = yield* FiberMap.runtime(inflight)<R>()
    const startRequest = (request: JsonRpc.Request): Effect.Effect<void, never, R> =>
      FiberMap.unsafeHas(inflight, request.id)
        ? sendQuiet(duplicate(request.id), request.id)
        : Effect.sync(() => {
          fork(request.id, serve(request), { onlyIfMissing: true })
        })

    // ------------------------------------------------------------------ inbound notifications and responses

    const onProgress = (params: any): Effect.Effect<boolean> => {
      const token = params?.progressToken
      const id = token === undefined ? undefined : progressTokens.get(token)
      const call = id === undefined ? undefined : pending.get(id)
      if (call === undefined) {
        return Effect.succeed(false)
      }
      return Effect.zipRight(
        call.progress ? Queue.offer(call.progress, undefined) : Effect.void,
        call.onProgress ? Effect.as(call.onProgress(params as Progress), true) : Effect.succeed(true)
      )
    }

    const notification = (message: JsonRpc.Notification): Effect.Effect<void, never, R> => {
      switch (message.method) {
        case "notifications/cancelled": {
          const id = (message.params as { readonly requestId?: unknown } | undefined)?.requestId
          return typeof id === "string" || typeof id === "number" ? FiberMap.remove(inflight, id) : Effect.void
        }
        case "notifications/progress":
          return Effect.flatMap(
            onProgress(message.params),
            (handled) =>
              handled ? Effect.void : onNotification(message)
          )
        default:
          return onNotification(message)
      }
    }

    const response = (message: JsonRpc.Response): Effect.Effect<void> => {
      if (message.id === null) {
        return Effect.logWarning("effect-mcp: the peer sent an error without an id", (message as JsonRpc.Failure).error)
      }
      const call = pending.get(message.id)
      if (call === undefined) return Effect.void // unknown, finished or cancelled: ignore
      pending.delete(message.id)
      return "error" in message
        ? Deferred.fail(call.deferred, McpError.fromWire(message.error))
        : Deferred.succeed(call.deferred, message.result)
    }

    const single = (message: JsonRpc.Message): Effect.Effect<void, never, R> =>
      "method" in message
        ? ("id" in message ? startRequest(message as JsonRpc.Request) : notification(message))
        : response(message)

    const invalid = (item: Wire.Invalid): JsonRpc.Failure => JsonRpc.failure(item.id, item.error.toWire("2026-07-28"))

    const batch = (items: Wire.Batch["items"]): Effect.Effect<void, never, R> =>
      Effect.gen(function*() {
        const out: Array<JsonRpc.Response> = []
        const answers: Array<Deferred.Deferred<JsonRpc.Response | undefined>> = []
        const seen = new Set<JsonRpc.RequestId>()
        for (const item of items) {
          if (item._tag === "Invalid") {
            out.push(invalid(item))
            continue
          }
          const message = item.message
          if (!("method" in message && "id" in message)) {
            yield* single(message)
            continue
          }
          const request = message as JsonRpc.Request
          if (seen.has(request.id) || (yield* FiberMap.has(inflight, request.id))) {
            out.push(duplicate(request.id))
            continue
          }
          seen.add(request.id)
          const answer = yield* Deferred.make<JsonRpc.Response | undefined>()
          answers.push(answer)
          yield* FiberMap.run(
            inflight,
            request.id,
            respond(request).pipe(
              Effect.flatMap((r) => Deferred.succeed(answer, r)),
              Effect.onInterrupt(() => Deferred.succeed(answer, undefined))
            ),
            { onlyIfMissing: true }
          )
        }
        // One response array for the whole batch, without the cancelled requests.
        yield* Effect.forkIn(
          Effect.gen(function*() {
            for (const answer of answers) {
              const r = yield* Deferred.await(answer)
              if (r !== undefined) out.push(r)
            }
            if (out.length > 0) yield* sendQuiet(out)
          }),
          scope
        )
      })

    const frame = (inbound: Wire.Inbound): Effect.Effect<void, never, R> => {
      switch (inbound._tag) {
        case "Single":
          return single(inbound.message)
        case "Invalid":
          return sendQuiet(invalid(inbound))
        case "Batch":
          return Effect.flatMap(batching, (allowed) =>
            allowed
              ? batch(inbound.items)
              : sendQuiet(JsonRpc.failure(null, {
                code: JsonRpc.Code.InvalidRequest,
                message: "Invalid Request: batches are not supported in this protocol revision"
              })))
      }
    }

    // A bug while routing one frame is logged; the loop goes on with the next.
    const guarded = (inbound: Wire.Inbound) =>
      Effect.catchAllCause(frame(inbound), (cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("effect-mcp: could not route a message", cause))

    yield* transport.incoming.pipe(
      Stream.runForEach(guarded),
      Effect.catchAll((error) =>
        Effect.logDebug("effect-mcp: transport failed", error)
      ),
      Effect.ensuring(Effect.suspend(() => {
        const calls = Array.from(pending.values())
        pending.clear()
        progressTokens.clear()
        return Effect.zipRight(
          Effect.forEach(calls, (call) =>
            Deferred.fail(call.deferred, new TransportClosed({ method: call.method })), {
            discard: true
          }),
          Deferred.succeed(closed, undefined)
        )
      })),
      Effect.forkScoped,
      Effect.interruptible
    )

    // ------------------------------------------------------------------ outbound

    const request = (
      method: string,
      params?: unknown,
      requestOptions: RequestOptions = {}
    ): Effect.Effect<unknown, McpError.McpError | RequestTimeout | TransportClosed> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          if (yield* Deferred.isDone(closed)) return yield* new TransportClosed({ method })
          const id = yield* Ref.getAndUpdate(nextId, (n) => n + 1)
          const deferred = yield* Deferred.make<unknown, McpError.McpError | TransportClosed>()
          const reset = requestOptions.resetTimeoutOnProgress === true
          const progress = reset ? yield* Queue.sliding<void>(1) : undefined
          const wantsProgress = requestOptions.onProgress !== undefined || reset
          pending.set(id, { method, deferred, progress, onProgress: requestOptions.onProgress })
          if (wantsProgress) progressTokens.set(id, id)
          const cleanup = Effect.sync(() => {
            pending.delete(id)
            progressTokens.delete(id)
          })
          const finalParams = wantsProgress
            ? Meta.withMeta(params as object | undefined, { progressToken: id })
            : params
          const sent = yield* Effect.either(
            transport.send(JsonRpc.request(id, method, finalParams), { related: requestOptions.related })
          )
          if (sent._tag === "Left") {
            yield* cleanup
            return yield* new TransportClosed({ method, cause: sent.left })
          }
          const timeout = Duration.decode(requestOptions.timeout ?? defaultTimeout)
          const onTimeout = () => new RequestTimeout({ method, id, timeout })
          const answer: Effect.Effect<unknown, McpError.McpError | TransportClosed | RequestTimeout> = progress
            ? Effect.raceFirst(
              Deferred.await(deferred),
              Effect.forever(Effect.timeoutFail(Queue.take(progress), { duration: timeout, onTimeout }))
            ).pipe(
              Effect.timeoutFail({
                duration: Duration.decode(requestOptions.maxTimeout ?? defaultMaxTimeout),
                onTimeout: () =>
                  new RequestTimeout({
                    method,
                    id,
                    timeout: Duration.decode(requestOptions.maxTimeout ?? defaultMaxTimeout)
                  })
              })
            )
            : Effect.timeoutFail(Deferred.await(deferred), { duration: timeout, onTimeout })
          const cancel = (reason: string) =>
            method === "initialize" // initialize must never be cancelled
              ? Effect.void
              : sendQuiet(
                JsonRpc.notification("notifications/cancelled", { requestId: id, reason }),
                requestOptions.related
              )
          return yield* restore(answer).pipe(
            Effect.onExit((exit) => {
              if (Exit.isSuccess(exit)) return cleanup
              if (Cause.isInterruptedOnly(exit.cause)) {
                return Effect.zipRight(cleanup, cancel(requestOptions.cancelReason ?? "cancelled by the caller"))
              }
              const error = Cause.failureOption(exit.cause)
              return Option.isSome(error) && error.value._tag === "RequestTimeout"
                ? Effect.zipRight(cleanup, cancel(`timed out after ${Duration.format(error.value.timeout)}`))
                : cleanup
            })
          )
        })
      )

    const notify = (method: string, params?: unknown, context?: Transport.SendContext) =>
      Effect.mapError(
        transport.send(JsonRpc.notification(method, params), context),
        (cause) => new TransportClosed({ method, cause })
      )

    return {
      request,
      notify,
      send: (frame, context) =>
        Effect.mapError(transport.send(frame, context), (cause) => new TransportClosed({ method: "send", cause })),
      inflight: FiberMap.size(inflight),
      cancel: (id) => FiberMap.remove(inflight, id),
      closed: Deferred.await(closed)
    } satisfies Peer
  })
