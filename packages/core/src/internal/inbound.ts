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
 *
 * Serving one request (its fiber, span, Debug line, error rendering, hold) is `served.ts`'s
 * `Call`, shared with the requests served on channels of their own (`Peer.Requests`); the
 * engine keeps them by (client, id) and routes frames to them.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import type * as Runtime from "effect/Runtime"
import * as JsonRpc from "../JsonRpc.js"
import type * as Revision from "../Revision.js"
import type * as Transport from "../Transport.js"
import type * as Wire from "../Wire.js"
import type { Outbound } from "./outbound.js"
import type { Handling, Owner } from "./served.js"
import { Call, handlingOf, interruptAll, Serving } from "./served.js"
import type * as Telemetry from "./telemetry.js"

export interface Options<R> {
  readonly runtime: Runtime.Runtime<R>
  readonly onRequest: (
    client: Transport.ClientId,
    request: JsonRpc.Request,
    context: Transport.ReceiveContext | undefined
  ) => Handling<R>
  readonly onNotification: (
    client: Transport.ClientId,
    notification: JsonRpc.Notification,
    context: Transport.ReceiveContext | undefined
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
  /** Requests in flight outside the engine (`Transport.Protocol.inFlight`): refused as its own. */
  readonly inFlight: ((client: Transport.ClientId, id: JsonRpc.RequestId) => boolean) | undefined
}

export interface Inbound {
  readonly receive: (client: Transport.ClientId, inbound: Wire.Inbound, context?: Transport.ReceiveContext) => void
  /** Interrupts request `id` of `client` (nothing is sent for it). */
  readonly cancel: (client: Transport.ClientId, id: JsonRpc.RequestId) => void
  /** Interrupts every request of `client`. */
  readonly disconnect: (client: Transport.ClientId) => void
  /** Requests in flight, over every client. */
  readonly size: () => number
  /** Whether request `id` of `client` is in flight (a new one with that id is refused). */
  readonly isBusy: (client: Transport.ClientId, id: JsonRpc.RequestId) => boolean
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

const duplicate = (id: JsonRpc.RequestId) =>
  JsonRpc.failure(id, {
    code: JsonRpc.Code.InvalidRequest,
    message: `Invalid Request: id ${JSON.stringify(id)} is already in flight`
  })

const batchRefused = JsonRpc.failure(null, {
  code: JsonRpc.Code.InvalidRequest,
  message: "Invalid Request: batches are not supported in this protocol revision"
})

/** The engine's inbound half: its requests in flight by (client, id), and the frames routed to them. */
class Engine<R> implements Inbound, Owner {
  private readonly serving: Serving<R>
  private readonly calls = new Map<Transport.ClientId, Map<JsonRpc.RequestId, Call<R>>>()
  private count = 0
  /**
   * The answers of requests done at once, in order of arrival, for one fiber to send (a fiber
   * each cost more than the rest of such a request). Sent at the end of the run of messages that
   * gave them (a microtask), and before anything else the engine starts or sends: nothing it
   * sends overtakes them.
   */
  private outbox: Array<Effect.Effect<void, never, R>> = []

  constructor(private readonly options: Options<R>) {
    this.serving = new Serving(
      options.runtime,
      options.telemetry,
      (client, request) => options.revision(client!, request)
    )
  }

  private get fork() {
    return this.serving.fork
  }

  private sendQuiet(client: Transport.ClientId, frame: JsonRpc.Frame, related?: JsonRpc.RequestId) {
    return Effect.catchAll(
      this.options.send(client, frame, related === undefined ? undefined : { related }),
      (error) => Effect.logDebug("effect-mcp: could not send", error)
    )
  }

  readonly flush = (): void => {
    if (this.outbox.length === 0) return
    const answers = this.outbox
    this.outbox = []
    this.fork(answers.length === 1 ? answers[0] : Effect.forEach(answers, (answer) => answer, { discard: true }))
  }

  /**
   * Answers a request whose handling is already done (an `Exit`: a handler that completed
   * synchronously). It never was in flight: nothing can cancel it, so it needs no fiber of its
   * own, no entry in the map and no observer; only the send runs, in a fiber of the engine.
   */
  private settled(
    client: Transport.ClientId,
    request: JsonRpc.Request,
    exit: Exit.Exit<unknown, unknown>,
    respond: (response: JsonRpc.Response) => Effect.Effect<void, never, R>,
    ended: (() => void) | undefined
  ) {
    const effect = this.serving.settled(client, request, exit, respond)
    // In a batch: its share of the batch's answer, at once.
    if (ended !== undefined) return void this.fork(effect).addObserver(ended)
    if (this.outbox.length === 0) queueMicrotask(this.flush)
    this.outbox.push(effect)
  }

  forget(call: Call<any>): void {
    const client = call.client!
    const map = this.calls.get(client)
    if (map === undefined || map.get(call.request.id) !== call) return
    map.delete(call.request.id)
    this.count--
    if (map.size === 0) this.calls.delete(client)
  }

  unanswered(call: Call<any>): void {
    this.options.unanswered(call.client!, call.request.id)
  }

  readonly isBusy = (client: Transport.ClientId, id: JsonRpc.RequestId): boolean =>
    this.calls.get(client)?.has(id) === true || this.options.inFlight?.(client, id) === true

  /** Starts serving request `id` of `client`: in flight until its fiber ends (unless it is done at once). */
  private start(
    client: Transport.ClientId,
    request: JsonRpc.Request,
    answer: (response: JsonRpc.Response) => Effect.Effect<void, never, R>,
    ended?: () => void,
    received?: Transport.ReceiveContext
  ) {
    // Its span starts before its handler does, and ends with its answer.
    const { active, respond } = this.serving.received(client, request, answer)
    const { context, effect } = handlingOf(() => this.options.onRequest(client, request, received))
    // Done already (a handler that completed synchronously): answered without a fiber of its own.
    if (Exit.isExit(effect)) return this.settled(client, request, effect, respond, ended)
    const call = new Call(this.serving, this, client, request, respond, active, ended)
    let map = this.calls.get(client)
    if (map === undefined) this.calls.set(client, map = new Map())
    map.set(request.id, call)
    this.count++
    // Registered first, then started at once. What it sends comes after the answers given before it.
    this.flush()
    call.start(effect, context)
  }

  readonly hold: Inbound["hold"] = (client, id, onCancel) => this.calls.get(client)?.get(id)?.hold(onCancel)

  private request(client: Transport.ClientId, message: JsonRpc.Request, received?: Transport.ReceiveContext) {
    if (this.isBusy(client, message.id)) {
      this.flush()
      this.fork(this.sendQuiet(client, duplicate(message.id), message.id))
      return
    }
    this.start(client, message, (response) => this.sendQuiet(client, response, message.id), undefined, received)
  }

  readonly cancel: Inbound["cancel"] = (client, id) => {
    const call = this.calls.get(client)?.get(id)
    if (call !== undefined && call.cancellable && (call.fiber !== undefined || call.held !== undefined)) {
      call.interrupt()
    }
  }

  private notification(
    client: Transport.ClientId,
    message: JsonRpc.Notification,
    received: Transport.ReceiveContext | undefined
  ) {
    switch (message.method) {
      case "notifications/cancelled": {
        const id = (message.params as { readonly requestId?: unknown } | undefined)?.requestId
        if (typeof id === "string" || typeof id === "number") this.cancel(client, id)
        return
      }
      case "notifications/progress":
        if (this.options.outbound.progress(client, message.params)) return
    }
    // Started at once, like a request: what a notification changes is seen by the next message.
    this.fork(this.options.onNotification(client, message, received))
  }

  private single(client: Transport.ClientId, message: JsonRpc.Message, received?: Transport.ReceiveContext) {
    if (!("method" in message)) this.options.outbound.response(client, message)
    else if ("id" in message) this.request(client, message as JsonRpc.Request, received)
    else this.notification(client, message, received)
  }

  private invalid(client: Transport.ClientId, item: Wire.Invalid): Effect.Effect<JsonRpc.Failure, never, R> {
    return Effect.map(
      this.options.revision(client, undefined),
      (revision) => JsonRpc.failure(item.id, item.error.toWire(revision))
    )
  }

  private batch(client: Transport.ClientId, items: Wire.Batch["items"], received?: Transport.ReceiveContext) {
    const out: Array<JsonRpc.Response> = []
    const refused: Array<Effect.Effect<JsonRpc.Failure, never, R>> = []
    const answers: Array<Deferred.Deferred<JsonRpc.Response | undefined>> = []
    const seen = new Set<JsonRpc.RequestId>()
    for (const item of items) {
      if (item._tag === "Invalid") {
        refused.push(this.invalid(client, item))
        continue
      }
      const message = item.message
      if (!("method" in message && "id" in message)) {
        this.single(client, message, received)
        continue
      }
      const request = message as JsonRpc.Request
      if (seen.has(request.id) || this.isBusy(client, request.id)) {
        out.push(duplicate(request.id))
        continue
      }
      seen.add(request.id)
      const done = Deferred.unsafeMake<JsonRpc.Response | undefined>(FiberId.none)
      answers.push(done)
      // Answered, or (interrupted) settled with nothing when its fiber ends: the first one counts.
      this.start(
        client,
        request,
        (response) => Deferred.succeed(done, response),
        () => Deferred.unsafeDone(done, Exit.succeed(undefined)),
        received
      )
    }
    // One response array for the whole batch, without the cancelled requests.
    const self = this
    this.fork(Effect.gen(function*() {
      for (const failure of refused) out.push(yield* failure)
      for (const done of answers) {
        const response = yield* Deferred.await(done)
        if (response !== undefined) out.push(response)
      }
      if (out.length > 0) yield* self.sendQuiet(client, out)
    }))
  }

  readonly receive: Inbound["receive"] = (client, inbound, received) => {
    try {
      // Anything but a request: after the answers given before it.
      if (inbound._tag !== "Single" || !("id" in inbound.message && "method" in inbound.message)) this.flush()
      switch (inbound._tag) {
        case "Single":
          return this.single(client, inbound.message, received)
        case "Invalid":
          return void this.fork(
            Effect.flatMap(this.invalid(client, inbound), (failure) => this.sendQuiet(client, failure))
          )
        case "Batch": {
          const items = inbound.items
          return void this.fork(
            Effect.flatMap(
              this.options.batching(client),
              (allowed) =>
                allowed
                  ? Effect.sync(() => this.batch(client, items, received))
                  : this.sendQuiet(client, batchRefused)
            )
          )
        }
      }
    } catch (cause) {
      // A bug while routing one frame is logged; the engine goes on with the next.
      this.fork(Effect.logError("effect-mcp: could not route a message", Cause.die(cause)))
    }
  }

  readonly disconnect: Inbound["disconnect"] = (client) => {
    this.flush()
    const map = this.calls.get(client)
    if (map === undefined) return
    for (const call of map.values()) call.interrupt()
  }

  readonly size = (): number => this.count

  readonly interruptAll: Effect.Effect<void> = Effect.suspend(() => {
    this.flush()
    return interruptAll(Array.from(this.calls.values()).flatMap((map) => Array.from(map.values())))
  })
}

export const make = <R>(options: Options<R>): Inbound => new Engine(options)
