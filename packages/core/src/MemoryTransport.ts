/**
 * In-memory transports for tests: every message crosses `Wire.encode` / `Wire.decode` as text,
 * as it would on a real connection.
 *
 * - {@link make}: a protocol serving any number of clients, each connected with `connect` and
 *   spoken to as raw text (wire-level tests: JSON text in, JSON text out).
 * - {@link connection}: the same with exactly one client, whose close ends the protocol (like
 *   stdio's end of input).
 * - {@link pair}: two linked one-client protocols (a client engine and a server engine).
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as MailboxModule from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import type * as StreamModule from "effect/Stream"
import * as Lazy from "./internal/lazy.js"
import * as Transport from "./Transport.js"
import * as Wire from "./Wire.js"

/**
 * The raw text side of an in-memory connection: write JSON text in, read JSON text out.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextEndpoint {
  /** The client id the protocol knows this endpoint by. */
  readonly client: Transport.ClientId
  /** Sends one text frame to the other side. */
  readonly write: (text: string) => Effect.Effect<void>
  /** The next text frame from the other side. Fails when the other side has closed. */
  readonly read: Effect.Effect<string, Transport.TransportError>
  /** Everything the other side sends, until it closes. */
  readonly texts: StreamModule.Stream<string>
  /** Closes this side: the protocol sees the client disconnect. */
  readonly close: Effect.Effect<void>
}

/**
 * A multi-client in-memory protocol.
 *
 * @since 0.1.0
 * @category models
 */
export interface Memory {
  readonly protocol: Transport.Protocol
  /** A new client, for the lifetime of the scope (closing the scope disconnects it). */
  readonly connect: Effect.Effect<TextEndpoint, never, Scope.Scope>
}

const closed = () => new Transport.TransportError({ message: "the other side closed" })

interface Link {
  /** Text from the client to the protocol. */
  readonly inbox: MailboxModule.Mailbox<string>
  /** Text from the protocol to the client. */
  readonly outbox: MailboxModule.Mailbox<string>
}

/**
 * `effect/Stream` and `effect/Mailbox`, loaded when a memory transport is first made: a program that
 * imports the core and never makes one (a server over stdio) does not load them.
 */
const load = () => Effect.zip(Effect.promise(Lazy.stream), Effect.promise(Lazy.mailbox))

const endpoint = (Mailbox: typeof MailboxModule, client: Transport.ClientId, link: Link): TextEndpoint => ({
  client,
  write: (text) => Effect.asVoid(link.inbox.offer(text)),
  read: Effect.mapError(link.outbox.take, closed),
  texts: Mailbox.toStream(link.outbox),
  close: Effect.asVoid(link.inbox.end)
})

const makeMemory = (single: boolean): Effect.Effect<Memory, never, Scope.Scope> =>
  Effect.gen(function*() {
    const [Stream, Mailbox] = yield* load()
    const scope = yield* Effect.scope
    const links = new Map<Transport.ClientId, Link>()
    const receiver = yield* Deferred.make<Transport.Receiver>()
    const ended = yield* Deferred.make<void>()
    let next = 0

    const pump = (client: Transport.ClientId, link: Link) =>
      Effect.flatMap(Deferred.await(receiver), (receiver) =>
        Mailbox.toStream(link.inbox).pipe(
          Stream.runForEach((text) => Effect.sync(() => receiver.receive(client, Wire.decode(text)))),
          Effect.ensuring(Effect.sync(() => {
            links.delete(client)
            receiver.disconnect(client)
          })),
          Effect.ensuring(single ? Deferred.succeed(ended, undefined) : Effect.void)
        ))

    const connect = Effect.gen(function*() {
      const client = next++
      const link: Link = {
        inbox: yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown),
        outbox: yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
      }
      links.set(client, link)
      yield* Effect.forkIn(pump(client, link), scope)
      return endpoint(Mailbox, client, link)
    })

    const protocol: Transport.Protocol = {
      run: (r) => Effect.zipRight(Deferred.succeed(receiver, r), single ? Deferred.await(ended) : Effect.never),
      send: (client, frame) =>
        Effect.suspend(() => {
          const link = links.get(client)
          return link !== undefined && link.outbox.unsafeOffer(Wire.encode(frame)) ? Effect.void : Effect.fail(closed())
        })
    }
    return { protocol, connect }
  })

/**
 * A protocol serving any number of in-memory clients.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Memory, never, Scope.Scope> = makeMemory(false)

/**
 * A protocol with exactly one in-memory client, `remote`; when it closes, the protocol ends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connection: Effect.Effect<
  { readonly protocol: Transport.Protocol; readonly remote: TextEndpoint },
  never,
  Scope.Scope
> = Effect.gen(function*() {
  const memory = yield* makeMemory(true)
  return { protocol: memory.protocol, remote: yield* memory.connect }
})

/**
 * Two linked one-client protocols (say, a client engine's and a server engine's), talking text.
 * Closing the scope ends both.
 *
 * @since 0.1.0
 * @category constructors
 */
export const pair: Effect.Effect<readonly [Transport.Protocol, Transport.Protocol], never, Scope.Scope> = Effect.gen(
  function*() {
    const [Stream, Mailbox] = yield* load()
    const aToB = yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
    const bToA = yield* Effect.acquireRelease(Mailbox.make<string>(), (mb) => mb.shutdown)
    const side = (inbox: MailboxModule.Mailbox<string>, outbox: MailboxModule.Mailbox<string>): Transport.Protocol => ({
      run: (receiver) =>
        Mailbox.toStream(inbox).pipe(
          Stream.runForEach((text) => Effect.sync(() => receiver.receive(0, Wire.decode(text)))),
          Effect.ensuring(Effect.sync(() => receiver.disconnect(0)))
        ),
      // Offered when the Effect runs, like every transport's send.
      send: (_client, frame) =>
        Effect.suspend(() => outbox.unsafeOffer(Wire.encode(frame)) ? Effect.void : Effect.fail(closed()))
    })
    return [side(bToA, aToB), side(aToB, bToA)] as const
  }
)
