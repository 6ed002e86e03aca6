/**
 * The outbound half of the engine: requests we send (to any client), waiting for their
 * answers; progress notifications for them; notifications we send.
 *
 * - Ids are numbers from one counter per engine, so a call is found by its id alone; an
 *   answer counts only when it comes from the client the call went to.
 * - A transport with a channel per request (`Transport.Protocol.request`) is given the call itself
 *   as the request's `Transport.Reply`: what comes back on that channel reaches the call without
 *   any lookup, and is checked to be its answer here, once (anything else is `UnexpectedAnswer`).
 * - Interrupting a call sends `notifications/cancelled` (unless the method is not
 *   cancellable: `initialize`); so does a timeout.
 * - Timeouts may be reset by progress notifications, up to a hard maximum. A call's timeout is
 *   a deadline in its entry, not a timer of its own: one sweeper fiber per engine sleeps until
 *   the earliest deadline (on the engine's `Clock`, so a `TestClock` drives it) and fails the
 *   calls whose time is up. A timer per call (`Effect.timeout`) cost more than the rest of a
 *   client's call together.
 */
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import type * as Tracer from "effect/Tracer"
import * as JsonRpc from "../JsonRpc.js"
import * as McpError from "../McpError.js"
import * as Meta from "../Meta.js"
import * as Method from "../Method.js"
import type { Peer } from "../Peer.js"
import type * as Transport from "../Transport.js"
import type * as Wire from "../Wire.js"
import { RequestTimeout, TransportClosed, UnexpectedAnswer } from "./errors.js"
import type { LogMessage, Progress } from "./handOff.js"
import { HandOff, maxLogsRunning, maxProgressWaiting } from "./handOff.js"
import * as Raw from "./outboundRaw.js"
import type * as Telemetry from "./telemetry.js"

export type { LogMessage, Progress } from "./handOff.js"

/** Options of one outbound request. */
export interface RequestOptions {
  /** Time to wait for the answer (default: the peer's `timeout`). */
  readonly timeout?: Duration.DurationInput
  /** A progress notification for this request restarts the timeout (default false). */
  readonly resetTimeoutOnProgress?: boolean
  /** Hard maximum whatever progress arrives (default: the peer's `maxTimeout`). */
  readonly maxTimeout?: Duration.DurationInput
  /** Receives this request's progress; asks for progress by adding a `progressToken` to `_meta`. */
  readonly onProgress?: (progress: Progress) => Effect.Effect<void>
  /**
   * Receives the log messages that come on this request's own channel while it waits (Streamable
   * HTTP: its response stream), instead of the engine's `onNotification`. Where no channel is the
   * request's (stdio), its logs are not told apart: they reach `onNotification`.
   */
  readonly onLog?: (message: LogMessage) => Effect.Effect<void>
  /** The inbound request this one is made on behalf of (routing on per-request transports). */
  readonly related?: JsonRpc.RequestId
  /**
   * None `related`: only on a stream the client listens on now, else not sent (the call fails with
   * `TransportClosed`, its `cause` the transport's error); see `Transport.SendContext.live`.
   */
  readonly live?: boolean
  /** The reason sent with `notifications/cancelled` when this call is interrupted. */
  readonly cancelReason?: string
  /** Told the request's id before it is sent (what a 2026-07-28 subscription is tagged with). */
  readonly onId?: (id: JsonRpc.RequestId) => void
  /** Links of this request's span (telemetry on): a later round of a multi-round trip links its first. */
  readonly spanLinks?: ReadonlyArray<Tracer.SpanLink>
  /** Told this request's span before it is sent (telemetry on). */
  readonly onSpan?: (span: Tracer.Span) => void
}

type Answer = Exit.Exit<unknown, unknown>

/** What a raw call is told, and a raw call in flight (see `outboundRaw.ts`). */
export type RawHandlers<F = never> = Raw.RawHandlers<F>
export type RawCall = Raw.RawCall

/** One call of ours, waiting for its answer; on a transport with a channel per request, its reply too. */
export interface Pending<F> extends Transport.Reply<F> {
  readonly id: number
  readonly client: Transport.ClientId
  readonly method: string
  /** Resumes the caller waiting for the answer; until it waits, the answer is kept in `done`. */
  resume: ((answer: Answer) => void) | undefined
  done: Answer | undefined
  readonly related: JsonRpc.RequestId | undefined
  readonly onProgress: HandOff<Progress> | undefined
  readonly onLog: HandOff<LogMessage> | undefined
  /** Restarted by progress (when asked), never past `hardDeadline`. */
  readonly timeout: Duration.Duration
  readonly reset: boolean
  /** Epoch millis; Infinity until the request is sent. */
  deadline: number
  hardDeadline: number
  readonly maxTimeout: Duration.Duration
  /**
   * A raw call (`Outbound.raw`): its handlers, handed its answer as it came and its failure as
   * what it is, instead of settling with an `Exit` (cleared when it is cancelled: nothing more is told).
   */
  raw: Raw.RawHandlers<F> | undefined
}

/** What a message is, said in an error: `a ping request`, `a notifications/x notification`, `the answer to id 7`. */
const describe = (message: JsonRpc.Message): string =>
  "method" in message
    ? "id" in message ? `a ${message.method} request` : `a ${message.method} notification`
    : `the answer to id ${JSON.stringify(message.id)}`

export interface Options<F = never> {
  readonly send: (
    client: Transport.ClientId,
    frame: JsonRpc.Frame,
    context?: Transport.SendContext
  ) => Effect.Effect<void, Transport.TransportError>
  /** Sends a frame now, where the transport can (see `Transport.Protocol.sendNow`). */
  readonly sendNow?: Transport.Protocol["sendNow"]
  /** A transport's way of sending a request on a channel of its own (see `Transport.Protocol.request`). */
  readonly request: Transport.RequestSender<F> | undefined
  /** The same, now, where the transport can (see `Transport.Protocol.requestNow`). */
  readonly requestNow?: Transport.Protocol<F>["requestNow"]
  /** Serves what came on a request's channel that is not its answer (the inbound half of the engine). */
  readonly receive: (client: Transport.ClientId, inbound: Wire.Inbound, context: Transport.ReceiveContext) => void
  /** Runs an effect in the engine's runtime (progress callbacks, warnings). */
  readonly fork: (effect: Effect.Effect<void>) => void
  readonly timeout: Duration.Duration
  readonly maxTimeout: Duration.Duration
  readonly firstId: number
  readonly clock: Clock.Clock
  /** Spans and metrics of the requests sent, when something records them. */
  readonly telemetry: Telemetry.Telemetry | undefined
  /** The revision spoken with `client` (what the spans of our requests to it carry). */
  readonly revision: (client: Transport.ClientId) => Effect.Effect<string>
}

export interface Outbound<F = never> {
  readonly request: Peer<F>["request"]
  readonly notify: Peer["notify"]
  /**
   * A call made without an effect of its own: registered in the same book of calls as `request`'s
   * (its id from the same counter, its timeout swept, failed when the connection ends), sent with
   * `params` as given (no progress token, no span), its answer handed to `handlers` as it came.
   */
  readonly raw: (
    client: Transport.ClientId,
    method: string,
    params: unknown,
    handlers: RawHandlers<F>,
    related?: JsonRpc.RequestId
  ) => RawCall
  /** An answer from `client`: completes the call it answers (unknown, finished or foreign ids are ignored). */
  readonly response: (client: Transport.ClientId, message: JsonRpc.Response) => void
  /** A progress notification from `client`: true when it was for one of our calls. */
  readonly progress: (client: Transport.ClientId, params: unknown) => boolean
  /** The transport failed call `id` of `client` locally: its caller fails with `error` (unknown ids are ignored). */
  readonly fail: (client: Transport.ClientId, id: JsonRpc.RequestId, error: F) => void
  /** `client` is gone: its calls fail with `TransportClosed` (carrying `reason`, when known). */
  readonly disconnect: (client: Transport.ClientId, reason?: Transport.TransportError) => void
  /** Every call fails with `TransportClosed`; later requests fail at once (carrying `reason`, when known). */
  readonly close: (reason?: Transport.TransportError) => void
  /** Fails the calls whose time is up; runs for the engine's lifetime (fork it). */
  readonly sweeper: Effect.Effect<never>
}

/** Completes a call: its caller resumes with `answer` (at once, or when it starts waiting). */
const settle = <F>(call: Pending<F>, answer: Answer) => {
  // Only a failure settles a raw call with an `Exit` (its answer goes to `raw.answer`).
  const raw = call.raw
  if (raw !== undefined) {
    call.raw = undefined
    if (Exit.isFailure(answer) && answer.cause._tag === "Fail") raw.fail(answer.cause.error as F)
    return
  }
  const resume = call.resume
  if (resume === undefined) {
    call.done = answer
    return
  }
  call.resume = undefined
  resume(answer)
}

/** The calls waiting for their answers, by id, and where what else comes on their channels goes. */
interface Book<F> {
  readonly pending: Map<number, Pending<F>>
  readonly receive: Options<F>["receive"]
  readonly fork: Options<F>["fork"]
}

/** Is `call` still waiting for its answer? */
const waiting = <F>(book: Book<F>, call: Pending<F>) => book.pending.get(call.id) === call

/** A raw call's answer, handed to it once. */
const answerRaw = <F>(call: Pending<F>, raw: Raw.RawHandlers<F>, message: JsonRpc.Response) => {
  call.raw = undefined
  raw.answer(message)
}

/** `call`'s answer came on its own channel: it settles, once (a late one, after a timeout or a cancel, is nobody's). */
const answered = <F>(book: Book<F>, call: Pending<F>, message: JsonRpc.Response) => {
  if (!waiting(book, call)) return
  book.pending.delete(call.id)
  if (call.raw !== undefined) return answerRaw(call, call.raw, message)
  settle(
    call,
    "error" in message ? Exit.fail(McpError.fromWire(message.error, call.method)) : Exit.succeed(message.result)
  )
}

/** `call`'s channel brought something else than its answer: it fails, saying what came. */
const unexpected = <F>(book: Book<F>, call: Pending<F>, received: string) => {
  if (!waiting(book, call)) return
  book.pending.delete(call.id)
  settle(call, Exit.fail(new UnexpectedAnswer({ method: call.method, expected: call.id, received })))
}

/**
 * One message on `call`'s channel: its answer settles it. Where the whole answer belongs
 * (`whole`: a JSON body), an error the peer could not tie to an id is its answer too (it came
 * on its channel), and anything else fails it; on a stream, what else came is served as anything
 * received, as related to it.
 */
const onMessage = <F>(book: Book<F>, call: Pending<F>, item: Wire.Single, whole: boolean) => {
  const message = item.message
  const isAnswer = !("method" in message)
  if (isAnswer && (message.id === call.id || (whole && message.id === null && "error" in message))) {
    return answered(book, call, message)
  }
  if (whole) return unexpected(book, call, describe(message))
  if (isLog(message) && call.onLog !== undefined && waiting(book, call)) {
    return call.onLog.push(message.params as LogMessage)
  }
  book.receive(call.client, item, { related: call.id })
}

/** A `notifications/message` with params (what `onLog` is handed). */
const isLog = (message: JsonRpc.Message): message is JsonRpc.Notification =>
  "method" in message && !("id" in message) && message.method === "notifications/message" &&
  typeof message.params === "object" && message.params !== null

const holds = <F>(call: Pending<F>, batch: Wire.Batch) =>
  batch.items.some((item) => item._tag === "Single" && !("method" in item.message) && item.message.id === call.id)

/** What came on `call`'s channel (see `Transport.Reply`): true once the call is over. */
const onChannel = <F>(book: Book<F>, call: Pending<F>, inbound: Wire.Inbound, whole: boolean): boolean => {
  switch (inbound._tag) {
    case "Single":
      onMessage(book, call, inbound, whole)
      break
    case "Invalid":
      if (whole) unexpected(book, call, `a body that is not JSON-RPC (${inbound.error.message})`)
      else book.receive(call.client, inbound, { related: call.id })
      break
    case "Batch":
      // One request went on the channel: a batch is read item by item.
      if (whole && !holds(call, inbound)) unexpected(book, call, "a batch without its answer")
      else {
        for (const item of inbound.items) {
          if (item._tag === "Single") onMessage(book, call, item, false)
          else book.receive(call.client, item, { related: call.id })
        }
      }
  }
  return !waiting(book, call)
}

/** A call; on a transport with a channel per request, the `Transport.Reply` of its channel too. */
class Call<F> implements Pending<F> {
  resume: ((answer: Answer) => void) | undefined = undefined
  done: Answer | undefined = undefined
  deadline = Infinity
  hardDeadline = Infinity
  readonly onProgress: HandOff<Progress> | undefined
  raw: Raw.RawHandlers<F> | undefined = undefined
  /** Its logs' hand-off, made at the first log (most calls have none). */
  private logs: HandOff<LogMessage> | undefined = undefined
  constructor(
    readonly book: Book<F>,
    readonly id: number,
    readonly client: Transport.ClientId,
    readonly method: string,
    readonly related: JsonRpc.RequestId | undefined,
    onProgress: ((progress: Progress) => Effect.Effect<void>) | undefined,
    /** Whose `onLog` is told the call's logs: its request's options, a raw call's handlers. */
    private readonly logger: { readonly onLog?: ((message: LogMessage) => Effect.Effect<void>) | undefined },
    readonly timeout: Duration.Duration,
    readonly reset: boolean,
    readonly maxTimeout: Duration.Duration
  ) {
    this.onProgress = onProgress === undefined
      ? undefined
      : new HandOff(onProgress, maxProgressWaiting, true, book.fork)
  }
  get onLog(): HandOff<LogMessage> | undefined {
    if (this.logs !== undefined) return this.logs
    const logger = this.logger
    const onLog = logger.onLog
    if (onLog === undefined) return undefined
    return this.logs = new HandOff((message) => onLog.call(logger, message), maxLogsRunning, false, this.book.fork)
  }
  receive(inbound: Wire.Inbound): boolean {
    return onChannel(this.book, this, inbound, false)
  }
  answer(inbound: Wire.Inbound): void {
    onChannel(this.book, this, inbound, true)
  }
  fail(error: F): void {
    if (!waiting(this.book, this)) return
    this.book.pending.delete(this.id)
    settle(this, Exit.fail(error))
  }
}

const closedError = (method: string, reason: Transport.TransportError | undefined) =>
  new TransportClosed(reason === undefined ? { method } : { method, reason })

/** A call ends with the connection: `TransportClosed` (carrying `reason`, when known). */
const fail = <F>(call: Pending<F>, reason: Transport.TransportError | undefined) =>
  settle(call, Exit.fail(closedError(call.method, reason)))

/** Waits for a call's answer: an async with no allocation beyond its own (no Deferred). */
const answerOf = <F>(call: Pending<F>): Effect.Effect<unknown, unknown> =>
  Effect.async((resume) => {
    if (call.done !== undefined) resume(call.done)
    else call.resume = resume
  })

const millisOf = (duration: Duration.Duration) => Duration.isFinite(duration) ? Duration.toMillis(duration) : Infinity

/**
 * The sweeper of `pending`: fails the calls whose time is up (`timedOut` told of each), sleeping
 * until the earliest deadline; `watch` wakes it for an earlier one.
 */
const sweeping = <F>(
  pending: Map<number, Pending<F>>,
  clock: Clock.Clock,
  timedOut: (call: Pending<F>, timeout: Duration.Duration) => void
) => {
  /** The earliest deadline the sweeper sleeps until, and how to wake it for an earlier one. */
  let target = Infinity
  let wake = Deferred.unsafeMake<void>(FiberId.none)
  const watch = (call: Pending<F>) => {
    if (call.deadline < target) Deferred.unsafeDone(wake, Exit.void)
  }
  const sweeper: Effect.Effect<never> = Effect.suspend(() => {
    const now = clock.unsafeCurrentTimeMillis()
    let earliest = Infinity
    for (const call of Array.from(pending.values())) {
      const due = Math.min(call.deadline, call.hardDeadline)
      if (due <= now) {
        pending.delete(call.id)
        const timeout = call.hardDeadline <= call.deadline ? call.maxTimeout : call.timeout
        settle(call, Exit.fail(new RequestTimeout({ method: call.method, id: call.id, timeout })))
        timedOut(call, timeout)
      } else if (due < earliest) earliest = due
    }
    target = earliest
    wake = Deferred.unsafeMake<void>(FiberId.none)
    const woken = Deferred.await(wake)
    return Effect.zipRight(
      earliest === Infinity ? woken : Effect.raceFirst(clock.sleep(Duration.millis(earliest - now)), woken),
      sweeper
    )
  })
  return { sweeper, watch }
}

/** An answer from `client`: completes the call it answers (unknown, finished or foreign ids are ignored). */
const response = <F>(
  pending: Map<number, Pending<F>>,
  fork: (effect: Effect.Effect<void>) => void,
  client: Transport.ClientId,
  message: JsonRpc.Response
) => {
  if (message.id === null) {
    fork(Effect.logWarning("effect-mcp: the peer sent an error without an id", (message as JsonRpc.Failure).error))
    return
  }
  const call = typeof message.id === "number" ? pending.get(message.id) : undefined
  if (call === undefined || call.client !== client) return // unknown, finished, cancelled or foreign
  pending.delete(message.id as number)
  if (call.raw !== undefined) return answerRaw(call, call.raw, message)
  settle(
    call,
    "error" in message ? Exit.fail(McpError.fromWire(message.error, call.method)) : Exit.succeed(message.result)
  )
}

/** A progress notification from `client`: true when it was for one of our calls. */
const progress = <F>(
  pending: Map<number, Pending<F>>,
  options: Options<F>,
  client: Transport.ClientId,
  params: unknown
): boolean => {
  const token = (params as { readonly progressToken?: unknown } | undefined)?.progressToken
  const call = typeof token === "number" ? pending.get(token) : undefined
  if (call === undefined || call.client !== client) return false
  if (call.reset) call.deadline = options.clock.unsafeCurrentTimeMillis() + millisOf(call.timeout)
  call.onProgress?.push(params as Progress)
  return true
}

/** The transport failed call `id` of `client` locally: its caller fails with `error`. */
const failCall = <F>(pending: Map<number, Pending<F>>, client: Transport.ClientId, id: JsonRpc.RequestId, error: F) => {
  const call = typeof id === "number" ? pending.get(id) : undefined
  if (call === undefined || call.client !== client) return
  pending.delete(id as number)
  settle(call, Exit.fail(error))
}

/**
 * Sends notifications. Lazy: a transport's `send` may act when called (the in-memory one does),
 * and a notification must go out when its Effect runs, each time it runs.
 */
const notifying = (send: Options["send"]): Outbound["notify"] => (client, method, params, context) =>
  Effect.mapError(
    Effect.suspend(() => send(client, JsonRpc.notification(method, params), context)),
    (cause) => new TransportClosed({ method, cause })
  )

/** Raw calls of the book (`outboundRaw.ts`): calls whose answers go to their handlers as they came. */
const rawOf = <F>(
  options: Options<F>,
  book: Book<F>,
  live: { readonly next: () => number; readonly closed: (method: string) => TransportClosed | undefined },
  watch: (call: Pending<F>) => void,
  cancel: (call: Pending<F>, reason: string) => void
) => {
  const onItsChannel = options.request
  return Raw.make<F>({
    closed: live.closed,
    start: (client, method, related, handlers) => {
      const id = live.next()
      const call = new Call(
        book,
        id,
        client,
        method,
        related,
        undefined,
        handlers,
        options.timeout,
        false,
        options.maxTimeout
      )
      call.raw = handlers
      book.pending.set(id, call)
      return call
    },
    send: onItsChannel === undefined
      ? (call, message) => options.send(call.client, message, { related: call.related })
      : (call, message) => onItsChannel(call.client, message, call as Call<F>, { related: call.related }),
    sendNow: onItsChannel === undefined
      ? options.sendNow === undefined
        ? undefined
        : (call, message) => options.sendNow!(call.client, message, { related: call.related })
      : options.requestNow === undefined
      ? undefined
      : (call, message) => options.requestNow!(call.client, message, call as Call<F>, { related: call.related }),
    fork: options.fork,
    waiting: (call) => book.pending.get(call.id) === call,
    armed: (call) => {
      call.deadline = options.clock.unsafeCurrentTimeMillis() + millisOf(call.timeout)
      watch(call)
    },
    forget: (call) => void book.pending.delete(call.id),
    cancel
  })
}

export const make = <F = never>(options: Options<F>): Outbound<F> => {
  const pending = new Map<number, Pending<F>>()
  const book: Book<F> = { pending, receive: options.receive, fork: options.fork }
  let nextId = options.firstId
  let closed = false
  /** Why the transport ended, when it said: what later requests fail with. */
  let ended: Transport.TransportError | undefined

  const sendQuiet = (client: Transport.ClientId, frame: JsonRpc.Frame, related?: JsonRpc.RequestId) =>
    Effect.catchAll(
      options.send(client, frame, { related }),
      (error) => Effect.logDebug("effect-mcp: could not send", error)
    )

  /** Tells the peer a call of ours is cancelled (only a method that may be). */
  const cancel = (call: Pending<F>, reason: string) =>
    Method.isCancellable(call.method)
      ? sendQuiet(
        call.client,
        JsonRpc.notification("notifications/cancelled", { requestId: call.id, reason }),
        call.related
      )
      : Effect.void

  /** The transport's own channel per request, if it has them. */
  const onItsChannel = options.request

  const { clock } = options
  const { sweeper, watch } = sweeping(
    pending,
    clock,
    (call, timeout) => options.fork(cancel(call, `timed out after ${Duration.format(timeout)}`))
  )

  // Registered and sent whole, whatever happens to the caller meanwhile; only the wait is
  // interruptible, and interrupting it (however early) forgets the call and tells the peer.
  const { telemetry } = options
  const request: Outbound<F>["request"] = (client, method, params, requestOptions = {}) =>
    telemetry === undefined
      ? send(client, method, params, requestOptions, undefined, undefined)
      : Effect.withFiberRuntime((fiber) => send(client, method, params, requestOptions, telemetry, fiber.currentSpan))

  const send = (
    client: Transport.ClientId,
    method: string,
    params: unknown,
    requestOptions: RequestOptions,
    telemetry: Telemetry.Telemetry | undefined,
    parent: Tracer.AnySpan | undefined
  ): ReturnType<Outbound<F>["request"]> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        if (closed) return Effect.fail(closedError(method, ended))
        const id = nextId++
        requestOptions.onId?.(id)
        const reset = requestOptions.resetTimeoutOnProgress === true
        const wantsProgress = requestOptions.onProgress !== undefined || reset
        const timeout = requestOptions.timeout === undefined ? options.timeout : Duration.decode(requestOptions.timeout)
        const maxTimeout = requestOptions.maxTimeout === undefined
          ? options.maxTimeout
          : Duration.decode(requestOptions.maxTimeout)
        const call = new Call(
          book,
          id,
          client,
          method,
          requestOptions.related,
          requestOptions.onProgress,
          requestOptions,
          timeout,
          reset,
          maxTimeout
        )
        pending.set(id, call)
        const withToken = wantsProgress ? Meta.withMeta(params as object | undefined, { progressToken: id }) : params
        // Its span, a child of the caller's, its context in the request's `_meta`.
        const traced = telemetry?.sent(client, id, method, withToken, parent, requestOptions.spanLinks)
        if (traced?.active.span !== undefined) requestOptions.onSpan?.(traced.active.span)
        const finalParams = traced === undefined ? withToken : traced.params
        const message = JsonRpc.request(id, method, finalParams)
        const context = requestOptions.live === true
          ? { related: requestOptions.related, live: true }
          : { related: requestOptions.related }
        const sent = Effect.matchEffect(
          onItsChannel === undefined
            ? options.send(client, message, context)
            : onItsChannel(client, message, call, context),
          {
            onFailure: (cause) => {
              pending.delete(id)
              return Effect.fail(new TransportClosed({ method, cause }))
            },
            onSuccess: () => {
              // The time runs from the send; progress restarts it (when asked) up to the hard maximum.
              const now = clock.unsafeCurrentTimeMillis()
              call.deadline = now + millisOf(timeout)
              call.hardDeadline = reset ? now + millisOf(maxTimeout) : Infinity
              watch(call)
              // What settles a call: an answer, a local failure of the transport (`F`), the end of
              // the connection or the time. An `UnexpectedAnswer` comes only on a transport with a
              // channel per request, whose `F` includes it (`Transport.Protocol.request` says so).
              const answer = answerOf(call) as Effect.Effect<
                unknown,
                McpError.McpError | TransportClosed | RequestTimeout | F
              >
              return Effect.onInterrupt(restore(answer), () => {
                pending.delete(id)
                call.resume = undefined
                return cancel(call, requestOptions.cancelReason ?? "cancelled by the caller")
              })
            }
          }
        )
        return traced === undefined ? sent : Effect.onExit(sent, (exit) =>
          Effect.map(
            options.revision(client),
            (revision) => telemetry!.settle(traced.active, method, exit, revision)
          ))
      })
    )

  const live = { next: () => nextId++, closed: (method: string) => closed ? closedError(method, ended) : undefined }
  const disconnect: Outbound<F>["disconnect"] = (client, reason) => {
    for (const [id, call] of pending) {
      if (call.client !== client) continue
      pending.delete(id)
      fail(call, reason)
    }
  }

  const close: Outbound<F>["close"] = (reason) => {
    if (!closed) ended = reason
    closed = true
    const calls = Array.from(pending.values())
    pending.clear()
    for (const call of calls) fail(call, reason ?? ended)
  }

  return {
    request,
    raw: rawOf(options, book, live, watch, (call, reason) => options.fork(cancel(call, reason))),
    notify: notifying(options.send),
    response: (client, message) => response(pending, options.fork, client, message),
    progress: (client, params) => progress(pending, options, client, params),
    fail: (client, id, error) => failCall(pending, client, id, error),
    disconnect,
    close,
    sweeper
  }
}
