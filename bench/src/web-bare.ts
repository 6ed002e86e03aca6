/**
 * The floor of the runtime benchmarks (`runtimes.ts`): a bare fetch handler, nothing of MCP but
 * the answer's shape, like `bare-http-server.ts` on `node:http`. The body is read with
 * `request.json()` and answered with the same JSON bytes our `add` server answers a 2026-07-28
 * `tools/call` (the structured sum, its text, `resultType` and the server's identity in `_meta`);
 * anything else with `{}`, a notification with 202. No header is read, nothing is validated.
 * As a Worker: `worker`.
 */
import type { Served } from "./web-serve.js"

const statelessMeta = { "io.modelcontextprotocol/serverInfo": { name: "bench-add", version: "1.0.0" } }

const fetch = async (request: Request): Promise<Response> => {
  const message = await request.json() as {
    readonly id?: number | string
    readonly method: string
    readonly params: { readonly arguments: { readonly a: number; readonly b: number } }
  }
  if (message.id === undefined) return new Response(null, { status: 202 })
  let result: unknown = {}
  if (message.method === "tools/call") {
    const structuredContent = { sum: message.params.arguments.a + message.params.arguments.b }
    const content = [{ type: "text", text: JSON.stringify(structuredContent) }]
    result = { content, structuredContent, resultType: "complete", _meta: statelessMeta }
  }
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }), {
    headers: { "content-type": "application/json" }
  })
}

export const served: Served = { fetch }

export const worker = { fetch }
