/**
 * The view's bridge requests the host page posts to this process (`POST /bridge`): answered through the
 * MCP client or handed to `onSaid`, at most `maxPending` at once, each at most `maxMessageBytes`.
 */
import { AppView, type McpClient } from "@effect-mcp/client"
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Http from "node:http"
import { describe, json, readBody } from "./http.js"

/** What the view says that is not asked of the server: handed to the host's user. */
export const said = [
  "ui/message",
  "ui/update-model-context",
  "ui/open-link",
  "ui/download-file",
  "notifications/message"
] as const

/** One of `said`. */
export type Said = (typeof said)[number]

/** @internal */
export interface Bridge {
  readonly client: McpClient.Service
  /** The server's tools, as listed when the host started. */
  readonly tools: ReadonlyArray<McpSchema.Tool.Tool>
  readonly onSaid: (told: { readonly method: Said; readonly params: unknown }) => Effect.Effect<void>
  readonly maxPending: number
  readonly maxMessageBytes: number
}

const isSaid = (method: string): method is Said => (said as ReadonlyArray<string>).includes(method)

/** One bridge request of the view, answered here or through the client. */
const answer = (bridge: Bridge, method: string, params: Record<string, unknown>): Effect.Effect<unknown, unknown> => {
  if (isSaid(method)) return Effect.as(bridge.onSaid({ method, params }), {})
  switch (method) {
    case "tools/call": {
      const name = params.name
      const called = bridge.tools.find((t) => t.name === name)
      if (typeof name !== "string" || called === undefined) {
        return Effect.fail(new Error(`tool ${String(name)} is not listed by the server`))
      }
      if (!AppView.callableByApp(called)) {
        return Effect.fail(new Error(`tool ${name} may not be called by a view (its visibility has no "app")`))
      }
      const args = params.arguments
      return bridge.client.callTool(
        name,
        typeof args === "object" && args !== null && !Array.isArray(args) ? args as Record<string, unknown> : undefined
      )
    }
    case "resources/read":
      return typeof params.uri === "string"
        ? bridge.client.readResource(params.uri)
        : Effect.fail(new Error("resources/read needs a uri"))
    case "ping":
      return Effect.as(bridge.client.ping, {})
    default:
      return Effect.fail(new Error(`${method} is not served by this host`))
  }
}

/** The message of a POST, parsed: its method and params, or the answer that refuses it. */
const parse = (body: string) => {
  try {
    const message: { readonly method?: unknown; readonly params?: unknown } | null = JSON.parse(body)
    return Option.some({
      method: typeof message?.method === "string" ? message.method : "",
      params: typeof message?.params === "object" && message.params !== null
        ? message.params as Record<string, unknown>
        : {}
    })
  } catch {
    return Option.none()
  }
}

/**
 * The handler of `POST /bridge` (its origin checked by the caller): a message over the bound is refused
 * (413), one that is not JSON too (400); one beyond `maxPending` in flight is refused at once, never queued.
 */
export const make = (bridge: Bridge) =>
  Effect.map(
    Effect.makeSemaphore(bridge.maxPending),
    (permits) => (request: Http.IncomingMessage, response: Http.ServerResponse) =>
      Effect.gen(function*() {
        const body = yield* readBody(request, bridge.maxMessageBytes)
        if (body === undefined) {
          return yield* json(response, 413, {
            error: { code: -32600, message: `a bridge message is at most ${bridge.maxMessageBytes} bytes` }
          })
        }
        const message = parse(body)
        if (Option.isNone(message)) return yield* json(response, 400, { error: { code: -32700, message: "not JSON" } })
        const outcome = yield* permits.withPermitsIfAvailable(1)(
          Effect.either(answer(bridge, message.value.method, message.value.params))
        )
        if (Option.isNone(outcome)) {
          return yield* json(response, 200, {
            error: { code: -32000, message: `too many bridge requests in flight (at most ${bridge.maxPending})` }
          })
        }
        return yield* outcome.value._tag === "Right"
          ? json(response, 200, { result: outcome.value.right })
          : json(response, 200, { error: { code: -32603, message: describe(outcome.value.left) } })
      }).pipe(Effect.catchAllDefect(() => json(response, 500, { error: { code: -32603, message: "host failure" } })))
  )
