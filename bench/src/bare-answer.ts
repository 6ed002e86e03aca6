/**
 * What the bare servers of the benchmarks answer (`bare-http-server.ts`, `otel-floor-http-server.ts`):
 * the JSON-RPC result of a request, as the same JSON the MCP servers of the benchmarks answer
 * (byte for byte, our `add` tool's): `tools/call` with the sum of its arguments, `initialize`
 * with a constant server, anything else with `{}`.
 */

/** What a 2026-07-28 result carries in `_meta`: the server's identity (here, the bench's `add` server's). */
const statelessMeta = { "io.modelcontextprotocol/serverInfo": { name: "bench-add", version: "1.0.0" } }

/** A request as the bare servers read it: parsed JSON, nothing checked. */
export interface Message {
  readonly id?: unknown
  readonly method?: string
  readonly params?: any
}

/** The revision a request names in its `_meta` (2026-07-28 does), if any. */
export const revisionOf = (message: Message): string | undefined =>
  message.params?._meta?.["io.modelcontextprotocol/protocolVersion"]

/** The JSON text of `message`'s answer (a request's: it has an id). */
export const answer = (message: Message): string => {
  let result: unknown = {}
  if (message.method === "tools/call") {
    // The JSON the MCP servers answer: the structured value, and its text; in the stateless
    // revision (2026-07-28, named in the request's `_meta`) also `resultType` and the server's
    // identity in `_meta`, as the revision has every result carry them.
    const structuredContent = { sum: message.params.arguments.a + message.params.arguments.b }
    const content = [{ type: "text", text: JSON.stringify(structuredContent) }]
    result = revisionOf(message) === "2026-07-28"
      ? { content, structuredContent, resultType: "complete", _meta: statelessMeta }
      : { content, structuredContent }
  } else if (message.method === "initialize") {
    result = {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "bare", version: "1.0.0" }
    }
  }
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result })
}

/** The headers of `text`, the answer to `message` (`initialize` also gets a constant `Mcp-Session-Id`). */
export const headersOf = (message: Message, text: string): Record<string, string | number> => {
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text)
  }
  if (message.method === "initialize") headers["mcp-session-id"] = "bare"
  return headers
}
