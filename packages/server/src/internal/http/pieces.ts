/**
 * What the Web-standard adapters (`fetch.ts`, and @effect/platform's, `platform.ts`) share: the
 * pieces a counted response is written in, the bounds of a refused body's drain, the answer over
 * the write bounds, and the text of a body read in chunks.
 */
import * as Front from "./front.js"

export const encoder = new TextEncoder()
/** One decoder for every body (making one costs a runtime more than decoding a small body). */
export const decoder = new TextDecoder()

/** Bytes in a piece of a counted response; answers longer than `whole` are counted. */
export const piece = 64 * 1024
export const whole = 64 * 1024

/** How much of a refused body is still read (and dropped), and for how long, before it is let go. */
export const drainBytes = 16 * 1024 * 1024
export const drainMillis = 3_000

/** An answer that would wait to be written past the bounds: 503. */
export const tooMuch = Front.error(
  503,
  Front.transportError,
  "Service Unavailable: the answer is more than may wait to be written (maxBufferedBytes)"
)

/**
 * The pieces of `bytes`, at most `piece` long each; copies, so that a piece the platform holds (a
 * reader that stopped reading) keeps nothing else alive.
 */
export const piecesOf = (bytes: Uint8Array): Array<Uint8Array> => {
  if (bytes.length <= piece) return [bytes]
  const out: Array<Uint8Array> = []
  for (let at = 0; at < bytes.length; at += piece) out.push(bytes.slice(at, at + piece))
  return out
}

/** The UTF-8 text of a body read in `chunks` (`size` bytes in all). */
export const decode = (chunks: ReadonlyArray<Uint8Array>, size: number): string => {
  if (chunks.length === 1) return decoder.decode(chunks[0])
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return decoder.decode(bytes)
}
