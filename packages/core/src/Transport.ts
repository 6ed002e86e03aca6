/**
 * The abstract transport a `Peer` runs on: a stream of inbound frames (already
 * through `Wire.decode`) and a way to send a frame. Concrete transports (stdio,
 * HTTP, the in-memory pair here) are built on it.
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as JsonRpc from "./JsonRpc.js"
import * as Wire from "./Wire.js"

/**
 * The transport is closed or broken: nothing more can be sent or received.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * Where a message being sent belongs: the inbound request it answers or was caused
 * by (progress, logs, server→client requests made by that request's handler).
 * Transports with a channel per request (Streamable HTTP) route by it; others ignore it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SendContext {
  readonly related?: JsonRpc.RequestId | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Transport {
  /** Inbound frames, decoded. Ends when the other side closes. */
  readonly incoming: Stream.Stream<Wire.Inbound, TransportError>
  /** Sends one frame (a message or a batch). */
  readonly send: (frame: JsonRpc.Frame, context?: SendContext) => Effect.Effect<void, TransportError>
  /**
   * Transports with a stream per request (Streamable HTTP, 2025-11-25 polling): ends the HTTP
   * response stream of request `related` now, telling the client when to reconnect; later
   * messages for it are kept for the client's resumption. Absent elsewhere.
   */
  readonly closeStream?: ((related: JsonRpc.RequestId) => Effect.Effect<void>) | undefined
}

/**
 * A transport over text frames (stdio lines, WebSocket messages): decodes each frame
 * with `Wire.decode` and encodes with `Wire.encode`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromText = (options: {
  readonly incoming: Stream.Stream<string, TransportError>
  readonly write: (text: string) => Effect.Effect<void, TransportError>
}): Transport => ({
  incoming: Stream.map(options.incoming, Wire.decode),
  send: (frame) => options.write(Wire.encode(frame))
})

/**
 * The writing half of a newline-delimited transport: outbound lines go through one queue
 * drained by one fiber, which writes every line waiting at once with a single `write`.
 * Returns the `send` of a `Transport`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lineWriter = (
  write: (chunk: string) => Effect.Effect<void, TransportError>
): Effect.Effect<Transport["send"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const outbox = yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
    yield* Mailbox.toStream(outbox).pipe(
      Stream.mapChunksEffect((lines) => Effect.as(write(Chunk.join(lines, "\n") + "\n"), Chunk.empty<never>())),
      Stream.runDrain,
      Effect.catchAll((error) => Effect.logDebug("effect-mcp: write failed", error)),
      Effect.forkScoped
    )
    return (frame) =>
      Effect.flatMap(
        outbox.offer(Wire.encode(frame)),
        (accepted) => accepted ? Effect.void : Effect.fail(new TransportError({ message: "transport closed" }))
      )
  })

/**
 * Splits text into lines across chunk boundaries and decodes each non-empty line with
 * `Wire.decode`: the reading half of a newline-delimited transport, for platforms that
 * deliver chunks by callback. `push` takes a chunk, `end` flushes the last line.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lineReader = (emit: (inbound: Wire.Inbound) => void) => {
  let buffer = ""
  const line = (text: string) => {
    const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text
    if (trimmed.trim().length > 0) emit(Wire.decode(trimmed))
  }
  return {
    push: (chunk: string): void => {
      buffer += chunk
      let start = 0
      let newline = buffer.indexOf("\n", start)
      while (newline >= 0) {
        line(buffer.slice(start, newline))
        start = newline + 1
        newline = buffer.indexOf("\n", start)
      }
      buffer = start === 0 ? buffer : buffer.slice(start)
    },
    end: (): void => {
      if (buffer.length > 0) line(buffer)
      buffer = ""
    }
  }
}

/**
 * Newline-delimited JSON over a byte stream (stdio, a child process, a socket): one message
 * per line, no embedded newlines. See {@link lineWriter} for the writing half.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ndjson = (options: {
  readonly input: Stream.Stream<Uint8Array, TransportError>
  readonly write: (chunk: string) => Effect.Effect<void, TransportError>
}): Effect.Effect<Transport, never, Scope.Scope> =>
  Effect.map(lineWriter(options.write), (send) => ({
    incoming: options.input.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.filter((line) => line.trim().length > 0),
      Stream.map(Wire.decode)
    ),
    send
  }))

/**
 * The raw text side of an in-memory connection, for wire-level tests: write JSON
 * text in, read JSON text out.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextEndpoint {
  /** Sends one text frame to the other side. */
  readonly write: (text: string) => Effect.Effect<void>
  /** The next text frame from the other side. Fails when the other side has closed. */
  readonly read: Effect.Effect<string, TransportError>
  /** Everything the other side sends, until it closes. */
  readonly texts: Stream.Stream<string>
  /** Closes this side: the other side's incoming stream ends. */
  readonly close: Effect.Effect<void>
}

const endpoint = (inbox: Mailbox.Mailbox<string>, outbox: Mailbox.Mailbox<string>): TextEndpoint => ({
  write: (text) => Effect.asVoid(outbox.offer(text)),
  read: Effect.mapError(
    inbox.take,
    () => new TransportError({ message: "the other side closed" })
  ),
  texts: Mailbox.toStream(inbox),
  close: Effect.asVoid(outbox.end)
})

const link = (inbox: Mailbox.Mailbox<string>, outbox: Mailbox.Mailbox<string>): Transport =>
  fromText({
    incoming: Mailbox.toStream(inbox),
    write: (text) =>
      Effect.flatMap(
        outbox.offer(text),
        (accepted) => accepted ? Effect.void : Effect.fail(new TransportError({ message: "transport closed" }))
      )
  })

/**
 * An in-memory connection whose one side is a `Transport` (for a peer) and whose other
 * side is raw text (for a test). Every message crosses `Wire.encode` / `Wire.decode`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memory: Effect.Effect<
  { readonly transport: Transport; readonly remote: TextEndpoint },
  never,
  Scope.Scope
> = Effect.gen(function*() {
  const toPeer = yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
  const toRemote = yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
  return { transport: link(toPeer, toRemote), remote: endpoint(toRemote, toPeer) }
})

/**
 * Two linked in-memory transports (say, a client's and a server's), talking text.
 * Closing either side's scope ends both.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memoryPair: Effect.Effect<readonly [Transport, Transport], never, Scope.Scope> = Effect.gen(function*() {
  const aToB = yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
  const bToA = yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
  return [link(bToA, aToB), link(aToB, bToA)] as const
})
