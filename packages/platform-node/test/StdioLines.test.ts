/**
 * The stdio reader's bound counts bytes as they arrive (`NodeMcpServer.protocol`, as the client's
 * stdio transport reads a server): a line of exactly `maxLineLength` bytes of UTF-8 is read, one
 * byte more is `Message too large`, whatever the characters; a character split across chunks is
 * whole; `\r\n` ends a line; a line trickled in a byte at a time is read. Before, the bound counted
 * characters after decoding (this test failed: 3-byte characters passed three times the bound).
 */
import type { Wire } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { PassThrough } from "node:stream"
import * as Lines from "../src/internal/lines.js"

/** What the reader makes of `chunks` (bytes), with `maxLineLength` 64: each line, summarised. */
const read = (chunks: ReadonlyArray<Buffer>) =>
  Effect.scoped(Effect.gen(function*() {
    const input = new PassThrough()
    const got: Array<string> = []
    const summary = (inbound: Wire.Inbound) =>
      inbound._tag === "Single"
        ? JSON.stringify(inbound.message)
        : inbound._tag === "Invalid"
        ? `invalid ${inbound.error.message}`
        : inbound._tag
    const protocol = NodeMcpServer.protocol(input, new PassThrough(), { maxLineLength: 64, endOfInputGrace: 0 })
    const run = yield* Effect.fork(protocol.run({
      receive: (_client, inbound) => got.push(summary(inbound)),
      disconnect: () => {},
      responseClosed: () => {},
      fail: () => {}
    }))
    for (const chunk of chunks) input.write(chunk)
    input.end()
    yield* Fiber.join(run)
    return got
  }))

/** A notification whose whole line is `bytes` long, padded with `char` (a line's bytes, without its newline). */
const lineOf = (bytes: number, char: string) => {
  const head = `{"jsonrpc":"2.0","method":"x","params":{"p":"`
  const tail = `"}}`
  const width = Buffer.byteLength(char)
  const room = bytes - head.length - tail.length
  return Buffer.from(head + char.repeat(Math.floor(room / width)) + "a".repeat(room % width) + tail)
}

describe("the stdio reader's bound, in bytes", () => {
  it.live("64 bytes of 3-byte characters are read; 65 are refused; the next line is read", () =>
    Effect.gen(function*() {
      const fits = lineOf(64, "€")
      const over = lineOf(65, "€")
      assert.strictEqual(fits.length, 64)
      const got = yield* read([
        Buffer.concat([fits, Buffer.from("\n"), over, Buffer.from("\n{\"jsonrpc\":\"2.0\",\"method\":\"y\"}\n")])
      ])
      assert.strictEqual(got.length, 3)
      assert.include(got[0], "€€€")
      assert.strictEqual(got[1], "invalid Message too large: a line of more than 64 bytes")
      assert.strictEqual(got[2], `{"jsonrpc":"2.0","method":"y"}`)
    }))

  it.live("a character split across chunks, a line trickled a byte at a time, \\r\\n", () =>
    Effect.gen(function*() {
      const line = Buffer.from(`{"jsonrpc":"2.0","method":"€"}\r\n`)
      const split = [line.subarray(0, 28), line.subarray(28)]
      const trickled = Array.from(line, (byte) => Buffer.from([byte]))
      const got = yield* read([...split, ...trickled])
      assert.deepStrictEqual(got, [`{"jsonrpc":"2.0","method":"€"}`, `{"jsonrpc":"2.0","method":"€"}`])
    }))

  it.live("a line over the bound across many chunks is one refusal; the end of input reads a last line", () =>
    Effect.gen(function*() {
      const long = Array.from({ length: 100 }, () => Buffer.from("x".repeat(10)))
      const got = yield* read([...long, Buffer.from(`\n{"jsonrpc":"2.0","method":"last"}`)])
      assert.deepStrictEqual(got, [
        "invalid Message too large: a line of more than 64 bytes",
        `{"jsonrpc":"2.0","method":"last"}`
      ])
    }))

  it("a 2 MiB line trickled a byte at a time is read whole, each byte copied at most three times", () => {
    // Before, every 1,024 pieces all that was held so far was joined again: 2 MiB a byte at a
    // time copied about 2 GiB (this test failed, as the time it took grew with the square of the line).
    const line = lineOf(2 * 1024 * 1024, "€")
    const got: Array<Wire.Inbound> = []
    const lines = Lines.reader((inbound) => got.push(inbound), { maxLineLength: 4 * 1024 * 1024 })
    for (let i = 0; i < line.length; i++) lines.rest(line, i, i + 1)
    lines.line(Buffer.from("\n"), 0, 0)
    const next = Buffer.from(`{"jsonrpc":"2.0","method":"next"}`)
    for (let i = 0; i < next.length; i++) lines.rest(next, i, i + 1)
    lines.end()
    assert.strictEqual(got.length, 2)
    const first = got[0]
    assert(first._tag === "Single" && "method" in first.message && first.message.method === "x")
    assert.strictEqual(JSON.stringify(first.message), line.toString("utf8"))
    const second = got[1]
    assert(second._tag === "Single" && "method" in second.message && second.message.method === "next")
    assert.isAtMost(lines.copied(), 3 * (line.length + next.length))
  })

  it("a line trickled a byte at a time past the bound is one refusal, its head told; the next line is read", () => {
    const heads: Array<string> = []
    const got: Array<Wire.Inbound> = []
    const lines = Lines.reader((inbound) => got.push(inbound), {
      maxLineLength: 4096,
      onTooLong: (head) => heads.push(head)
    })
    const over = Buffer.from("€".repeat(2000))
    for (let i = 0; i < over.length; i++) lines.rest(over, i, i + 1)
    lines.line(over, 0, 3)
    lines.line(Buffer.from(`{"jsonrpc":"2.0","method":"next"}`), 0, 33)
    lines.end()
    assert.deepStrictEqual(heads.map((head) => head.length <= 1024 && head.startsWith("€€€")), [true])
    assert.strictEqual(got.length, 1)
    assert(got[0]._tag === "Single" && "method" in got[0].message && got[0].message.method === "next")
  })
})
