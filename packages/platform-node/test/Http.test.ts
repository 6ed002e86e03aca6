/**
 * Streamable HTTP, POST (DIGEST §9.3, §12): a real server on 127.0.0.1, spoken to with `fetch`.
 */
import { expect, it } from "@effect/vitest"
import { ACCEPT, describeServers, messagesOf, rawRequest, readAll, SseReader, WireClient } from "./utils/http.js"

const rpcError = async (response: Response, status: number, code?: number) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  const body = await response.json()
  expect(body.jsonrpc).toBe("2.0")
  expect(body.id).toBeNull()
  if (code !== undefined) expect(body.error.code).toBe(code)
  return body
}

const initializeBody = (protocolVersion = "2025-11-25", id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "wire-test", version: "0.0.1" } }
})

describeServers("Streamable HTTP: POST", (start) => {
  it("checks Accept (406) and Content-Type (415) before anything else", async () => {
    const h = await start()
    const post = (headers: Record<string, string>) =>
      fetch(h.url, { method: "POST", headers, body: JSON.stringify(initializeBody()) })
    await rpcError(await post({ accept: "application/json", "content-type": "application/json" }), 406)
    await rpcError(await post({ accept: "text/event-stream", "content-type": "application/json" }), 406)
    // fetch always sends an Accept (`*/*`, which the server takes as both): without one, node:http.
    const none = await rawRequest({
      port: h.port,
      method: "POST",
      path: "/mcp",
      headers: { host: `127.0.0.1:${h.port}`, "content-type": "application/json" },
      body: JSON.stringify(initializeBody())
    })
    expect(none.status).toBe(406)
    expect(JSON.parse(none.body).error.code).toBe(-32000)
    await rpcError(await post({ accept: ACCEPT, "content-type": "text/plain" }), 415)
    await rpcError(await post({ accept: ACCEPT }), 415) // fetch sends text/plain for a string body
    await rpcError(await post({ accept: ACCEPT, "content-type": "application/x-www-form-urlencoded" }), 415)
    const ok = await post({ accept: ACCEPT, "content-type": "application/json; charset=utf-8" })
    expect(ok.status).toBe(200)
    expect((await ok.json()).result.protocolVersion).toBe("2025-11-25")
  })

  it("limits the body size (413), with or without Content-Length", async () => {
    const h = await start({ maxBodyBytes: 300 })
    const big = JSON.stringify({ ...initializeBody(), padding: "x".repeat(400) })
    const headers = { accept: ACCEPT, "content-type": "application/json" }
    await rpcError(await fetch(h.url, { method: "POST", headers, body: big }), 413)
    // Chunked: no Content-Length, the limit applies while reading.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(big)
        controller.enqueue(bytes.slice(0, 200))
        controller.enqueue(bytes.slice(200))
        controller.close()
      }
    })
    const response = await fetch(h.url, { method: "POST", headers, body: chunked, duplex: "half" } as RequestInit)
    expect(response.headers.get("content-length")).not.toBe(String(big.length))
    await rpcError(response, 413)
    // Under the limit: fine.
    const small = await fetch(h.url, { method: "POST", headers, body: JSON.stringify(initializeBody()) })
    expect(small.status).toBe(200)
  })

  it("answers invalid JSON with 400 and -32700, a non-message with 400 and -32600", async () => {
    const h = await start()
    const headers = { accept: ACCEPT, "content-type": "application/json" }
    await rpcError(await fetch(h.url, { method: "POST", headers, body: "{\"jsonrpc\": \"2.0\", " }), 400, -32700)
    const notRpc = await fetch(h.url, { method: "POST", headers, body: JSON.stringify({ hello: "world" }) })
    expect(notRpc.status).toBe(400)
    expect((await notRpc.json()).error.code).toBe(-32600)
  })

  it("initialize answers JSON with an Mcp-Session-Id: visible ASCII, long, random", async () => {
    const h = await start()
    const a = new WireClient(h)
    const b = new WireClient(h)
    const response = await a.initialize()
    await b.initialize()
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    const body = await response.json()
    expect(body).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: "2025-11-25", serverInfo: { name: "http-test" } }
    })
    for (const id of [a.sessionId!, b.sessionId!]) {
      expect(id).toMatch(/^[\x21-\x7E]+$/)
      expect(id.length).toBeGreaterThanOrEqual(22) // ≥ 128 bits in base64
    }
    expect(a.sessionId).not.toBe(b.sessionId)
    // The session's later responses carry it too.
    const later = await a.callTool("quick")
    expect(later.headers.get("mcp-session-id")).toBe(a.sessionId)
  })

  it("needs the session: none → 400, unknown → 404, ended → 404", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const id = c.sessionId!
    c.sessionId = undefined
    await rpcError(await c.send("tools/list"), 400)
    await rpcError(await c.notify("notifications/initialized"), 400)
    c.sessionId = id + "x"
    await rpcError(await c.send("tools/list"), 404)
    c.sessionId = id
    expect((await c.send("tools/list")).status).toBe(200)
    expect((await c.delete()).status).toBe(200)
    await rpcError(await c.send("tools/list"), 404)
  })

  it("accepts notifications and responses with 202 and no body", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const notification = await c.notify("notifications/roots/list_changed")
    expect(notification.status).toBe(202)
    expect(await notification.text()).toBe("")
    const response = await c.post({ jsonrpc: "2.0", id: 999, result: {} })
    expect(response.status).toBe(202)
    expect(await response.text()).toBe("")
    const error = await c.post({ jsonrpc: "2.0", id: 998, error: { code: -1, message: "no" } })
    expect(error.status).toBe(202)
    expect(await error.text()).toBe("")
  })

  it("a handler that only returns answers application/json", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const response = await c.callTool("quick", {}, undefined, "q-1")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: "q-1",
      result: { content: [{ type: "text", text: "quick" }] }
    })
    const ping = await c.send("ping", undefined, 7)
    expect(ping.headers.get("content-type")).toMatch(/^application\/json/)
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} })
  })

  it("progress: SSE with a priming event (2025-11-25), the notifications, then the response; the stream ends", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const response = await c.callTool("progress", {}, "tok", 5)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(response.headers.get("mcp-session-id")).toBe(c.sessionId)
    const frames = await new SseReader(response).rest()
    // Priming: an id and empty data, first.
    expect(frames[0].id).toBeDefined()
    expect(frames[0].data).toBe("")
    expect(frames[0].event).toBeUndefined()
    const messages = messagesOf(frames)
    expect(messages.map((m) => m.method ?? "response")).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "response"
    ])
    expect(messages.slice(0, 3).map((m) => m.params)).toEqual([1, 2, 3].map((progress) => ({
      progressToken: "tok",
      progress,
      total: 3,
      message: `step ${progress}`
    })))
    expect(messages[3]).toEqual({ jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "progressed" }] } })
    // Every frame has an id; all differ.
    const ids = frames.map((f) => f.id)
    expect(ids.every((id) => id !== undefined)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("progress before 2025-11-25: SSE without a priming event", async () => {
    const h = await start()
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const c = new WireClient(h, { version })
      await c.initialize()
      expect(c.initializeResult.protocolVersion).toBe(version)
      const response = await c.callTool("progress", {}, 1)
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
      const frames = await new SseReader(response).rest()
      expect(frames.every((f) => f.data !== undefined && f.data !== "")).toBe(true)
      expect(messagesOf(frames).map((m) => m.method ?? "response")).toEqual([
        "notifications/progress",
        "notifications/progress",
        "notifications/progress",
        "response"
      ])
    }
  })

  it("logs travel on the request's SSE stream, before the response", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    expect(await c.result("logging/setLevel", { level: "info" })).toEqual({})
    const response = await c.callTool("log")
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const messages = await readAll(response)
    expect(messages.map((m) => m.method ?? m.result?.content?.[0]?.text)).toEqual([
      "notifications/message",
      "notifications/message",
      "logged"
    ])
    expect(messages.slice(0, 2).map((m) => [m.params.level, m.params.data])).toEqual([["info", "first"], [
      "warning",
      "second"
    ]])
  })

  it("sampling: the server's request travels on the tool's SSE stream; the client POSTs its answer (202); the result follows", async () => {
    const h = await start()
    const c = new WireClient(h, { capabilities: { sampling: {} } })
    await c.initialize()
    const response = await c.callTool("sample", { prompt: "hi" }, undefined, "call-1")
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const reader = new SseReader(response)
    const ask = await reader.message()
    expect(ask.method).toBe("sampling/createMessage")
    expect(ask.id).toBeDefined()
    expect(ask.params.messages[0].content).toEqual({ type: "text", text: "hi" })
    const answer = await c.post({
      jsonrpc: "2.0",
      id: ask.id,
      result: { role: "assistant", content: { type: "text", text: "hello back" }, model: "test-model" }
    })
    expect(answer.status).toBe(202)
    expect(await answer.text()).toBe("")
    const rest = messagesOf(await reader.rest())
    expect(rest).toEqual([{
      jsonrpc: "2.0",
      id: "call-1",
      result: { content: [{ type: "text", text: "sampled: hello back" }] }
    }])
  })

  it("MCP-Protocol-Version: unsupported or not the session's → 400; absent → accepted", async () => {
    const h = await start()
    const c = new WireClient(h, { version: "2025-06-18" })
    await c.initialize()
    await rpcError(
      await c.post({ jsonrpc: "2.0", id: 1, method: "ping" }, { headers: { "mcp-protocol-version": "1999-01-01" } }),
      400
    )
    await rpcError(
      await c.post({ jsonrpc: "2.0", id: 2, method: "ping" }, { headers: { "mcp-protocol-version": "2025-11-25" } }),
      400
    )
    await rpcError(
      await c.post({ jsonrpc: "2.0", id: 3, method: "ping" }, { headers: { "mcp-protocol-version": "banana" } }),
      400
    )
    expect(
      (await c.post({ jsonrpc: "2.0", id: 4, method: "ping" }, { headers: { "mcp-protocol-version": "2025-06-18" } }))
        .status
    )
      .toBe(200)
    const absent = new WireClient(h, { version: "2025-06-18", versionHeader: false })
    await absent.initialize()
    const ok = await absent.send("ping", undefined, 5)
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ jsonrpc: "2.0", id: 5, result: {} })
  })

  it("batches: accepted in a 2025-03-26 session (array response, or SSE), rejected otherwise", async () => {
    const h = await start()
    const old = new WireClient(h, { version: "2025-03-26" })
    await old.initialize()
    const batch = await old.post([
      { jsonrpc: "2.0", id: "a", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "quick", arguments: {} } }
    ])
    expect(batch.status).toBe(200)
    expect(batch.headers.get("content-type")).toMatch(/^application\/json/)
    const answers = await batch.json()
    expect(Array.isArray(answers)).toBe(true)
    expect([...answers].sort((x: any, y: any) => String(x.id).localeCompare(String(y.id)))).toEqual([
      { jsonrpc: "2.0", id: "a", result: {} },
      { jsonrpc: "2.0", id: "b", result: { content: [{ type: "text", text: "quick" }] } }
    ])
    // Notifications and responses only: 202.
    const quiet = await old.post([
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { jsonrpc: "2.0", id: 12345, result: {} }
    ])
    expect(quiet.status).toBe(202)
    expect(await quiet.text()).toBe("")
    // A batch whose handler streams: SSE, the progress first, the batch's answers last.
    const streamed = await old.post([
      {
        jsonrpc: "2.0",
        id: "p",
        method: "tools/call",
        params: { name: "progress", arguments: {}, _meta: { progressToken: "t" } }
      },
      { jsonrpc: "2.0", id: "q", method: "ping" }
    ])
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const frames = messagesOf(await new SseReader(streamed).rest())
    const last = frames[frames.length - 1]
    expect(frames.slice(0, -1).every((m) => m.method === "notifications/progress")).toBe(true)
    expect(frames.length).toBe(4)
    expect(Array.isArray(last)).toBe(true)
    expect(last.map((m: any) => m.id).sort()).toEqual(["p", "q"])
    // initialize must not be batched.
    const init = await old.post([initializeBody("2025-03-26", "i")])
    expect(init.status).toBe(400)
    // Other revisions: 400.
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const c = new WireClient(h, { version })
      await c.initialize()
      await rpcError(await c.post([{ jsonrpc: "2.0", id: "a", method: "ping" }]), 400, -32600)
      await rpcError(await c.post([{ jsonrpc: "2.0", method: "notifications/roots/list_changed" }]), 400, -32600)
    }
  })
})
