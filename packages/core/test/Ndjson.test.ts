/**
 * The line reader: lines split across chunks, and a line longer than the bound never held. A
 * line over it is one `Invalid` frame (-32600, no id), the rest of it is dropped as it comes, and
 * the lines after it are read as usual.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Ndjson from "../src/Ndjson.js"
import * as Wire from "../src/Wire.js"

const collect = (maxLineLength?: number) => {
  const frames: Array<Wire.Inbound> = []
  const reader = Ndjson.reader(
    (inbound) => frames.push(inbound),
    maxLineLength === undefined ? {} : { maxLineLength }
  )
  return { frames, reader }
}

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })

const summary = (frames: ReadonlyArray<Wire.Inbound>) =>
  frames.map((frame) =>
    frame._tag === "Single"
      ? `message ${(frame.message as { readonly id: number }).id}`
      : frame._tag === "Invalid"
      ? `invalid ${frame.id} ${frame.error.message}`
      : "batch"
  )

describe("Ndjson.reader", () => {
  it("splits lines across chunks, drops a trailing \\r and blank lines, flushes the last line at the end", () => {
    const { frames, reader } = collect()
    const text = `${ping(1)}\r\n\n  \n${ping(2)}\n${ping(3)}`
    for (const char of text) reader.push(char)
    assert.deepStrictEqual(summary(frames), ["message 1", "message 2"])
    reader.end()
    assert.deepStrictEqual(summary(frames), ["message 1", "message 2", "message 3"])
  })

  it("a line longer than the bound, in one chunk: one Invalid without an id, and the next line read", () => {
    const { frames, reader } = collect(100)
    reader.push(`${ping(1)}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "x".repeat(200) })}\n${ping(3)}\n`)
    assert.deepStrictEqual(summary(frames), [
      "message 1",
      "invalid null Message too large: a line of more than 100 characters",
      "message 3"
    ])
    const invalid = frames[1] as Wire.Invalid
    assert.strictEqual(invalid.error._tag, "InvalidRequest")
  })

  it("a line that never ends, in many chunks: said once, dropped as it comes; what follows its newline is read", () => {
    const { frames, reader } = collect(1000)
    for (let i = 0; i < 10_000; i++) reader.push("x".repeat(100))
    assert.deepStrictEqual(summary(frames), ["invalid null Message too large: a line of more than 1000 characters"])
    reader.push(`xxx\n${ping(4)}\n`)
    reader.push(ping(5))
    reader.end()
    assert.deepStrictEqual(summary(frames).slice(1), ["message 4", "message 5"])
  })

  it("a line exactly at the bound is read; one character more is refused, even when it ends at end of input", () => {
    const line = ping(6)
    const exact = collect(line.length)
    exact.reader.push(line.slice(0, 10))
    exact.reader.push(line.slice(10) + "\n")
    assert.deepStrictEqual(summary(exact.frames), ["message 6"])
    const over = collect(line.length - 1)
    over.reader.push(line)
    over.reader.end()
    assert.deepStrictEqual(summary(over.frames), [
      `invalid null Message too large: a line of more than ${line.length - 1} characters`
    ])
  })
})

describe("a line too long, told to onTooLong", () => {
  it("gets its start, up to 1,024 characters (not the Invalid frame), in one chunk or many", () => {
    for (const chunkSize of [7, 100, 5000]) {
      const heads: Array<string> = []
      const frames: Array<Wire.Inbound> = []
      const reader = Ndjson.reader((inbound) => frames.push(inbound), {
        maxLineLength: 1000,
        onTooLong: (head) => heads.push(head)
      })
      const line = JSON.stringify({ jsonrpc: "2.0", id: 42, result: { pad: "x".repeat(3000) } })
      const text = `${line}\n${ping(1)}\n`
      for (let i = 0; i < text.length; i += chunkSize) reader.push(text.slice(i, i + chunkSize))
      assert.strictEqual(heads.length, 1)
      // As much of its start as was held, up to 1,024 characters.
      assert.isTrue(line.startsWith(heads[0]!))
      assert.isAtLeast(heads[0]!.length, 1000)
      assert.isAtMost(heads[0]!.length, 1024)
      assert.strictEqual(Wire.idOf(heads[0]!), 42)
      assert.deepStrictEqual(summary(frames), ["message 1"])
    }
  })
})

describe("Wire.idOf", () => {
  it("reads a top-level id before any nested value, and nothing else", () => {
    assert.strictEqual(Wire.idOf(`{"jsonrpc":"2.0","id":5,"result":{"x":"yy`), 5)
    assert.strictEqual(Wire.idOf(`{"jsonrpc":"2.0","id":"a\\"b","res`), "a\"b")
    assert.strictEqual(Wire.idOf(`{"x":"\\"id\\":4","id":7`), 7)
    // Inside a nested value, after one, or not an integer: not shown.
    assert.strictEqual(Wire.idOf(`{"result":{"id":9},"id":3`), undefined)
    assert.strictEqual(Wire.idOf(`{"id":1.5}`), undefined)
    assert.strictEqual(Wire.idOf(`{"jsonrpc":"2.0","result":"zzz`), undefined)
    // A request's id is the peer's: not an answer to one of ours.
    assert.strictEqual(Wire.idOf(`{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"x`), undefined)
    assert.strictEqual(Wire.idOf(`{"method":"x","jsonrpc":"2.0","id":5,"params":{"x`), undefined)
  })
})
