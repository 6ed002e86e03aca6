/**
 * A diagnostic floor of the runtime benchmarks (`runtimes.ts`, opt-in key `platform`): the
 * `@effect/platform` fetch handler our web adapter is built on (`HttpApp.toWebHandler`), with no
 * MCP in it: the body read as JSON (`HttpServerRequest.json`) and answered with the same bytes as
 * `web-bare.ts`. Between it and bare: what Effect's runtime and the platform's request and response
 * cost per request on the runtime; between ours and it: what our server adds.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type { Served } from "./web-serve.js"

const statelessMeta = { "io.modelcontextprotocol/serverInfo": { name: "bench-add", version: "1.0.0" } }

const app = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const message = (yield* request.json) as {
    readonly id: number | string
    readonly params: { readonly arguments: { readonly a: number; readonly b: number } }
  }
  const structuredContent = { sum: message.params.arguments.a + message.params.arguments.b }
  const content = [{ type: "text", text: JSON.stringify(structuredContent) }]
  const result = { content, structuredContent, resultType: "complete", _meta: statelessMeta }
  return HttpServerResponse.text(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }), {
    contentType: "application/json"
  })
}).pipe(Effect.orDie)

const fetch = HttpApp.toWebHandler(app)

export const served: Served = { fetch }

export const worker = { fetch }
