/**
 * A wire-level session with the demo server over the in-memory transport: JSON text in,
 * JSON text out, server→client requests answered by the test. `open` begins a handshake
 * session; `connect` leaves the connection bare, for 2026-07-28 requests (each with its own
 * `_meta`, see `meta`).
 */
import type { Transport } from "@effect-mcp/core"
import { MemoryTransport } from "@effect-mcp/core"
import { McpServer } from "@effect-mcp/server"
import { assert } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Everything from "../../src/Everything.js"

/** Answers a server→client request (`sampling/createMessage`, `elicitation/create`, `roots/list`). */
export type Answer = (request: { readonly method: string; readonly params?: any }) => unknown

export interface Session {
  readonly server: McpServer.Service
  readonly send: (message: unknown) => Effect.Effect<void>
  /** The next message from the server (fails after 5 seconds). */
  readonly next: Effect.Effect<any, Transport.TransportError | Error>
  /** Sends a request; returns its response and the messages that arrived before it. */
  readonly exchange: (
    method: string,
    params?: unknown,
    answer?: Answer
  ) => Effect.Effect<{ readonly response: any; readonly before: ReadonlyArray<any> }, Transport.TransportError | Error>
  /** Sends a request that must succeed; returns its result. */
  readonly result: (
    method: string,
    params?: unknown,
    answer?: Answer
  ) => Effect.Effect<any, Transport.TransportError | Error>
  readonly notify: (method: string, params?: unknown) => Effect.Effect<void>
  /** The id the next request gets. */
  readonly nextId: Effect.Effect<number>
}

export const clientInfo = { name: "everything-test", version: "0.0.1" }

/** Builds the server (a fresh one per call, dual-era unless `options` say otherwise). */
export const build = (options?: Everything.Options): Effect.Effect<McpServer.Service, never, Scope.Scope> =>
  Effect.map(
    Layer.build(options === undefined ? Everything.layer : Everything.layerWith(options)),
    Context.get(McpServer.McpServer)
  )

/** Builds the server and connects to it without a handshake (2026-07-28 requests). */
export const connect = (options?: Everything.Options): Effect.Effect<Session, never, Scope.Scope> =>
  Effect.flatMap(build(options), attach)

/** The `_meta` of a 2026-07-28 request: its client capabilities, and `extra` fields on top. */
export const meta = (capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": clientInfo,
  ...extra
})

/** Builds the server (a fresh one per call) and opens an initialized session on it. */
export const open = (
  protocolVersion = "2025-11-25",
  capabilities: Record<string, unknown> = {},
  options?: Everything.Options
): Effect.Effect<Session & { readonly initialize: any }, Transport.TransportError | Error, Scope.Scope> =>
  Effect.gen(function*() {
    const session = yield* connect(options)
    const initialize = yield* session.result("initialize", { protocolVersion, capabilities, clientInfo })
    assert.strictEqual(initialize.protocolVersion, protocolVersion)
    yield* session.notify("notifications/initialized")
    return { ...session, initialize }
  })

export const attach = (server: McpServer.Service): Effect.Effect<Session, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { protocol, remote } = yield* MemoryTransport.connection
    yield* Effect.forkScoped(server.serve(protocol))
    const ids = yield* Ref.make(1)
    const send = (message: unknown) => remote.write(JSON.stringify(message))
    const next = remote.read.pipe(
      Effect.map((text) => JSON.parse(text)),
      Effect.timeoutFail({
        duration: "5 seconds",
        onTimeout: () => new Error("no message from the server in 5 seconds")
      })
    )

    const exchange = (method: string, params?: unknown, answer?: Answer) =>
      Effect.gen(function*() {
        const id = yield* Ref.getAndUpdate(ids, (n) => n + 1)
        yield* send({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) })
        const before: Array<any> = []
        while (true) {
          const message = yield* next
          if (message.id === id && !("method" in message)) return { response: message, before }
          before.push(message)
          if ("method" in message && "id" in message) {
            assert.isDefined(answer, `unexpected request from the server: ${JSON.stringify(message)}`)
            yield* send({ jsonrpc: "2.0", id: message.id, result: answer!(message) })
          }
        }
      })

    const result = (method: string, params?: unknown, answer?: Answer) =>
      Effect.map(exchange(method, params, answer), ({ response }) => {
        assert.isUndefined(response.error, `${method} failed: ${JSON.stringify(response.error)}`)
        return response.result
      })

    const notify = (method: string, params?: unknown) =>
      send({ jsonrpc: "2.0", method, ...(params !== undefined ? { params } : {}) })

    return { server, send, next, exchange, result, notify, nextId: Ref.get(ids) } satisfies Session
  })
