/**
 * How lines reach the stream: coalesced per tick (a server's answers), or one write each (a
 * client's requests, so the server can start on the first while the rest are made).
 */
import { JsonRpc } from "@effect-mcp/core"
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Writable } from "node:stream"

/** A stream that keeps each write it is given, as text. */
const recording = () => {
  const writes: Array<string> = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk))
      done()
    }
  })
  return { stream, writes }
}

const frames = [1, 2, 3].map((id) => JsonRpc.request(id, "ping", undefined))

/** Sends the frames in one go (one tick), then lets the tick end. */
const sendAll = (send: ReturnType<typeof NodeMcpServer.lineSender>) =>
  Effect.gen(function*() {
    for (const frame of frames) yield* send(0, frame)
    yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
  })

describe("NodeMcpServer.lineSender", () => {
  it.effect("by default, lines sent in one tick are one write, in order", () =>
    Effect.gen(function*() {
      const { stream, writes } = recording()
      yield* sendAll(NodeMcpServer.lineSender(stream))
      expect(writes).toEqual([frames.map((frame) => JSON.stringify(frame) + "\n").join("")])
    }))

  it.effect("with coalesce: false, each line is its own write, at once, in order", () =>
    Effect.gen(function*() {
      const { stream, writes } = recording()
      const send = NodeMcpServer.lineSender(stream, { coalesce: false })
      yield* send(0, frames[0])
      // Written before the tick ends: nothing waits for the next line.
      expect(writes).toEqual([JSON.stringify(frames[0]) + "\n"])
      yield* send(0, frames[1])
      yield* send(0, frames[2])
      expect(writes).toEqual(frames.map((frame) => JSON.stringify(frame) + "\n"))
    }))

  it.effect("either way, a send to an ended stream fails and writes nothing", () =>
    Effect.gen(function*() {
      for (const coalesce of [true, false]) {
        const { stream, writes } = recording()
        stream.end()
        const error = yield* Effect.flip(NodeMcpServer.lineSender(stream, { coalesce })(0, frames[0]))
        expect(error.message).toBe("stream closed")
        expect(writes).toEqual([])
      }
    }))
})
