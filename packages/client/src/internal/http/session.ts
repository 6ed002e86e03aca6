/**
 * The handshake session of the client's Streamable HTTP transport: its `Mcp-Session-Id` and
 * negotiated revision, echoed on every later POST (a 2026-07-28 message carries the headers that
 * mirror its body instead); and its renewal when the server forgot it (a 404): the session's
 * `initialize` sent again, once for every request that met the 404.
 */
import { HttpHeaders, type JsonRpc, Meta, Wire } from "@effect-mcp/core"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Exchange from "../exchange.js"

/** What the parts of the transport share: the server's URL, the client, the bounds. */
export interface Connection {
  readonly client: HttpClient.HttpClient
  readonly url: string
  /** Headers sent on every request (authorization, say). */
  readonly headers: Readonly<Record<string, string>> | undefined
  /** The largest message read, in bytes. */
  readonly limit: number
  readonly decodeOptions: Wire.DecodeOptions | undefined
}

/** The handshake session, as this transport keeps it. */
export interface Session {
  /** Its `Mcp-Session-Id`, once the `initialize` answer set one. */
  id: string | undefined
  /** The revision its `initialize` negotiated: sent as `MCP-Protocol-Version`. */
  negotiated: string | undefined
  /** The `initialize` it began with: sent again when the server forgets the session. */
  initialize: JsonRpc.Request | undefined
  renewals: number
  /** The renewal under way, of the session id that met a 404. */
  renewing: { readonly from: string; readonly done: Deferred.Deferred<void, Error> } | undefined
}

export const make = (): Session => ({
  id: undefined,
  negotiated: undefined,
  initialize: undefined,
  renewals: 0,
  renewing: undefined
})

/** The revision a 2026-07-28 message names in its `_meta` (undefined: a handshake-era one). */
export const statelessVersion = (message: JsonRpc.Message): string | undefined => {
  const version = "method" in message ? Meta.of(message.params)?.[Meta.protocolVersion] : undefined
  return typeof version === "string" ? version : undefined
}

/** The session's headers (a GET of its stream, its DELETE). */
export const sessionHeaders = (connection: Connection, session: Session): Record<string, string> => ({
  ...connection.headers,
  ...(session.id !== undefined ? { "mcp-session-id": session.id } : {}),
  ...(session.negotiated !== undefined ? { [HttpHeaders.protocolVersion]: session.negotiated } : {})
})

/**
 * The headers of the POST of `message`: a 2026-07-28 one's mirror its body (`Mcp-Param-*` the
 * arguments its tool's `x-mcp-header` annotations name, from `paramHeaders`); a session's carry
 * its id and revision.
 */
export const postHeaders = (
  connection: Connection,
  session: Session,
  paramHeaders: ReadonlyMap<string, ReadonlyArray<HttpHeaders.ParamHeader>>,
  message: JsonRpc.Message
): Record<string, string> => {
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream",
    ...connection.headers
  }
  const version = statelessVersion(message)
  if (version !== undefined && "method" in message) {
    headers[HttpHeaders.protocolVersion] = version
    headers[HttpHeaders.method] = message.method
    const name = HttpHeaders.nameOf(message.method, message.params)
    if (name !== undefined) headers[HttpHeaders.name] = HttpHeaders.encodeValue(name)
    if (message.method === "tools/call" && name !== undefined) {
      const args = (message.params as { readonly arguments?: unknown }).arguments
      for (const spec of paramHeaders.get(name) ?? []) {
        const value = HttpHeaders.argumentOf(spec, args)
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
          headers[HttpHeaders.paramPrefix + spec.header.toLowerCase()] = HttpHeaders.encodeValue(value)
        }
      }
    }
  } else {
    if (session.id !== undefined) headers["mcp-session-id"] = session.id
    if (session.negotiated !== undefined) headers[HttpHeaders.protocolVersion] = session.negotiated
  }
  return headers
}

/** The revision an `initialize` answer negotiated, kept (sent on every later POST). */
export const remember = (session: Session, inbound: Wire.Inbound): void => {
  if (inbound._tag !== "Single" || !("result" in inbound.message)) return
  const result = inbound.message.result as { readonly protocolVersion?: unknown } | null
  const version = typeof result === "object" && result !== null ? result.protocolVersion : undefined
  if (typeof version === "string") session.negotiated = version
}

/**
 * A new session in place of `expired` (the server answered 404): initialize again, once;
 * `renewed` is run once it is (the session's own stream, say: the one before ended with it).
 */
export const renew = (
  connection: Connection,
  session: Session,
  expired: string,
  renewed: () => void
): Effect.Effect<void, Error> =>
  Effect.suspend(() => {
    // Another request met the 404 first: its renewal is this one's too.
    if (session.renewing?.from === expired) return Deferred.await(session.renewing.done)
    if (session.id !== expired || session.initialize === undefined) return Effect.void
    const done = Deferred.unsafeMake<void, Error>(FiberId.none)
    session.renewing = { from: expired, done }
    session.id = undefined
    const again: JsonRpc.Request = { ...session.initialize, id: `effect-mcp-renew-${++session.renewals}` }
    // Headers read when sent: the new session's id once it is known.
    const send = (frame: JsonRpc.Message) =>
      Effect.suspend(() =>
        Exchange.execute(
          connection.client,
          HttpClientRequest.post(connection.url).pipe(
            HttpClientRequest.setHeaders(postHeaders(connection, session, new Map(), frame)),
            HttpClientRequest.bodyText(Wire.encode(frame), "application/json")
          ),
          "initialize"
        )
      )
    const renewal = send(again).pipe(
      Effect.flatMap((response) => {
        const given = response.headers["mcp-session-id"]
        if (response.status !== 200 || given === undefined) {
          return Effect.fail(new Error(`initialize again: HTTP ${response.status}`))
        }
        session.id = given
        // The answer is ours, not the engine's: read and dropped.
        return Effect.asVoid(Exchange.readText(response, connection.limit, "initialize"))
      }),
      Effect.zipRight(send({ jsonrpc: "2.0", method: "notifications/initialized" })),
      Effect.zipRight(Effect.sync(renewed)),
      Effect.mapError((error) => new Error(`the session ended and could not be renewed: ${error.message}`))
    )
    return Effect.zipRight(Effect.intoDeferred(renewal, done), Deferred.await(done))
  })
