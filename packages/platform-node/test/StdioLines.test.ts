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
})
