/**
 * A transport that knows why it ended (a child process exited, the other side failed) says so:
 * the engine's calls waiting then, and later ones, fail with `TransportClosed` carrying the reason.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Mailbox from "effect/Mailbox"
import * as Peer from "../src/Peer.js"
import * as Transport from "../src/Transport.js"

/** A one-client transport that sends into `sent` and ends when `end` is completed, as `how` says. */
const ending = (how: "disconnect, then fail" | "fail") =>
  Effect.gen(function*() {
    const sent = yield* Mailbox.make<unknown>()
    const end = yield* Deferred.make<Transport.TransportError>()
    const protocol: Transport.Protocol = {
      run: (receiver) =>
        Effect.flatMap(Deferred.await(end), (reason) => {
          if (how === "disconnect, then fail") receiver.disconnect(0, reason)
          return Effect.fail(reason)
        }),
      send: (_client, frame) => Effect.asVoid(sent.offer(frame))
    }
    const peer = yield* Peer.make({ protocol, onRequest: () => Effect.never })
    return { peer, sent, end }
  })

describe("Peer: the reason a transport ended", () => {
  for (const how of ["disconnect, then fail", "fail"] as const) {
    it.scoped(`a call waiting, and a later one, fail with TransportClosed naming the reason (${how})`, () =>
      Effect.gen(function*() {
        const { end, peer, sent } = yield* ending(how)
        const waiting = yield* Effect.fork(Effect.flip(peer.request(0, "tools/list")))
        yield* sent.take
        const reason = new Transport.TransportError({ message: "the server exited with code 1" })
        yield* Deferred.succeed(end, reason)
        const first = yield* Fiber.join(waiting)
        assert.strictEqual(first._tag, "TransportClosed")
        assert.strictEqual(
          first.message,
          "Transport closed before tools/list was answered; the server exited with code 1"
        )
        assert.strictEqual(first._tag === "TransportClosed" ? first.reason : undefined, reason)
        yield* peer.closed
        const later = yield* Effect.flip(peer.request(0, "ping"))
        assert.strictEqual(later.message, "Transport closed before ping was answered; the server exited with code 1")
      }))
  }

  it.scoped("a transport's run that fails: its failure is the reason of the calls it leaves waiting", () =>
    Effect.gen(function*() {
      const { end, peer, sent } = yield* ending("fail")
      const waiting = yield* Effect.fork(Effect.flip(peer.request(0, "tools/list")))
      yield* sent.take
      yield* Deferred.succeed(end, new Transport.TransportError({ message: "read failed" }))
      yield* peer.closed
      assert.strictEqual(
        (yield* Fiber.join(waiting)).message,
        "Transport closed before tools/list was answered; read failed"
      )
    }))
})
