/**
 * What the two servers of the host answer: the host page's (the page, its scripts, the session, the
 * tool's result, the teardown's event stream, the bridge) and the sandbox proxy's (its page alone).
 */
import type { AppView } from "@effect-mcp/client"
import type { Schema as McpSchema } from "@effect-mcp/core"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import type * as Http from "node:http"
import * as Zlib from "node:zlib"
import { describe, type Handler, json, pathOf, send } from "./http.js"
import { earlyScript, hostPage, maxInlineHeight, sandboxAttribute, sandboxPage } from "./pages.js"

/** The pages' event streams, told to tear the view down when the host stops. */
export const maxStreams = 8

/** @internal */
export interface Host {
  readonly hostOrigin: string
  readonly sandboxOrigin: string
  readonly hostInfo: { readonly name: string; readonly version: string }
  readonly tool: McpSchema.Tool.Tool
  readonly arguments: Record<string, unknown>
  readonly view: AppView.View
  readonly allow: string
  readonly csp: string
  /** The page's script, gzipped. */
  readonly script: Uint8Array
  readonly maxPending: number
  /** The tool's result (or why it failed), once called. */
  readonly result: Deferred.Deferred<unknown, string>
  /** The pages' open event streams. */
  readonly streams: Ref.Ref<ReadonlySet<Http.ServerResponse>>
  /** Done when a page says the view answered its teardown. */
  readonly tornDown: Deferred.Deferred<void>
  /** `POST /bridge`, its origin checked. */
  readonly bridge: Handler
}

/** The sandbox proxy's server: its page, with the view's CSP as a header, and nothing else. */
export const sandbox = (host: Host): Handler => {
  const page = sandboxPage(host.hostOrigin, host.allow)
  return (request, response) =>
    request.method === "GET" && pathOf(request) === "/sandbox"
      ? send(response, 200, "text/html; charset=utf-8", page, { "content-security-policy": host.csp })
      : send(response, 404, "text/plain", "only /sandbox is served here")
}

const text = (
  response: Http.ServerResponse,
  type: string,
  body: string | Uint8Array,
  headers?: Record<string, string>
) => send(response, 200, `${type}; charset=utf-8`, body, headers)

/** The page's event stream: a comment at once, `teardown` when the host stops (at most `maxStreams`). */
const events = (host: Host, response: Http.ServerResponse) =>
  Effect.flatMap(Ref.get(host.streams), (open) => {
    if (open.size >= maxStreams) return send(response, 429, "text/plain", "too many pages")
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" })
    response.write(": the host's events\n\n")
    // Open until the page leaves (or the host stops and closes it).
    return Ref.update(host.streams, (streams) => new Set([...streams, response])).pipe(
      Effect.zipRight(Effect.async<void>((resume) => {
        response.on("close", () => resume(Effect.void))
      })),
      Effect.ensuring(
        Ref.update(host.streams, (streams) => new Set([...streams].filter((stream) => stream !== response)))
      )
    )
  })

/** The host page's server: a request of another host name (a rebound DNS name) or origin gets nothing. */
export const hostPageServer = (host: Host): Handler => {
  const authority = host.hostOrigin.slice("http://".length)
  const page = hostPage(
    host.tool.name,
    { url: `${host.sandboxOrigin}/sandbox`, origin: host.sandboxOrigin },
    host.allow,
    host.view.ui.prefersBorder !== false
  )
  const session = JSON.stringify({
    config: { hostInfo: host.hostInfo, maxPending: host.maxPending, maxInlineHeight, sandbox: sandboxAttribute },
    tool: host.tool,
    arguments: host.arguments,
    html: host.view.html,
    ui: host.view.ui
  })
  const pageCsp = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; " +
    `frame-src ${host.sandboxOrigin}; frame-ancestors 'none'`
  const plainScript = Effect.sync(() => Zlib.gunzipSync(host.script))
  return (request, response) => {
    if (request.headers.host !== authority) return send(response, 421, "text/plain", "wrong host")
    const route = `${request.method} ${pathOf(request)}`
    // Another page of the same browser (another site) gets nothing but the page itself: what the page asks
    // for is same-origin (`sec-fetch-site`, or its Origin where a browser sends no fetch metadata).
    const sameOrigin = request.headers["sec-fetch-site"] === "same-origin" || request.headers.origin === host.hostOrigin
    if (route !== "GET /" && !sameOrigin) return send(response, 403, "text/plain", "not the host page")
    switch (route) {
      case "GET /":
        return text(response, "text/html", page, { "content-security-policy": pageCsp })
      case "GET /host.js":
        return /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
          ? text(response, "text/javascript", host.script, { "content-encoding": "gzip", vary: "accept-encoding" })
          : Effect.flatMap(plainScript, (plain) => text(response, "text/javascript", plain))
      case "GET /early.js":
        return text(response, "text/javascript", earlyScript)
      case "GET /session":
        return send(response, 200, "application/json", session)
      case "GET /result":
        return Effect.flatMap(
          Effect.exit(Deferred.await(host.result)),
          (exit) =>
            json(
              response,
              200,
              Exit.isSuccess(exit) ? { result: exit.value } : { error: describe(Cause.squash(exit.cause)) }
            )
        )
      case "GET /events":
        return events(host, response)
      case "POST /torn-down":
      case "POST /bridge":
        if (request.headers.origin !== host.hostOrigin) {
          return json(response, 403, { error: { message: "wrong origin" } })
        }
        return route === "POST /bridge"
          ? host.bridge(request, response)
          : Effect.zipRight(Deferred.succeed(host.tornDown, void 0), json(response, 200, {}))
      default:
        return send(response, 404, "text/plain", "not found")
    }
  }
}
