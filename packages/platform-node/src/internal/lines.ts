/**
 * Newline-delimited JSON read as bytes (`Ndjson.reader`'s framing over Node's buffers): a line is
 * held as the buffers it came in, outside the JavaScript heap, and counted in bytes as they arrive;
 * it becomes a string only once its newline came and it is within the bound. A line over
 * `maxLineLength` bytes is let go as soon as it passes the bound (its first 1,024 bytes told to
 * `onTooLong`), and the rest of it is skipped, never decoded, until its newline. UTF-8 never has a
 * newline byte inside a character, so each line is decoded on its own.
 */
import type { Wire } from "@effect-mcp/core"
import { McpError, Ndjson, Wire as WireCodec } from "@effect-mcp/core"

/** How much of a line too long is told to `onTooLong`, in bytes. */
const headLength = 1024

/** Held pieces past this many are joined (a line trickled in tiny chunks costs no object per byte). */
const maxPieces = 1024

const newline = 10
const carriageReturn = 13

/** A reader of lines pushed as bytes (`push` takes any slice of the input, in order). */
export interface Reader {
  readonly push: (bytes: Buffer) => void
  readonly end: () => void
}

/**
 * A reader that calls `emit` with each decoded line (a line that is only whitespace is none); a
 * line over `maxLineLength` bytes (default `Ndjson.defaultMaxLineLength`) is `onTooLong`, else one
 * `Invalid` frame (-32600, `Message too large`, with no id).
 */
export const reader = (emit: (inbound: Wire.Inbound) => void, options: Ndjson.ReaderOptions = {}): Reader => {
  const max = Math.max(1, options.maxLineLength ?? Ndjson.defaultMaxLineLength)
  const decodeOptions: Wire.DecodeOptions = { maxDepth: options.maxDepth }
  /** The unfinished line, as it came. */
  let held: Array<Buffer> = []
  let heldBytes = 0
  /** The unfinished line is over `max`: said once, the rest of it skipped until its newline. */
  let dropping = false
  const line = (bytes: Buffer) => {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === carriageReturn ? bytes.length - 1 : bytes.length
    const text = bytes.toString("utf8", 0, end)
    if (/\S/.test(text)) emit(WireCodec.decode(text, decodeOptions))
  }
  /** The first `headLength` bytes of what is held and `rest`, as text. */
  const headOf = (rest: Buffer) => {
    const pieces: Array<Buffer> = []
    let length = 0
    for (const piece of [...held, rest]) {
      if (length >= headLength) break
      const part = piece.subarray(0, headLength - length)
      pieces.push(part)
      length += part.length
    }
    return Buffer.concat(pieces, length).toString("utf8")
  }
  const tooLong = (rest: Buffer) => {
    const head = headOf(rest)
    held = []
    heldBytes = 0
    if (options.onTooLong !== undefined) return options.onTooLong(head)
    emit({
      _tag: "Invalid",
      id: null,
      error: new McpError.InvalidRequest({ message: `Message too large: a line of more than ${max} bytes` })
    })
  }
  return {
    push: (bytes) => {
      let start = 0
      let at = bytes.indexOf(newline)
      while (at >= 0) {
        const piece = bytes.subarray(start, at)
        if (dropping) dropping = false
        else if (heldBytes + piece.length > max) tooLong(piece)
        else line(held.length === 0 ? piece : Buffer.concat([...held, piece], heldBytes + piece.length))
        held = []
        heldBytes = 0
        start = at + 1
        at = bytes.indexOf(newline, start)
      }
      if (dropping || start === bytes.length) return
      const rest = start === 0 ? bytes : bytes.subarray(start)
      if (heldBytes + rest.length > max) {
        tooLong(rest)
        dropping = true
        return
      }
      held.push(rest)
      heldBytes += rest.length
      if (held.length > maxPieces) held = [Buffer.concat(held, heldBytes)]
    },
    end: () => {
      if (!dropping && heldBytes > 0) line(Buffer.concat(held, heldBytes))
      held = []
      heldBytes = 0
      dropping = false
    }
  }
}
