/**
 * Newline-delimited JSON: one JSON-RPC frame per line, no embedded newlines (stdio, child
 * processes, sockets). This is the one implementation of the framing; platforms add only how
 * bytes arrive and leave (Node streams, say).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as JsonRpc from "./JsonRpc.js"
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
 * @since 0.1.0
 * @category decoding
 */
export interface Reader {
  readonly push: (chunk: string) => void
  readonly end: () => void
}

/**
 * A {@link Reader} that calls `emit` with each decoded line.
 *
 * @since 0.1.0
 * @category decoding
 */
export const reader = (emit: (inbound: Wire.Inbound) => void): Reader => {
  let buffer = ""
  const line = (text: string) => {
    const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text
    // A line that is only whitespace is no message (checked without copying the line).
    if (/\S/.test(trimmed)) emit(Wire.decode(trimmed))
  }
  return {
    push: (chunk) => {
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
    end: () => {
      if (buffer.length > 0) line(buffer)
      buffer = ""
    }
  }
}

/**
 * A one-client protocol over newline-delimited JSON: `input` is the text arriving (already
 * decoded as UTF-8), `write` writes encoded lines. `run` ends when `input` ends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const protocol = (options: {
  readonly input: Stream.Stream<string, Transport.TransportError>
  readonly write: (lines: string) => Effect.Effect<void, Transport.TransportError>
}): Transport.Protocol => ({
  run: (receiver) =>
    Effect.suspend(() => {
      const lines = reader((inbound) => receiver.receive(client, inbound))
      return options.input.pipe(
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
 * {@link protocol} over a byte stream (UTF-8).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBytes = (options: {
  readonly input: Stream.Stream<Uint8Array, Transport.TransportError>
  readonly write: (lines: string) => Effect.Effect<void, Transport.TransportError>
}): Transport.Protocol => protocol({ input: Stream.decodeText(options.input), write: options.write })
