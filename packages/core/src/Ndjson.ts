/**
 * Newline-delimited JSON: one JSON-RPC frame per line, no embedded newlines (stdio, child
 * processes, sockets). This is the one implementation of the framing; platforms add only how
 * bytes arrive and leave (Node streams, say).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as StreamModule from "effect/Stream"
import * as Lazy from "./internal/lazy.js"
import type * as JsonRpc from "./JsonRpc.js"
import * as McpError from "./McpError.js"
import * as Transport from "./Transport.js"
import * as Wire from "./Wire.js"

/**
 * The client id of the one client a line transport has.
 *
 * @since 0.1.0
 * @category constants
 */
export const client: Transport.ClientId = 0

/**
 * A frame as one line: compact JSON and a newline.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (frame: JsonRpc.Frame): string => Wire.encode(frame) + "\n"

/**
 * Splits text into lines across chunk boundaries and decodes each non-empty line with
 * `Wire.decode` (a trailing `\r` is dropped). `push` takes a chunk (already decoded as
 * UTF-8, so a character split across chunks is whole), `end` flushes the last line.
 *
 * Each chunk is scanned once, and the unfinished line is held only up to `maxLineLength`
 * characters: a longer line is one `Invalid` frame (-32600, `Message too large`, with no id, since
 * its id is inside what was dropped) and the rest of it is dropped as it comes, so a peer that
 * never sends a newline costs at most that much memory.
 *
 * @since 0.1.0
 * @category decoding
 */
export interface Reader {
  readonly push: (chunk: string) => void
  readonly end: () => void
}

/**
 * The longest line a {@link reader} holds by default: 4 Mi characters (as an HTTP body is
 * bounded at 4 MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxLineLength = 4 * 1024 * 1024

/**
 * Options of a {@link reader}.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReaderOptions extends Wire.DecodeOptions {
  /** The longest line held, in characters (UTF-16 code units); default {@link defaultMaxLineLength}. */
  readonly maxLineLength?: number
  /**
   * Told of a line longer than `maxLineLength`, with its first 1,024 characters (where a
   * message's `id` usually is: see `Wire.idOf`), instead of the `Invalid` frame being emitted.
   */
  readonly onTooLong?: ((head: string) => void) | undefined
}

/** How much of a line too long is kept for `onTooLong`. */
const headLength = 1024

/** The first `headLength` characters of `a + b`, without joining the whole of them. */
const headOf = (a: string, b: string) =>
  a.length >= headLength ? a.slice(0, headLength) : a + b.slice(0, headLength - a.length)

/**
 * A {@link Reader} that calls `emit` with each decoded line.
 *
 * @since 0.1.0
 * @category decoding
 */
export const reader = (emit: (inbound: Wire.Inbound) => void, options: ReaderOptions = {}): Reader => {
  const max = Math.max(1, options.maxLineLength ?? defaultMaxLineLength)
  /** The unfinished line. */
  let buffer = ""
  /** The unfinished line is over `max`: said once, the rest of it dropped until its newline. */
  let dropping = false
  const decodeOptions: Wire.DecodeOptions = { maxDepth: options.maxDepth }
  const line = (text: string) => {
    const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text
    // A line that is only whitespace is no message (checked without copying the line).
    if (/\S/.test(trimmed)) emit(Wire.decode(trimmed, decodeOptions))
  }
  const onTooLong = options.onTooLong
  const tooLong = (head: string) =>
    onTooLong !== undefined ? onTooLong(head) : emit({
      _tag: "Invalid",
      id: null,
      error: new McpError.InvalidRequest({ message: `Message too large: a line of more than ${max} characters` })
    })
  /** Text with no newline, added to the unfinished line. */
  const hold = (text: string) => {
    if (dropping || text.length === 0) return
    if (buffer.length + text.length > max) {
      const head = headOf(buffer, text)
      buffer = ""
      dropping = true
      tooLong(head)
    } else {
      buffer += text
    }
  }
  return {
    push: (chunk) => {
      let start = 0
      let newline = chunk.indexOf("\n")
      while (newline >= 0) {
        const piece = chunk.slice(start, newline)
        if (dropping) dropping = false
        else if (buffer.length + piece.length > max) tooLong(headOf(buffer, piece))
        else line(buffer.length === 0 ? piece : buffer + piece)
        buffer = ""
        start = newline + 1
        newline = chunk.indexOf("\n", start)
      }
      hold(start === 0 ? chunk : chunk.slice(start))
    },
    end: () => {
      if (!dropping && buffer.length > 0) line(buffer)
      buffer = ""
      dropping = false
    }
  }
}

/** The lines of `text` (a stream of `effect/Stream`, loaded when the framing first runs) as a protocol. */
const framed = (
  text: (Stream: typeof StreamModule) => StreamModule.Stream<string, Transport.TransportError>,
  options: {
    readonly write: (lines: string) => Effect.Effect<void, Transport.TransportError>
    readonly maxLineLength?: number
  }
): Transport.Protocol => ({
  run: (receiver) =>
    // `effect/Stream` (69 modules of Effect with `effect/Mailbox`) is loaded here, when a stream's framing
    // first runs: a server over stdio reads its lines with `reader` and never loads it.
    Effect.flatMap(Effect.promise(Lazy.stream), (Stream) => {
      const lines = reader((inbound) => receiver.receive(client, inbound), options)
      return text(Stream).pipe(
        Stream.runForEach((chunk) => Effect.sync(() => lines.push(chunk))),
        Effect.ensuring(Effect.sync(() => {
          lines.end()
          receiver.disconnect(client)
        }))
      )
    }),
  send: (_client, frame) => options.write(encode(frame))
})

/**
 * A one-client protocol over newline-delimited JSON: `input` is the text arriving (already
 * decoded as UTF-8), `write` writes encoded lines. `run` ends when `input` ends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const protocol = (options: {
  readonly input: StreamModule.Stream<string, Transport.TransportError>
  readonly write: (lines: string) => Effect.Effect<void, Transport.TransportError>
  /** The longest line taken (default {@link defaultMaxLineLength}). */
  readonly maxLineLength?: number
}): Transport.Protocol => framed(() => options.input, options)

/**
 * {@link protocol} over a byte stream (UTF-8).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBytes = (options: {
  readonly input: StreamModule.Stream<Uint8Array, Transport.TransportError>
  readonly write: (lines: string) => Effect.Effect<void, Transport.TransportError>
  /** The longest line taken (default {@link defaultMaxLineLength}). */
  readonly maxLineLength?: number
}): Transport.Protocol => framed((Stream) => Stream.decodeText(options.input), options)
