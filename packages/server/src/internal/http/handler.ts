/**
 * The MCP HTTP handler: the front (method, Origin/Host), the era router, the back ends. One
 * handler serves every session of one server on one set of paths, whatever platform delivers
 * the exchanges.
 */
import type { AuthInfo } from "@effect-mcp/core"
import { McpError, Revision, Telemetry, Wire } from "@effect-mcp/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as EventStore from "../../EventStore.js"
import type { Handler, Options } from "../../HttpTransport.js"
import { McpServer } from "../../McpServer.js"
import * as NotificationBus from "../../NotificationBus.js"
import * as SessionStore from "../../SessionStore.js"
import * as TaskStore from "../../TaskStore.js"
import * as TokenVerifier from "../../TokenVerifier.js"
import * as Holders from "../holders.js"
import * as Metrics from "../metrics.js"
import * as Timer from "../timer.js"
import * as Workers from "../workers.js"
import * as Auth from "./auth.js"
import * as Budget from "./budget.js"
import type { Exchange } from "./exchange.js"
import * as Front from "./front.js"
import * as InFlight from "./inFlight.js"
import * as Legacy from "./legacy.js"
import * as Sessions from "./sessions.js"
import * as Stateless from "./stateless.js"
import * as Streamable from "./streamable.js"

export type { Handler, Options } from "../../HttpTransport.js"

export const defaults = {
  path: "/mcp",
  ssePath: "/sse",
  messagesPath: "/messages",
  sessionIdleTimeout: Duration.minutes(5),
  maxSessions: 10_000,
  maxBodyBytes: 4 * 1024 * 1024,
  maxRequestDuration: Duration.hours(1),
  retry: Duration.seconds(1)
} as const

export const notFound = Front.error(404, Front.transportError, "Not Found")

/** A bound in bytes from the options: a whole number of at least 1, else the caller's mistake, said now. */
export const bound = (name: string, given: number | undefined, fallback: number): Effect.Effect<number> =>
  given === undefined
    ? Effect.succeed(fallback)
    : Number.isSafeInteger(given) && given >= 1
    ? Effect.succeed(given)
    : Effect.dieMessage(`effect-mcp: HttpTransport ${name} must be a whole number of bytes, at least 1 (got ${given})`)

/** A count option: its value when given, else `fallback`; a value that is not a whole number at least 1 dies. */
const count = (name: string, given: number | undefined, fallback: number): Effect.Effect<number> =>
  given === undefined
    ? Effect.succeed(fallback)
    : Number.isSafeInteger(given) && given >= 1
    ? Effect.succeed(given)
    : Effect.dieMessage(`effect-mcp: HttpTransport ${name} must be a whole number, at least 1 (got ${given})`)

/** Requests in flight over all handshake sessions of one handler (`maxRequestsInFlightTotal`). */
const defaultMaxRequestsInFlightTotal = 4_000

/** The requests in flight of a handler, with its bounds (`maxRequestsInFlightPerHolder`, `maxRequestsInFlightTotal`). */
export const inFlightOf = (
  options: Pick<Options, "maxRequestsInFlightPerHolder" | "maxRequestsInFlightTotal">
): Effect.Effect<InFlight.InFlightTally> =>
  Effect.gen(function*() {
    const total = yield* count(
      "maxRequestsInFlightTotal",
      options.maxRequestsInFlightTotal,
      defaultMaxRequestsInFlightTotal
    )
    const perHolder = yield* count(
      "maxRequestsInFlightPerHolder",
      options.maxRequestsInFlightPerHolder,
      Holders.shareOf(total)
    )
    return new InFlight.InFlightTally(perHolder, total)
  })

const ok = JSON.stringify({ status: "ok" })
const ready = JSON.stringify({ status: "ready" })
const probeReply = (status: number, body: string): Front.Reply => ({
  status,
  headers: { "content-type": "application/json", "cache-control": "no-store" },
  body
})

/**
 * Who a client without a token is, for its quotas: what `holderOf` names, else its address (as the
 * trusted proxies forward it), else on Cloudflare Workers (no `holderOf` given) the
 * `CF-Connecting-IP` header, which Cloudflare's edge sets on every request it passes to a Worker (a
 * client cannot write it there). Behind a proxy that forwards addresses while none is trusted,
 * every client is the proxy: said once.
 */
export const peerOfWith = (
  options: Pick<Options, "trustedProxies" | "holderOf"> & { readonly auth?: unknown },
  fork: (effect: Effect.Effect<void>) => void
) => {
  const trustedProxies = Math.max(0, Math.floor(options.trustedProxies ?? 0))
  let forwardedUnread = trustedProxies === 0
  // A platform that gives no address (fetch handlers: Deno, Bun, Workers, Next): no holder, so
  // clients without a token are not counted apart (only the global caps), said once; with
  // authorization on every client has a token, and its holder.
  let unnamedUnsaid = options.auth === undefined
  // Only where Cloudflare's edge is the one to set it: elsewhere (Bun, Deno, Node) a client can.
  const edgeNamed = options.holderOf === undefined && Workers.onWorkers()
  const peerOf = (exchange: Exchange): string | undefined => {
    const named = options.holderOf?.(exchange)
    if (named !== undefined && named.trim() !== "") return Holders.normalizeAddress(named)
    if (forwardedUnread && exchange.header("x-forwarded-for") !== undefined) {
      forwardedUnread = false
      fork(Effect.logWarning(
        "effect-mcp: requests come with X-Forwarded-For while trustedProxies is 0: the header is not read, so " +
          "every client behind that proxy is one holder for the quotas of clients without a token (sessions, " +
          "listens, tasks); set trustedProxies to the number of proxies in front of this server"
      ))
    }
    const address = Holders.clientAddress(
      exchange.remoteAddress,
      trustedProxies > 0 ? exchange.header("x-forwarded-for") : undefined,
      trustedProxies
    )
    if (address === undefined && edgeNamed) {
      const connecting = exchange.header("cf-connecting-ip")
      if (connecting !== undefined && connecting.trim() !== "") return Holders.normalizeAddress(connecting)
    }
    if (address === undefined && unnamedUnsaid) {
      unnamedUnsaid = false
      fork(Effect.logWarning(
        "effect-mcp: the HTTP platform gives no client address, so clients without a token cannot be told " +
          "apart: per-holder quotas are off for them (sessions, listens and tasks count against the global caps " +
          "only), and a 2026-07-28 task is reached by whoever holds its id; set holderOf (HttpTransport " +
          "options) to name the client from the request, e.g. its CF-Connecting-IP header"
      ))
    }
    return address
  }
  return peerOf
}

/**
 * The era a request's headers tell, if they do: a POST whose MCP-Protocol-Version names a stateless
 * revision is the stateless back end's; a known handshake revision or a session id, the handshake one's.
 */
const headerEra = (exchange: Exchange): Revision.Era | undefined => {
  const version = exchange.header("mcp-protocol-version")
  if (version !== undefined && Revision.isRevision(version)) {
    return Revision.isStateless(version) ? "stateless" : "handshake"
  }
  return exchange.header("mcp-session-id") !== undefined ? "handshake" : undefined
}

/**
 * The liveness and readiness probes asked for, by path: each answers from the stores' own `ready`
 * (the handler's own, by name, then the task store's and the notification bus's of the context).
 */
export const probesOf = (
  options: Pick<Options, "healthPath" | "readyPath" | "readyChecks">,
  stores: ReadonlyArray<readonly [string, { readonly ready?: Effect.Effect<boolean> | undefined } | undefined]>
) =>
  Effect.gen(function*() {
    const probes = new Map<string, () => Effect.Effect<Front.Reply>>()
    if (options.healthPath !== undefined) probes.set(options.healthPath, () => Effect.succeed(probeReply(200, ok)))
    if (options.readyPath !== undefined) {
      const checks: Array<readonly [string, Effect.Effect<boolean>]> = []
      const add = (name: string, service: { readonly ready?: Effect.Effect<boolean> | undefined } | undefined) => {
        if (service?.ready !== undefined) checks.push([name, service.ready])
      }
      for (const [name, service] of stores) add(name, service)
      add("tasks", Option.getOrUndefined(yield* Effect.serviceOption(TaskStore.TaskStore)))
      add("notifications", Option.getOrUndefined(yield* Effect.serviceOption(NotificationBus.NotificationBus)))
      for (const [name, ready] of options.readyChecks ?? []) checks.push([name, ready])
      probes.set(options.readyPath, () =>
        Effect.map(
          Effect.forEach(checks, ([name, ready]) =>
            ready.pipe(
              Effect.timeoutTo({ duration: Duration.seconds(1), onTimeout: () => false, onSuccess: (r) => r }),
              Effect.catchAllCause(() => Effect.succeed(false)),
              Effect.map((r) => r ? undefined : name)
            ), { concurrency: "unbounded" }),
          (answers) => {
            const failing = answers.filter((name): name is string => name !== undefined)
            return failing.length === 0
              ? probeReply(200, ready)
              : probeReply(503, JSON.stringify({ status: "unavailable", failing }))
          }
        ))
    }
    return probes
  })

/**
 * Whether the handshake revisions are served here. Not on a Worker: no process keeps a session
 * between requests there (and a timer dies with its request), so their requests are told to use
 * 2026-07-28 (-32022), said once in a warning; a server with no 2026-07-28 revision cannot be
 * built there.
 */
const handshakeServed = (
  server: McpServer["Type"],
  fork: (effect: Effect.Effect<void>) => unknown
): Effect.Effect<boolean> => {
  const handshake = server.revisions.some((r) => !Revision.isStateless(r))
  if (!Workers.onWorkers()) return Effect.succeed(handshake)
  if (!server.revisions.some(Revision.isStateless)) {
    return Effect.dieMessage(
      `effect-mcp: a Cloudflare Worker serves the 2026-07-28 revision only, and this server serves ${
        server.revisions.join(", ")
      }: give it Revision.stateless`
    )
  }
  if (handshake) {
    fork(Effect.logWarning(
      "effect-mcp: on a Cloudflare Worker no process keeps a handshake session between requests: the handshake " +
        "revisions are not served, and their clients are told to use 2026-07-28 (-32022); serve Revision.stateless " +
        "to say so in the server's own revisions"
    ))
  }
  return Effect.succeed(false)
}

/** The endpoints' handlers: the MCP endpoint's by method and era, and the legacy HTTP+SSE pair's. */
const endpointsOf = (
  server: McpServer["Type"],
  limits: Front.InboundLimits,
  posts: Stateless.Posts | undefined,
  streamable: Streamable.Config | undefined,
  legacy: Legacy.Config | undefined
) => {
  // The era router, from the headers when they tell: a POST whose MCP-Protocol-Version names a
  // stateless revision belongs to the stateless back end (told, with -32022, which revisions this
  // server serves when it has none); a known handshake revision or a session id, to the handshake
  // one. Otherwise (initialize, a legacy client, a stateless request without its headers) the body
  // decides: a protocol version in its _meta is a stateless request.
  const unserved = (exchange: Exchange) =>
    Front.readInbound(exchange, limits, (inbound) => {
      const id = inbound._tag === "Single" && "id" in inbound.message ? inbound.message.id ?? null : null
      const error = new McpError.UnsupportedProtocolVersion({
        supported: server.revisions,
        requested: exchange.header("mcp-protocol-version")!
      })
      exchange.reply(Front.wireError(400, id, error, Revision.latest))
    })
  /**
   * Dual era, nothing in the headers (so no session named either): the body decides. Both back
   * ends refuse a POST's Accept and Content-Type alike, before its body is read.
   */
  const byBody = (exchange: Exchange, holder: AuthInfo.AuthInfo | undefined) => {
    const refused = Streamable.refuse(streamable!, exchange)
    if (refused !== undefined) return exchange.reply(refused)
    Front.readInbound(exchange, limits, (inbound) =>
      Stateless.isStatelessBody(inbound)
        ? posts!.receive(exchange, inbound, holder)
        : Streamable.receive(streamable!, exchange, undefined, inbound, holder))
  }
  const post = (exchange: Exchange, holder: AuthInfo.AuthInfo | undefined) => {
    if (posts === undefined) {
      return headerEra(exchange) === "stateless"
        ? unserved(exchange)
        : Streamable.post(streamable!, exchange, holder)
    }
    if (streamable === undefined) return posts.post(exchange, holder)
    const era = headerEra(exchange)
    return era === "stateless"
      ? posts.post(exchange, holder)
      : era === "handshake"
      ? Streamable.post(streamable, exchange, holder)
      : byBody(exchange, holder)
  }

  const mcpMethods = streamable === undefined ? ["POST"] : ["GET", "POST", "DELETE"]
  const mcp = (exchange: Exchange, holder: AuthInfo.AuthInfo | undefined) => {
    switch (exchange.method) {
      case "POST":
        return post(exchange, holder)
      case "GET":
      case "DELETE":
        // 2026-07-28 is POST only.
        if (streamable === undefined || headerEra(exchange) === "stateless") {
          return exchange.reply(
            Front.methodNotAllowed(streamable === undefined ? ["POST"] : ["GET", "POST", "DELETE"])
          )
        }
        return exchange.method === "GET"
          ? Streamable.get(streamable, exchange, holder)
          : Streamable.del(streamable, exchange, holder)
      default:
        return exchange.reply(Front.methodNotAllowed(mcpMethods))
    }
  }
  const sse = (exchange: Exchange, holder: AuthInfo.AuthInfo | undefined) =>
    exchange.method === "GET"
      ? Legacy.get(legacy!, exchange, holder)
      : exchange.reply(Front.methodNotAllowed(["GET"]))
  const messages = (exchange: Exchange, holder: AuthInfo.AuthInfo | undefined) =>
    exchange.method === "POST"
      ? Legacy.post(legacy!, exchange, holder)
      : exchange.reply(Front.methodNotAllowed(["POST"]))
  return { mcp, mcpMethods, messages, sse }
}

/** Runs an endpoint past the Host/Origin guard: a preflight answered, CORS added, the token verified (authorization on). */
export const guarded = (guard: Front.Guard, auth: Auth.Auth | undefined) =>
(
  raw: Exchange,
  endpoint: (exchange: Exchange, holder: AuthInfo.AuthInfo | undefined) => void,
  methods: ReadonlyArray<string>
): void => {
  const origin = raw.header("origin")
  const denied = Front.guard(guard, raw.header("host"), origin)
  if (denied) return raw.reply(denied)
  if (origin === undefined) {
    return auth === undefined ? endpoint(raw, undefined) : auth.authenticate(raw, (holder) => endpoint(raw, holder))
  }
  if (Auth.isPreflight(raw)) return raw.reply(Auth.preflight(raw, origin, [...methods, "OPTIONS"].join(", ")))
  const exchange = Auth.withCors(raw, origin)
  return auth === undefined
    ? endpoint(exchange, undefined)
    : auth.authenticate(exchange, (holder) => endpoint(exchange, holder))
}

/**
 * The server's own gauges (metrics on): sessions held here, the event store's bytes; and what counts
 * each refusal as its reply goes (the exchange as it is, metrics off).
 */
export const gauges = (store: EventStore.Service | undefined, sessions: Sessions.Sessions | undefined) =>
  Effect.gen(function*() {
    const { metrics } = yield* Telemetry.enabled
    if (metrics) {
      const memory = store !== undefined && "bytes" in store && !("memoryUsage" in store)
        ? store as EventStore.Memory
        : undefined
      yield* Metrics.sampleEvery(Effect.gen(function*() {
        yield* Metric.set(Metrics.sessions, sessions?.count() ?? 0)
        if (memory !== undefined) yield* Metric.set(Metrics.eventStoreBytes, yield* memory.bytes())
      }))
    }
    const counted = (exchange: Exchange): Exchange =>
      metrics
        ? {
          // Each call made on the exchange (its calls may be methods, which a spread leaves out).
          method: exchange.method,
          path: exchange.path,
          query: exchange.query,
          remoteAddress: exchange.remoteAddress,
          header: (name) => exchange.header(name),
          body: (maxBytes, done) => exchange.body(maxBytes, done),
          stream: (headers) => exchange.stream(headers),
          onClose: (listener) => exchange.onClose(listener),
          reply: (reply) => {
            Metrics.countRefused(reply.status)
            exchange.reply(reply)
          }
        }
        : exchange
    return counted
  })

/** Answers a probe (GET or HEAD) in a fiber of the handler. */
export const probe = (
  fork: (effect: Effect.Effect<void>) => void,
  exchange: Exchange,
  answer: () => Effect.Effect<Front.Reply>
) => {
  if (exchange.method !== "GET" && exchange.method !== "HEAD") {
    return exchange.reply(Front.methodNotAllowed(["GET", "HEAD"]))
  }
  fork(
    Effect.map(
      answer(),
      (reply) => exchange.reply(exchange.method === "HEAD" ? { ...reply, body: undefined } : reply)
    )
  )
}

export const make = (options: Options = {}): Effect.Effect<Handler, never, McpServer | Scope.Scope> =>
  Effect.gen(function*() {
    const server = yield* McpServer
    const store = yield* Effect.flatMap(
      Effect.serviceOption(EventStore.EventStore),
      Option.match({ onNone: () => EventStore.makeMemory(), onSome: Effect.succeed })
    )
    const runtime = yield* Effect.runtime<never>()
    // What the handler forks runs on the server's runtime, in the handler's scope: closing it interrupts the work.
    const scope = yield* Effect.scope
    const fork = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect, { scope })
    const clock = yield* Effect.clock
    const idleMillis = Duration.toMillis(options.sessionIdleTimeout ?? defaults.sessionIdleTimeout)
    const maxRequestMillis = Duration.toMillis(options.maxRequestDuration ?? defaults.maxRequestDuration)
    const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes
    const writes = new Budget.Budget(
      {
        perConnection: yield* bound("maxBufferedBytes", options.maxBufferedBytes, Budget.defaultPerConnection),
        total: yield* bound("maxBufferedBytesTotal", options.maxBufferedBytesTotal, Budget.defaultTotal)
      },
      (line) => fork(Effect.logWarning(line))
    )
    const maxDepth = options.maxDepth ?? Wire.defaultMaxDepth
    const limits = { maxBodyBytes, maxDepth }
    const peerOf = peerOfWith(options, fork)
    const maxSessions = options.maxSessions ?? defaults.maxSessions
    const servesStateless = server.revisions.some(Revision.isStateless)
    const servesHandshake = yield* handshakeServed(server, fork)
    const auth = options.auth === undefined ? undefined : Auth.make(
      options.auth,
      server,
      options.auth.verifier ?? (yield* Effect.serviceOption(TokenVerifier.TokenVerifier)).pipe(
        Option.getOrUndefined
      ) ?? (yield* TokenVerifier.jwt()),
      runtime,
      clock,
      maxBodyBytes
    )

    // Requests in flight over both eras, per holder and in total.
    const inFlight = yield* inFlightOf(options)
    // The handshake era: one engine for every session of this handler, running until the scope closes.
    const sessionStore = Option.getOrUndefined(yield* Effect.serviceOption(SessionStore.SessionStore))
    const sessions = servesHandshake
      ? new Sessions.Sessions({
        shared: sessionStore === undefined
          ? undefined
          : { store: sessionStore, touchMillis: Math.max(1, Math.min(1_000, Math.floor(idleMillis / 4))) },
        store,
        clock,
        idleMillis,
        maxSessions,
        maxSessionsPerHolder: options.maxSessionsPerHolder ?? Holders.shareOf(maxSessions),
        maxRequestsInFlight: yield* count("maxRequestsInFlight", options.maxRequestsInFlight, 100),
        inFlight,
        maxRequestMillis,
        retryMillis: Duration.toMillis(options.retry ?? defaults.retry),
        fork,
        timerAt: Timer.make(runtime, yield* Effect.scope)
      })
      : undefined
    // Both back ends check a POST's Accept: each value a client sends is parsed once.
    const acceptVerdicts = new Front.AcceptVerdicts()
    // Idle sessions end, requests over their maximum duration are interrupted, open SSE streams have
    // their keep-alive, at least every 15 seconds: one fiber, not one per session (but `ownKeepAlive`).
    const every = Math.max(10, Math.min(idleMillis / 2, maxRequestMillis / 2, 15_000))
    // The stateless era: no engine, each POST served on its own response (its sink).
    const stateless = {
      server,
      maxBodyBytes,
      maxDepth,
      clock,
      maxRequestMillis,
      acceptVerdicts,
      auth,
      peerOf,
      inFlight
    }
    const ownKeepAlive = Workers.onWorkers() ? { every, fork } : undefined
    const posts = servesStateless ? yield* Stateless.Posts.make({ ...stateless, ownKeepAlive }) : undefined
    // Each engine ends before its responses do (finalizers run last first). The stateless back end
    // answers its subscriptions gracefully while their streams are still open, then ends the rest.
    if (sessions !== undefined) {
      yield* Effect.addFinalizer(() => sessions.endAll)
      // Shared sessions: what other instances send here, and what they change.
      yield* Effect.forkScoped(sessions.inbox)
      yield* Effect.forkScoped(sessions.follow)
      yield* Effect.forkScoped(server.serve(sessions.host.protocol, { era: "handshake" }))
      yield* sessions.host.ready
    }
    if (posts !== undefined) yield* Effect.addFinalizer(() => posts.endAll)

    yield* Effect.zipRight(sessions?.sweep ?? Effect.void, posts?.sweep ?? Effect.void).pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(every))),
      Effect.forkScoped
    )

    const guard = Front.makeGuard(
      options.allowedHosts ?? Front.loopbackHosts,
      options.allowedOrigins ?? Front.loopbackOrigins
    )
    const streamable: Streamable.Config | undefined = sessions && {
      sessions,
      maxBodyBytes,
      maxDepth,
      standaloneStream: options.standaloneStream ?? true,
      fork,
      acceptVerdicts,
      auth,
      peerOf
    }
    const path = options.path ?? defaults.path
    const legacyPaths = options.legacySse === false || sessions === undefined ? undefined : {
      sse: options.legacySse?.ssePath ?? defaults.ssePath,
      messages: options.legacySse?.messagesPath ?? defaults.messagesPath
    }
    const legacy: Legacy.Config | undefined = legacyPaths && sessions && {
      sessions,
      maxBodyBytes,
      maxDepth,
      messagesPath: legacyPaths.messages,
      auth,
      peerOf
    }
    const { mcp, mcpMethods, messages, sse } = endpointsOf(server, limits, posts, streamable, legacy)
    const serve = guarded(guard, auth)

    // Liveness and readiness, when asked for: no guard, no token (probes come by IP).
    const probes = yield* probesOf(options, [["sessions", sessionStore], ["events", store]])

    const counted = yield* gauges(store, sessions)

    const handle = (raw: Exchange): void => {
      const exchange = counted(raw)
      if (exchange.path === path) return serve(exchange, mcp, mcpMethods)
      if (legacy !== undefined && exchange.path === legacyPaths!.sse) return serve(exchange, sse, ["GET"])
      if (legacy !== undefined && exchange.path === legacyPaths!.messages) return serve(exchange, messages, ["POST"])
      if (auth !== undefined && auth.metadataPaths.includes(exchange.path)) {
        // Public: any origin may read it; the Host guard still holds (DNS rebinding).
        const denied = Front.guard({ ...guard, allowedOrigins: "*" }, exchange.header("host"), undefined)
        return denied ? exchange.reply(denied) : Auth.serveMetadata(auth, exchange)
      }
      const answer = probes.get(exchange.path)
      if (answer !== undefined) return probe(fork, raw, answer)
      exchange.reply(notFound)
    }

    return {
      handle,
      writes,
      paths: [
        ...(legacyPaths === undefined ? [path] : [path, legacyPaths.sse, legacyPaths.messages]),
        ...(auth?.metadataPaths ?? []),
        ...probes.keys()
      ],
      sessions: () => sessions?.count() ?? 0
    }
  })
