/**
 * The MCP HTTP handler of a server of the 2026-07-28 revision alone (`StatelessServer`): the front
 * every HTTP transport shares (Host/Origin, media types, the body limit, JSON-RPC errors, CORS), and
 * the stateless back end, nothing else. No handshake sessions, GET stream, resumption or legacy
 * HTTP+SSE: their code is not reached from here, so a bundle of this handler (a Worker's) does not
 * carry it. Authorization is what the options give as a value (`StatelessServer.auth`), whose code
 * only that value reaches. A handshake-era request is answered as on a Worker (`handler.ts` without
 * sessions): -32022, naming 2026-07-28; GET and DELETE, 405.
 */
import { Revision, Wire } from "@effect-mcp/core"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { Handler } from "../../HttpTransport.js"
import { McpServer } from "../../McpServer.js"
import type * as StatelessServer from "../../StatelessServer.js"
import * as Workers from "../workers.js"
import * as Auth from "./auth.js"
import * as Budget from "./budget.js"
import type { Exchange } from "./exchange.js"
import * as Front from "./front.js"
import * as Shared from "./handler.js"
import * as Stateless from "./stateless.js"

/** The resource server of an `auth` value: its verifier made in the handler's scope, its code loaded. */
const authOf = (
  given: StatelessServer.Auth,
  server: McpServer["Type"],
  runtime: Runtime.Runtime<never>,
  clock: Clock.Clock,
  maxBodyBytes: number
): Effect.Effect<Auth.Auth, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { verifier, ...rest } = given.options
    const verify = Effect.isEffect(verifier) ? yield* verifier : verifier
    const code = yield* Effect.promise(given.code)
    return code.make({ ...rest, verifier: verify }, server, verify, runtime, clock, maxBodyBytes)
  })

/** The handler of the MCP endpoint for the `McpServer` in context (2026-07-28 only), for the lifetime of the scope. */
export const make = (
  options: StatelessServer.HandlerOptions = {}
): Effect.Effect<Handler, never, McpServer | Scope.Scope> =>
  Effect.gen(function*() {
    const server = yield* McpServer
    if (!server.revisions.some(Revision.isStateless)) {
      return yield* Effect.dieMessage(
        `effect-mcp: a StatelessServer handler serves the 2026-07-28 revision only, and this server serves ${
          server.revisions.join(", ")
        }: give it Revision.stateless, or serve it with HttpTransport`
      )
    }
    const runtime = yield* Effect.runtime<never>()
    // What the handler forks runs on the server's runtime, in the handler's scope: closing it interrupts the work.
    const scope = yield* Effect.scope
    const fork = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect, { scope })
    const clock = yield* Effect.clock
    const maxRequestMillis = Duration.toMillis(options.maxRequestDuration ?? Shared.defaults.maxRequestDuration)
    const maxBodyBytes = options.maxBodyBytes ?? Shared.defaults.maxBodyBytes
    const writes = new Budget.Budget(
      {
        perConnection: yield* Shared.bound("maxBufferedBytes", options.maxBufferedBytes, Budget.defaultPerConnection),
        total: yield* Shared.bound("maxBufferedBytesTotal", options.maxBufferedBytesTotal, Budget.defaultTotal)
      },
      (line) => fork(Effect.logWarning(line))
    )
    const maxDepth = options.maxDepth ?? Wire.defaultMaxDepth
    const peerOf = Shared.peerOfWith(options, fork)
    const auth: Auth.Auth | undefined = options.auth === undefined
      ? undefined
      : yield* authOf(options.auth, server, runtime, clock, maxBodyBytes)
    // Open listens have their keep-alive, requests over their maximum duration are interrupted: one
    // fiber (on a Worker, each listen keeps itself alive: a timer belongs to its request there).
    const every = Math.max(10, Math.min(maxRequestMillis / 2, 15_000))
    const posts = yield* Stateless.Posts.make({
      server,
      maxBodyBytes,
      maxDepth,
      clock,
      maxRequestMillis,
      acceptVerdicts: new Front.AcceptVerdicts(),
      auth,
      peerOf,
      inFlight: yield* Shared.inFlightOf(options),
      ownKeepAlive: Workers.onWorkers() ? { every, fork } : undefined
    })
    // Its subscriptions are answered gracefully while their streams are still open, then the rest end.
    yield* Effect.addFinalizer(() => posts.endAll)
    // A sleep then a sweep, forever: what `Effect.repeat(Schedule.spaced(every))` did but its first
    // sweep (of nothing, at the handler's start), without a schedule's driver to start on the first
    // request of a cold Worker.
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(every)), posts.sweep)))

    const guard = Front.makeGuard(
      options.allowedHosts ?? Front.loopbackHosts,
      options.allowedOrigins ?? Front.loopbackOrigins
    )
    // POST only (2026-07-28): a handshake-era POST is told, with -32022, which revision this server serves.
    const mcp = (exchange: Exchange, holder: Parameters<Stateless.Posts["post"]>[1]) =>
      exchange.method === "POST" ? posts.post(exchange, holder) : exchange.reply(Front.methodNotAllowed(["POST"]))
    const serve = Shared.guarded(guard, auth)
    const path = options.path ?? Shared.defaults.path
    // Liveness and readiness, when asked for: no guard, no token (probes come by IP).
    const probes = yield* Shared.probesOf(options, [])
    const counted = yield* Shared.gauges(undefined, undefined)

    const handle = (raw: Exchange): void => {
      const exchange = counted(raw)
      if (exchange.path === path) return serve(exchange, mcp, ["POST"])
      if (auth !== undefined && auth.metadataPaths.includes(exchange.path)) {
        // Public: any origin may read it; the Host guard still holds (DNS rebinding).
        const denied = Front.guard({ ...guard, allowedOrigins: "*" }, exchange.header("host"), undefined)
        return denied ? exchange.reply(denied) : Auth.serveMetadata(auth, exchange)
      }
      const answer = probes.get(exchange.path)
      if (answer !== undefined) return Shared.probe(fork, raw, answer)
      exchange.reply(Shared.notFound)
    }

    return {
      handle,
      writes,
      paths: [path, ...(auth?.metadataPaths ?? []), ...probes.keys()],
      sessions: () => 0
    }
  })
