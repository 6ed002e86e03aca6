/**
 * MCP over HTTP for the handshake era, written against @effect/platform so it runs on any
 * platform layer:
 *
 * - Streamable HTTP (2025-03-26 … 2025-11-25) on one endpoint: POST, GET, DELETE; sessions
 *   (`Mcp-Session-Id`, unguessable, idle expiry); JSON or SSE responses, the server's choice
 *   per request; the standalone GET stream; resumption with `Last-Event-ID` from an
 *   `EventStore`; 2025-11-25 priming events and `retry` before a server-side close.
 * - Legacy HTTP+SSE (2024-11-05): GET opens the stream whose first event is `endpoint`;
 *   POSTs to it answer 202 and responses travel on the stream.
 * - `Origin` and `Host` checked against allow-lists (loopback by default): 403 otherwise.
 *
 * A client disconnect is not a cancellation in this era: the request goes on, its events
 * are kept for resumption; only `notifications/cancelled` cancels.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/core"
import { Revision, Transport, Wire } from "@effect-mcp/core"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as EventStore from "./EventStore.js"
import { McpServer } from "./McpServer.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The MCP endpoint (default `/mcp`). */
  readonly path?: HttpRouter.PathInput
  /** Legacy HTTP+SSE endpoints (default `/sse` and `/messages`); `false` turns them off. */
  readonly legacySse?: false | {
    readonly ssePath?: HttpRouter.PathInput
    readonly messagesPath?: HttpRouter.PathInput
  }
  /** Host names (no port) accepted in `Host`; `"*"` accepts any. Default: localhost, 127.0.0.1, [::1]. */
  readonly allowedHosts?: ReadonlyArray<string> | "*"
  /** Origins accepted in `Origin` (`scheme://host[:port]`; no port = any port); `"*"` accepts any. Default: loopback. */
  readonly allowedOrigins?: ReadonlyArray<string> | "*"
  /** Sessions with no activity for this long end (default 30 minutes). */
  readonly sessionIdleTimeout?: Duration.DurationInput
  /** Largest accepted POST body (default 4 MiB). */
  readonly maxBodyBytes?: number
  /** Serve the standalone GET stream (default true); otherwise GET is 405. */
  readonly standaloneStream?: boolean
  /** The `retry` hint sent before the server closes a stream (default 1 second). */
  readonly retry?: Duration.DurationInput
}

type RequestId = JsonRpc.RequestId

const End = Symbol.for("@effect-mcp/server/HttpTransport/End")

interface Event {
  readonly id: string | undefined
  readonly event?: string
  readonly data: string
  readonly retry?: number
}

type Live = Queue.Queue<Event | typeof End>

interface OutStream {
  readonly id: string
  seq: number
  readonly pending: Set<RequestId>
  live: Live | undefined
  done: boolean
}

interface Session {
  readonly id: string
  readonly legacy: boolean
  readonly scope: Scope.CloseableScope
  readonly inbox: Mailbox.Mailbox<Wire.Inbound>
  revision: Revision.Revision | undefined
  lastSeen: number
  readonly streams: Map<string, OutStream>
  readonly owner: Map<RequestId, OutStream>
  readonly standalone: OutStream
  readonly buffered: Array<JsonRpc.Message | ReadonlyArray<JsonRpc.Message>>
  nextStream: number
  ended: boolean
}

const loopbackHosts = ["localhost", "127.0.0.1", "[::1]"]
const loopbackOrigins = loopbackHosts.flatMap((h) => [`http://${h}`, `https://${h}`])

const encoder = new TextEncoder()

const sseFrame = (event: Event): Uint8Array => {
  if (event.retry !== undefined && event.data === "" && event.id === undefined) {
    return encoder.encode(`retry: ${event.retry}\n\n`)
  }
  let out = ""
  if (event.retry !== undefined) out += `retry: ${event.retry}\n`
  if (event.id !== undefined) out += `id: ${event.id}\n`
  if (event.event !== undefined) out += `event: ${event.event}\n`
  out += `data: ${event.data}\n\n`
  return encoder.encode(out)
}

const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    contentType: "application/json",
    headers
  })

const randomId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const hostname = (host: string): string => {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1)
  const colon = host.indexOf(":")
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase()
}

const originMatches = (origin: string, allowed: string): boolean => {
  if (origin === allowed) return true
  // An allowed origin without a port accepts every port of that scheme and host.
  if (!origin.startsWith(allowed)) return false
  const rest = origin.slice(allowed.length)
  return /^:\d+$/.test(rest)
}

const idsOf = (frame: JsonRpc.Frame): ReadonlyArray<RequestId> =>
  (Array.isArray(frame) ? frame : [frame]).flatMap((m: any) =>
    !("method" in m) && (typeof m.id === "string" || typeof m.id === "number") ? [m.id as RequestId] : []
  )

/**
 * Builds the routes: Streamable HTTP on `path`, and the legacy SSE endpoints.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const server = yield* McpServer
    const store = yield* Effect.flatMap(
      Effect.serviceOption(EventStore.EventStore),
      Option.match({ onNone: () => EventStore.makeMemory(), onSome: Effect.succeed })
    )
    const layerScope = yield* Effect.scope
    const sessions = yield* Ref.make<ReadonlyMap<string, Session>>(new Map())
    const idle = Duration.toMillis(options.sessionIdleTimeout ?? Duration.minutes(30))
    const retryMs = Duration.toMillis(options.retry ?? Duration.seconds(1))
    const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024
    const allowedHosts = options.allowedHosts ?? loopbackHosts
    const allowedOrigins = options.allowedOrigins ?? loopbackOrigins
    const standaloneEnabled = options.standaloneStream ?? true

    // ------------------------------------------------------------------ security

    const forbidden = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
      const host = request.headers["host"]
      if (allowedHosts !== "*" && (host === undefined || !allowedHosts.includes(hostname(host)))) {
        return "Forbidden: Host not allowed"
      }
      const origin = request.headers["origin"]
      if (
        origin !== undefined && allowedOrigins !== "*" &&
        !allowedOrigins.some((allowed) => originMatches(origin.toLowerCase(), allowed.toLowerCase()))
      ) {
        return "Forbidden: Origin not allowed"
      }
      return undefined
    }

    // ------------------------------------------------------------------ streams

    const primingFor = (session: Session) =>
      session.revision !== undefined && Revision.features(session.revision).ssePolling

    const newStream = (session: Session, ids: ReadonlyArray<RequestId>): OutStream => {
      const stream: OutStream = {
        id: `s${session.nextStream++}`,
        seq: 0,
        pending: new Set(ids),
        live: undefined,
        done: false
      }
      session.streams.set(stream.id, stream)
      for (const id of ids) session.owner.set(id, stream)
      return stream
    }

    const deliver = (session: Session, stream: OutStream, frame: JsonRpc.Frame) =>
      Effect.gen(function*() {
        const event: Event = session.legacy
          ? { id: undefined, event: "message", data: Wire.encode(frame) }
          : { id: EventStore.eventId(stream.id, ++stream.seq), data: Wire.encode(frame) }
        if (event.id !== undefined) yield* store.append(session.id, { id: event.id, data: event.data })
        if (stream.live !== undefined) yield* Queue.offer(stream.live, event)
      })

    const finish = (session: Session, stream: OutStream) =>
      Effect.suspend(() => {
        stream.done = true
        session.streams.delete(stream.id)
        return stream.live === undefined ? Effect.void : Queue.offer(stream.live, End)
      })

    /** Routes one outbound frame to the stream it belongs to (the request's, else the standalone one). */
    const route = (session: Session, frame: JsonRpc.Frame, related: RequestId | undefined) =>
      Effect.gen(function*() {
        if (session.legacy) return yield* deliver(session, session.standalone, frame)
        const ids = idsOf(frame)
        if (ids.length > 0) {
          const stream = session.owner.get(ids[0])
          for (const id of ids) {
            session.owner.get(id)?.pending.delete(id)
            session.owner.delete(id)
          }
          if (stream === undefined) return yield* deliver(session, session.standalone, frame)
          yield* deliver(session, stream, frame)
          if (stream.pending.size === 0) yield* finish(session, stream)
          return
        }
        const stream = related === undefined ? undefined : session.owner.get(related)
        if (stream !== undefined && !stream.done) return yield* deliver(session, stream, frame)
        if (session.standalone.live === undefined) {
          // Nobody listens on the standalone stream yet: keep it for the next GET.
          session.buffered.push(frame as any)
          if (session.buffered.length > 1000) session.buffered.shift()
          return
        }
        yield* deliver(session, session.standalone, frame)
      })

    /** Stops waiting for the response to `id` (it was cancelled); ends its stream if nothing else is pending. */
    const forget = (session: Session, id: RequestId) =>
      Effect.suspend(() => {
        const stream = session.owner.get(id)
        if (stream === undefined) return Effect.void
        session.owner.delete(id)
        stream.pending.delete(id)
        return stream.pending.size === 0 ? finish(session, stream) : Effect.void
      })

    /** 2025-11-25 polling: end the request's SSE response now; its later events wait in the store. */
    const closeStream = (session: Session, related: RequestId) =>
      Effect.suspend(() => {
        const stream = session.owner.get(related)
        // Only 2025-11-25 clients (primed with an event id) know to reconnect.
        if (stream === undefined || stream.live === undefined || !primingFor(session)) return Effect.void
        const live = stream.live
        stream.live = undefined
        return Effect.zipRight(Queue.offer(live, { id: undefined, data: "", retry: retryMs }), Queue.offer(live, End))
      })

    // ------------------------------------------------------------------ sessions

    const endSession = (session: Session) =>
      Effect.gen(function*() {
        if (session.ended) return
        session.ended = true
        yield* Ref.update(sessions, (all) => {
          const next = new Map(all)
          next.delete(session.id)
          return next
        })
        for (const stream of [session.standalone, ...session.streams.values()]) {
          if (stream.live !== undefined) yield* Queue.offer(stream.live, End)
          stream.live = undefined
        }
        yield* session.inbox.end
        yield* Scope.close(session.scope, Exit.void)
        // After the scope: nothing in flight can store an event any more.
        yield* store.clear(session.id)
      })

    const createSession = (legacy: boolean) =>
      Effect.gen(function*() {
        const scope = yield* Scope.fork(layerScope, ExecutionStrategy.sequential)
        const inbox = yield* Mailbox.make<Wire.Inbound>()
        const session: Session = {
          id: randomId(),
          legacy,
          scope,
          inbox,
          revision: undefined,
          lastSeen: yield* Clock.currentTimeMillis,
          streams: new Map(),
          owner: new Map(),
          standalone: { id: "standalone", seq: 0, pending: new Set(), live: undefined, done: false },
          buffered: [],
          nextStream: 0,
          ended: false
        }
        const transport: Transport.Transport = {
          incoming: Mailbox.toStream(inbox),
          send: (frame, context) =>
            Effect.zipRight(
              // The initialize result tells us the session's revision.
              Effect.sync(() => {
                const result = (frame as any)?.result
                if (session.revision === undefined && typeof result?.protocolVersion === "string") {
                  if (Revision.isRevision(result.protocolVersion)) session.revision = result.protocolVersion
                }
              }),
              route(session, frame, context?.related)
            ),
          closeStream: (related) => closeStream(session, related)
        }
        yield* server.serve(transport).pipe(
          // Ending the session closes this fiber's scope: do it from outside the fiber.
          Effect.ensuring(Effect.forkIn(Effect.suspend(() => endSession(session)), layerScope)),
          Effect.forkIn(scope),
          Scope.extend(scope)
        )
        yield* Ref.update(sessions, (all) => new Map(all).set(session.id, session))
        return session
      })

    /** The live session `id` of this kind (Streamable HTTP or legacy); its MCP-Protocol-Version checked. */
    const lookup = (id: string | undefined, legacy: boolean, version?: string | undefined) =>
      Effect.gen(function*() {
        if (id === undefined) {
          return yield* Effect.fail(rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required"))
        }
        const session = (yield* Ref.get(sessions)).get(id)
        if (session === undefined || session.ended || session.legacy !== legacy) {
          return yield* Effect.fail(rpcError(404, -32001, "Session not found"))
        }
        if (
          version !== undefined && session.revision !== undefined &&
          (!Revision.isRevision(version) || version !== session.revision)
        ) {
          return yield* Effect.fail(rpcError(400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version}`))
        }
        session.lastSeen = yield* Clock.currentTimeMillis
        return session
      })

    // Idle sessions end; a session with an open standalone stream is not idle.
    yield* Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const session of (yield* Ref.get(sessions)).values()) {
        // Open streams and requests still running count as activity.
        if (session.standalone.live === undefined && session.owner.size === 0 && now - session.lastSeen > idle) {
          yield* endSession(session)
        }
      }
    }).pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(Math.max(10, Math.min(idle / 2, 60_000))))),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Ref.get(sessions), (all) => Effect.forEach(all.values(), endSession, { discard: true }))
    )

    // ------------------------------------------------------------------ responses

    const sseHeaders = (session: Session): Record<string, string> => ({
      "cache-control": "no-cache, no-transform",
      "connection": "keep-alive",
      "mcp-session-id": session.id
    })

    /** An SSE response that reads `live` until the stream ends; a disconnect only detaches it. */
    const sseResponse = (
      session: Session,
      stream: OutStream,
      live: Live,
      first: ReadonlyArray<Event>,
      replayedUpTo = -1
    ): HttpServerResponse.HttpServerResponse =>
      HttpServerResponse.stream(
        Stream.fromIterable(first).pipe(
          Stream.concat(
            Stream.fromQueue(live).pipe(
              Stream.takeWhile((e): e is Event => e !== End),
              // After a replay, skip live events the replay already carried.
              Stream.filter((e) => e.id === undefined || (EventStore.parseEventId(e.id)?.seq ?? 0) > replayedUpTo)
            )
          ),
          Stream.map(sseFrame),
          Stream.ensuring(Effect.sync(() => {
            if (stream.live === live) stream.live = undefined
          }))
        ),
        { contentType: "text/event-stream", headers: sseHeaders(session) }
      )

    const readBody = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const length = Number(request.headers["content-length"] ?? "0")
        if (length > maxBody) return yield* Effect.fail(rpcError(413, -32000, "Payload Too Large"))
        if (request.headers["content-length"] === undefined) {
          // No length (chunked): count while reading and drain the excess, since the platform's own
          // limit destroys the connection and the client would never see the 413.
          let size = 0
          const chunks: Array<Uint8Array> = []
          yield* request.stream.pipe(
            Stream.runForEach((chunk) =>
              Effect.sync(() => {
                size += chunk.length
                if (size <= maxBody) chunks.push(chunk)
              })
            ),
            Effect.mapError(() => rpcError(400, -32000, "Bad Request: could not read the body"))
          )
          if (size > maxBody) return yield* Effect.fail(rpcError(413, -32000, "Payload Too Large"))
          const bytes = new Uint8Array(size)
          let at = 0
          for (const chunk of chunks) {
            bytes.set(chunk, at)
            at += chunk.length
          }
          return new TextDecoder().decode(bytes)
        }
        return yield* request.text.pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(maxBody)),
          Effect.mapError(() => rpcError(413, -32000, "Payload Too Large"))
        )
      })

    const acceptsBoth = (accept: string | undefined) =>
      accept !== undefined &&
      ((accept.includes("application/json") && accept.includes("text/event-stream")) || accept.includes("*/*"))

    const isJson = (contentType: string | undefined) =>
      contentType !== undefined && contentType.toLowerCase().split(";")[0].trim() === "application/json"

    // ------------------------------------------------------------------ Streamable HTTP

    const post = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const denied = forbidden(request)
        if (denied !== undefined) return rpcError(403, -32000, denied)
        if (!acceptsBoth(request.headers["accept"])) {
          return rpcError(406, -32000, "Not Acceptable: Accept must list application/json and text/event-stream")
        }
        if (!isJson(request.headers["content-type"])) {
          return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json")
        }
        const text = yield* readBody(request)
        const inbound = Wire.decode(text)
        if (inbound._tag === "Invalid") {
          return HttpServerResponse.text(
            JSON.stringify({ jsonrpc: "2.0", id: inbound.id, error: inbound.error.toWire(Revision.latestHandshake) }),
            { status: 400, contentType: "application/json" }
          )
        }
        const messages = inbound._tag === "Single"
          ? [inbound.message]
          : inbound.items.flatMap((i) => (i._tag === "Single" ? [i.message] : []))
        const isInitialize = inbound._tag === "Single" && "method" in inbound.message &&
          inbound.message.method === "initialize" && "id" in inbound.message
        let session: Session
        if (isInitialize) {
          session = yield* createSession(false)
        } else {
          session = yield* lookup(request.headers["mcp-session-id"], false, request.headers["mcp-protocol-version"])
          if (inbound._tag === "Batch") {
            if (session.revision === undefined || !Revision.allowsBatching(session.revision)) {
              return rpcError(400, -32600, "Invalid Request: batches are not supported in this protocol revision")
            }
            if (messages.some((m) => "method" in m && m.method === "initialize")) {
              return rpcError(400, -32600, "Invalid Request: initialize must not be batched")
            }
          }
        }
        const requestIds = messages.flatMap((m) => ("method" in m && "id" in m ? [(m as JsonRpc.Request).id] : []))
        const busy = requestIds.find((id) => session.owner.has(id))
        if (busy !== undefined) {
          // The id of a request still in flight: answered here, so the first request keeps its stream.
          return HttpServerResponse.text(
            JSON.stringify({
              jsonrpc: "2.0",
              id: busy,
              error: { code: -32600, message: `Invalid Request: id ${JSON.stringify(busy)} is already in flight` }
            }),
            { status: 400, contentType: "application/json" }
          )
        }
        // A cancelled request is answered by nobody: its stream must not wait for it.
        for (const m of messages) {
          if ("method" in m && m.method === "notifications/cancelled" && !("id" in m)) {
            const id = (m.params as { readonly requestId?: unknown } | undefined)?.requestId
            if (typeof id === "string" || typeof id === "number") yield* forget(session, id)
          }
        }
        if (requestIds.length === 0) {
          yield* session.inbox.offer(inbound)
          return HttpServerResponse.empty({ status: 202 })
        }
        const stream = newStream(session, requestIds)
        const live: Live = yield* Queue.unbounded<Event | typeof End>()
        stream.live = live
        yield* session.inbox.offer(inbound)
        const first = yield* Queue.take(live).pipe(
          // The client went away before anything came: detach (not a cancellation in this era).
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              if (stream.live === live) stream.live = undefined
            })
          )
        )
        if (first !== End && stream.done && (yield* Queue.size(live)) <= 1) {
          // The answer came before anything else: a plain JSON response.
          return HttpServerResponse.text(first.data, {
            contentType: "application/json",
            headers: { "mcp-session-id": session.id }
          })
        }
        const priming: ReadonlyArray<Event> = primingFor(session)
          ? [{ id: EventStore.eventId(stream.id, 0), data: "" }]
          : []
        if (first === End) {
          return sseResponse(session, stream, live, priming)
        }
        return sseResponse(session, stream, live, [...priming, first])
      }).pipe(Effect.catchAll((response) => Effect.succeed(response)))

    const get = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const denied = forbidden(request)
        if (denied !== undefined) return rpcError(403, -32000, denied)
        if (!standaloneEnabled) {
          return HttpServerResponse.empty({ status: 405, headers: { allow: "POST, DELETE" } })
        }
        if (!(request.headers["accept"] ?? "").includes("text/event-stream")) {
          return rpcError(406, -32000, "Not Acceptable: Accept must list text/event-stream")
        }
        const session = yield* lookup(request.headers["mcp-session-id"], false, request.headers["mcp-protocol-version"])
        const lastEventId = request.headers["last-event-id"]
        if (lastEventId !== undefined) {
          const parsed = EventStore.parseEventId(lastEventId)
          if (parsed === undefined) return rpcError(400, -32000, "Bad Request: invalid Last-Event-ID")
          const stream = parsed.streamId === "standalone"
            ? session.standalone
            : session.streams.get(parsed.streamId)
          const live: Live = yield* Queue.unbounded<Event | typeof End>()
          // Attach first, then replay: nothing sent in between is lost, and duplicates are skipped by seq.
          if (stream !== undefined && !stream.done) {
            if (stream.live !== undefined) yield* Queue.offer(stream.live, End)
            stream.live = live
          } else {
            yield* Queue.offer(live, End)
          }
          const replay = yield* store.after(session.id, lastEventId)
          const replayedUpTo = replay.length === 0
            ? parsed.seq
            : EventStore.parseEventId(replay[replay.length - 1].id)!.seq
          return sseResponse(
            session,
            stream ?? session.standalone,
            live,
            replay.map((e) => ({ id: e.id, data: e.data })),
            replayedUpTo
          )
        }
        if (session.standalone.live !== undefined) {
          return rpcError(409, -32000, "Conflict: only one standalone SSE stream per session")
        }
        const live: Live = yield* Queue.unbounded<Event | typeof End>()
        session.standalone.live = live
        const waiting = session.buffered.splice(0, session.buffered.length)
        for (const frame of waiting) yield* deliver(session, session.standalone, frame as JsonRpc.Frame)
        const priming: ReadonlyArray<Event> = primingFor(session)
          ? [{ id: EventStore.eventId("standalone", 0), data: "" }]
          : []
        return sseResponse(session, session.standalone, live, priming)
      }).pipe(Effect.catchAll((response) => Effect.succeed(response)))

    const del = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const denied = forbidden(request)
        if (denied !== undefined) return rpcError(403, -32000, denied)
        const session = yield* lookup(request.headers["mcp-session-id"], false, request.headers["mcp-protocol-version"])
        yield* endSession(session)
        return HttpServerResponse.empty({ status: 200 })
      }).pipe(Effect.catchAll((response) => Effect.succeed(response)))

    // ------------------------------------------------------------------ legacy HTTP+SSE (2024-11-05)

    const legacyPaths = options.legacySse === false
      ? undefined
      : { sse: options.legacySse?.ssePath ?? "/sse", messages: options.legacySse?.messagesPath ?? "/messages" }

    const legacyGet = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const denied = forbidden(request)
        if (denied !== undefined) return rpcError(403, -32000, denied)
        const session = yield* createSession(true)
        const live: Live = yield* Queue.unbounded<Event | typeof End>()
        session.standalone.live = live
        const endpoint: Event = {
          id: undefined,
          event: "endpoint",
          data: `${legacyPaths!.messages}?sessionId=${encodeURIComponent(session.id)}`
        }
        return HttpServerResponse.stream(
          Stream.make(endpoint).pipe(
            Stream.concat(Stream.fromQueue(live).pipe(Stream.takeWhile((e): e is Event => e !== End))),
            Stream.map(sseFrame),
            // The stream is the connection: when it goes, the session goes.
            Stream.ensuring(endSession(session))
          ),
          { contentType: "text/event-stream", headers: { "cache-control": "no-cache, no-transform" } }
        )
      })

    const legacyPost = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const denied = forbidden(request)
        if (denied !== undefined) return rpcError(403, -32000, denied)
        const url = new URL(request.url, "http://localhost")
        const session = yield* lookup(url.searchParams.get("sessionId") ?? undefined, true)
        if (!isJson(request.headers["content-type"])) {
          return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json")
        }
        const inbound = Wire.decode(yield* readBody(request))
        if (inbound._tag === "Invalid") {
          yield* deliver(session, session.standalone, {
            jsonrpc: "2.0",
            id: inbound.id,
            error: inbound.error.toWire("2024-11-05")
          })
          return HttpServerResponse.text("Invalid message", { status: 400 })
        }
        yield* session.inbox.offer(inbound)
        return HttpServerResponse.text("Accepted", { status: 202 })
      }).pipe(Effect.catchAll((response) => Effect.succeed(response)))

    const path = options.path ?? "/mcp"
    return {
      routes: [
        HttpLayerRouter.route("POST", path, post),
        HttpLayerRouter.route("GET", path, get),
        HttpLayerRouter.route("DELETE", path, del),
        ...(legacyPaths === undefined
          ? []
          : [
            HttpLayerRouter.route("GET", legacyPaths.sse, legacyGet),
            HttpLayerRouter.route("POST", legacyPaths.messages, legacyPost)
          ])
      ],
      sessions: Effect.map(Ref.get(sessions), (all) => all.size)
    }
  })

/**
 * The MCP endpoints as routes of an `HttpLayerRouter`: mount them on your own router,
 * or serve them alone with `HttpLayerRouter.serve` and a platform's HTTP server layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | McpServer> =>
  HttpLayerRouter.addAll(Effect.map(make(options), (built) => built.routes)) as any
