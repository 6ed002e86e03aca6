/**
 * What a benchmark client puts around each `tools/call add`: the switch between the
 * handshake era (2025-11-25: `initialize` + `notifications/initialized` first, the revision
 * negotiated once per session) and the stateless 2026-07-28 revision (no handshake; every
 * request carries `_meta` with `io.modelcontextprotocol/protocolVersion` and
 * `io.modelcontextprotocol/clientCapabilities`, and over HTTP the headers that repeat the body:
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
 *
 * `BENCH_ENVELOPE=2025-11-25` (default) or `BENCH_ENVELOPE=2026-07-28` (the stdio benchmark;
 * `http-stateless.ts` always uses 2026-07-28).
 */

export interface Envelope {
  readonly revision: "2025-11-25" | "2026-07-28"
  /** The `initialize` request (id 0) and the `notifications/initialized` that follows it; none for 2026-07-28. */
  readonly handshake: { readonly initialize: string; readonly initialized: string } | undefined
  /** `tools/call add` with id `id`, adding `id` and 1: its answer holds `"sum":id+1`. */
  readonly addCall: (id: number) => string
  /**
   * HTTP: the header lines (each ending in CRLF) every `tools/call add` POST carries besides
   * `Accept` and `Content-Type`; in the handshake era they come from the session instead.
   */
  readonly addCallHeaders: string
}

const initialize = (revision: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } }
  })

export const handshakeEra: Envelope = {
  revision: "2025-11-25",
  handshake: {
    initialize: initialize("2025-11-25"),
    initialized: "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
  },
  addCall: (id) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${id},"b":1}}}`,
  addCallHeaders: ""
}

const statelessMeta =
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}"

export const stateless: Envelope = {
  revision: "2026-07-28",
  handshake: undefined,
  addCall: (id) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${id},"b":1},${statelessMeta}}}`,
  addCallHeaders: "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n"
}

/** A `subscriptions/listen` request (2026-07-28) for `notifications/tools/list_changed`, with id `id`. */
export const listenToolsCall = (id: string | number): string =>
  `{"jsonrpc":"2.0","id":${
    JSON.stringify(id)
  },"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},${statelessMeta}}}`

export const fromEnv = (): Envelope => {
  const wanted = process.env.BENCH_ENVELOPE ?? "2025-11-25"
  if (wanted === "2025-11-25") return handshakeEra
  if (wanted === "2026-07-28") return stateless
  throw new Error(`BENCH_ENVELOPE=${wanted}: expected 2025-11-25 or 2026-07-28`)
}

/** Whether an answer line / body is a result (not an error) with the sum expected for request `id`. */
export const isGoodAdd = (text: string, id: number): boolean => {
  if (!text.includes("\"result\":") || text.includes("\"error\":")) return false
  const sum = `"sum":${id + 1}`
  const at = text.indexOf(sum)
  if (at < 0) return false
  const after = text.charCodeAt(at + sum.length)
  return after === 125 /* } */ || after === 44 /* , */
}
