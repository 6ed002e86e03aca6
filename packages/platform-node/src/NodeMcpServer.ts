/**
 * Node wiring for MCP servers: stdio and HTTP.
 *
 * In stdio mode nothing but protocol bytes touches stdout: the Effect logger is replaced
 * by one that writes to stderr. Importing this module touches nothing: stdio is read only
 * when `serveStdio` runs.
 *
 * @since 0.1.0
 */
import type { JsonRpc, Wire } from "@effect-mcp/core"
import { McpError, Ndjson, Transport } from "@effect-mcp/core"
import { HttpTransport, McpServer } from "@effect-mcp/server"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import * as http from "node:http"
import type * as net from "node:net"
import type { Readable, Writable } from "node:stream"
import { StringDecoder } from "node:string_decoder"
import * as NodeHttp from "./internal/nodeHttp.js"

/**
 * A logger that writes to stderr, never stdout. Also removes the pretty logger that
 * `NodeRuntime.runMain` puts in place of the default logger (it writes to stdout).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStderrLogger: Layer.Layer<never> = Layer.mergeAll(
  Logger.remove(Logger.prettyLoggerDefault),
  Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
)

/**
 * How {@link lineSender} writes.
 *
 * - `coalesce` (default `true`): lines sent in the same tick go out as one write (one string, so
 *   Node keeps one buffer, not one per line). Right for a server: the answers to the lines of
 *   one chunk are ready together, and one write carries them all.
 * - `false`: each line is written as it is sent. Right for a client: its requests come from
 *   callers of their own, and a request written at once lets the server start on it while this
 *   side is still busy with the rest (the pair works in parallel rather than in turns).
 *
 * @since 0.1.0
 * @category models
 */
export interface SenderOptions {
  readonly coalesce?: boolean | undefined
}

/**
 * Sends frames as lines on a Node writable stream, in order (see {@link SenderOptions} for
 * when they are written); Node buffers what the other side has not read yet.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lineSender = (output: Writable, options: SenderOptions = {}): Transport.Protocol["send"] => {
  const closed = () => output.destroyed || output.writableEnded
  if (options.coalesce === false) {
    return (_client, frame) =>
      Effect.suspend(() => {
        if (closed()) return Effect.fail(new Transport.TransportError({ message: "stream closed" }))
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
      if (closed()) return Effect.fail(new Transport.TransportError({ message: "stream closed" }))
      if (pending === "") process.nextTick(flush)
      pending += Ndjson.encode(frame)
      return Effect.void
    })
}

/**
 * Options of {@link protocol}: the reader's bound on a line, how lines are written, and how long
 * requests still running may take once the input ends.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProtocolOptions extends Ndjson.ReaderOptions, SenderOptions {
  /**
   * When the input ends, how long the requests still running may take to be answered (default
   * {@link defaultEndOfInputGrace}, 1.5 seconds; 0: none). Those still running after it are
   * cancelled, and a line on stderr says which; then `run` ends. Held requests (a 2026-07-28
   * `subscriptions/listen`) are not waited for: they end with the server.
   */
  readonly endOfInputGrace?: Duration.DurationInput
  /**
   * The most bytes that may wait on the output for the client to read them (default 32 MiB, as a
   * connection of `layerHttp`; counted as Node counts a pipe's buffer, by a string's length). Past
   * it no line is read (no new request starts), and an answer waits its turn, its request still in
   * flight, until there is room: the output never holds more than this and one answer. A client that
   * never reads then only stops its own requests.
   */
  readonly maxBufferedBytes?: number
  /**
   * The most requests of the client running at once (default {@link defaultMaxRequestsInFlight},
   * 100; a 2025-03-26 batch counts as its requests, and is read whole): past it the next line of
   * requests waits, and the input with it, until one is answered (a line that starts none, such as
   * a cancellation, is read). A request whose answer waits for room on the output is still running;
   * one waiting on the client (its handler asked it something: elicitation, sampling, roots) is not
   * counted, so the client's answer is read. With `maxBufferedBytes`, this bounds the answers the
   * server holds for a client that does not read: what is on the output, and one answer for each
   * request running.
   */
  readonly maxRequestsInFlight?: number
}

/**
 * How long requests still running may take once a stdio server's input ends (1.5 seconds). The
 * official SDK clients close a server's input, wait 2 seconds, then send SIGTERM: within this
 * grace a server answers the calls that were about to finish, and still ends on its own, saying
 * what it cancelled, before such a client would kill it. The specification asks a server to exit
 * promptly at the end of its input; raise it (`serveStdioWith`) for scripts that pipe in slow calls.
 *
 * @since 0.1.0
 * @category stdio
 */
export const defaultEndOfInputGrace: Duration.Duration = Duration.millis(1_500)

/**
 * The most requests a stdio client has running at once by default (100, as HTTP/2 advises for its
 * concurrent streams): the output's bound holds what is written, this what is being made.
 *
 * @since 0.1.0
 * @category stdio
 */
export const defaultMaxRequestsInFlight = 100

/** A method whose request is held open by design (it ends with the server, not by itself). */
const held = (method: string) => method === "subscriptions/listen"

/** A batch of messages, not one (`Array.isArray` does not narrow a readonly array's union). */
const isBatch = (frame: JsonRpc.Frame): frame is ReadonlyArray<JsonRpc.Message> => Array.isArray(frame)

/** What telemetry says of stdio (`network.transport`). */
const pipe = { transport: "pipe" } as const

/**
 * Newline-delimited JSON over a readable and a writable stream: one client. Lines are split and
 * decoded as Node delivers chunks, straight into the engine. A line longer than `maxLineLength`
 * characters (default `Ndjson.defaultMaxLineLength`, 4 Mi) is never held: it is one -32600
 * `Message too large`, and the next line is read as usual.
 *
 * Lines are read one at a time while the output holds at most `maxBufferedBytes`, and a line of
 * requests starts while fewer than `maxRequestsInFlight` run; otherwise it and the rest of the chunk
 * wait (the input paused) until an answer is written or read. An answer that finds the output full
 * waits its turn.
 *
 * When the input ends, the requests still running are answered first, for at most
 * `endOfInputGrace` (default {@link defaultEndOfInputGrace}); those still running then are
 * cancelled, said in one line on stderr (through the logger); then the client is gone and `run`
 * ends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const protocol = (
  input: Readable,
  output: Writable,
  options: ProtocolOptions = {}
): Transport.Protocol => {
  const maxBuffered = options.maxBufferedBytes ?? 32 * 1024 * 1024
  const maxInFlight = Math.max(1, options.maxRequestsInFlight ?? defaultMaxRequestsInFlight)
  const coalesce = options.coalesce !== false
  // Reads the input's next lines while there is room (set by `run`).
  let deliver: (() => void) | undefined
  // Once a request is answered or an ask is: the input, if it waits for that, goes on (next tick:
  // never from inside a send).
  let waking = false
  const wake = () => {
    if (waking || deliver === undefined) return
    waking = true
    process.nextTick(() => {
      waking = false
      deliver?.()
    })
  }

  // The requests of the client not answered yet (held ones apart), by id, with their method.
  const running = new Map<JsonRpc.RequestId, string>()
  // Our requests to the client not answered yet (its handlers' asks), at most `maxInFlight` (each
  // frees a place; more free none): the requests waiting on them do not count as running.
  const asks = new Set<JsonRpc.RequestId>()
  const inFlight = () => running.size - asks.size
  // Once the input ended and requests were still running: done when the last of them is answered.
  let drained: Deferred.Deferred<void> | undefined
  const settled = (id: JsonRpc.RequestId) => {
    if (!running.delete(id)) return
    wake()
    if (running.size > 0 || drained === undefined) return
    Deferred.unsafeDone(drained, Exit.void)
  }
  /** A request that counts as running until answered (a held one does not). */
  const counted = (message: JsonRpc.Message): message is JsonRpc.Request =>
    "method" in message && "id" in message && !held(message.method)
  const noteRequest = (message: JsonRpc.Message) => {
    if (counted(message)) running.set(message.id, message.method)
  }
  /** A line that starts requests (a batch may). */
  const startsRequests = (inbound: Wire.Inbound) =>
    inbound._tag === "Single"
      ? counted(inbound.message)
      : inbound._tag === "Batch" && inbound.items.some((item) => item._tag === "Single" && counted(item.message))
  const noteInbound = (inbound: Wire.Inbound) => {
    if (inbound._tag === "Single") {
      const message = inbound.message
      if (!("method" in message) && message.id !== null && asks.delete(message.id)) wake()
      else noteRequest(message)
    } else if (inbound._tag === "Batch") {
      for (const item of inbound.items) if (item._tag === "Single") noteRequest(item.message)
    }
  }
  /** What a message written says: a request answered, an ask made or given up. */
  const noteSent = (message: JsonRpc.Message) => {
    if (!("method" in message)) {
      if (message.id !== null) settled(message.id)
    } else if ("id" in message) {
      // With no bound on what runs, there is nothing to free.
      if (maxInFlight === Infinity) return
      if (asks.size >= maxInFlight) asks.delete(asks.values().next().value ?? message.id)
      asks.add(message.id)
    } else if (message.method === "notifications/cancelled") {
      const params = message.params
      const id = typeof params === "object" && params !== null && "requestId" in params ? params.requestId : undefined
      if ((typeof id === "string" || typeof id === "number") && asks.delete(id)) wake()
    }
  }
  const noteFrame = (frame: JsonRpc.Frame) => {
    if (isBatch(frame)) { for (const message of frame) noteSent(message) }
    else noteSent(frame)
  }

  const grace = Duration.decode(options.endOfInputGrace ?? defaultEndOfInputGrace)
  /** The input ended: what is running is answered within the grace period, the rest cancelled. */
  const ended = (receiver: Transport.Receiver) =>
    Effect.gen(function*() {
      if (running.size > 0 && Duration.greaterThan(grace, Duration.zero)) {
        drained = yield* Deferred.make<void>()
        yield* Effect.raceFirst(Deferred.await(drained), Effect.sleep(grace))
      }
      if (running.size > 0) {
        const ids = Array.from(running, ([id, method]) => `${JSON.stringify(id)} (${method})`)
        yield* Effect.logWarning(
          `effect-mcp: the input ended; cancelled ${ids.length} request${
            ids.length === 1 ? "" : "s"
          } still running after ${Duration.format(grace)}: ${ids.slice(0, 10).join(", ")}${
            ids.length > 10 ? ", …" : ""
          }`
        )
      }
      letGo()
      receiver.disconnect(Ndjson.client)
    })

  const closed = () => output.destroyed || output.writableEnded
  // The client is gone (its input ended and what ran had its time, or the server stops): a send
  // that would wait fails, so that no fiber waits for a reader that will not come.
  let gone = false
  // What was sent in this tick, written on the next (one write for the lot: see `lineSender`).
  let pending = ""
  // The sends waiting for room on the output, in order: each writes its frame when its turn comes.
  const waiting: Array<() => void> = []
  // Within the bound: what waits on the output (Node's buffer and this tick's lines) is at most
  // `maxBuffered`, counted as Node counts what a pipe holds (a string's length).
  const room = () => output.writableLength + pending.length <= maxBuffered
  /** A write is out (room again): the sends waiting go, in order, while there is room; then the input. */
  const written = () => {
    while (waiting.length > 0 && (room() || closed() || gone)) waiting.shift()?.()
    if (waiting.length === 0 && room()) deliver?.()
  }
  // A closed output lets every waiting send go (each fails): a write held by a stream that will
  // never take it is never called back.
  let watching = false
  const flush = () => {
    const text = pending
    pending = ""
    if (closed()) written()
    else output.write(text, written)
  }
  /** Writes one frame now: it counts as waiting on the output from here on. */
  const write = (frame: JsonRpc.Frame) => {
    noteFrame(frame)
    const line = Ndjson.encode(frame)
    if (!coalesce) return void output.write(line, written)
    if (pending === "") process.nextTick(flush)
    pending += line
  }
  const streamClosed = () => new Transport.TransportError({ message: "stream closed" })
  const letGo = () => {
    gone = true
    written()
  }
  /**
   * Sends a frame once there is room: at once while what waits on the output is within the bound
   * and no send waits before it; otherwise the sender waits its turn (its frame, not yet encoded, is
   * the fiber's that made it; written, it counts). So the output never holds more than the bound
   * and one frame, and a request whose answer waits stays in flight until it is written.
   */
  const send: Transport.Protocol["send"] = (_client, frame) =>
    Effect.suspend(() => {
      if (closed()) return Effect.fail(streamClosed())
      if (waiting.length === 0 && room()) return Effect.sync(() => write(frame))
      if (gone) return Effect.fail(new Transport.TransportError({ message: "the client is gone" }))
      return Effect.async<void, Transport.TransportError>((resume) => {
        const turn = () => {
          if (closed()) return resume(Effect.fail(streamClosed()))
          if (gone && !room()) {
            return resume(Effect.fail(new Transport.TransportError({ message: "the client is gone" })))
          }
          write(frame)
          resume(Effect.void)
        }
        waiting.push(turn)
        if (!watching) {
          watching = true
          output.once("close", written)
        }
        // A sender interrupted (its request cancelled, the client gone) gives up its turn.
        return Effect.sync(() => {
          const index = waiting.indexOf(turn)
          if (index >= 0) waiting.splice(index, 1)
          written()
        })
      })
    })

  return {
    telemetry: pipe,
    run: (receiver) =>
      Effect.zipRight(
        Effect.async<void, Transport.TransportError>((resume) => {
          const decoder = new StringDecoder("utf8")
          // The chunk being read, and how much of it was: one line at a time, checked before each.
          // When one may not be read, the rest stays here (at most one chunk: the input is paused).
          let chunk = ""
          let offset = 0
          let paused = false
          let inputEnded = false
          let done = false
          // A line of requests read while `maxInFlight` run: it starts once one is answered. Lines
          // without requests (answers to asks, cancellations) are not held back by running requests.
          let parked: Wire.Inbound | undefined
          const dispatch = (inbound: Wire.Inbound) => {
            noteInbound(inbound)
            receiver.receive(Ndjson.client, inbound)
          }
          const lines = Ndjson.reader((inbound) => {
            if (!inputEnded && inFlight() >= maxInFlight && startsRequests(inbound)) parked = inbound
            else dispatch(inbound)
          }, options)
          const finish = () => {
            if (done) return
            done = true
            lines.push(decoder.end())
            lines.end()
            resume(Effect.void)
          }
          // Once the input ended, its last lines are read whatever waits: their answers wait their
          // turn within the grace period, as every request still running then.
          const open = () => inputEnded || (waiting.length === 0 && room())
          const mayRead = () => parked === undefined && open()
          const read = () => {
            if (parked !== undefined && open() && (inputEnded || inFlight() < maxInFlight)) {
              const inbound = parked
              parked = undefined
              dispatch(inbound)
            }
            while (offset < chunk.length) {
              if (!mayRead()) {
                if (!paused) {
                  paused = true
                  input.pause()
                }
                return
              }
              const newline = chunk.indexOf("\n", offset)
              const next = newline < 0 ? chunk.length : newline + 1
              lines.push(offset === 0 && next === chunk.length ? chunk : chunk.slice(offset, next))
              offset = next
            }
            chunk = ""
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
          deliver = () => {
            if (reading) return
            reading = true
            try {
              read()
            } finally {
              reading = false
            }
          }
          const onData = (data: Buffer | string) => {
            const text = typeof data === "string" ? data : decoder.write(data)
            // Only a chunk already on its way when the input was paused finds one unread.
            chunk = offset < chunk.length ? chunk.slice(offset) + text : text
            offset = 0
            deliver?.()
          }
          const onEnd = () => {
            inputEnded = true
            deliver?.()
          }
          const onError = (cause: unknown) =>
            resume(Effect.fail(new Transport.TransportError({ message: "read failed", cause })))
          input.on("data", onData)
          input.once("end", onEnd)
          input.once("error", onError)
          return Effect.sync(() => {
            deliver = undefined
            input.off("data", onData)
            input.off("end", onEnd)
            input.off("error", onError)
            input.pause()
          })
        }),
        Effect.suspend(() => ended(receiver))
      ).pipe(Effect.ensuring(Effect.sync(letGo))),
    send,
    unanswered: (_client, id) => settled(id)
  }
}

/**
 * Serves the process's stdin and stdout with these options (see {@link ProtocolOptions}: the
 * longest line, the grace period for requests still running when stdin ends); completes when
 * stdin ends (the client closed it) and what was running is answered or cancelled, so the
 * process can exit.
 *
 * @since 0.1.0
 * @category stdio
 */
export const serveStdioWith = (options: ProtocolOptions = {}): Effect.Effect<void, never, McpServer.McpServer> =>
  Effect.suspend(() => McpServer.serve(protocol(process.stdin, process.stdout, options))).pipe(
    Effect.provide(layerStderrLogger)
  )

/**
 * Serves the process's stdin and stdout; completes when stdin ends (the client closed it) and
 * the requests still running are answered (within {@link defaultEndOfInputGrace}; the rest are
 * cancelled, said on stderr), so the process can exit.
 *
 * @since 0.1.0
 * @category stdio
 */
export const serveStdio: Effect.Effect<void, never, McpServer.McpServer> = serveStdioWith()

/**
 * Serves stdio in the background for the lifetime of the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio: Layer.Layer<never, never, McpServer.McpServer> = Layer.scopedDiscard(
  Effect.forkScoped(serveStdio)
).pipe(Layer.provide(layerStderrLogger))

/**
 * Options of `runMain`.
 *
 * @since 0.1.0
 * @category running
 */
export interface RunMainOptions {
  /** What the failure line starts with (default `"mcp server"`): `my-server: port 3000 is already in use`. */
  readonly name?: string
}

/** One readable line for a failure: its own message (a tagged error's, a config error's, a defect's). */
const failureLine = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  const defect = Cause.dieOption(cause)
  const text = failure._tag === "Some"
    ? McpError.messageOf(failure.value)
    : defect._tag === "Some"
    ? McpError.messageOf(defect.value)
    : Cause.pretty(cause)
  return text.replace(/\s+/g, " ").trim()
}

/**
 * Runs a server program as the process: a stdio server (`serveStdio` with the server provided,
 * which ends when the input does) or an HTTP one (`layerHttp`, which runs until a signal).
 *
 * - Logs go to stderr, never stdout (stdout is the protocol channel of a stdio server).
 * - Any startup failure (a layer that fails, a bad config, a port in use) is one line on
 *   stderr (`mcp server: port 3000 is already in use (EADDRINUSE)`) and exit code 1.
 * - SIGINT or SIGTERM interrupts it: sessions and subscriptions end gracefully, connections
 *   close, and the process exits 0. When a stdio server's input ends, it exits too.
 *
 * ```ts
 * NodeMcpServer.runMain(NodeMcpServer.serveStdio.pipe(Effect.provide(Server)))
 * NodeMcpServer.runMain(NodeMcpServer.layerHttp({ port: 3000 }).pipe(Layer.provide(Server)))
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const runMain = <E, A = void, ROut = never>(
  program: Layer.Layer<ROut, E, never> | Effect.Effect<A, E, never>,
  options: RunMainOptions = {}
): void => {
  const name = options.name ?? "mcp server"
  const main: Effect.Effect<unknown, E> = Layer.isLayer(program)
    // A layer alone is a server that runs until interrupted.
    ? Layer.launch(program as Layer.Layer<ROut, E, never>)
    : program as Effect.Effect<A, E, never>
  NodeRuntime.runMain(
    main.pipe(
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.void
          : Effect.sync(() => process.stderr.write(`${name}: ${failureLine(cause)}\n`))
      ),
      Effect.provide(layerStderrLogger)
    ),
    {
      disableErrorReporting: true,
      disablePrettyLogger: true,
      teardown: (exit, onExit) => {
        const code = Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? 1 : 0
        process.exitCode = code
        onExit(code)
        // Ended without a signal (stdin closed, a failure): exit once what is left is flushed,
        // even when something the program started still holds the event loop.
        setTimeout(() => process.exit(code), 200).unref()
      }
    }
  )
}

/**
 * Options of `layerHttp`: the MCP endpoints' (`HttpTransport.Options`) and Node's server limits.
 *
 * @since 0.1.0
 * @category http
 */
export interface HttpOptions extends HttpTransport.Options {
  /** Port to listen on (0: any free port). */
  readonly port: number
  /** Address to bind (default 127.0.0.1: loopback only). */
  readonly host?: string
  /** Longest wait for a request's headers (default 30 seconds). */
  readonly headersTimeout?: Duration.DurationInput
  /** Longest wait for a whole request, body included (default 60 seconds; SSE responses are not limited). */
  readonly requestTimeout?: Duration.DurationInput
  /**
   * The most bytes of a request's headers (default 16 KiB; 96 KiB with `auth`, so that an
   * oversized token is refused with a 401 rather than cut by Node with a 431).
   */
  readonly maxHeaderSize?: number
  /** How long an idle keep-alive connection stays open (default 5 seconds). */
  readonly keepAliveTimeout?: Duration.DurationInput
  /**
   * Most connections at once (default 4096); more are refused. Each open 2026-07-28 listen holds
   * one: the server's `maxSubscriptions` (default 1,000) stays well below this, so that listens
   * never take every connection.
   */
  readonly maxConnections?: number
  /**
   * Says where the server listens, once it does, as one line on stderr (`listening on
   * http://127.0.0.1:3000/mcp`; the port chosen when `port` is 0). Default false.
   */
  readonly announce?: boolean
}

/**
 * The HTTP server could not listen.
 *
 * @since 0.1.0
 * @category errors
 */
export class ListenError extends Data.TaggedError("ListenError")<{
  readonly host: string
  readonly port: number
  readonly code: string | undefined
  readonly cause: unknown
}> {
  override get message(): string {
    switch (this.code) {
      case "EADDRINUSE":
        return `port ${this.port} is already in use (EADDRINUSE)`
      case "EACCES":
        return `no permission to listen on ${this.host}:${this.port} (EACCES)`
      case "EADDRNOTAVAIL":
        return `address ${this.host} is not available on this machine (EADDRNOTAVAIL)`
      default:
        return `could not listen on ${this.host}:${this.port}: ${
          this.cause instanceof Error ? this.cause.message : String(this.cause)
        }`
    }
  }
}

/** How long open connections may finish what they are sending when the server closes. */
const closeGraceMillis = 1_000

const millis = (input: Duration.DurationInput | undefined, fallback: Duration.DurationInput) =>
  Duration.toMillis(input ?? fallback)

/**
 * Serves the MCP endpoints (Streamable HTTP on `path`, legacy HTTP+SSE) on a `node:http` server
 * bound to loopback by default, for the lifetime of the layer. Requests go from Node's callback
 * to the MCP engine with no @effect/platform machinery in between; mount `HttpTransport.layer`
 * on an @effect/platform router instead when you want your own routes and middleware.
 *
 * @since 0.1.0
 * @category http
 */
export const layerHttp = (options: HttpOptions): Layer.Layer<never, ListenError, McpServer.McpServer> =>
  Layer.scopedDiscard(Effect.gen(function*() {
    // The handler's own scope, closed while the connections are still open: what it answers as it
    // ends (2026-07-28 subscriptions, answered gracefully) reaches the clients.
    const handlerScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const handler = yield* Scope.extend(HttpTransport.make(options), handlerScope)
    const host = options.host ?? "127.0.0.1"
    // Every open connection, with how many of its requests are being answered. When the server
    // closes, one with none (idle between requests, or not yet through a request's headers: Node
    // counts it busy, so `closeIdleConnections` would leave it to the grace period) closes at once.
    const connections = new Map<net.Socket, number>()
    // And what each has waiting to be written (`maxBufferedBytes`): over a bound, it is closed.
    const accounts = new Map<net.Socket, HttpTransport.WriteAccount>()
    const server = http.createServer({
      headersTimeout: millis(options.headersTimeout, "30 seconds"),
      requestTimeout: millis(options.requestTimeout, "60 seconds"),
      keepAliveTimeout: millis(options.keepAliveTimeout, "5 seconds"),
      maxHeaderSize: options.maxHeaderSize ?? (options.auth === undefined ? 16 * 1024 : 96 * 1024)
    }, (request, response) => {
      const socket = request.socket
      connections.set(socket, (connections.get(socket) ?? 0) + 1)
      response.once("close", () => {
        const answering = connections.get(socket)
        if (answering !== undefined) connections.set(socket, answering - 1)
      })
      handler.handle(NodeHttp.exchange(request, response, accounts.get(socket) ?? track(socket)))
    })
    const track = (socket: net.Socket): HttpTransport.WriteAccount => {
      const account = handler.writes.open(() => socket.destroy())
      accounts.set(socket, account)
      socket.once("close", () => {
        connections.delete(socket)
        account.close()
        accounts.delete(socket)
      })
      return account
    }
    server.on("connection", (socket: net.Socket) => {
      connections.set(socket, 0)
      track(socket)
    })
    const closeIdle = () => {
      for (const [socket, answering] of connections) if (answering === 0) socket.destroy()
    }
    server.maxConnections = options.maxConnections ?? 4096
    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        const onError = (cause: NodeJS.ErrnoException) =>
          resume(Effect.fail(new ListenError({ host, port: options.port, code: cause.code, cause })))
        server.once("error", onError)
        server.listen(options.port, host, () => {
          server.off("error", onError)
          if (options.announce === true) {
            const address = server.address()
            const port = typeof address === "object" && address !== null ? address.port : options.port
            const shown = host.includes(":") ? `[${host}]` : host
            process.stderr.write(`listening on http://${shown}:${port}${options.path ?? "/mcp"}\n`)
          }
          resume(Effect.void)
        })
      }),
      () =>
        Effect.gen(function*() {
          // No new connections; then the handler ends (its last answers written, its streams
          // ended); then every connection answering nothing is closed, at once.
          const closed = yield* Deferred.make<void>()
          server.close(() => Deferred.unsafeDone(closed, Exit.void))
          yield* Scope.close(handlerScope, Exit.void)
          // Node's timers, not the Effect clock: a test's TestClock must not hold the close.
          // Connections become idle as their last responses are flushed, and are closed as they
          // do; those still busy after the grace period are cut.
          closeIdle()
          const idle = setInterval(closeIdle, 20)
          const grace = setTimeout(() => server.closeAllConnections(), closeGraceMillis)
          yield* Deferred.await(closed).pipe(Effect.ensuring(Effect.sync(() => {
            clearInterval(idle)
            clearTimeout(grace)
          })))
        })
    )
  }))
