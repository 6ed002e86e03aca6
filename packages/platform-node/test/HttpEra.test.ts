/**
 * The era router: decided from the headers before the body is read. This server serves the
 * handshake era only; a 2026-07-28 request is told which revisions it serves (-32022).
 */
import { Revision } from "@effect-mcp/core"
import { expect, it } from "@effect/vitest"
import { ACCEPT, describeServers } from "./utils/http.js"

/** The handshake era only (the default serves both). */
const handshakeOnly = { revisions: Revision.handshake }

describeServers("HTTP: the era router", (start) => {
  it("a POST in 2026-07-28 gets 400 and -32022 naming the revisions served, with its id", async () => {
    const h = await start({}, handshakeOnly)
    const response = await fetch(h.url, {
      method: "POST",
      headers: { accept: ACCEPT, "content-type": "application/json", "mcp-protocol-version": "2026-07-28" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }
      })
    })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.id).toBe(7)
    expect(body.error.code).toBe(-32022)
    expect(body.error.data).toEqual({
      supported: ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"],
      requested: "2026-07-28"
    })
  })

  it("a handshake-era version header goes to Streamable HTTP (no session: 400, -32000)", async () => {
    const h = await start({}, handshakeOnly)
    const response = await fetch(h.url, {
      method: "POST",
      headers: { accept: ACCEPT, "content-type": "application/json", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(response.status).toBe(400)
    expect((await response.json()).error.code).toBe(-32000)
  })
})
