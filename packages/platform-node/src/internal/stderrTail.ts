/**
 * The last lines a child process wrote to its stderr, bounded in lines and in bytes whatever it
 * writes (a child spewing megabytes keeps at most `maxBytes` here): what the error says when the
 * child exits before answering.
 */

/** The tail's bounds. */
export interface Options {
  /** The most lines kept (default 20). */
  readonly maxLines?: number
  /** The most bytes kept, over every line and the unfinished one (default 4 KiB). */
  readonly maxBytes?: number
}

/** A bounded tail of a byte stream, by lines. */
export interface Tail {
  /** Takes a chunk of the stream (a chunk may end in the middle of a line, or of a character). */
  readonly push: (chunk: Uint8Array) => void
  /** The lines kept, oldest first, with the unfinished last one (a line cut at the front starts with `…`). */
  readonly lines: () => ReadonlyArray<string>
  /** The bytes kept right now (never more than `maxBytes`). */
  readonly size: () => number
}

const newline = 0x0a

/** A line as kept: its last bytes, and whether its front was dropped. */
interface Line {
  readonly bytes: Uint8Array
  readonly cut: boolean
}

/** The last `max` bytes of `bytes`, not starting in the middle of a UTF-8 character. */
const lastBytes = (bytes: Uint8Array, max: number): Uint8Array => {
  let start = bytes.length - max
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return bytes.subarray(start)
}

/** A copy: a kept slice must not hold on to the chunk it came from. */
const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

const decoder = new TextDecoder("utf-8")

const text = (line: Line): string => {
  const decoded = decoder.decode(line.bytes)
  return (line.cut ? "…" : "") + (decoded.endsWith("\r") ? decoded.slice(0, -1) : decoded)
}

/** A new, empty tail. */
export const make = (options: Options = {}): Tail => {
  const maxLines = Math.max(1, options.maxLines ?? 20)
  const maxBytes = Math.max(1, options.maxBytes ?? 4096)
  const done: Array<Line> = []
  let doneBytes = 0
  let partial: Line = { bytes: new Uint8Array(0), cut: false }

  /** Drops the oldest lines until the bounds hold. */
  const trim = () => {
    while (
      done.length > 0 && (done.length + (partial.bytes.length > 0 ? 1 : 0) > maxLines ||
        doneBytes + partial.bytes.length > maxBytes)
    ) {
      doneBytes -= done.shift()!.bytes.length
    }
  }

  /** Appends `bytes` to the unfinished line, keeping at most `maxBytes` of it. */
  const extend = (bytes: Uint8Array) => {
    const joined = partial.bytes.length + bytes.length
    if (joined <= maxBytes) partial = { bytes: concat(partial.bytes, bytes), cut: partial.cut }
    else if (bytes.length >= maxBytes) partial = { bytes: lastBytes(bytes, maxBytes).slice(), cut: true }
    else partial = { bytes: lastBytes(concat(partial.bytes, bytes), maxBytes).slice(), cut: true }
  }

  const push: Tail["push"] = (chunk) => {
    let start = 0
    let end = chunk.indexOf(newline, start)
    while (end >= 0) {
      extend(chunk.subarray(start, end))
      if (partial.bytes.length > 0 || partial.cut) {
        done.push(partial)
        doneBytes += partial.bytes.length
      }
      partial = { bytes: new Uint8Array(0), cut: false }
      trim()
      start = end + 1
      end = chunk.indexOf(newline, start)
    }
    if (start < chunk.length) {
      extend(chunk.subarray(start))
      trim()
    }
  }

  return {
    push,
    lines: () =>
      (partial.bytes.length > 0 ? [...done, partial] : done).map(text).filter((line) => line.trim().length > 0),
    size: () => doneBytes + partial.bytes.length
  }
}
