/**
 * Legacy HTTP+SSE (2024-11-05): GET on the SSE endpoint opens the session's stream, whose first
 * event is `endpoint` (the URL to POST to, with the session in the query); each POST there is
 * answered 202 and what the server sends travels on the stream. The stream is the connection:
 * when it closes, the session ends.
 */
import type { AuthInfo } from "@effect-mcp/core"
import { Revision } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import type { Auth } from "./auth.js"
import type { Exchange } from "./exchange.js"
import * as Front from "./front.js"
import type { Session } from "./session.js"
import type { Sessions } from "./sessions.js"
import { received } from "./streamable.js"

export interface Config {
  readonly sessions: Sessions
  readonly maxBodyBytes: number
  readonly maxDepth: number
  /** The path clients POST to. */
  readonly messagesPath: string
  /** Authorization, when on. */
  readonly auth: Auth | undefined
  /** The address of an exchange's client (as the trusted proxies forward it), for its quotas. */
  readonly peerOf: (exchange: Exchange) => string | undefined
}

export const get = (config: Config, exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void => {
  const peer = config.peerOf(exchange)
  const refused = config.sessions.refusal(auth, peer)
  if (refused !== undefined) return exchange.reply(refused)
  const session = config.sessions.create(true, auth, peer)
  const open = () => {
    session.attach(exchange, auth)
    session.standalone.stream!.write(
      Front.sse({ event: "endpoint", data: `${config.messagesPath}?sessionId=${encodeURIComponent(session.id)}` })
    )
  }
  // Shared: kept in the store (within the cluster's bound) before the client hears of it.
  const shared = config.sessions.config.shared
  if (shared === undefined) return open()
  config.sessions.createShared(session, (refused) => refused === undefined ? open() : exchange.reply(refused))
}

export const post = (config: Config, exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void => {
  const id = new URLSearchParams(exchange.query).get("sessionId")
  if (id === null) return exchange.reply(Front.error(400, Front.transportError, "Bad Request: sessionId is required"))
  config.sessions.resolve(id, true, auth, (found) => {
    if (!("client" in found)) return exchange.reply(found)
    served(config, exchange, found, auth)
  })
}

const served = (config: Config, exchange: Exchange, session: Session, auth: AuthInfo.AuthInfo | undefined) => {
  if (!Front.isJson(exchange.header("content-type"))) {
    return exchange.reply(
      Front.error(415, Front.transportError, "Unsupported Media Type: Content-Type must be application/json")
    )
  }
  Front.readInbound(exchange, config, (inbound) => {
    if (inbound._tag === "Invalid") {
      return exchange.reply(Front.wireError(400, inbound.id, inbound.error, Revision.handshake[0]))
    }
    const messages = inbound._tag === "Single"
      ? [inbound.message]
      : inbound.items.flatMap((item) => (item._tag === "Single" ? [item.message] : []))
    const stepUp = config.auth?.stepUp(messages, auth)
    if (stepUp !== undefined) return exchange.reply(stepUp)
    // Requests in flight, for the maximum request duration (their answers travel on the stream),
    // within the bounds on them (past one refused: 429 with its id, nothing run). A batch is not
    // this revision's: the engine refuses it whole.
    if (inbound._tag === "Single" && "method" in inbound.message && "id" in inbound.message) {
      const tooMany = config.sessions.inFlightRefusal(session, [inbound.message])
      if (tooMany !== undefined) return exchange.reply(tooMany)
      session.started.set(inbound.message.id, config.sessions.now())
    }
    // Shared: answers to another instance's requests go there.
    const rest = config.sessions.forward(session, inbound)
    if (rest !== undefined) config.sessions.receiver().receive(session.client, rest, received(auth))
    if (session.writes.size === 0) return exchange.reply(Front.empty(202))
    config.sessions.config.fork(
      Effect.zipRight(session.settled, Effect.sync(() => exchange.reply(Front.empty(202))))
    )
  })
}
