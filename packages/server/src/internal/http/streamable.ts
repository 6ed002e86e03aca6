/**
 * Streamable HTTP for the handshake era (2025-03-26 … 2025-11-25) on one endpoint: POST (one
 * message, or a batch in 2025-03-26 sessions), GET (the standalone stream, or a resumption with
 * `Last-Event-ID`), DELETE. Sessions are `sessions.ts` (one session and the routing of what the
 * server sends, `session.ts`; its responses, `channel.ts`; shared ones, `replication.ts`); the
 * checks every HTTP transport shares are `front.ts`.
 */
import type { AuthInfo, JsonRpc, Wire } from "@effect-mcp/core"
import { Revision } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type { Auth } from "./auth.js"
import type { Exchange } from "./exchange.js"
import * as Front from "./front.js"
import type { Session } from "./session.js"
import { storeUnavailable } from "./sessions.js"
import type { Sessions } from "./sessions.js"

export interface Config {
  readonly sessions: Sessions
  readonly maxBodyBytes: number
  readonly maxDepth: number
  readonly standaloneStream: boolean
  readonly fork: (effect: Effect.Effect<void>) => void
  readonly acceptVerdicts: Front.AcceptVerdicts
  /** Authorization, when on. */
  readonly auth: Auth | undefined
  /** The address of an exchange's client (as the trusted proxies forward it), for its quotas. */
  readonly peerOf: (exchange: Exchange) => string | undefined
}

/** What the engine is told of a request's token. */
export const received = (auth: AuthInfo.AuthInfo | undefined) => auth === undefined ? undefined : { auth }

/**
 * The session a request names (`Mcp-Session-Id`), with its `MCP-Protocol-Version` checked; or
 * the reply that says why not.
 */
const lookup = (
  config: Config,
  exchange: Exchange,
  auth: AuthInfo.AuthInfo | undefined,
  k: (found: Session | Front.Reply) => void
): void => {
  const id = exchange.header("mcp-session-id")
  if (id === undefined) {
    return k(Front.error(400, Front.transportError, "Bad Request: Mcp-Session-Id header is required"))
  }
  config.sessions.resolve(id, false, auth, (session) => {
    if (!isSession(session)) return k(session)
    const version = exchange.header("mcp-protocol-version")
    if (version !== undefined && session.revision !== undefined && version !== session.revision) {
      return k(Front.error(400, Front.transportError, `Bad Request: unsupported MCP-Protocol-Version ${version}`))
    }
    k(session)
  })
}

const isSession = (u: Session | Front.Reply): u is Session => "client" in u

const requestsOf = (messages: ReadonlyArray<JsonRpc.Message>): ReadonlyArray<JsonRpc.Request> =>
  messages.filter((m): m is JsonRpc.Request => "method" in m && "id" in m)

const isInitialize = (message: JsonRpc.Message) => "method" in message && message.method === "initialize"

/** The reply to a POST whose `Accept` or `Content-Type` will not do, before its body is read. */
export const refuse = (config: Config, exchange: Exchange): Front.Reply | undefined =>
  Front.refusePost(config.acceptVerdicts, exchange.header("accept"), exchange.header("content-type"))

export const post = (config: Config, exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void => {
  const refused = refuse(config, exchange)
  if (refused !== undefined) return exchange.reply(refused)
  if (exchange.header("mcp-session-id") === undefined) {
    return Front.readInbound(exchange, config, (inbound) => receive(config, exchange, undefined, inbound, auth))
  }
  // The session is known from the headers: an unknown one is answered before the body is read.
  lookup(config, exchange, auth, (named) => {
    if (isSession(named)) {
      return Front.readInbound(exchange, config, (inbound) => receive(config, exchange, named, inbound, auth))
    }
    // The session store is down: the request is told so by its id.
    if (named.status !== 503) return exchange.reply(named)
    Front.readInbound(exchange, config, (inbound) =>
      exchange.reply(
        storeUnavailable(inbound._tag === "Single" && "id" in inbound.message ? inbound.message.id : null)
      ))
  })
}

/**
 * Serves one POST whose headers were checked (`refuse`) and whose body was read and decoded, in
 * the session its `Mcp-Session-Id` names (none: only `initialize` may come).
 */
export const receive = (
  config: Config,
  exchange: Exchange,
  named: Session | undefined,
  inbound: Wire.Inbound,
  auth: AuthInfo.AuthInfo | undefined
): void => {
  const { sessions } = config
  if (inbound._tag === "Invalid") {
    return exchange.reply(
      Front.wireError(400, inbound.id, inbound.error, named?.revision ?? Revision.latestHandshake)
    )
  }
  const messages = inbound._tag === "Single"
    ? [inbound.message]
    : inbound.items.flatMap((item) => (item._tag === "Single" ? [item.message] : []))
  const requests = requestsOf(messages)
  const stepUp = config.auth?.stepUp(messages, auth)
  if (stepUp !== undefined) return exchange.reply(stepUp)
  const context = received(auth)

  if (inbound._tag === "Single" && requests.length === 1 && isInitialize(inbound.message)) {
    // initialize opens a new session; it is known by its id only once initialize succeeded.
    const peer = config.peerOf(exchange)
    const refused = sessions.refusal(auth, peer)
    if (refused !== undefined) return exchange.reply(refused)
    const session = sessions.create(false, auth, peer)
    session.open(exchange, [requests[0].id], { initialize: true })
    return sessions.receiver().receive(session.client, inbound, context)
  }

  if (named === undefined) {
    return exchange.reply(Front.error(400, Front.transportError, "Bad Request: Mcp-Session-Id header is required"))
  }
  const session = named
  if (inbound._tag === "Batch") {
    if (session.revision === undefined || !Revision.allowsBatching(session.revision)) {
      return exchange.reply(
        Front.error(400, -32600, "Invalid Request: batches are not supported in this protocol revision")
      )
    }
    if (messages.some(isInitialize)) {
      return exchange.reply(Front.error(400, -32600, "Invalid Request: initialize must not be batched"))
    }
  }
  const busy = requests.find((request, i) =>
    session.owner.has(request.id) || requests.findIndex((other) => other.id === request.id) < i
  )
  if (busy !== undefined) {
    // The id of a request still in flight (or twice in one batch): answered here, so the first
    // request keeps its stream.
    return exchange.reply(
      Front.error(400, -32600, `Invalid Request: id ${JSON.stringify(busy.id)} is already in flight`, { id: busy.id })
    )
  }
  // Past a bound on requests in flight (a cut POST runs on in this era): refused whole, with its first request's id.
  const tooMany = sessions.inFlightRefusal(session, requests)
  if (tooMany !== undefined) return exchange.reply(tooMany)
  // A batch's invalid items are answered in its array, even when it holds no request.
  const invalid = inbound._tag === "Batch" && inbound.items.some((item) => item._tag === "Invalid")
  // Shared: answers to another instance's requests go there (`forward`).
  const served = sessions.forward(session, inbound)
  if (requests.length === 0 && !invalid) {
    if (served !== undefined) sessions.receiver().receive(session.client, served, context)
    // Shared: what a notification changed (notifications/initialized) is kept before it is acknowledged,
    // so the next request sees it on any instance.
    return session.writes.size === 0
      ? exchange.reply(Front.empty(202))
      : config.fork(Effect.zipRight(session.settled, Effect.sync(() => exchange.reply(Front.empty(202)))))
  }
  // Its requests' answers (cancelled ones included: the engine says when one will not come).
  session.open(exchange, requests.map((request) => request.id), { batch: inbound._tag === "Batch", invalid })
  if (served !== undefined) sessions.receiver().receive(session.client, served, context)
}

export const get = (config: Config, exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void => {
  // Without the standalone stream, GET still resumes a stream (2025-11-25 polling needs it).
  const lastEventId = exchange.header("last-event-id")
  if (!config.standaloneStream && lastEventId === undefined) {
    return exchange.reply(Front.methodNotAllowed(["POST", "DELETE"]))
  }
  if (!Front.accepts(exchange.header("accept"), "text/event-stream")) {
    return exchange.reply(Front.error(406, Front.transportError, "Not Acceptable: Accept must list text/event-stream"))
  }
  lookup(config, exchange, auth, (session) => {
    if (!isSession(session)) return exchange.reply(session)
    if (lastEventId !== undefined) return config.fork(session.resume(exchange, lastEventId, auth))
    if (session.standalone.stream !== undefined) {
      return exchange.reply(
        Front.error(409, Front.transportError, "Conflict: only one standalone SSE stream per session")
      )
    }
    session.attach(exchange, auth)
  })
}

export const del = (config: Config, exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void => {
  lookup(config, exchange, auth, (session) => {
    if (!isSession(session)) return exchange.reply(session)
    // Shared: ended everywhere before the client hears so.
    config.fork(Effect.zipRight(config.sessions.end(session), Effect.sync(() => exchange.reply(Front.empty(200)))))
  })
}
