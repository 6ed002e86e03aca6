/**
 * A wire-level test client: a server from `McpServer.make` serving one session on the
 * in-memory pair, and helpers that write JSON text and read JSON text back.
 */
import type { Revision } from "@effect-mcp/core"
import { MemoryTransport } from "@effect-mcp/core"
import type { Transport } from "@effect-mcp/core"
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as McpServer from "../../src/McpServer.js"

export interface TestClient {
  readonly server: McpServer.Service
  readonly remote: MemoryTransport.TextEndpoint
  /** Writes one message (or a batch) as JSON text. */
  readonly send: (message: unknown) => Effect.Effect<void>
  /** The next message from the server, parsed. */
  readonly next: Effect.Effect<any, Transport.TransportError>
  /** Sends a request with a fresh id; returns its response and whatever arrived before it. */
  readonly exchange: (
    method: string,
    params?: unknown
  ) => Effect.Effect<{ readonly response: any; readonly before: ReadonlyArray<any> }, Transport.TransportError>
  /** Sends a request; its response must be the next message. */
  readonly call: (method: string, params?: unknown) => Effect.Effect<any, Transport.TransportError>
  /** Sends a request that must succeed; returns its result. */
  readonly result: (method: string, params?: unknown) => Effect.Effect<any, Transport.TransportError>
  /** Sends a request that must fail; returns the error object. */
  readonly error: (method: string, params?: unknown) => Effect.Effect<any, Transport.TransportError>
  readonly notify: (method: string, params?: unknown) => Effect.Effect<void>
  /** `initialize` (returns its result) without `notifications/initialized`. */
  readonly initializeOnly: (
    protocolVersion: string,
    capabilities?: Record<string, unknown>
  ) => Effect.Effect<any, Transport.TransportError>
  /** `initialize` then `notifications/initialized`; returns the initialize result. */
  readonly initialize: (
    protocolVersion: Revision.Revision,
    capabilities?: Record<string, unknown>
  ) => Effect.Effect<any, Transport.TransportError>
  /** Sends a ping whose answer must be the next message: nothing else was pending. */
  readonly quiet: Effect.Effect<void, Transport.TransportError>
}

export const clientInfo = { name: "test-client", version: "0.0.1" }

/** Starts a server with `options` and serves one session on an in-memory connection. */
export const connect = <const O extends McpServer.Options<any>>(
  options: O
): Effect.Effect<TestClient, never, Scope.Scope | McpServer.Requirements<O>> =>
  Effect.gen(function*() {
    const server = yield* McpServer.make(options)
    return yield* attach(server)
  })

/** A new session of `server` on a fresh in-memory connection. */
export const attach = (server: McpServer.Service): Effect.Effect<TestClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { protocol, remote } = yield* MemoryTransport.connection
    yield* Effect.forkScoped(server.serve(protocol))
    const ids = yield* Ref.make(1)
    const send = (message: unknown) => remote.write(JSON.stringify(message))
    const next = Effect.map(remote.read, (text) => JSON.parse(text))

    const exchange = (method: string, params?: unknown) =>
      Effect.gen(function*() {
        const id = yield* Ref.getAndUpdate(ids, (n) => n + 1)
        yield* send({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) })
        const before: Array<any> = []
        while (true) {
          const message = yield* next
          if (message.id === id && !("method" in message)) return { response: message, before }
          before.push(message)
        }
      })

    const call = (method: string, params?: unknown) =>
      Effect.map(exchange(method, params), ({ before, response }) => {
        assert.deepStrictEqual(before, [], `nothing but the response to ${method} was expected`)
        return response
      })

    const result = (method: string, params?: unknown) =>
      Effect.map(call(method, params), (response) => {
        assert.isUndefined(response.error, `${method} failed: ${JSON.stringify(response.error)}`)
        assert.isDefined(response.result)
        return response.result
      })

    const error = (method: string, params?: unknown) =>
      Effect.map(call(method, params), (response) => {
        assert.isUndefined(response.result, `${method} was expected to fail: ${JSON.stringify(response.result)}`)
        assert.isDefined(response.error)
        return response.error
      })

    const notify = (method: string, params?: unknown) =>
      send({ jsonrpc: "2.0", method, ...(params !== undefined ? { params } : {}) })

    const initializeOnly = (protocolVersion: string, capabilities: Record<string, unknown> = {}) =>
      result("initialize", { protocolVersion, capabilities, clientInfo })

    const initialize = (protocolVersion: Revision.Revision, capabilities: Record<string, unknown> = {}) =>
      Effect.gen(function*() {
        const init = yield* initializeOnly(protocolVersion, capabilities)
        assert.strictEqual(init.protocolVersion, protocolVersion)
        yield* notify("notifications/initialized")
        return init
      })

    const quiet = Effect.asVoid(result("ping"))

    return {
      server,
      remote,
      send,
      next,
      exchange,
      call,
      result,
      error,
      notify,
      initializeOnly,
      initialize,
      quiet
    } satisfies TestClient
  })

/** Lets the list_changed / updated coalescing window (default 10 millis) pass. */
export const flush = TestClock.adjust("20 millis")

/** The four handshake revisions. */
export const handshakeRevisions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const

/** The `_meta` of a 2026-07-28 request (`extra` fields on top; the request's client capabilities). */
export const meta = (extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": clientInfo,
  ...extra
})
