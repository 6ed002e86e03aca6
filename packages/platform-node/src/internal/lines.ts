/**
 * Newline-delimited JSON read as bytes (`Ndjson.reader`'s framing over Node's buffers): a line is
 * held as the buffers it came in, outside the JavaScript heap, and counted in bytes as they arrive;
 * it becomes a string only once its newline came and it is within the bound (a line trickled in
 * many small pieces is joined into one block, whose capacity doubles up to the bound: each byte is
 * copied a bounded number of times, however small the chunks). A line over
 * `maxLineLength` bytes is let go as soon as it passes the bound (its first 1,024 bytes told to
 * `onTooLong`), and the rest of it is skipped, never decoded, until its newline. UTF-8 never has a
 * newline byte inside a character, so each line is decoded on its own.
 */
import type { Wire } from "@effect-mcp/core"
import { McpError, Ndjson, Wire as WireCodec } from "@effect-mcp/core"

/** How much of a line too long is told to `onTooLong`, in bytes. */
const headLength = 1024

/**
 * Held pieces past this many are joined into the line's block (a line trickled in tiny chunks costs
 * no object per byte).
 */
const maxPieces = 1024

const carriageReturn = 13

/**
 * A reader of lines given as bytes, by whoever found their ends: `line` a line that ends at `end`
 * (its newline, not included), `rest` the start of one whose newline has not come, `end` the end
 * of input (what is held is a last line).
 */
export interface Reader {
  readonly line: (bytes: Buffer, start: number, end: number) => void
  readonly rest: (bytes: Buffer, start: number, end: number) => void
  readonly end: () => void
  /** How many bytes were copied so far to join pieces of lines (linear in the bytes read). */
  readonly copied: () => number
}

/**
 * A reader that calls `emit` with each decoded line (a line that is only whitespace is none); a
 * line over `maxLineLength` bytes (default `Ndjson.defaultMaxLineLength`) is `onTooLong`, else one
 * `Invalid` frame (-32600, `Message too large`, with no id).
 */
export const reader = (emit: (inbound: Wire.Inbound) => void, options: Ndjson.ReaderOptions = {}): Reader => {
  const max = Math.max(1, options.maxLineLength ?? Ndjson.defaultMaxLineLength)
  const decodeOptions: Wire.DecodeOptions = { maxDepth: options.maxDepth }
  /**
   * The unfinished line: the first `blockLength` bytes of `block` (pieces joined once there were too
   * many), then `held`, as it came; `heldBytes` in all.
   */
  let block: Buffer | undefined
  let blockLength = 0
  let held: Array<Buffer> = []
  let heldBytes = 0
  let copied = 0
  const reset = () => {
    block = undefined
    blockLength = 0
    held = []
    heldBytes = 0
  }
  /**
   * Joins what is held and `extra` into `block`, grown to twice what it must hold (at most `max`,
   * which that never exceeds) when it is too small: its old bytes are copied at most as many times as
   * its capacity doubled, so all the copies of a line add up to less than three times its length.
   */
  const join = (extra: Buffer | undefined): Buffer => {
    const need = heldBytes + (extra === undefined ? 0 : extra.length)
    let into = block
    if (into === undefined || into.length < need) {
      const grown = Buffer.allocUnsafe(Math.min(max, 2 * need))
      if (into !== undefined) copied += into.copy(grown, 0, 0, blockLength)
      into = grown
    }
    for (const piece of extra === undefined ? held : [...held, extra]) {
      const n = piece.copy(into, blockLength)
      blockLength += n
      copied += n
    }
    block = into
    held = []
    return into
  }
  /** The unfinished line is over `max`: said once, the rest of it skipped until its newline. */
  let dropping = false
  const decode = (bytes: Buffer, start: number, end: number) => {
    const text = bytes.toString("utf8", start, end > start && bytes[end - 1] === carriageReturn ? end - 1 : end)
    if (/\S/.test(text)) emit(WireCodec.decode(text, decodeOptions))
  }
  /** The first `headLength` bytes of what is held and `rest`, as text. */
  const headOf = (rest: Buffer) => {
    const pieces: Array<Buffer> = []
    let length = 0
    const first = block === undefined ? [] : [block.subarray(0, blockLength)]
    for (const piece of [...first, ...held, rest]) {
      if (length >= headLength) break
      const part = piece.subarray(0, headLength - length)
      pieces.push(part)
      length += part.length
    }
    return Buffer.concat(pieces, length).toString("utf8")
  }
  const tooLong = (rest: Buffer) => {
    const head = headOf(rest)
    reset()
    if (options.onTooLong !== undefined) return options.onTooLong(head)
    emit({
      _tag: "Invalid",
      id: null,
      error: new McpError.InvalidRequest({ message: `Message too large: a line of more than ${max} bytes` })
    })
  }
  return {
    line: (bytes, start, end) => {
      if (dropping) dropping = false
      else if (heldBytes + end - start > max) tooLong(bytes.subarray(start, end))
      else if (heldBytes === 0) decode(bytes, start, end)
      else if (block !== undefined) {
        const last = bytes.subarray(start, end)
        decode(join(last), 0, heldBytes + last.length)
      } else {
        const whole = Buffer.concat([...held, bytes.subarray(start, end)], heldBytes + end - start)
        copied += whole.length
        decode(whole, 0, whole.length)
      }
      reset()
    },
    rest: (bytes, start, end) => {
      if (dropping || start === end) return
      const rest = start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end)
      if (heldBytes + rest.length > max) {
        tooLong(rest)
        dropping = true
        return
      }
      held.push(rest)
      heldBytes += rest.length
      if (held.length > maxPieces) join(undefined)
    },
    end: () => {
      if (!dropping && heldBytes > 0) {
        if (block !== undefined) decode(join(undefined), 0, heldBytes)
        else {
          const whole = Buffer.concat(held, heldBytes)
          copied += whole.length
          decode(whole, 0, whole.length)
        }
      }
      reset()
      dropping = false
    },
    copied: () => copied
  }
}
