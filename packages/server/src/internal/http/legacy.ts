/**
 * Legacy HTTP+SSE (2024-11-05): GET on the SSE endpoint opens the session's stream, whose first
 * event is `endpoint` (the URL to POST to, with the session in the query); each POST there is
 * answered 202 and what the server sends travels on the stream. The stream is the connection:
 * when it closes, the session ends.
 */
import type { AuthInfo } from "@effect-mcp/core"
import { Revision } from "@effect-mcp/core"
import type { Auth } from "./auth.js"
import type { Exchange } from "./exchange.js"
import * as Front from "./front.js"
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
}

export const get = (config: Config, exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void => {
  if (config.sessions.isFull()) {
    return exchange.reply(
      Front.error(503, Front.transportError, "Service Unavailable: too many sessions, try again later")
    )
  }
  const session = config.sessions.create(true, auth)
  session.attach(exchange, auth)
  session.standalone.stream!.write(
    Front.sse({ event: "endpoint", data: `${config.messagesPath}?sessionId=${encodeURIComponent(session.id)}` })
  )
}

export const post = (config: Config, exchange: Exchange, auth: AuthInfo.AuthInfo | undefined): void => {
  const id = new URLSearchParams(exchange.query).get("sessionId")
  if (id === null) return exchange.reply(Front.error(400, Front.transportError, "Bad Request: sessionId is required"))
  const session = config.sessions.find(id, true, auth)
  if (session === undefined) return exchange.reply(Front.sessionNotFound())
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
    // Requests in flight, for the maximum request duration (their answers travel on the stream).
    if (inbound._tag === "Single" && "method" in inbound.message && "id" in inbound.message) {
      session.started.set(inbound.message.id, config.sessions.now())
    }
    config.sessions.receiver().receive(session.client, inbound, received(auth))
    exchange.reply(Front.empty(202))
  })
}
