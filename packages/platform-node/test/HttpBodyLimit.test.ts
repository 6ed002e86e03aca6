/**
 * the HTTP front and the adapters (nodeHttp.ts, platform.ts): a body over the limit is
 * refused as its bytes arrive, not once the client chose to stop sending.
 */
import { expect, it } from "@effect/vitest"
import * as http from "node:http"
import { ACCEPT, describeServers } from "./utils/http.js"

describeServers("the body limit", (start) => {
  it("a chunked body over maxBodyBytes gets its 413 while the client is still sending", async () => {
    const h = await start({ maxBodyBytes: 1024 })
    const outcome = await new Promise<string>((resolve) => {
      const request = http.request({
        host: "127.0.0.1",
        port: h.port,
        method: "POST",
        path: "/mcp",
        headers: { accept: ACCEPT, "content-type": "application/json", "transfer-encoding": "chunked" },
        agent: false
      }, (response) => {
        resolve(`HTTP ${response.statusCode}`)
        response.resume()
      })
      request.on("error", (error) => resolve(`error ${error.message}`))
      // 64 KiB over a 1 KiB limit, and the body is not over yet: the client keeps the request open.
      request.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(64 * 1024)}`)
      const timer = setTimeout(() => {
        resolve("no answer while the body goes on")
        request.destroy()
      }, 2000)
      request.on("close", () => clearTimeout(timer))
    })
    expect(outcome).toBe("HTTP 413")
  })
})
