/**
 * Node wiring for MCP servers: stdio.
 *
 * In stdio mode nothing but protocol bytes touches stdout: the Effect logger is replaced
 * by one that writes to stderr.
 *
 * @since 0.1.0
 */
import { Transport } from "@effect-mcp/core"
import { McpServer } from "@effect-mcp/server"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type { Readable, Writable } from "node:stream"

/**
 * A logger that writes to stderr, never stdout.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStderrLogger: Layer.Layer<never> = Logger.replace(
  Logger.defaultLogger,
  Logger.withConsoleError(Logger.logfmtLogger)
)

/**
 * Writes to a Node writable stream, waiting for `drain` when its buffer is full.
 *
 * @since 0.1.0
 * @category constructors
 */
export const writeTo = (stream: Writable) => (chunk: string): Effect.Effect<void, Transport.TransportError> =>
  Effect.async<void, Transport.TransportError>((resume) => {
    if (stream.destroyed || stream.writableEnded) {
      resume(Effect.fail(new Transport.TransportError({ message: "stream closed" })))
      return
    }
    const ok = stream.write(chunk, (error) => {
      if (error) resume(Effect.fail(new Transport.TransportError({ message: "write failed", cause: error })))
    })
    if (ok) resume(Effect.void)
    else stream.once("drain", () => resume(Effect.void))
  })

/**
 * A newline-delimited JSON transport over a readable and a writable stream.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (input: Readable, output: Writable) =>
  Transport.ndjson({
    input: NodeStream.fromReadable(
      () => input,
      (cause) => new Transport.TransportError({ message: "read failed", cause })
    ),
    write: writeTo(output)
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
