/**
 * The transport a client runs on, as a Layer: the `Transport.Protocol` of its connection to one
 * server (the server is the protocol's one client, id 0). The in-memory one serves the other end
 * with whatever the caller gives it (say `McpServer.serve` with the server's Layer), which makes
 * it the test kit: a server and a client in one process, `TestClock`-friendly.
 *
 * @since 0.1.0
 */
import { McpError, MemoryTransport, type Schema as McpSchema, Transport } from "@effect-mcp/core"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as ClientError from "./ClientError.js"
import * as Http from "./internal/http.js"
import * as Legacy from "./internal/legacy.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The connection to the server: its one client (id 0) is the server. The transport may fail one
   * request locally (`Transport.Receiver.fail`) with a `ClientError.TransportFailure`.
   */
  readonly protocol: Transport.Protocol<ClientError.TransportFailure>
  /**
   * Told every tool listed (2026-07-28 HTTP learns the headers that mirror their arguments); the
   * tools that may be offered. Absent: all of them.
   */
  readonly tools?: (listed: ReadonlyArray<McpSchema.Tool.Tool>) => ReadonlyArray<McpSchema.Tool.Tool>
  /**
   * The handshake era: whether what the server sends outside any request (list changes, resource
   * updates, its own requests) can reach the client, or why not, once that is known. Streamable
   * HTTP: the session's stream (its GET) opened, or was refused (`its GET answered HTTP 405`), or
   * was not answered within `eventStreamTimeout`; a server that gave no session id is sent that
   * GET only when this is asked.
   * Absent: it always can (stdio, in memory, HTTP+SSE).
   */
  readonly eventStream?: Effect.Effect<
    { readonly open: true } | { readonly open: false; readonly reason: string }
  >
  /**
   * A server that may still be starting when the client begins (a child process): completes once
   * it has shown it is up, as far as the transport can tell (stdio: its first line on stdout, or
   * `startTimeout` after it was spawned). The `auto` probe's timeout runs from then; and a probe
   * that timed out is still heard while the handshake goes ahead: if `server/discover` answers
   * once the server has answered `initialize` (within another `probeTimeout`), the era is the
   * stateless one. Absent: the server is up when the transport is (HTTP, in memory), the probe's
   * timeout runs from its sending and, once over, the probe is given up.
   */
  readonly started?: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpClientTransport
  extends Context.Tag("@effect-mcp/client/McpClientTransport")<McpClientTransport, Service>()
{}

/**
 * A client transport from a protocol the caller made.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerProtocol = (
  protocol: Transport.Protocol<ClientError.TransportFailure>
): Layer.Layer<McpClientTransport> => Layer.succeed(McpClientTransport, { protocol })

/**
 * An in-memory connection whose other end is served by `serve` for the lifetime of the layer:
 * `McpClientTransport.layerMemory(McpServer.serve)` with the server's Layer provided.
 *
 * If `serve` fails (its Layer refuses to build, say, with a duplicate tool name) or stops, the
 * connection closes at once: the calls waiting and every later one fail with `TransportClosed`,
 * whose message ends with the server's own (`...; the server failed: Duplicate tool name "echo": ...`)
 * and whose `reason.cause` is its `Cause`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = <E, R>(
  serve: (protocol: Transport.Protocol) => Effect.Effect<void, E, R>
): Layer.Layer<McpClientTransport, never, Exclude<R, Scope.Scope>> =>
  Layer.scoped(
    McpClientTransport,
    Effect.gen(function*() {
      const [client, server] = yield* MemoryTransport.pair
      const ended = yield* Deferred.make<Transport.TransportError>()
      yield* Effect.forkScoped(
        Effect.scoped(serve(server)).pipe(
          // Interrupted only: the kit's own scope closing. A failure that interrupted something too
          // (a layer merged with the server's, cut short when the server's failed) is still a failure.
          Effect.onExit((exit) =>
            Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
              ? Effect.void
              : Deferred.succeed(ended, serverEnded(exit))
          )
        )
      )
      return { protocol: endedBy(client, ended) }
    })
  )

/** Why the served side ended: its failure (or defect), in its own words, or that it stopped. */
const serverEnded = <E>(exit: Exit.Exit<void, E>): Transport.TransportError => {
  if (Exit.isSuccess(exit)) return new Transport.TransportError({ message: "the server stopped serving" })
  const first = Option.orElse(Cause.failureOption(exit.cause), () => Cause.dieOption(exit.cause))
  const said = Option.match(first, {
    onSome: McpError.messageOf,
    onNone: () => Cause.pretty(exit.cause).split("\n")[0]!
  })
  return new Transport.TransportError({ message: `the server failed: ${said}`, cause: exit.cause })
}

/**
 * `protocol`, ended by `ended`: the client gone with the reason (what is waiting fails with it),
 * then `run` failing with it (what comes later fails with it too). Once ended, the connection's own
 * close (its run cut short) gives the reason too: a call made in between (the era probe's next
 * request) fails naming it, not with a bare "Transport closed".
 */
const endedBy = (protocol: Transport.Protocol, ended: Deferred.Deferred<Transport.TransportError>) => ({
  ...protocol,
  run: (receiver: Transport.Receiver) =>
    Effect.suspend(() => {
      let reason: Transport.TransportError | undefined
      const told: Transport.Receiver = {
        ...receiver,
        disconnect: (client, given) => receiver.disconnect(client, given ?? reason)
      }
      return Effect.raceFirst(
        protocol.run(told),
        Effect.flatMap(Deferred.await(ended), (why) => {
          reason = why
          receiver.disconnect(0, why)
          return Effect.fail(why)
        })
      )
    })
} satisfies Transport.Protocol)

/**
 * Options of the Streamable HTTP transport.
 *
 * @since 0.1.0
 * @category models
 */
export type HttpOptions = Http.Options

/**
 * Streamable HTTP, both eras, over @effect/platform's `HttpClient` (give it one: `FetchHttpClient.layer`,
 * or platform-node's). The handshake era's session id and revision are echoed; a 2026-07-28
 * request carries the headers that mirror its body, and is cancelled by closing its response.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (options: HttpOptions): Layer.Layer<McpClientTransport, never, HttpClient.HttpClient> =>
  Layer.scoped(
    McpClientTransport,
    Effect.flatMap(Effect.serviceOption(HttpPoster), (poster) => Http.make(options, Option.getOrUndefined(poster)))
  )

/**
 * The response to a POST of {@link HttpPost}: its status and headers, its body not read yet.
 *
 * @since 0.2.0
 * @category models
 */
export interface HttpPostResponse {
  readonly status: number
  /** A header (lowercase name), its values joined with `, `. */
  readonly header: (name: string) => string | undefined
  /**
   * Reads the body whole, at most `limit` bytes (counted as they arrive): its text, or undefined
   * once it goes past `limit` (the rest is not read); `failed` when the connection fails first.
   */
  readonly text: (limit: number, done: (text: string | undefined) => void, failed: (error: unknown) => void) => void
  /** The response as a web `Response`, its body unread, for the transport's own reading (a stream, an error). */
  readonly toWeb: () => Response
  /** Its body is not wanted: dropped. */
  readonly discard: () => void
}

/**
 * A platform's POST without an effect (Node: `undici`'s `request`, on the pool of
 * `NodeMcpClient.layerHttpClientWith`): what `layerHttp` sends a raw call (`RawLane`) with, when
 * it is in context, without a fiber of its own. It carries no `HttpClient` middleware (`McpAuth`):
 * a response that says the request was not served (401, 403, 404, a redirect) sends it again
 * through the `HttpClient`, and after a 401 or 403 every raw call goes that way.
 *
 * @since 0.2.0
 * @category models
 */
export interface HttpPost {
  /**
   * POSTs `body` to `url` with `headers`; returns what aborts the request (its response no longer
   * read). The abort may say whether the request had left: `false` when it was dropped before any
   * of it was sent (it waited for a connection), so the server never saw it and is told of no
   * cancel; `true` or nothing (as before 0.3.0) when it may have been sent.
   */
  readonly post: (
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    handlers: {
      readonly response: (response: HttpPostResponse) => void
      /** No response came: the connection could not be made, or failed. */
      readonly error: (error: unknown) => void
    }
  ) => () => boolean | void
}

/**
 * The platform's {@link HttpPost}, for `layerHttp` (optional).
 *
 * @since 0.2.0
 * @category tags
 */
export class HttpPoster
  extends Context.Tag("@effect-mcp/client/McpClientTransport/HttpPoster")<HttpPoster, HttpPost>()
{}

/**
 * Options of the legacy HTTP+SSE transport.
 *
 * @since 0.1.0
 * @category models
 */
export type SseOptions = Legacy.Options

/**
 * The legacy HTTP+SSE transport of 2024-11-05 (the server's `/sse` endpoint announces where to
 * POST), for servers that predate Streamable HTTP. Handshake era only: pin `era: "handshake"`.
 * (`layerHttp` falls back to it by itself when the URL turns out to be such an endpoint.)
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSse = (options: SseOptions): Layer.Layer<McpClientTransport, never, HttpClient.HttpClient> =>
  Layer.scoped(McpClientTransport, Effect.map(Legacy.make(options), (protocol) => ({ protocol })))
