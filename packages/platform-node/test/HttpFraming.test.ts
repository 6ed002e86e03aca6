/**
 * Streamable HTTP framing: a JSON answer says its length (not chunked), on both server paths.
 */
import { expect, it } from "@effect/vitest"
import { ACCEPT, describeServers, rawRequest } from "./utils/http.js"

describeServers("Streamable HTTP: framing", (start) => {
  it("a JSON answer carries its Content-Length, byte for byte, and no chunked encoding", async () => {
    const h = await start()
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "é-client", version: "1" } }
    })
    const answer = await rawRequest({
      port: h.port,
      method: "POST",
      path: "/mcp",
      headers: { host: `127.0.0.1:${h.port}`, "content-type": "application/json", accept: ACCEPT },
      body
    })
    expect(answer.status).toBe(200)
    expect(answer.headers["transfer-encoding"]).toBeUndefined()
    expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body))
    expect(JSON.parse(answer.body).result.protocolVersion).toBe("2025-11-25")
  })
})
