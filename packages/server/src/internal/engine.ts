/**
 * One engine on one transport, serving the eras the server speaks: the era router. In dual mode
 * each request chooses: a protocol version in its `_meta` → the stateless era; anything else
 * (`initialize` first) → a handshake session of its client. Neither disturbs the other.
 *
 * Changes reach the handshake sessions of this engine through its registry listener, and the
 * subscriptions (`subscriptions/listen`) through the server's own, whatever engine serves them;
 * when the engine ends, the subscriptions it serves are closed gracefully first (answered while
 * the transport still runs).
 */
import type { JsonRpc, Transport } from "@effect-mcp/core"
import { Peer, Revision, Telemetry } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type * as Handshake from "./handshake.js"
import * as modules from "./lazy.js"
import type * as Logs from "./logs.js"
import type { Registry } from "./registry.js"
import type * as RelayLane from "./relayLane.js"
import * as Shared from "./sharedSessions.js"
import type * as Stateless from "./stateless.js"

/** The eras a server speaks (at least one). */
export interface Eras {
  readonly registry: Registry
  /** The server's log messages outside any request (`McpServer.log`). */
  readonly logs: Logs.Logs
  readonly handshake: HandshakeEra | undefined
  readonly stateless: StatelessEra | undefined
}

/**
 * The code of the handshake era, given as a value (`McpServer.make` gives it; a
 * `StatelessServer` has none): an engine reaches handshake sessions only through it, so a bundle
 * of a server that never names it (a stateless Worker's) carries none of it.
 */
export interface HandshakeCode {
  readonly makeServer: typeof Handshake.makeServer
  readonly era: typeof Handshake.era
  readonly relay: typeof RelayLane.protocol
}

/** The handshake era: its server, and its code. */
export interface HandshakeEra {
  readonly server: Handshake.Server
  readonly code: HandshakeCode
}

/**
 * The 2026-07-28 era: its server, and its module, which only a server that speaks the era loads
 * (`load`): a handshake-only server never loads it.
 */
export interface StatelessEra {
  readonly server: Stateless.Server
  readonly module: typeof Stateless
}

/** The 2026-07-28 era's module, loaded on first use. */
export const load: Effect.Effect<typeof Stateless> = Effect.promise(() => modules.stateless())

/**
 * Serves every client of `protocol` until the transport ends. Request fibers are forked from the
 * runtime of the caller (the server's context).
 */
export const serve = (
  eras: Eras,
  protocol: Transport.Protocol
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    let host: Handshake.Host | undefined
    const hostOf = () => host!
    const { metrics, spans } = yield* Telemetry.enabled
    const handshake = eras.handshake && eras.handshake.code.era(eras.handshake.server, hostOf, metrics)
    // A relay table's calls are taken before the engine sees them, where serving one would make
    // nothing of it but its answer: nothing recorded (no span, metric or Debug line), sessions of
    // this engine's own (see `RelayTable`).
    const table = eras.handshake?.server.config.relay
    const quiet = !metrics && !spans &&
      (yield* FiberRef.get(FiberRef.currentMinimumLogLevel)).ordinal > LogLevel.Debug.ordinal
    const served = table !== undefined && handshake !== undefined && quiet && Shared.of(protocol) === undefined
      ? eras.handshake!.code.relay(protocol, table, handshake.relayable, (effect) => void hostOf().fork(effect))
      : protocol
    const statelessEra = eras.stateless
    const stateless = statelessEra && statelessEra.module.era(statelessEra.server, hostOf)
    const isStateless = (request: JsonRpc.Request) =>
      stateless !== undefined && (handshake === undefined || statelessEra!.module.isStatelessRequest(request))

    const peer = yield* Peer.make({
      protocol: served,
      // Shared sessions: the requests this instance sends to clients have ids of its own range.
      ...(Shared.of(protocol) !== undefined ? { firstId: Shared.of(protocol)!.firstId } : {}),
      onRequest: (client, request, received) =>
        isStateless(request)
          ? stateless!.onRequest(client, request, received)
          : handshake!.onRequest(client, request, received),
      onNotification: (client, notification) =>
        handshake === undefined ? Effect.void : handshake.onNotification(client, notification),
      onDisconnect: (client) => handshake?.onDisconnect(client),
      revision: (client, request) =>
        request !== undefined && isStateless(request)
          ? Effect.succeed(statelessEra!.module.revisionOf(request))
          : handshake === undefined
          ? Effect.succeed(Revision.latest)
          : handshake.revision(client),
      batching: (client) => handshake === undefined ? Effect.succeed(false) : handshake.batching(client),
      // Metrics are labelled by the tools and prompts the server has now, not by any name a client sends.
      known: {
        tool: (name) => eras.registry.unsafeEntries().tools.has(name),
        prompt: (name) => eras.registry.unsafeEntries().prompts.has(name)
      }
    })
    // The engine's own work: on the server's runtime, in the engine's scope.
    const runtime = yield* Effect.runtime<never>()
    const scope = yield* Effect.scope
    const engine: Handshake.Host = {
      peer,
      protocol,
      id: crypto.randomUUID(),
      fork: (effect) => Runtime.runFork(runtime)(effect, { scope })
    }
    host = engine
    // Shared sessions: their transport may need the era before any message comes (a GET stream held here).
    handshake?.attach()

    if (handshake !== undefined) {
      yield* eras.registry.listen(handshake.fanOut)
      yield* eras.logs.listen(handshake.log)
    }
    // Run before the engine's own finalizer (which interrupts every request in flight).
    if (statelessEra !== undefined) {
      const { subscriptions } = statelessEra.server
      yield* Effect.addFinalizer(() => subscriptions.closeOwned(engine))
    }
    yield* peer.closed
  })
