/**
 * Node wiring for MCP servers: stdio and HTTP.
 *
 * In stdio mode nothing but protocol bytes touches stdout: the Effect logger is replaced
 * by one that writes to stderr. Importing this module touches nothing: stdio is read only
 * when `serveStdio` runs.
 *
 * @since 0.1.0
 */
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
import type * as net from "node:net"
import type { Readable, Writable } from "node:stream"
import * as NodeHttp from "./internal/nodeHttp.js"
import * as Stdio from "./internal/stdio.js"

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
 *   Node keeps one buffer, not one per line). Right for a server, whose answers to the lines of
 *   one chunk are ready together, and for a client (`NodeMcpClient.layerStdio`), whose requests
 *   made in one tick cost one system call and one wake-up of the server instead of one each.
 * - `false`: each line is written as it is sent (the other side may start on the first while the
 *   rest are made, at the price of a write per line).
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
export const lineSender: (output: Writable, options?: SenderOptions) => Transport.Protocol["send"] = Stdio.lineSender

/**
 * Options of {@link protocol}: the reader's bound on a line, how lines are written, and how long
 * requests still running may take once the input ends.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProtocolOptions extends Ndjson.ReaderOptions, SenderOptions {
  /**
   * The longest line held, in bytes of UTF-8 (default `Ndjson.defaultMaxLineLength`, 4 Mi): a longer
   * one is let go as it passes this, never decoded.
   */
  readonly maxLineLength?: number
  /**
   * When the input ends, how long the requests still running may take to be answered (default
   * {@link defaultEndOfInputGrace}, 1.5 seconds; 0: none). Those still running after it are
   * cancelled, and a line on stderr says which; then `run` ends. Held requests (a 2026-07-28
   * `subscriptions/listen`) are not waited for: they end with the server.
   */
  readonly endOfInputGrace?: Duration.DurationInput
  /**
   * The most bytes that may wait on the output for the client to read them (default 32 MiB, as a
   * connection of `layerHttp`; UTF-8 bytes, held outside the JS heap as `Buffer`s). Past
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
export const defaultEndOfInputGrace: Duration.Duration = Stdio.defaultEndOfInputGrace

/**
 * The most requests a stdio client has running at once by default (100, as HTTP/2 advises for its
 * concurrent streams): the output's bound holds what is written, this what is being made.
 *
 * @since 0.1.0
 * @category stdio
 */
export const defaultMaxRequestsInFlight: number = Stdio.defaultMaxRequestsInFlight

/**
 * Newline-delimited JSON over a readable and a writable stream: one client. Lines are split and
 * decoded as Node delivers chunks, straight into the engine. A line is counted in bytes as they
 * arrive and held as they came (outside the JavaScript heap) until its newline; one longer than
 * `maxLineLength` bytes (default `Ndjson.defaultMaxLineLength`, 4 Mi) is let go as it passes the
 * bound, the rest of it skipped undecoded: it is one -32600 `Message too large`, and the next line
 * is read as usual.
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
export const protocol: (input: Readable, output: Writable, options?: ProtocolOptions) => Transport.Protocol =
  Stdio.protocol

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
    // Loaded here, not when this module is: on Node 22 and later, importing `node:http` as a module
    // loads undici as well (tens of milliseconds a server over stdio never needs).
    const http = yield* Effect.promise(() => import("node:http"))
    const host = options.host ?? "127.0.0.1"
    // Every open connection, with how many of its requests are being answered (counted down by each
    // exchange as its response closes), and what it has waiting to be written (its account,
    // `maxBufferedBytes`: over a bound, it is closed). When the server closes, one answering none
    // (idle between requests, or not yet through a request's headers: Node counts it busy, so
    // `closeIdleConnections` would leave it to the grace period) closes at once.
    const connections = new Map<net.Socket, NodeHttp.Connection>()
    const server = http.createServer({
      headersTimeout: millis(options.headersTimeout, "30 seconds"),
      requestTimeout: millis(options.requestTimeout, "60 seconds"),
      keepAliveTimeout: millis(options.keepAliveTimeout, "5 seconds"),
      maxHeaderSize: options.maxHeaderSize ?? (options.auth === undefined ? 16 * 1024 : 96 * 1024)
    }, (request, response) => {
      const connection = connections.get(request.socket) ?? track(request.socket)
      connection.answering++
      handler.handle(NodeHttp.exchange(request, response, connection))
    })
    const track = (socket: net.Socket): NodeHttp.Connection => {
      const connection = new NodeHttp.Connection(handler.writes.open(() => socket.destroy()))
      connections.set(socket, connection)
      // `on`, not `once`: a socket closes once, and `once` wraps each listener.
      socket.on("close", () => {
        connections.delete(socket)
        connection.account.close()
      })
      return connection
    }
    server.on("connection", track)
    const closeIdle = () => {
      for (const [socket, connection] of connections) if (connection.answering === 0) socket.destroy()
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
