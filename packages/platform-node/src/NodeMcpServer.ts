/**
 * Node wiring for MCP servers: stdio.
 *
 * In stdio mode nothing but protocol bytes touches stdout: the Effect logger is replaced
 * by one that writes to stderr.
 *
 * @since 0.1.0
 */
import { Transport, Wire } from "@effect-mcp/core"
import { HttpTransport, McpServer } from "@effect-mcp/server"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import { createServer } from "node:http"
import type { Readable, Writable } from "node:stream"
import { StringDecoder } from "node:string_decoder"

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
 * Sends frames as lines on a Node writable stream, in order. Lines written in the same tick are
 * corked into one write; Node buffers what the other side has not read yet.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lineSender = (output: Writable): Transport.Transport["send"] => {
  let corked = false
  const uncork = () => {
    corked = false
    output.uncork()
  }
  return (frame) =>
    Effect.suspend(() => {
      if (output.destroyed || output.writableEnded) {
        return Effect.fail(new Transport.TransportError({ message: "stream closed" }))
      }
      if (!corked) {
        corked = true
        output.cork()
        process.nextTick(uncork)
      }
      output.write(Wire.encode(frame) + "\n")
      return Effect.void
    })
}

/**
 * A newline-delimited JSON transport over a readable and a writable stream. Lines are split
 * and decoded as Node delivers chunks, straight into the peer's inbox.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (input: Readable, output: Writable): Effect.Effect<Transport.Transport, never, Scope.Scope> =>
  Effect.gen(function*() {
    const inbox = yield* Effect.acquireRelease(
      Mailbox.make<Wire.Inbound, Transport.TransportError>(),
      (mailbox) => mailbox.shutdown
    )
    const decoder = new StringDecoder("utf8")
    const lines = Transport.lineReader((inbound) => {
      inbox.unsafeOffer(inbound)
    })
    const onData = (chunk: Buffer | string) => lines.push(typeof chunk === "string" ? chunk : decoder.write(chunk))
    const onEnd = () => {
      lines.push(decoder.end())
      lines.end()
      inbox.unsafeDone(Exit.void)
    }
    const onError = (cause: unknown) =>
      inbox.unsafeDone(Exit.fail(new Transport.TransportError({ message: "read failed", cause })))
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        input.on("data", onData)
        input.once("end", onEnd)
        input.once("error", onError)
      }),
      () =>
        Effect.sync(() => {
          input.off("data", onData)
          input.off("end", onEnd)
          input.off("error", onError)
          input.pause()
        })
    )
    return { incoming: Mailbox.toStream(inbox), send: lineSender(output) }
  })

/**
 * Serves one session on the process's stdin and stdout; completes when stdin ends
 * (the client closed it), so the process can exit.
 *
 * @since 0.1.0
 * @category stdio
 */
export const serveStdio: Effect.Effect<void, never, McpServer.McpServer> = Effect.scoped(
  Effect.flatMap(transport(process.stdin, process.stdout), McpServer.serve)
).pipe(Effect.provide(layerStderrLogger))

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
 * Options of `layerHttp`.
 *
 * @since 0.1.0
 * @category http
 */
export interface HttpOptions extends HttpTransport.Options {
  /** Port to listen on (0: any free port). */
  readonly port: number
  /** Address to bind (default 127.0.0.1: loopback only). */
  readonly host?: string
}

/**
 * Serves the MCP endpoints (Streamable HTTP on `path`, legacy HTTP+SSE) on a Node HTTP
 * server bound to loopback by default, for the lifetime of the layer.
 *
 * @since 0.1.0
 * @category http
 */
export const layerHttp = (options: HttpOptions) =>
  HttpLayerRouter.serve(HttpTransport.layer(options), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host ?? "127.0.0.1" }))
  )
