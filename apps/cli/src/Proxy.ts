/**
 * A proxy: one server's features served to clients of another era or transport (a 2026-07-28
 * HTTP endpoint in front of a handshake-only stdio server, say). It is a client and a server at
 * once, on the same catalog:
 *
 * - **Mirroring**: the upstream's tools, resources, templates and prompts are registered on an
 *   `McpServer` as they are listed (definitions verbatim: input and output schemas, annotations,
 *   icons), and listed again when the upstream says a list changed; the server then tells its own
 *   clients and subscriptions.
 * - **Forwarding**: a call, read or prompt is the same request upstream. Its progress is the
 *   downstream request's progress; interrupting it (the downstream client cancelled, or closed
 *   its 2026 stream) cancels it upstream. Upstream errors are passed through as they came.
 * - **Updates**: the proxy subscribes upstream to every listed resource and to list changes;
 *   `notifications/resources/updated` becomes the server's `resourceUpdated`, which reaches the
 *   downstream sessions and `subscriptions/listen` streams that asked.
 * - **Asks**: the upstream's sampling, elicitation and roots requests are asked of the downstream
 *   client whose request they belong to: a 2026-07-28 upstream's are rounds of that very call; a
 *   handshake upstream's over Streamable HTTP come on that call's own stream; over stdio or legacy
 *   SSE they are the one request in flight's (refused when several are: nothing says which one
 *   it asks for, and a guess could hand one client's prompt to another), in its own era: a
 *   session's request is asked at once, a 2026-07-28 request gets an `input_required` round, whose
 *   retry calls upstream again and answers the same ask (keyed by its content) from the retry.
 *
 * @since 0.1.0
 */
import { McpClient } from "@effect-mcp/client"
import { McpError, type Revision, type Schema as McpSchema } from "@effect-mcp/core"
import { McpRequest, McpServer } from "@effect-mcp/server"
import * as RelayTable from "@effect-mcp/server/RelayTable"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { createHash, randomBytes } from "node:crypto"
import * as Mirror from "./internal/mirror.js"
import { toMcpError } from "./internal/mirror.js"

/** One ask of the upstream, handed to the downstream request it is asked of. */
interface Ask {
  readonly key: string
  readonly run: (request: McpRequest.Service, key: string) => Effect.Effect<unknown, McpRequest.ClientRequestError>
  readonly reply: Deferred.Deferred<unknown, McpError.McpError>
}

/**
 * A downstream request in flight. A session's request (handshake era) is asked at once, on a fiber of
 * its own with the request's context, set up only when an ask comes (`running`); a 2026-07-28
 * request's asks stop its call (an `input_required` round), so its call runs beside a server of its
 * asks (`asks`, every reply still owed upstream in `replies`).
 */
interface Inflight {
  readonly request: McpRequest.Service
  readonly context: Context.Context<never>
  readonly asks: Queue.Queue<Ask> | undefined
  readonly replies: Set<Deferred.Deferred<unknown, McpError.McpError>>
  readonly running: Set<Fiber.RuntimeFiber<unknown, McpRequest.ClientRequestError>>
}

/**
 * Where the upstream's asks go: the downstream requests in flight. The client's handlers ask
 * through it; every forwarded request runs `forward`, which serves the asks meant for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Relay {
  readonly handlers: McpClient.Handlers
  readonly forward: <A, E>(call: Effect.Effect<A, E>) => Effect.Effect<A, E, McpRequest.McpRequest>
  /**
   * The calls relayed raw (`RelayTable`) in flight, which no ask can be routed to (their clients
   * declared nothing to ask): an ask that names no request is not guessed to be another's while any is.
   */
  readonly lane: { calls: number }
  /**
   * The bytes of the upstream calls' logs waiting to be logged on their downstream requests, all
   * calls together (at most `maxCallLogBytes`, 16 MiB; past it they are dropped).
   */
  readonly callLogs: { bytes: number }
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ProxyRelay extends Context.Tag("mcp/Proxy/Relay")<ProxyRelay, Relay>() {}

/** The key of an ask: the same ask in a retry gets the same key, whatever order it comes in. */
const keyOf = (kind: string, params: unknown) =>
  `${kind}-${createHash("sha256").update(JSON.stringify(params ?? null)).digest("base64url").slice(0, 16)}`

/** A session's request is asked at once, on a fiber of its own that ends with the request. */
const askNow = (target: Inflight, key: string, run: Ask["run"]): Effect.Effect<unknown, McpError.McpError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDaemon(Effect.provide(run(target.request, key), target.context)), (fiber) => {
      target.running.add(fiber)
      return restore(Fiber.await(fiber)).pipe(
        Effect.onInterrupt(() => Fiber.interrupt(fiber)),
        Effect.ensuring(Effect.sync(() => target.running.delete(fiber))),
        Effect.flatMap((exit): Effect.Effect<unknown, McpError.McpError> => {
          if (Exit.isSuccess(exit)) return Effect.succeed(exit.value)
          const failure = Cause.failureOption(exit.cause)
          return Effect.fail(
            Option.isSome(failure)
              ? toMcpError(failure.value)
              : new McpError.InternalError({
                message: Cause.isInterruptedOnly(exit.cause)
                  ? "proxy: the request it was asked for ended"
                  : "proxy: asking the client failed"
              })
          )
        })
      )
    })
  )

/**
 * Serves the asks meant for this request while `call` runs. The asks that arrive together are
 * asked together; an ask that stops the handler (a 2026-07-28 `input_required`) stops `call`
 * with every such signal of the batch, so one round carries them all.
 */
const serveAsks = (entry: Inflight, asks: Queue.Queue<Ask>): Effect.Effect<never> =>
  Effect.forever(
    Effect.gen(function*() {
      const first = yield* Queue.take(asks)
      const rest = yield* Queue.takeAll(asks)
      const batch = [first, ...rest]
      const exits = yield* Effect.forEach(batch, (a) => Effect.exit(a.run(entry.request, a.key)), {
        concurrency: "unbounded"
      })
      const stopped: Array<Cause.Cause<never>> = []
      yield* Effect.forEach(batch, (a, i) => {
        const exit = exits[i]!
        if (Exit.isSuccess(exit)) return Deferred.succeed(a.reply, exit.value)
        const failure = Cause.failureOption(exit.cause)
        if (Option.isSome(failure)) return Deferred.fail(a.reply, toMcpError(failure.value))
        // Asked of a stateless client as input_required: the retry asks again, and is answered.
        stopped.push(exit.cause as Cause.Cause<never>)
        return Deferred.fail(
          a.reply,
          new McpError.InternalError({ message: "proxy: asked of the client as input_required; its retry answers" })
        )
      }, { discard: true })
      if (stopped.length > 0) return yield* Effect.failCause(stopped.reduce(Cause.parallel))
    })
  )

/**
 * Options of the relay.
 *
 * @since 0.1.0
 * @category models
 */
export interface RelayOptions {
  /**
   * The roots told to the upstream when it asks (`roots/list`) with no request of a client in
   * flight, as a server does when it starts. Default: the roots a client gave last (the upstream
   * asked for them before), else none (an empty list).
   */
  readonly roots?: ReadonlyArray<McpSchema.Roots.Root>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeRelayWith = (options: RelayOptions): Effect.Effect<Relay> =>
  Effect.gen(function*() {
    /** The downstream requests in flight, oldest first (a set of this relay's, changed in place). */
    const inflight = new Set<Inflight>()
    /** The roots a client gave last, for an ask of nobody's request. */
    const lastRoots = yield* Ref.make<ReadonlyArray<McpSchema.Roots.Root>>([])
    const lane = { calls: 0 }
    const callLogs = { bytes: 0 }

    const ask = (
      kind: string,
      params: unknown,
      run: Ask["run"],
      unasked?: Effect.Effect<unknown>
    ): Effect.Effect<unknown, McpError.McpError> =>
      Effect.flatMap(FiberRef.get(McpClient.currentCaller), (caller) => {
        // The call it asks for, when the client knows (see `McpClient.currentCaller`). Otherwise
        // (a handshake upstream over stdio): with one in flight it is that one; with several,
        // guessing could hand one client's prompt to another: refused. With none, an ask that has
        // an answer of its own (roots) gets it; with raw calls in flight (their clients cannot be
        // asked), only configured roots: a client's last are not another session's to be told.
        const mine = inflight.has(caller as Inflight) ? caller as Inflight : undefined
        if (
          mine === undefined && inflight.size === 0 && unasked !== undefined &&
          (lane.calls === 0 || options.roots !== undefined)
        ) return unasked
        if (mine === undefined && (inflight.size !== 1 || lane.calls > 0)) {
          const all = inflight.size + lane.calls
          return Effect.fail(
            new McpError.InternalError({
              message: all === 0
                ? `proxy: no request of a client is in flight to ask (${kind})`
                : inflight.size === 0
                ? `proxy: the requests in flight were relayed whole; their clients cannot be asked (${kind})`
                : `proxy: ${all} requests are in flight; the upstream's ${kind} cannot be told apart`
            })
          )
        }
        const target = mine ?? inflight.values().next().value!
        const key = keyOf(kind, params)
        const asks = target.asks
        // Interruptible: forked in `askNow`'s masked region, it would not be, and an ask the client
        // never answers would hold the request's end until its time ran out.
        if (asks === undefined) return askNow(target, key, (request, k) => Effect.interruptible(run(request, k)))
        return Effect.flatMap(Deferred.make<unknown, McpError.McpError>(), (reply) => {
          target.replies.add(reply)
          return Effect.zipRight(
            Queue.offer(asks, { key, run, reply }),
            Effect.ensuring(Deferred.await(reply), Effect.sync(() => target.replies.delete(reply)))
          )
        })
      })

    const handlers: McpClient.Handlers = {
      sampling: (params) =>
        ask("sampling", params, (request, key) => request.sample(key, params)) as Effect.Effect<
          McpSchema.Sampling.CreateMessageResult,
          McpError.McpError
        >,
      elicitation: (params) =>
        ask("elicitation", params, (request, key) => request.elicit(key, params as never)) as Effect.Effect<
          McpSchema.Elicitation.ElicitResult,
          McpError.McpError
        >,
      roots: ask(
        "roots",
        {},
        (request, key) => Effect.tap(request.roots(key), (roots) => Ref.set(lastRoots, roots)),
        Effect.tap(
          options.roots !== undefined ? Effect.succeed(options.roots) : Ref.get(lastRoots),
          (roots) =>
            Effect.logInfo(
              `mcp proxy: the upstream asked for roots with no client's request in flight; told it ${roots.length} ` +
                `root(s) (${options.roots !== undefined ? "configured" : "a client's last"})`
            )
        )
      ) as Effect.Effect<
        ReadonlyArray<McpSchema.Roots.Root>,
        McpError.McpError
      >
    }

    /**
     * The call, run as this request's: its asks are routed to it (see `McpClient.currentCaller`).
     * Whatever ends the request, nothing the upstream asked of it is left waiting.
     */
    const forward = <A, E>(call: Effect.Effect<A, E>): Effect.Effect<A, E, McpRequest.McpRequest> =>
      Effect.flatMap(Effect.context<McpRequest.McpRequest>(), (context) => {
        const request = Context.get(context, McpRequest.McpRequest)
        if (request.era !== "stateless") {
          // A session's request: nothing is set up until the upstream asks.
          const entry: Inflight = { request, context, asks: undefined, replies: new Set(), running: new Set() }
          inflight.add(entry)
          return Effect.ensuring(
            Effect.locally(call, McpClient.currentCaller, entry),
            Effect.suspend(() => {
              inflight.delete(entry)
              return entry.running.size === 0 ? Effect.void : Fiber.interruptAll(entry.running)
            })
          )
        }
        return Effect.flatMap(Queue.unbounded<Ask>(), (asks) => {
          const entry: Inflight = { request, context, asks, replies: new Set(), running: new Set() }
          inflight.add(entry)
          const ended = Effect.suspend(() => {
            inflight.delete(entry)
            return Effect.forEach(
              Array.from(entry.replies),
              (reply) =>
                Deferred.fail(
                  reply,
                  new McpError.InternalError({ message: "proxy: the request it was asked for ended" })
                ),
              { discard: true }
            )
          })
          return Effect.raceFirst(Effect.locally(call, McpClient.currentCaller, entry), serveAsks(entry, asks)).pipe(
            Effect.ensuring(ended)
          )
        })
      })

    return { handlers, forward, lane, callLogs }
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeRelay: Effect.Effect<Relay> = makeRelayWith({})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerRelay = (options: RelayOptions = {}): Layer.Layer<ProxyRelay> =>
  Layer.effect(ProxyRelay, makeRelayWith(options))

/**
 * Options of the proxy: its server's, and its relay's (`layerFrom`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends RelayOptions {
  /** What the proxy serves (default: the handshake era's revisions, as `McpServer`). */
  readonly revisions?: ReadonlyArray<Revision.Revision>
  /**
   * The key sealing 2026-07-28 `requestState`, for proxies behind one load balancer (default: a
   * random key of this process, which is enough for one proxy).
   */
  readonly requestStateKey?: Redacted.Redacted<string>
  /**
   * The most URIs subscribed upstream that the upstream does not list (default 1,000): URIs of its
   * templates, which a client subscribed to. Past it, the oldest is no longer followed.
   */
  readonly maxUnlistedSubscriptions?: number
  /**
   * The most tools (and prompts, resources, templates: each kind alone) of the upstream served
   * (default 1,000): a listing past it is not served, with a warning, and what was served stays.
   */
  readonly maxEntries?: number
}

/**
 * The proxy's server: an `McpServer` mirroring the upstream `McpClient` (the one the relay's
 * handlers were given to), kept in step for the lifetime of the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<McpServer.McpServer, never, McpClient.McpClient | ProxyRelay> =>
  Layer.scoped(
    McpServer.McpServer,
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const relay = yield* ProxyRelay
      const caps = client.serverCapabilities
      const relayTable = RelayTable.make()
      const mirror = yield* Mirror.make(client, relay, {
        maxUnlistedSubscriptions: options.maxUnlistedSubscriptions,
        maxEntries: options.maxEntries,
        lane: { table: relayTable }
      })
      const server = yield* McpServer.make({
        relay: relayTable,
        serverInfo: Option.getOrElse(client.serverInfo, () => ({ name: "mcp-proxy", version: "0.1.0" })),
        ...Option.match(client.instructions, { onNone: () => ({}), onSome: (instructions) => ({ instructions }) }),
        ...(options.revisions !== undefined ? { revisions: options.revisions } : {}),
        requestStateKey: options.requestStateKey ?? Redacted.make(randomBytes(32).toString("base64url")),
        onResourceSubscribe: mirror.onResourceSubscribe,
        capabilities: {
          tools: caps.tools !== undefined,
          prompts: caps.prompts !== undefined,
          resources: caps.resources !== undefined,
          completions: caps.completions !== undefined
        }
      })
      yield* mirror.start(server)
      return server
    })
  )

/**
 * A proxy of the upstream the client transport reaches, as a server: the client (`era` chosen
 * as `McpClient` does) and the relay, wired.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFrom = (
  clientOptions: Omit<McpClient.Options, "handlers">,
  options: Options = {}
) =>
  layer(options).pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(
        Effect.map(ProxyRelay, (relay) => McpClient.layer({ ...clientOptions, handlers: relay.handlers }))
      )
    ),
    Layer.provideMerge(layerRelay(options))
  )
