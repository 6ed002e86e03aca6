/**
 * A diagnostic floor of the runtime benchmarks (`runtimes.ts`, opt-in key `effect`): the body read
 * with `request.json()` and answered with the same bytes as `web-bare.ts`, the answer made in one
 * Effect fiber per request (`Runtime.runPromise`), with no `@effect/platform` in the way. Between it
 * and `platform` (`web-platform.ts`): what the platform's fetch handler adds to a fiber per request;
 * between it and bare: what a fiber per request costs on the runtime.
 */
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import type { Served } from "./web-serve.js"

const statelessMeta = { "io.modelcontextprotocol/serverInfo": { name: "bench-add", version: "1.0.0" } }

const run = Runtime.runPromise(Runtime.defaultRuntime)

const answer = (message: {
  readonly id: number | string
  readonly params: { readonly arguments: { readonly a: number; readonly b: number } }
}) =>
  Effect.sync(() => {
    const structuredContent = { sum: message.params.arguments.a + message.params.arguments.b }
    const content = [{ type: "text", text: JSON.stringify(structuredContent) }]
    const result = { content, structuredContent, resultType: "complete", _meta: statelessMeta }
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }), {
      headers: { "content-type": "application/json" }
    })
  })

const fetch = async (request: Request): Promise<Response> => run(answer(await request.json()))

export const served: Served = { fetch }

export const worker = { fetch }
