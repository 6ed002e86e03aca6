/**
 * Newline-delimited JSON over a Node readable and writable: one client. Three parts, each a
 * small state machine of its own, driven by Node's callbacks:
 *
 * - {@link Requests}: the client's requests running (held ones apart) and our asks waiting on it,
 *   so that the input pauses while `maxRequestsInFlight` run, and the end of input waits for them;
 * - {@link Output}: the bounded writer; a send that finds it full waits its turn;
 * - {@link read}: the input, one line at a time while both allow it.
 */
import type { JsonRpc, Wire } from "@effect-mcp/core"
import { Ndjson, Transport } from "@effect-mcp/core"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Readable, Writable } from "node:stream"
import * as Lines from "./lines.js"

/** How lines are written (see `NodeMcpServer.SenderOptions`). */
export interface SenderOptions {
  readonly coalesce?: boolean | undefined
}

/** Options of {@link protocol} (documented on `NodeMcpServer.ProtocolOptions`). */
export interface ProtocolOptions extends Ndjson.ReaderOptions, SenderOptions {
  readonly endOfInputGrace?: Duration.DurationInput
  readonly maxBufferedBytes?: number
  readonly maxRequestsInFlight?: number
}

/** The grace period of the end of input, by default. */
export const defaultEndOfInputGrace: Duration.Duration = Duration.millis(1_500)

/** Requests of a client running at once, by default. */
export const defaultMaxRequestsInFlight = 100

/** What the output holds for a client that does not read, by default (as a connection of `layerHttp`). */
const defaultMaxBufferedBytes = 32 * 1024 * 1024

const streamClosed = () => new Transport.TransportError({ message: "stream closed" })
const clientGone = () => new Transport.TransportError({ message: "the client is gone" })

/** Frames as lines on `output`, in order: coalesced per tick, or each as it is sent. */
export const lineSender = (output: Writable, options: SenderOptions = {}): Transport.Protocol["send"] => {
  const closed = () => output.destroyed || output.writableEnded
  if (options.coalesce === false) {
    return (_client, frame) =>
      Effect.suspend(() => {
        if (closed()) return Effect.fail(streamClosed())
        output.write(Ndjson.encode(frame))
        return Effect.void
      })
  }
  let pending = ""
  const flush = () => {
    const text = pending
    pending = ""
    if (!closed()) output.write(text)
  }
  return (_client, frame) =>
    Effect.suspend(() => {
      if (closed()) return Effect.fail(streamClosed())
      if (pending === "") process.nextTick(flush)
      pending += Ndjson.encode(frame)
      return Effect.void
    })
}

/** A method whose request is held open by design (it ends with the server, not by itself). */
const held = (method: string) => method === "subscriptions/listen"

/** A batch of messages, not one (`Array.isArray` does not narrow a readonly array's union). */
const isBatch = (frame: JsonRpc.Frame): frame is ReadonlyArray<JsonRpc.Message> => Array.isArray(frame)

/** A request that counts as running until answered (a held one does not). */
const counted = (message: JsonRpc.Message): message is JsonRpc.Request =>
  "method" in message && "id" in message && !held(message.method)

/** A line that starts requests (a batch may). */
export const startsRequests = (inbound: Wire.Inbound): boolean =>
  inbound._tag === "Single"
    ? counted(inbound.message)
    : inbound._tag === "Batch" && inbound.items.some((item) => item._tag === "Single" && counted(item.message))

/** The request id a `notifications/cancelled` names, if any. */
const cancelledId = (message: JsonRpc.Message): JsonRpc.RequestId | undefined => {
  const params = "params" in message ? message.params : undefined
  const id = typeof params === "object" && params !== null && "requestId" in params ? params.requestId : undefined
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

/**
 * The client's requests not answered yet (held ones apart), by id with their method, and our
 * requests to it (its handlers' asks): the requests waiting on an ask do not count as running.
 */
export class Requests {
  private readonly running = new Map<JsonRpc.RequestId, string>()
  // At most `maxInFlight` (each frees a place; more free none).
  private readonly asks = new Set<JsonRpc.RequestId>()
  // Once the input ended and requests were still running: done when the last of them is answered.
  private drained: Deferred.Deferred<void> | undefined

  constructor(
    readonly maxInFlight: number,
    /** Something was answered: the input, if it waits for that, may go on. */
    private readonly wake: () => void
  ) {}

  /** How many run (asks waiting on the client apart). */
  inFlight(): number {
    return this.running.size - this.asks.size
  }

  /** Whether a line of requests waits. */
  full(): boolean {
    return this.inFlight() >= this.maxInFlight
  }

  /** A request of the client is answered (or will never be). */
  settled(id: JsonRpc.RequestId): void {
    if (!this.running.delete(id)) return
    this.wake()
    if (this.running.size > 0 || this.drained === undefined) return
    Deferred.unsafeDone(this.drained, Exit.void)
  }

  private noteRequest(message: JsonRpc.Message): void {
    if (counted(message)) this.running.set(message.id, message.method)
  }

  /** A line read: the requests it starts, or the answer to an ask it brings. */
  received(inbound: Wire.Inbound): void {
    if (inbound._tag === "Single") {
      const message = inbound.message
      if (!("method" in message) && message.id !== null && this.asks.delete(message.id)) this.wake()
      else this.noteRequest(message)
    } else if (inbound._tag === "Batch") {
      for (const item of inbound.items) if (item._tag === "Single") this.noteRequest(item.message)
    }
  }

  /** A frame written: a request answered, an ask made or given up. */
  sent(frame: JsonRpc.Frame): void {
    if (isBatch(frame)) { for (const message of frame) this.sentOne(message) }
    else this.sentOne(frame)
  }

  private sentOne(message: JsonRpc.Message): void {
    if (!("method" in message)) {
      if (message.id !== null) this.settled(message.id)
    } else if ("id" in message) {
      // With no bound on what runs, there is nothing to free.
      if (this.maxInFlight === Infinity) return
      if (this.asks.size >= this.maxInFlight) this.asks.delete(this.asks.values().next().value ?? message.id)
      this.asks.add(message.id)
    } else if (message.method === "notifications/cancelled") {
      const id = cancelledId(message)
      if (id !== undefined && this.asks.delete(id)) this.wake()
    }
  }

  /** Waits, at most `grace`, until what runs is answered; says what is cancelled then. */
  drain(grace: Duration.Duration): Effect.Effect<void> {
    return Effect.gen(this, function*() {
      if (this.running.size > 0 && Duration.greaterThan(grace, Duration.zero)) {
        this.drained = yield* Deferred.make<void>()
        yield* Effect.raceFirst(Deferred.await(this.drained), Effect.sleep(grace))
      }
      if (this.running.size === 0) return
      const ids = Array.from(this.running, ([id, method]) => `${JSON.stringify(id)} (${method})`)
      yield* Effect.logWarning(
        `effect-mcp: the input ended; cancelled ${ids.length} request${ids.length === 1 ? "" : "s"} still running ` +
          `after ${Duration.format(grace)}: ${ids.slice(0, 10).join(", ")}${ids.length > 10 ? ", …" : ""}`
      )
    })
  }
}

/**
 * The bounded writer: what waits on the output (Node's buffer and this tick's lines) is at most
 * `maxBuffered` bytes; a send that finds it full waits its turn, in order, its frame not yet
 * encoded. So the output never holds more than the bound and one frame, and a request whose answer
 * waits stays in flight until it is written. Each line is held as UTF-8 bytes (a `Buffer`, outside
 * the JS heap), not as a string: a pipe keeps what it is given as it is (a socket does not decode
 * strings), so a client that stops reading would otherwise hold the bound in the heap, and a process
 * with a small heap (a gateway under `--max-old-space-size=64`) would die of it.
 */
export class Output {
  // The client is gone (its input ended and what ran had its time, or the server stops): a send
  // that would wait fails, so that no fiber waits for a reader that will not come.
  private gone = false
  // What was sent in this tick, written on the next (one write for the lot: see `lineSender`).
  private pending: Array<Buffer> = []
  private pendingBytes = 0
  // The sends waiting for room, in order: each writes its frame when its turn comes.
  private readonly waiting: Array<() => void> = []
  // A closed output lets every waiting send go (each fails): a write held by a stream that will
  // never take it is never called back.
  private watching = false

  constructor(
    private readonly output: Writable,
    private readonly maxBuffered: number,
    private readonly coalesce: boolean,
    /** A frame is written (it counts as waiting on the output from here on). */
    private readonly onWrite: (frame: JsonRpc.Frame) => void,
    /** There is room again, and no send waits: the input may be read. */
    private readonly onRoom: () => void
  ) {}

  closed(): boolean {
    return this.output.destroyed || this.output.writableEnded
  }

  /** Within the bound. */
  room(): boolean {
    return this.output.writableLength + this.pendingBytes <= this.maxBuffered
  }

  /** No send waits, and there is room. */
  open(): boolean {
    return this.waiting.length === 0 && this.room()
  }

  /** A write is out (room again): the sends waiting go, in order, while there is room; then the input. */
  private readonly written = () => {
    while (this.waiting.length > 0 && (this.room() || this.closed() || this.gone)) this.waiting.shift()?.()
    if (this.waiting.length === 0 && this.room()) this.onRoom()
  }

  private readonly flush = () => {
    const lines = this.pending
    this.pending = []
    this.pendingBytes = 0
    if (this.closed()) this.written()
    else this.output.write(lines.length === 1 ? lines[0]! : Buffer.concat(lines), this.written)
  }

  private write(frame: JsonRpc.Frame): void {
    this.onWrite(frame)
    const line = Buffer.from(Ndjson.encode(frame))
    if (!this.coalesce) return void this.output.write(line, this.written)
    if (this.pending.length === 0) process.nextTick(this.flush)
    this.pending.push(line)
    this.pendingBytes += line.length
  }

  /** The client is gone: every waiting send goes (each fails unless there is room). */
  letGo(): void {
    this.gone = true
    this.written()
  }

  /** Sends a frame now, while the output is open (true); else false (see `Transport.Protocol.sendNow`). */
  readonly sendNow = (_client: Transport.ClientId, frame: JsonRpc.Frame): boolean => {
    if (this.closed() || !this.open()) return false
    this.write(frame)
    return true
  }

  /** Sends a frame once there is room, at once while the output is open. */
  readonly send: Transport.Protocol["send"] = (_client, frame) =>
    Effect.suspend(() => {
      if (this.closed()) return Effect.fail(streamClosed())
      if (this.open()) return Effect.sync(() => this.write(frame))
      if (this.gone) return Effect.fail(clientGone())
      return Effect.async<void, Transport.TransportError>((resume) => {
        const turn = () => {
          if (this.closed()) return resume(Effect.fail(streamClosed()))
          if (this.gone && !this.room()) return resume(Effect.fail(clientGone()))
          this.write(frame)
          resume(Effect.void)
        }
        this.waiting.push(turn)
        if (!this.watching) {
          this.watching = true
          this.output.once("close", this.written)
        }
        // A sender interrupted (its request cancelled, the client gone) gives up its turn.
        return Effect.sync(() => {
          const index = this.waiting.indexOf(turn)
          if (index >= 0) this.waiting.splice(index, 1)
          this.written()
        })
      })
    })
}

const empty = Buffer.alloc(0)

/** Where the reader is reached from outside: set while it reads, called when it may go on. */
interface Gate {
  deliver: (() => void) | undefined
}

/**
 * Reads `input` one line at a time, each checked before it is read: while the output is open and,
 * for a line of requests, while fewer than the bound run. A line that may not be read stays, with
 * the rest of its chunk (at most one chunk: the input is paused). Completes when the input ends and
 * its last lines are read.
 */
const read = (
  input: Readable,
  options: Ndjson.ReaderOptions,
  requests: Requests,
  output: Output,
  gate: Gate,
  deliver: (inbound: Wire.Inbound) => void
): Effect.Effect<void, Transport.TransportError> =>
  Effect.async<void, Transport.TransportError>((resume) => {
    let chunk: Buffer = empty
    let offset = 0
    let paused = false
    let inputEnded = false
    let done = false
    // A line of requests read while the bound run: it starts once one is answered. Lines without
    // requests (answers to asks, cancellations) are not held back by running requests.
    let parked: Wire.Inbound | undefined
    const dispatch = (inbound: Wire.Inbound) => {
      requests.received(inbound)
      deliver(inbound)
    }
    // Counted and held as bytes: a line over the bound is let go as it passes it (see `Lines`).
    const lines = Lines.reader((inbound) => {
      if (!inputEnded && requests.full() && startsRequests(inbound)) parked = inbound
      else dispatch(inbound)
    }, options)
    const finish = () => {
      if (done) return
      done = true
      lines.end()
      resume(Effect.void)
    }
    // Once the input ended, its last lines are read whatever waits: their answers wait their turn
    // within the grace period, as every request still running then.
    const open = () => inputEnded || output.open()
    const pause = () => {
      if (paused) return
      paused = true
      input.pause()
    }
    const next = () => {
      if (parked !== undefined && open() && (inputEnded || !requests.full())) {
        const inbound = parked
        parked = undefined
        dispatch(inbound)
      }
      while (offset < chunk.length) {
        if (parked !== undefined || !open()) return pause()
        const newline = chunk.indexOf(10, offset)
        if (newline < 0) {
          lines.rest(chunk, offset, chunk.length)
          offset = chunk.length
        } else {
          lines.line(chunk, offset, newline)
          offset = newline + 1
        }
      }
      chunk = empty
      offset = 0
      if (parked !== undefined) return
      if (inputEnded) finish()
      else if (paused) {
        paused = false
        input.resume()
      }
    }
    // Not entered again from within (a sender interrupted as a line is read lets others go).
    let reading = false
    gate.deliver = () => {
      if (reading) return
      reading = true
      try {
        next()
      } finally {
        reading = false
      }
    }
    const onData = (data: Buffer | string) => {
      const bytes = typeof data === "string" ? Buffer.from(data) : data
      // Only a chunk already on its way when the input was paused finds one unread.
      chunk = offset < chunk.length ? Buffer.concat([chunk.subarray(offset), bytes]) : bytes
      offset = 0
      gate.deliver?.()
    }
    const onEnd = () => {
      inputEnded = true
      gate.deliver?.()
    }
    const onError = (cause: unknown) =>
      resume(Effect.fail(new Transport.TransportError({ message: "read failed", cause })))
    input.on("data", onData)
    input.once("end", onEnd)
    input.once("error", onError)
    return Effect.sync(() => {
      gate.deliver = undefined
      input.off("data", onData)
      input.off("end", onEnd)
      input.off("error", onError)
      input.pause()
    })
  })

/** What telemetry says of stdio (`network.transport`). */
const pipe = { transport: "pipe" } as const

/** Newline-delimited JSON over `input` and `output` (documented on `NodeMcpServer.protocol`). */
export const protocol = (input: Readable, output: Writable, options: ProtocolOptions = {}): Transport.Protocol => {
  const gate: Gate = { deliver: undefined }
  // Once a request is answered or an ask is: the input, if it waits for that, goes on (next tick:
  // never from inside a send).
  let waking = false
  const wake = () => {
    if (waking || gate.deliver === undefined) return
    waking = true
    process.nextTick(() => {
      waking = false
      gate.deliver?.()
    })
  }
  const requests = new Requests(
    Math.max(1, options.maxRequestsInFlight ?? defaultMaxRequestsInFlight),
    wake
  )
  const writer = new Output(
    output,
    options.maxBufferedBytes ?? defaultMaxBufferedBytes,
    options.coalesce !== false,
    (frame) => requests.sent(frame),
    () => gate.deliver?.()
  )
  const grace = Duration.decode(options.endOfInputGrace ?? defaultEndOfInputGrace)
  return {
    telemetry: pipe,
    run: (receiver) =>
      read(input, options, requests, writer, gate, (inbound) => receiver.receive(Ndjson.client, inbound)).pipe(
        // The input ended: what is running is answered within the grace period, the rest cancelled.
        Effect.zipRight(Effect.suspend(() => requests.drain(grace))),
        Effect.zipRight(Effect.sync(() => {
          writer.letGo()
          receiver.disconnect(Ndjson.client)
        })),
        Effect.ensuring(Effect.sync(() => writer.letGo()))
      ),
    send: writer.send,
    sendNow: writer.sendNow,
    unanswered: (_client, id) => requests.settled(id)
  }
}
