/**
 * Serving one inbound request, wherever its answer goes: the engine's transport by (client, id)
 * (`inbound.ts`), or a channel of its own (`Transport.Sink`, `Peer.Requests`: a 2026-07-28 HTTP
 * POST and its response).
 *
 * - `Serving` is what serving any request needs, made once: the runtime its fibers run on, its
 *   telemetry (a span and histogram sample per request, when something records), the Debug line
 *   per request (when the runtime logs Debug), and how a failure is rendered: a typed failure
 *   becomes the JSON-RPC error rendered for the revision of the request it answers; a defect
 *   becomes -32603 (and a log line); an interruption by whoever serves it, nothing.
 * - `Call` is one request in flight: its fiber (started at once: a handler that does not wait runs
 *   to its answer inside `start`), answered exactly once unless it was interrupted, or held open by
 *   its handler with no fiber (`hold`) until it is answered or interrupted.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
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
import * as Telemetry from "./telemetry.js"

/**
 * How one request is served: an effect, or an effect and services its fiber starts with (added to
 * the runtime's context as the fiber is forked, which costs nothing more, where providing them
 * inside the fiber would).
 */
export type Handling<R> =
  | Effect.Effect<unknown, unknown, R>
  | { readonly effect: Effect.Effect<unknown, unknown, R>; readonly context: Context.Context<never> }

/** What answers a held request later: true once the answer is sent. */
export type Answerer = (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<boolean>

/** Where a call goes once it is over: out of flight (the engine forgets it), and told when nobody answered it. */
export interface Owner {
  readonly forget: (call: Call<any>) => void
  readonly unanswered: (call: Call<any>) => void
}

const internalError = { code: JsonRpc.Code.InternalError, message: "Internal error" } as const

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

/** What serving any request needs, made once per engine (or per back end serving requests on sinks). */
export class Serving<R> {
  readonly fork: <A, E>(effect: Effect.Effect<A, E, R>) => Fiber.RuntimeFiber<A, E>
  /**
   * A line per request at Debug level, when the runtime logs Debug (read once: nothing is paid per
   * request otherwise).
   */
  readonly logRequests: boolean

  constructor(
    readonly runtime: Runtime.Runtime<R>,
    /** Spans and metrics of the requests served, when something records them. */
    readonly telemetry: Telemetry.Telemetry | undefined,
    /** The revision errors of `client` are rendered for (`request`: the one being answered, if any). */
    readonly revision: (
      client: Transport.ClientId | undefined,
      request: JsonRpc.Request | undefined
    ) => Effect.Effect<Revision.Revision, never, R>
  ) {
    this.fork = Runtime.runFork(runtime)
    this.logRequests = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel).ordinal <=
      LogLevel.Debug.ordinal
  }

  /**
   * The response to a request that failed with `cause`, or undefined when nobody answers it.
   * Interrupted by whoever serves it (`interrupted`): answered by nobody. Interrupted by itself (a
   * shut-down queue, a joined fiber that was interrupted): nobody cancelled it, so its client still
   * waits: -32603.
   */
  failure(
    client: Transport.ClientId | undefined,
    request: JsonRpc.Request,
    cause: Cause.Cause<unknown>,
    interrupted: boolean
  ): Effect.Effect<JsonRpc.Response | undefined, never, R> {
    if (Cause.isInterruptedOnly(cause) && interrupted) return Effect.succeed(undefined)
    const error = Cause.failureOption(cause)
    if (Option.isSome(error) && McpError.isMcpError(error.value)) {
      const wire = error.value
      return Effect.map(
        this.revision(client, request),
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

  /**
   * A request received: its span started (before its handler is), and `answer` once its span and
   * histogram sample have its outcome (and the revision it was answered in).
   */
  received(
    client: Transport.ClientId | undefined,
    request: JsonRpc.Request,
    answer: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
  ): {
    readonly active: Telemetry.Active | undefined
    readonly respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
  } {
    const active = this.telemetry?.served(client, request)
    if (active === undefined) return { active, respond: answer }
    return {
      active,
      respond: (response) =>
        Effect.zipRight(
          Effect.map(
            this.revision(client, request),
            (revision) => active.end(Telemetry.outcomeOfResponse(request.method, response), revision)
          ),
          answer(response)
        )
    }
  }

  /** `respond`, followed by the request's Debug line when they are logged. */
  answering(
    request: JsonRpc.Request,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
  ): {
    readonly answer: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
    readonly log: ((outcome: string) => Effect.Effect<void>) | undefined
  } {
    const log = this.logRequests ? requestLog(request) : undefined
    const answer = log === undefined
      ? respond
      : (response: JsonRpc.Response) => Effect.zipRight(respond(response), log(outcomeOf(response)))
    return { answer, log }
  }

  /**
   * The answer of a request whose handling is done already (an `Exit`: a handler that completed
   * synchronously), as an effect to run: it never was in flight, nothing can cancel it.
   */
  settled(
    client: Transport.ClientId | undefined,
    request: JsonRpc.Request,
    exit: Exit.Exit<unknown, unknown>,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>
  ): Effect.Effect<void, never, R> {
    const { answer } = this.answering(request, respond)
    return Exit.isSuccess(exit)
      ? answer(JsonRpc.success(request.id, exit.value))
      : Effect.flatMap(
        this.failure(client, request, exit.cause, false),
        (r) => r === undefined ? Effect.void : answer(r)
      )
  }

  /** How a fiber starting with `context` (added to the runtime's) is forked. */
  forkIn(
    context: Context.Context<never> | undefined
  ): (effect: Effect.Effect<void, never, R>) => Fiber.RuntimeFiber<void> {
    return context === undefined
      ? this.fork
      : Runtime.runFork(Runtime.make({
        context: Context.merge(this.runtime.context, context),
        fiberRefs: this.runtime.fiberRefs,
        runtimeFlags: this.runtime.runtimeFlags
      }))
  }
}

/** What the side gives for one request, as an effect and the context its fiber starts with (if any). */
export const handlingOf = <R>(
  give: () => Handling<R>
): { readonly effect: Effect.Effect<unknown, unknown, R>; readonly context: Context.Context<never> | undefined } => {
  let handling: Handling<R>
  try {
    handling = give()
  } catch (defect) {
    handling = Effect.die(defect)
  }
  return Effect.isEffect(handling)
    ? { effect: handling as Effect.Effect<unknown, unknown, R>, context: undefined }
    : handling as Exclude<typeof handling, Effect.Effect<any, any, any>>
}

/** One request in flight: served in a fiber, or held open by its handler with none. */
export class Call<R> {
  /** Its fiber, while it runs. */
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined = undefined
  /** Its fiber has ended (a held request stays in flight past it). */
  fiberEnded = false
  /** Interrupted by whoever serves it (a cancel, its client gone, its channel closed): answered by nobody. */
  interrupted = false
  /** Its response (or its batch's share of one) was given to `respond`. */
  answered = false
  /** Held open by its handler (`hold`): what to run if it is interrupted before it is answered. */
  held: { readonly onCancel: () => void } | undefined = undefined
  readonly cancellable: boolean
  /** Its Debug line, when requests are logged (set when it is served). */
  private log: ((outcome: string) => Effect.Effect<void>) | undefined = undefined

  constructor(
    readonly serving: Serving<R>,
    readonly owner: Owner,
    readonly client: Transport.ClientId | undefined,
    readonly request: JsonRpc.Request,
    readonly respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>,
    /** Its span and histogram sample, when telemetry is on. */
    readonly active: Telemetry.Active | undefined,
    /** In a batch: its share of the batch's answer is settled. */
    readonly ended: (() => void) | undefined
  ) {
    this.cancellable = Method.isCancellable(request.method)
  }

  /**
   * Starts its fiber (with `context` added to the runtime's): in flight until the fiber ends, or
   * past it while it is held. A handler that does not wait ends inside the fork, and the observer
   * (called at once then) ends the call.
   */
  start(effect: Effect.Effect<unknown, unknown, R>, context: Context.Context<never> | undefined): void {
    const fiber = this.serving.forkIn(context)(this.serve(effect))
    if (!this.fiberEnded) this.fiber = fiber
    fiber.addObserver(() => {
      this.fiber = undefined
      this.fiberEnded = true
      if (this.held === undefined) this.end()
    })
  }

  /** Serves it: `respond` gets its response, unless it was interrupted (then nothing is answered). */
  private serve(effect: Effect.Effect<unknown, unknown, R>): Effect.Effect<void, never, R> {
    const { request, serving } = this
    const { answer, log } = serving.answering(request, this.respond)
    this.log = log
    const span = this.active?.span
    const served = Effect.matchCauseEffect(span === undefined ? effect : Effect.withParentSpan(effect, span), {
      onSuccess: (result) => {
        // Held open by its handler: answered later, through `hold` (or already, by the holder).
        if (this.held !== undefined || this.answered) return Effect.void
        this.answered = true
        return answer(JsonRpc.success(request.id, result))
      },
      onFailure: (cause) => {
        this.release()
        return Effect.flatMap(serving.failure(this.client, request, cause, this.interrupted), (r) => {
          if (r === undefined || this.answered) return Effect.void
          this.answered = true
          return answer(r)
        })
      }
    })
    return log === undefined ? served : Effect.onInterrupt(served, () => log("cancelled"))
  }

  /** It is over: out of flight, its batch told, and its owner told when nobody answered it. */
  end(): void {
    this.owner.forget(this)
    this.ended?.()
    if (!this.answered) {
      this.owner.unanswered(this)
      this.active?.end(Telemetry.cancelled, undefined)
    }
  }

  /** Lets go of it if it is held (its handler failed, or it is interrupted): its handler is told. */
  release(): void {
    const held = this.held
    if (held !== undefined) {
      this.held = undefined
      held.onCancel()
    }
  }

  /** Interrupts it (nothing is sent for it): its fiber, or, held with its fiber ended, ends it now. */
  interrupt(): void {
    this.interrupted = true
    this.release()
    if (this.fiber !== undefined) this.fiber.unsafeInterruptAsFork(FiberId.none)
    else if (this.fiberEnded) {
      // Held with no fiber: its Debug line is written here (an interrupted fiber writes its own).
      if (this.log !== undefined) this.serving.fork(this.log("cancelled"))
      this.end()
    }
  }

  /**
   * Holds it open once its fiber ends, with no fiber (see `Peer.hold`): `onCancel` runs if it is
   * interrupted first. What answers it later, or undefined when it is not in flight any more.
   */
  hold(onCancel: () => void): Answerer | undefined {
    if (this.interrupted || this.answered || this.held !== undefined) return undefined
    this.held = { onCancel }
    // Run by the handler's side, later: in the runtime's context, as the request's fiber was.
    return (exit) =>
      Effect.provide(
        Effect.suspend(() => {
          if (this.held === undefined) return Effect.succeed(false)
          this.held = undefined
          const { answer } = this.serving.answering(this.request, this.respond)
          const response = Exit.isSuccess(exit)
            ? Effect.succeed(JsonRpc.success(this.request.id, exit.value))
            : this.serving.failure(this.client, this.request, exit.cause, this.interrupted)
          return Effect.flatMap(response, (r) => {
            // Over once answered; a fiber still running ends it itself.
            const over = Effect.sync(() => this.fiberEnded && this.end())
            if (r === undefined) return Effect.as(over, false)
            this.answered = true
            return Effect.as(Effect.ensuring(answer(r), over), true)
          })
        }),
        this.serving.runtime.context
      )
  }
}

/**
 * Interrupts every call given and waits for their fibers to end (nothing is sent for them); a held
 * call with no fiber ends at once.
 */
export const interruptAll = (calls: Iterable<Call<any>>): Effect.Effect<void> => {
  const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
  for (const call of Array.from(calls)) {
    if (call.fiber !== undefined) {
      call.interrupted = true
      call.release()
      fibers.push(call.fiber)
    } else call.interrupt()
  }
  return Fiber.interruptAll(fibers)
}
