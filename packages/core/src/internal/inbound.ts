/**
 * The inbound half of the engine: what clients send.
 *
 * - Each request runs in one fiber of the engine's runtime, started at once (a handler that
 *   does not wait runs to its answer inside `receive`), in flight by (client, id): two
 *   clients' `id: 1` never collide; a duplicate in-flight id of one client is -32600. A request
 *   whose handling is done when it is given (an `Exit`) has no fiber of its own and is never in
 *   flight: its answer is sent with the others given in the same run of messages, by one fiber,
 *   before anything else the engine sends. A request its handler holds open (`hold`) stays in
 *   flight with no fiber until it is answered or cancelled.
 * - Each request is answered exactly once, through the transport, unless it was interrupted
 *   (cancelled, its client gone): then nothing is sent.
 * - A typed failure becomes the JSON-RPC error rendered for the revision of the request it
 *   answers; a defect becomes -32603 (and a log line); the engine serves the next message.
 * - `notifications/cancelled` interrupts the request it names, when its method is cancellable.
 * - Batches are accepted only where the caller says the client's revision allows them; one
 *   array answers the batch, without the cancelled requests.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as HttpHeaders from "../HttpHeaders.js"
import * as JsonRpc from "../JsonRpc.js"
import * as McpError from "../McpError.js"
import * as Method from "../Method.js"
import type * as Revision from "../Revision.js"
import type * as Transport from "../Transport.js"
import type * as Wire from "../Wire.js"
import type { Outbound } from "./outbound.js"
import * as Telemetry from "./telemetry.js"

export interface Options<R> {
  readonly runtime: Runtime.Runtime<R>
  readonly onRequest: (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    context: Transport.ReceiveContext | undefined
  ) =>
    | Effect.Effect<unknown, unknown, R>
    | { readonly effect: Effect.Effect<unknown, unknown, R>; readonly context: Context.Context<never> }
  readonly onNotification: (
    client: Transport.ClientId,
    notification: JsonRpc.Notification
  ) => Effect.Effect<void, never, R>
  /** The revision errors of `client` are rendered for (`request`: the one being answered, if any). */
  readonly revision: (
    client: Transport.ClientId,
    request: JsonRpc.Request | undefined
  ) => Effect.Effect<Revision.Revision, never, R>
  readonly batching: (client: Transport.ClientId) => Effect.Effect<boolean, never, R>
  readonly send: (
    client: Transport.ClientId,
    frame: JsonRpc.Frame,
    context?: Transport.SendContext
  ) => Effect.Effect<void, Transport.TransportError>
  readonly outbound: Pick<Outbound<unknown>, "progress" | "response">
  /** Spans and metrics of the requests served, when something records them. */
  readonly telemetry: Telemetry.Telemetry | undefined
  /** Request `id` of `client` ended and nothing will be sent for it (it was interrupted). */
  readonly unanswered: (client: Transport.ClientId, id: JsonRpc.RequestId) => void
}

export interface Inbound {
  readonly receive: (client: Transport.ClientId, inbound: Wire.Inbound, context?: Transport.ReceiveContext) => void
  /** Interrupts request `id` of `client` (nothing is sent for it). */
  readonly cancel: (client: Transport.ClientId, id: JsonRpc.RequestId) => void
  /** Interrupts every request of `client`. */
  readonly disconnect: (client: Transport.ClientId) => void
  /** Requests in flight, over every client. */
  readonly size: () => number
  /** Interrupts every request and waits for them to end. */
  readonly interruptAll: Effect.Effect<void>
  /**
   * Holds request `id` of `client` open once its fiber ends, with no fiber (see `Peer.hold`):
   * `onCancel` runs if it is cancelled or its client goes (then nothing is sent). Returns what
   * answers it (true once the answer is sent), or undefined when it is not in flight.
   */
  readonly hold: (
    client: Transport.ClientId,
    id: JsonRpc.RequestId,
    onCancel: () => void
  ) => ((exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>) | undefined
}

interface Call {
  readonly client: Transport.ClientId
  readonly request: JsonRpc.Request
  readonly respond: (response: JsonRpc.Response) => Effect.Effect<void, never, any>
  readonly ended: (() => void) | undefined
  /** Its fiber, while it runs. */
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  /** Its fiber has ended (a held request stays in flight past it). */
  fiberEnded: boolean
  readonly cancellable: boolean
  /** The engine interrupted it (a cancel, its client gone): it is answered by nobody. */
  interrupted: boolean
  /** Its response (or its batch's share of one) was given to `respond`. */
  answered: boolean
  /** Held open by its handler (`hold`): what to run if it is cancelled before it is answered. */
  held: { readonly onCancel: () => void } | undefined
  /** Its span and histogram sample, when telemetry is on. */
  readonly active: Telemetry.Active | undefined
}

/** A request answered at once was never in flight: nobody interrupted it. */
const notInterrupted: Pick<Call, "interrupted"> = { interrupted: false }

const internalError = { code: JsonRpc.Code.InternalError, message: "Internal error" } as const

const duplicate = (id: JsonRpc.RequestId) =>
  JsonRpc.failure(id, {
    code: JsonRpc.Code.InvalidRequest,
    message: `Invalid Request: id ${JSON.stringify(id)} is already in flight`
  })

const batchRefused = JsonRpc.failure(null, {
  code: JsonRpc.Code.InvalidRequest,
  message: "Invalid Request: batches are not supported in this protocol revision"
})

export const make = <R>(options: Options<R>): Inbound => {
  const { outbound, runtime } = options
  const fork = Runtime.runFork(runtime)
  // A line per request at Debug level, when the engine's runtime logs Debug (read once: nothing
  // is paid per request otherwise).
  const logRequests = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel).ordinal <=
    LogLevel.Debug.ordinal
  const calls = new Map<Transport.ClientId, Map<JsonRpc.RequestId, Call>>()
  let count = 0

  const sendQuiet = (client: Transport.ClientId, frame: JsonRpc.Frame, related?: JsonRpc.RequestId) =>
    Effect.catchAll(
      options.send(client, frame, related === undefined ? undefined : { related }),
      (error) => Effect.logDebug("effect-mcp: could not send", error)
    )

  const failure = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    cause: Cause.Cause<unknown>,
    call: Pick<Call, "interrupted">
  ): Effect.Effect<JsonRpc.Response | undefined, never, R> => {
    // Interrupted by the engine: answered by nobody. Interrupted by itself (a shut-down queue, a
    // joined fiber that was interrupted): nobody cancelled it, so its client still waits: -32603.
    if (Cause.isInterruptedOnly(cause) && call.interrupted) return Effect.succeed(undefined)
    const error = Cause.failureOption(cause)
    if (Option.isSome(error) && McpError.isMcpError(error.value)) {
      const wire = error.value
      return Effect.map(
        options.revision(client, request),
        (revision) => JsonRpc.failure(request.id, wire.toWire(revision))
      )
    }
    // The tool, prompt or resource it was for, when it was for one: what a reader looks for first.
    const name = HttpHeaders.nameOf(request.method, request.params)
    return Effect.as(
      Effect.logError(`effect-mcp: ${request.method}${name !== undefined ? ` ${name}` : ""} failed`, cause).pipe(
        Effect.annotateLogs({ method: request.method, id: String(request.id), ...(name !== undefined ? { name } : {}) })
      ),
      JsonRpc.failure(request.id, internalError)
    )
  }

  const { telemetry } = options

  /**
   * `respond`, once the request's span and histogram sample have its outcome (and the revision it
   * was answered in).
   */
  const recorded = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    active: Telemetry.Active,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
  ) =>
  (response: JsonRpc.Response) =>
    Effect.zipRight(
      Effect.map(
        options.revision(client, request),
        (revision) => active.end(Telemetry.outcomeOfResponse(request.method, response), revision)
      ),
      respond(response)
    )

  /** What the side gives for one request: its effect, and the context its fiber starts with (if any). */
  const handle = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    received: Transport.ReceiveContext | undefined
  ): { readonly effect: Effect.Effect<unknown, unknown, R>; readonly context: Context.Context<never> | undefined } => {
    let handling: ReturnType<Options<R>["onRequest"]>
    try {
      handling = options.onRequest(client, request, received)
    } catch (defect) {
      handling = Effect.die(defect)
    }
    return Effect.isEffect(handling)
      ? { effect: handling as Effect.Effect<unknown, unknown, R>, context: undefined }
      : handling as Exclude<typeof handling, Effect.Effect<any, any, any>>
  }

  /** `respond`, followed by the request's Debug line when the engine logs them. */
  const answering = (
    request: JsonRpc.Request,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
  ) => {
    const log = logRequests ? requestLog(request) : undefined
    const answer = log === undefined
      ? respond
      : (response: JsonRpc.Response) => Effect.zipRight(respond(response), log(outcomeOf(response)))
    return { answer, log }
  }

  /**
   * Serves one request: `respond` gets its response, unless it was interrupted (then nothing is
   * answered).
   */
  const serve = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    call: Call,
    effect: Effect.Effect<unknown, unknown, R>,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
  ): Effect.Effect<void, never, R> => {
    const { answer, log } = answering(request, respond)
    const span = call.active?.span
    const served = Effect.matchCauseEffect(span === undefined ? effect : Effect.withParentSpan(effect, span), {
      onSuccess: (result) => {
        // Held open by its handler: answered later, through `hold` (or already, by the holder).
        if (call.held !== undefined || call.answered) return Effect.void
        call.answered = true
        return answer(JsonRpc.success(request.id, result))
      },
      onFailure: (cause) =>
        Effect.flatMap(failure(client, request, cause, release(call)), (r) => {
          if (r === undefined || call.answered) return Effect.void
          call.answered = true
          return answer(r)
        })
    })
    return log === undefined ? served : Effect.onInterrupt(served, () => log("cancelled"))
  }

  /**
   * Answers a request whose handling is already done (an `Exit`: a handler that completed
   * synchronously). It never was in flight: nothing can cancel it, so it needs no fiber of its
   * own, no entry in the map and no observer; only the send runs, in a fiber of the engine.
   */
  const settled = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    exit: Exit.Exit<unknown, unknown>,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>,
    ended: (() => void) | undefined
  ) => {
    const { answer } = answering(request, respond)
    const effect = Exit.isSuccess(exit)
      ? answer(JsonRpc.success(request.id, exit.value))
      : Effect.flatMap(
        failure(client, request, exit.cause, notInterrupted),
        (r) => r === undefined ? Effect.void : answer(r)
      )
    // In a batch: its share of the batch's answer, at once.
    if (ended !== undefined) return fork(effect).addObserver(ended)
    if (outbox.length === 0) queueMicrotask(flush)
    outbox.push(effect)
  }

  /**
   * The answers of requests done at once, in order of arrival, for one fiber to send (a fiber
   * each cost more than the rest of such a request). Sent at the end of the run of messages that
   * gave them (a microtask), and before anything else the engine starts or sends: nothing it
   * sends overtakes them.
   */
  let outbox: Array<Effect.Effect<void, never, R>> = []
  const flush = () => {
    if (outbox.length === 0) return
    const answers = outbox
    outbox = []
    fork(answers.length === 1 ? answers[0] : Effect.forEach(answers, (answer) => answer, { discard: true }))
  }

  /** What a response says of its request, in a word or two. */
  const outcomeOf = (response: JsonRpc.Response): string => {
    if ("error" in response) return `error ${response.error.code}`
    const result = response.result as { readonly isError?: unknown; readonly resultType?: unknown } | undefined
    if (result?.isError === true) return "tool error"
    if (result?.resultType === "input_required") return "input required"
    return "ok"
  }

  /** The request's line at Debug level, given its outcome: method, name, duration (a cancel's too). */
  const requestLog = (request: JsonRpc.Request) => {
    const started = performance.now()
    const name = HttpHeaders.nameOf(request.method, request.params)
    return (outcome: string) =>
      Effect.logDebug(
        `effect-mcp: ${request.method}${name !== undefined ? ` ${name}` : ""} ${outcome} in ${
          (performance.now() - started).toFixed(1)
        } ms`
      ).pipe(Effect.annotateLogs({ method: request.method, id: String(request.id), outcome }))
  }

  const callsOf = (client: Transport.ClientId): Map<JsonRpc.RequestId, Call> => {
    let map = calls.get(client)
    if (map === undefined) calls.set(client, map = new Map())
    return map
  }

  const forget = (client: Transport.ClientId, id: JsonRpc.RequestId, call: Call) => {
    const map = calls.get(client)
    if (map === undefined || map.get(id) !== call) return
    map.delete(id)
    count--
    if (map.size === 0) calls.delete(client)
  }

  const isBusy = (client: Transport.ClientId, id: JsonRpc.RequestId) => calls.get(client)?.has(id) === true

  const forkIn = (context: Context.Context<never> | undefined) =>
    context === undefined
      ? fork
      : Runtime.runFork(Runtime.make({
        context: Context.merge(runtime.context, context),
        fiberRefs: runtime.fiberRefs,
        runtimeFlags: runtime.runtimeFlags
      }))

  /** Starts serving request `id` of `client`: in flight until its fiber ends (unless it is done at once). */
  const start = (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    answer: (response: JsonRpc.Response) => Effect.Effect<void, never, R>,
    ended?: () => void,
    received?: Transport.ReceiveContext
  ) => {
    // Its span starts before its handler does, and ends with its answer.
    const active = telemetry?.served(client, request)
    const respond = active === undefined ? answer : recorded(client, request, active, answer)
    const { context, effect } = handle(client, request, received)
    // Done already (a handler that completed synchronously): answered without a fiber of its own.
    if (Exit.isExit(effect)) return settled(client, request, effect, respond, ended)
    const id = request.id
    const call: Call = {
      client,
      request,
      respond,
      ended,
      fiber: undefined,
      fiberEnded: false,
      cancellable: Method.isCancellable(request.method),
      interrupted: false,
      answered: false,
      held: undefined,
      active
    }
    callsOf(client).set(id, call)
    count++
    // Registered first, then started at once: a handler that does not wait ends inside the fork,
    // and the observer (called at once then) forgets it; a held one stays, without its fiber. What
    // it sends comes after the answers given before it.
    flush()
    const fiber = forkIn(context)(serve(client, request, call, effect, respond))
    if (!call.fiberEnded) call.fiber = fiber
    fiber.addObserver(() => {
      call.fiber = undefined
      call.fiberEnded = true
      if (call.held === undefined) end(call)
    })
  }

  /** Request `call` is over: out of flight, its batch told, and `unanswered` when nobody answered it. */
  const end = (call: Call) => {
    forget(call.client, call.request.id, call)
    call.ended?.()
    if (!call.answered) {
      options.unanswered(call.client, call.request.id)
      call.active?.end(Telemetry.cancelled, undefined)
    }
  }

  /** Lets go of a held request (its handler failed, or it is cancelled): its handler is told. */
  const release = (call: Call): Call => {
    const held = call.held
    if (held !== undefined) {
      call.held = undefined
      held.onCancel()
    }
    return call
  }

  const hold: Inbound["hold"] = (client, id, onCancel) => {
    const call = calls.get(client)?.get(id)
    if (call === undefined || call.interrupted || call.answered || call.held !== undefined) return undefined
    call.held = { onCancel }
    // Run by the handler's side, later: in the engine's context, as the request's fiber was.
    return (exit) =>
      Effect.provide(
        Effect.suspend(() => {
          if (call.held === undefined) return Effect.succeed(false)
          call.held = undefined
          const { answer } = answering(call.request, call.respond)
          const response = Exit.isSuccess(exit)
            ? Effect.succeed(JsonRpc.success(id, exit.value))
            : failure(client, call.request, exit.cause, call)
          return Effect.flatMap(response, (r) => {
            // Over once answered; a fiber still running ends it itself.
            const over = Effect.sync(() => call.fiberEnded && end(call))
            if (r === undefined) return Effect.as(over, false)
            call.answered = true
            return Effect.as(Effect.ensuring(answer(r), over), true)
          })
        }),
        runtime.context
      )
  }

  const request = (client: Transport.ClientId, message: JsonRpc.Request, received?: Transport.ReceiveContext) => {
    if (isBusy(client, message.id)) {
      flush()
      fork(sendQuiet(client, duplicate(message.id), message.id))
      return
    }
    start(client, message, (response) => sendQuiet(client, response, message.id), undefined, received)
  }

  const interrupt = (call: Call) => {
    call.interrupted = true
    release(call)
    if (call.fiber !== undefined) call.fiber.unsafeInterruptAsFork(FiberId.none)
    // Held, its fiber ended: over now.
    else if (call.fiberEnded) end(call)
  }

  const cancel: Inbound["cancel"] = (client, id) => {
    const call = calls.get(client)?.get(id)
    if (call !== undefined && call.cancellable && (call.fiber !== undefined || call.held !== undefined)) {
      interrupt(call)
    }
  }

  const notification = (client: Transport.ClientId, message: JsonRpc.Notification) => {
    switch (message.method) {
      case "notifications/cancelled": {
        const id = (message.params as { readonly requestId?: unknown } | undefined)?.requestId
        if (typeof id === "string" || typeof id === "number") cancel(client, id)
        return
      }
      case "notifications/progress":
        if (outbound.progress(client, message.params)) return
    }
    // Started at once, like a request: what a notification changes is seen by the next message.
    fork(options.onNotification(client, message))
  }

  const single = (client: Transport.ClientId, message: JsonRpc.Message, received?: Transport.ReceiveContext) => {
    if (!("method" in message)) outbound.response(client, message)
    else if ("id" in message) request(client, message as JsonRpc.Request, received)
    else notification(client, message)
  }

  const invalid = (client: Transport.ClientId, item: Wire.Invalid): Effect.Effect<JsonRpc.Failure, never, R> =>
    Effect.map(options.revision(client, undefined), (revision) => JsonRpc.failure(item.id, item.error.toWire(revision)))

  const batch = (client: Transport.ClientId, items: Wire.Batch["items"], received?: Transport.ReceiveContext) => {
    const out: Array<JsonRpc.Response> = []
    const refused: Array<Effect.Effect<JsonRpc.Failure, never, R>> = []
    const answers: Array<Deferred.Deferred<JsonRpc.Response | undefined>> = []
    const seen = new Set<JsonRpc.RequestId>()
    for (const item of items) {
      if (item._tag === "Invalid") {
        refused.push(invalid(client, item))
        continue
      }
      const message = item.message
      if (!("method" in message && "id" in message)) {
        single(client, message, received)
        continue
      }
      const request = message as JsonRpc.Request
      if (seen.has(request.id) || isBusy(client, request.id)) {
        out.push(duplicate(request.id))
        continue
      }
      seen.add(request.id)
      const done = Deferred.unsafeMake<JsonRpc.Response | undefined>(FiberId.none)
      answers.push(done)
      // Answered, or (interrupted) settled with nothing when its fiber ends: the first one counts.
      start(
        client,
        request,
        (response) => Deferred.succeed(done, response),
        () => Deferred.unsafeDone(done, Exit.succeed(undefined)),
        received
      )
    }
    // One response array for the whole batch, without the cancelled requests.
    fork(Effect.gen(function*() {
      for (const failure of refused) out.push(yield* failure)
      for (const done of answers) {
        const response = yield* Deferred.await(done)
        if (response !== undefined) out.push(response)
      }
      if (out.length > 0) yield* sendQuiet(client, out)
    }))
  }

  const receive: Inbound["receive"] = (client, inbound, received) => {
    try {
      // Anything but a request: after the answers given before it.
      if (inbound._tag !== "Single" || !("id" in inbound.message && "method" in inbound.message)) flush()
      switch (inbound._tag) {
        case "Single":
          return single(client, inbound.message, received)
        case "Invalid":
          return void fork(Effect.flatMap(invalid(client, inbound), (failure) => sendQuiet(client, failure)))
        case "Batch": {
          const items = inbound.items
          return void fork(
            Effect.flatMap(
              options.batching(client),
              (allowed) => allowed ? Effect.sync(() => batch(client, items, received)) : sendQuiet(client, batchRefused)
            )
          )
        }
      }
    } catch (cause) {
      // A bug while routing one frame is logged; the engine goes on with the next.
      fork(Effect.logError("effect-mcp: could not route a message", Cause.die(cause)))
    }
  }

  const disconnect: Inbound["disconnect"] = (client) => {
    flush()
    const map = calls.get(client)
    if (map === undefined) return
    for (const call of map.values()) interrupt(call)
  }

  const interruptAll = Effect.suspend(() => {
    flush()
    const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
    for (const map of calls.values()) {
      for (const call of Array.from(map.values())) {
        if (call.fiber !== undefined) {
          call.interrupted = true
          release(call)
          fibers.push(call.fiber)
        } else interrupt(call)
      }
    }
    return Fiber.interruptAll(fibers)
  })

  return { receive, cancel, disconnect, size: () => count, interruptAll, hold }
}
