/**
 * Hostile bodies over Streamable HTTP: numbers JSON spells but a double cannot hold, and nesting
 * past the bound, are a 400 with the request's own id and -32602, before anything else sees them.
 */
import { expect, it } from "@effect/vitest"
import { describeServers, WireClient } from "./utils/http.js"

describeServers("Streamable HTTP: hostile input", (start) => {
  it("arguments of 1e309 or nested 100,000 deep are 400 / -32602 with the id; the session goes on", async () => {
    const h = await start()
    const client = new WireClient(h)
    await client.initialize()
    const big = await client.post(
      `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"quick","arguments":{"n":1e309}}}`
    )
    expect(big.status).toBe(400)
    expect(await big.json()).toEqual({
      jsonrpc: "2.0",
      id: "big",
      error: { code: -32602, message: "Invalid params: a number out of range (JSON numbers must be finite)" }
    })
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    const nested = await client.post(
      `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"quick","arguments":{"a":${deep}}}}`
    )
    expect(nested.status).toBe(400)
    expect(await nested.json()).toEqual({
      jsonrpc: "2.0",
      id: "deep",
      error: { code: -32602, message: "Invalid params: nested deeper than 128 levels" }
    })
    const { messages } = await client.call("tools/call", { name: "quick", arguments: {} })
    expect(messages.at(-1).result.content[0].text).toBe("quick")
  })

  it("the depth is an option: maxDepth", async () => {
    const h = await start({ maxDepth: 8 })
    const client = new WireClient(h)
    await client.initialize()
    // The message is depth 1, params 2, arguments 3.
    const call = (depth: number) =>
      client.post(
        `{"jsonrpc":"2.0","id":${depth},"method":"tools/call","params":{"name":"quick","arguments":{"a":${
          "[".repeat(depth - 3) + "]".repeat(depth - 3)
        }}}}`
      )
    const deep = await call(9)
    expect(deep.status).toBe(400)
    expect((await deep.json()).error).toEqual({ code: -32602, message: "Invalid params: nested deeper than 8 levels" })
    const within = await call(8)
    expect(within.status).toBe(200)
  })
})
