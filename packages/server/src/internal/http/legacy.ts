/**
 * Legacy HTTP+SSE (2024-11-05): GET on the SSE endpoint opens the session's stream, whose first
 * event is `endpoint` (the URL to POST to, with the session in the query); each POST there is
 * answered 202 and what the server sends travels on the stream. The stream is the connection:
 * when it closes, the session ends.
 */
import { Revision } from "@effect-mcp/core"
import type { Exchange } from "./exchange.js"
import * as Front from "./front.js"
import type { Sessions } from "./sessions.js"

export interface Config {
  readonly sessions: Sessions
  readonly maxBodyBytes: number
  readonly maxDepth: number
  /** The path clients POST to. */
  readonly messagesPath: string
}

export const get = (config: Config, exchange: Exchange): void => {
  if (config.sessions.isFull()) {
    return exchange.reply(
      Front.error(503, Front.transportError, "Service Unavailable: too many sessions, try again later")
    )
  }
  const session = config.sessions.create(true)
  session.attach(exchange)
  session.standalone.stream!.write(
    Front.sse({ event: "endpoint", data: `${config.messagesPath}?sessionId=${encodeURIComponent(session.id)}` })
  )
}

export const post = (config: Config, exchange: Exchange): void => {
  const id = new URLSearchParams(exchange.query).get("sessionId")
  if (id === null) return exchange.reply(Front.error(400, Front.transportError, "Bad Request: sessionId is required"))
  const session = config.sessions.find(id, true)
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
    // Requests in flight, for the maximum request duration (their answers travel on the stream).
    if (inbound._tag === "Single" && "method" in inbound.message && "id" in inbound.message) {
      session.started.set(inbound.message.id, config.sessions.now())
    }
    config.sessions.receiver().receive(session.client, inbound)
    exchange.reply(Front.empty(202))
  })
}
