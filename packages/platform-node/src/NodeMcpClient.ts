/**
 * Node wiring of the client: a server spawned as a child process, spoken to over its stdin and
 * stdout (newline-delimited JSON, the same framing the server side uses); and Streamable HTTP on
 * undici's keep-alive pool instead of Node's `fetch` (`layerHttp`, `layerHttpClient`).
 *
 * The child lives as long as the layer. On release its stdin is closed (a well-behaved server
 * exits at end of input); if it has not exited after `closeTimeout` it gets SIGTERM, and after
 * as long again SIGKILL. Its stderr is written to the caller's as it comes (`stderr: "inherit"`,
 * the default), not shown (`"ignore"`), or handed to a callback line by line; whichever, its last
 * lines are kept (20 lines, 4 KiB at most) for the error if the child ends first. So it is always a
 * pipe, never the caller's terminal itself (a child that colours its output only on a terminal
 * does not colour it here). Once the child has exited its pipes are let go, even if a grandchild
 * still holds them.
 *
 * If the child ends (exits, or closes its stdout) while the client is using it, the calls waiting
 * and every later one fail at once with `TransportClosed`, saying how it ended and what its
 * stderr ended with (`...; the server exited with code 1; its stderr ended with:\n  boom`); the
 * `cause` of its `reason` is a {@link ServerExited}, with the exit code and those lines.
 *
 * @since 0.1.0
 */
import type { McpClientTransport } from "@effect-mcp/client"
import * as ClientError from "@effect-mcp/client/ClientError"
import { type JsonRpc, Ndjson, Transport, Wire } from "@effect-mcp/core"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import * as CommonJs from "./internal/commonJs.js"
import * as HttpPost from "./internal/httpPost.js"
import * as Lanes from "./internal/lanes.js"
import * as StderrTail from "./internal/stderrTail.js"
import * as NodeMcpServer from "./NodeMcpServer.js"

/**
 * The child process could not be started (no such command, not executable, ...).
 *
 * @since 0.1.0
 * @category errors
 */
export class SpawnError extends Data.TaggedError("SpawnError")<{
  readonly command: string
  readonly cause: unknown
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `could not start ${this.command}: ${reason}`
  }
}

/**
 * The server's process ended while the client was using it: it exited (`code`), a signal ended it
 * (`signal`), or it closed its stdout and had not exited a moment later (both null). `stderr` is
 * the last lines it wrote there, oldest first (at most 20 lines and 4 KiB). It is the `cause` of
 * the `reason` of the `TransportClosed` the client's calls fail with:
 * `error.reason?.cause instanceof NodeMcpClient.ServerExited`.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerExited extends Data.TaggedError("ServerExited")<{
  readonly command: string
  readonly code: number | null
  readonly signal: string | null
  readonly stderr: ReadonlyArray<string>
}> {
  override get message(): string {
    const how = this.code !== null
      ? `the server exited with code ${this.code}`
      : this.signal !== null
      ? `the server was ended by ${this.signal}`
      : "the server closed its stdout"
    return this.stderr.length === 0
      ? how
      : `${how}; its stderr ended with:\n${this.stderr.map((line) => `  ${line}`).join("\n")}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StdioOptions {
  readonly command: string
  readonly args?: ReadonlyArray<string>
  /** The child's environment (default: this process's). */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
  /**
   * What becomes of the child's stderr (default `"inherit"`: written to ours as it comes). Its
   * last lines are kept for the error whichever is chosen.
   */
  readonly stderr?: "inherit" | "ignore" | ((line: string) => void)
  /** How long the child may take to exit once its stdin is closed, before SIGTERM (default 2 seconds). */
  readonly closeTimeout?: Duration.DurationInput
  /**
   * How long after it was spawned the child counts as started even if it has written nothing on
   * stdout (default 10 seconds). The client's `auto` probe (`probeTimeout`) waits from the child's
   * first line on stdout or from then, whichever comes first: a child slow to start (a loaded
   * machine, `npx` fetching a package) is not taken for a server that ignores `server/discover`.
   * A server that never answers it costs this plus `probeTimeout` before the handshake (pin
   * `era: "handshake"` to skip the probe).
   */
  readonly startTimeout?: Duration.DurationInput
  /**
   * The longest message taken from the server, in bytes of UTF-8 (default 32 MiB: a result may
   * carry a large resource). A line is counted as its bytes arrive and held as they came, outside the
   * JavaScript heap; a longer one is let go once it passes the bound and the rest of it skipped
   * until its newline, never decoded (the request it answers, its id read from its first bytes,
   * fails with `MessageTooLarge`).
   */
  readonly maxMessageLength?: number
  /**
   * The deepest nesting of a message read from the server (default 128, `Wire.defaultMaxDepth`):
   * a deeper one is not JSON-RPC to us, so it is dropped and logged.
   */
  readonly maxDepth?: number
}

/** The longest message taken from a server by default, in bytes. */
const defaultMaxMessageLength = 32 * 1024 * 1024

/** How long after its spawn a child that has written nothing counts as started, by default. */
const defaultStartTimeout = Duration.seconds(10)

/** Has the child exited? */
const gone = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null

/**
 * Once the child's stdout has ended: until it has exited and its stderr is read to the end (its
 * `close`), a moment after its exit if its stderr stays open (a grandchild holding it), two
 * seconds at most if it does not exit. Node's timers, not the Effect clock (as on release).
 */
const ended = (child: ChildProcess, closed: () => boolean): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (closed()) return resume(Effect.void)
    const timers: Array<ReturnType<typeof setTimeout>> = []
    const cleanup = () => {
      for (const timer of timers) clearTimeout(timer)
      child.off("close", done)
      child.off("exit", exited)
    }
    const done = () => {
      cleanup()
      resume(Effect.void)
    }
    const exited = () => timers.push(setTimeout(done, 100))
    child.once("close", done)
    if (gone(child)) exited()
    else child.once("exit", exited)
    timers.push(setTimeout(done, 2000))
    return Effect.sync(cleanup)
  })

/**
 * The protocol over the child's pipes: when its stdout ends, the client is gone with the reason
 * (how the child ended, its stderr's last lines), and `run` fails with it.
 */
const childProtocol = (
  command: string,
  child: ChildProcess,
  tail: StderrTail.Tail,
  closed: () => boolean,
  maxLineLength: number,
  maxDepth: number | undefined,
  runFork: (effect: Effect.Effect<void>) => void,
  /** Told of every line the child writes on stdout (the first says it has started). */
  wrote: () => void
): Transport.Protocol<ClientError.MessageTooLarge> => {
  /** Our requests not yet answered, by id: the method a line too long fails (bounded by what is in flight). */
  const methods = new Map<JsonRpc.RequestId, string>()
  let current: Transport.Receiver<ClientError.MessageTooLarge> | undefined
  const inner = NodeMcpServer.protocol(child.stdout!, child.stdin!, {
    maxLineLength,
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    // The requests made in one tick go out as one write (`coalesce`, the default): one system call
    // and one wake-up of the server for the lot. A write per request (so the server could start on
    // the first while the rest were made) cost more than it won: on two busy cores the client bench
    // ran 25-40% slower with it, each write a system call and a context switch of its own.
    // The server is gone when its stdout ends: nothing it asked can be answered any more.
    endOfInputGrace: 0,
    // A server's bounds, not a client's: our requests never wait for room (their timeouts run from
    // when they are sent; one waiting for room could not be given up), and what the server sends is
    // always read (it holds the answers to our requests).
    maxBufferedBytes: Infinity,
    maxRequestsInFlight: Infinity,
    // Never held, never answered: the request it answers (its id read from its head) fails.
    onTooLong: (head) => {
      wrote()
      const id = Wire.idOf(head)
      const method = id === undefined ? undefined : methods.get(id)
      if (id === undefined || method === undefined || current === undefined) {
        return runFork(
          Effect.logWarning(
            `effect-mcp client: ${command} sent a line of more than ${maxLineLength} bytes; dropped`
          )
        )
      }
      methods.delete(id)
      current.fail(
        Ndjson.client,
        id,
        new ClientError.MessageTooLarge({ method, limit: maxLineLength, option: "maxMessageLength" })
      )
    }
  })
  const forget = (message: unknown) => {
    const m = message as { readonly id?: JsonRpc.RequestId; readonly method?: unknown; readonly params?: unknown }
    if (typeof m !== "object" || m === null) return
    if (m.method === "notifications/cancelled") {
      const cancelled = (m.params as { readonly requestId?: JsonRpc.RequestId } | undefined)?.requestId
      if (cancelled !== undefined) methods.delete(cancelled)
    } else if (typeof m.method === "string" && m.id !== undefined) methods.set(m.id, m.method)
  }
  return {
    ...inner,
    send: (client, frame, context) => {
      if (Array.isArray(frame)) frame.forEach(forget)
      else forget(frame)
      return inner.send(client, frame, context)
    },
    sendNow: (client, frame, context) => {
      if (inner.sendNow === undefined || !inner.sendNow(client, frame, context)) return false
      if (Array.isArray(frame)) frame.forEach(forget)
      else forget(frame)
      return true
    },
    run: (receiver) =>
      // The inner protocol's disconnect (at the end of stdout) waits for the reason.
      Effect.zipRight(
        Effect.suspend(() => {
          current = receiver
          return inner.run({
            ...receiver,
            fail: () => {},
            receive: (client, inbound, context) => {
              wrote()
              for (const item of inbound._tag === "Batch" ? inbound.items : [inbound]) {
                if (item._tag === "Single" && !("method" in item.message) && item.message.id !== null) {
                  methods.delete(item.message.id)
                }
              }
              receiver.receive(client, inbound, context)
            },
            disconnect: () => {}
          })
        }),
        Effect.flatMap(ended(child, closed), () => {
          const exited = new ServerExited({
            command,
            code: child.exitCode,
            signal: child.signalCode,
            stderr: tail.lines()
          })
          const reason = new Transport.TransportError({ message: exited.message, cause: exited })
          receiver.disconnect(Ndjson.client, reason)
          return Effect.fail(reason)
        })
      )
  }
}

/**
 * A client transport to a server run as a child process.
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import { NodeMcpClient } from "@effect-mcp/platform-node"
 * import { Layer } from "effect"
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "me", version: "1.0.0" } }).pipe(
 *   Layer.provide(NodeMcpClient.layerStdio({ command: "node", args: ["server.js"] }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (options: StdioOptions): Layer.Layer<McpClientTransport.McpClientTransport, SpawnError> =>
  Layer.unwrapEffect(
    Effect.map(transports, (McpClientTransport) => Layer.scoped(McpClientTransport.McpClientTransport, stdio(options)))
  )

/** The client's transports, loaded when a layer here is first built (a server never loads them). */
const transports = Effect.promise(() => import("@effect-mcp/client/McpClientTransport"))

/** The child process and the protocol over its pipes, for the lifetime of the scope. */
const stdio = (options: StdioOptions) =>
  Effect.gen(function*() {
    const stderr = options.stderr ?? "inherit"
    const run = Runtime.runFork(yield* Effect.runtime<never>())
    const tail = StderrTail.make()
    let closed = false
    const child = yield* Effect.acquireRelease(
      Effect.async<ChildProcess, SpawnError>((resume) => {
        // stderr is always a pipe: its last lines are kept whatever becomes of it.
        const child = spawn(options.command, [...(options.args ?? [])], {
          stdio: ["pipe", "pipe", "pipe"],
          ...(options.env !== undefined ? { env: { ...options.env } } : {}),
          ...(options.cwd !== undefined ? { cwd: options.cwd } : {})
        })
        // Watched from the start: a child that fails at once says why before we look.
        child.once("close", () => closed = true)
        // Written on by hand, not piped: a pipe would add listeners to our stderr for every child.
        child.stderr!.on(
          "data",
          stderr === "inherit"
            ? (chunk: Uint8Array) => {
              tail.push(chunk)
              process.stderr.write(chunk)
            }
            : (chunk: Uint8Array) => tail.push(chunk)
        )
        if (typeof stderr === "function") createInterface({ input: child.stderr! }).on("line", stderr)
        const onError = (cause: unknown) => resume(Effect.fail(new SpawnError({ command: options.command, cause })))
        child.once("error", onError)
        child.once("spawn", () => {
          child.off("error", onError)
          resume(Effect.succeed(child))
        })
      }),
      (child) =>
        // End of input first; then SIGTERM; then SIGKILL. Node's timers, not the Effect clock:
        // a test's TestClock must not hold the release.
        Effect.async<void>((resume) => {
          // Once it has exited, its pipes are let go: a grandchild holding them open must not keep
          // this process alive.
          const done = () => {
            child.stdout?.destroy()
            child.stderr?.destroy()
            resume(Effect.void)
          }
          if (gone(child)) return done()
          const grace = Duration.toMillis(options.closeTimeout ?? Duration.seconds(2))
          const term = setTimeout(() => gone(child) || child.kill("SIGTERM"), grace)
          const kill = setTimeout(() => gone(child) || child.kill("SIGKILL"), 2 * grace)
          child.once("exit", () => {
            clearTimeout(term)
            clearTimeout(kill)
            done()
          })
          child.stdin?.end()
        })
    )
    // A write to a child that is gone fails the send; it must not crash this process.
    child.stdin!.on("error", () => {})
    // Started: its first line on stdout, or `startTimeout` after its spawn (the Effect clock).
    const started = yield* Deferred.make<void>()
    yield* Effect.forkScoped(
      Effect.delay(Deferred.succeed(started, undefined), options.startTimeout ?? defaultStartTimeout)
    )
    let wrote = false
    return {
      started: Deferred.await(started),
      protocol: childProtocol(
        options.command,
        child,
        tail,
        () => closed,
        options.maxMessageLength ?? defaultMaxMessageLength,
        options.maxDepth,
        (effect) => void run(effect),
        () => {
          if (wrote) return
          wrote = true
          Deferred.unsafeDone(started, Exit.void)
        }
      )
    }
  })

/**
 * The most connections `layerHttpClient` opens to one origin at once for requests, by default: 64.
 * A request beyond them waits for one to be free (in undici's queue), then goes; none is refused. A
 * call answered over a stream holds its connection until its answer. GET streams (a session's, a
 * call's resumed one) have as many again of their own, and the client's answers to the server's
 * asks, its notifications and cancellations 4 more: so the bound cannot deadlock (a call waiting
 * on its ask's answer never holds the connection the answer needs), whatever it is.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultConnections = 64

/**
 * How long an idle connection of `layerHttpClient` is kept open for the next request, by default
 * (when the server does not say, in `Keep-Alive: timeout=…`): 4 seconds, under Node's own server's
 * 5, so the client lets a connection go before the server closes it under a request.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultKeepAliveTimeout: Duration.Duration = Duration.seconds(4)

/**
 * The bounds of `layerHttpClient`'s pool: connections per origin (default
 * {@link defaultConnections}) and the keep-alive of an idle one (default
 * {@link defaultKeepAliveTimeout}). One request at a time on a connection (no pipelining).
 *
 * @since 0.1.0
 * @category models
 */
export interface PoolOptions {
  /**
   * The most connections open to one origin at once for requests (a whole number, at least 1; 1
   * works): a call answered over a stream holds one until its answer. GET streams take as many
   * again, answers and notifications 4 more, on connections of their own.
   */
  readonly connections?: number | undefined
  /** How long an idle connection is kept for the next request. */
  readonly keepAliveTimeout?: Duration.DurationInput | undefined
}

/**
 * @effect/platform's `HttpClient` on undici's connection pool (`NodeHttpClient.layerUndici`'s
 * client, on an `Agent` of its own): a keep-alive pool per origin, without the per-request overhead
 * of Node's `fetch` (the `FetchHttpClient` every platform has), bounded: at most `connections` per
 * origin for requests (default {@link defaultConnections}; the requests beyond them wait their
 * turn), as many for GET streams and 4 for the client's answers and notifications (three `Agent`s:
 * the server's asks are answered while calls hold all the others, so no bound can deadlock), idle
 * ones closed after `keepAliveTimeout` (default {@link defaultKeepAliveTimeout}), no pipelining. The
 * pool is closed with the layer.
 *
 * **When to use:** give it to `McpClientTransport.layerHttp` / `layerSse` yourself when you build
 * the transport by hand (`layerHttpClient`, the default bounds); `layerHttp` does it for you.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClientWith = (
  options: PoolOptions = {}
): Layer.Layer<HttpClient.HttpClient | McpClientTransport.HttpPoster> => {
  const connections = options.connections ?? defaultConnections
  if (!Number.isInteger(connections) || connections < 1) {
    return Layer.die(
      new RangeError(`NodeMcpClient: connections must be a whole number, at least 1 (got ${connections})`)
    )
  }
  const keepAliveTimeout = Math.max(1, Duration.toMillis(options.keepAliveTimeout ?? defaultKeepAliveTimeout))
  return Layer.unwrapEffect(
    // undici is loaded when this layer is first built, not when this module is imported.
    Effect.map(
      Effect.promise(() =>
        Promise.all([
          import("@effect/platform-node/NodeHttpClient"),
          import("@effect/platform-node/Undici"),
          import("@effect-mcp/client/McpClientTransport")
        ])
      ),
      ([NodeHttpClient, Undici, McpClientTransport]) =>
        Layer.merge(
          NodeHttpClient.layerUndiciWithoutDispatcher,
          // The same pool's POST without a fiber, for raw calls (`McpClientTransport.HttpPoster`).
          Layer.effect(
            McpClientTransport.HttpPoster,
            Effect.map(NodeHttpClient.Dispatcher, (dispatcher) =>
              HttpPost.make(CommonJs.names(Undici, "Agent"), dispatcher))
          )
        ).pipe(Layer.provide(Layer.scoped(
          NodeHttpClient.Dispatcher,
          Effect.acquireRelease(
            Effect.sync(() =>
              Lanes.make(
                // undici is CommonJS (re-exported by `@effect/platform-node/Undici` with `export *`).
                CommonJs.names(Undici, "Agent"),
                { connections, keepAliveTimeout }
              )
            ),
            (agent) =>
              Effect.promise(() => agent.destroy())
          )
        )))
    )
  )
}

/**
 * `layerHttpClientWith` with its default bounds: at most {@link defaultConnections} connections
 * per origin, idle ones kept {@link defaultKeepAliveTimeout}. What `layerHttp` runs on.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient: Layer.Layer<HttpClient.HttpClient | McpClientTransport.HttpPoster> = layerHttpClientWith()

/**
 * The client's Streamable HTTP transport (`McpClientTransport.layerHttp`, both eras) on undici's
 * keep-alive connection pool (`layerHttpClientWith(pool)`, bounded: by default at most
 * {@link defaultConnections} connections to the server at once): over HTTP, Node's `fetch` is the
 * client's limit.
 *
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import { NodeMcpClient } from "@effect-mcp/platform-node"
 * import * as Layer from "effect/Layer"
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "me", version: "1.0.0" } }).pipe(
 *   Layer.provide(NodeMcpClient.layerHttp({ url: "http://127.0.0.1:3000/mcp" }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (
  options: McpClientTransport.HttpOptions,
  pool?: PoolOptions
): Layer.Layer<McpClientTransport.McpClientTransport> =>
  Layer.unwrapEffect(Effect.map(transports, (McpClientTransport) => McpClientTransport.layerHttp(options))).pipe(
    Layer.provide(pool === undefined ? layerHttpClient : layerHttpClientWith(pool))
  )
