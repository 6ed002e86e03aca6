/**
 * Streamable HTTP sessions and security, and legacy HTTP+SSE (DIGEST §9.2, §9.3).
 */
import { TaskStore } from "@effect-mcp/server"
import { expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as net from "node:net"
import * as os from "node:os"
import {
  ACCEPT,
  awaitDeferred,
  control,
  describeServers,
  eventually,
  freshKey,
  type Harness,
  isDone,
  messagesOf,
  rawRequest,
  SseReader,
  WireClient
} from "./utils/http.js"

const initialize = (protocolVersion = "2025-11-25") =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "wire-test", version: "0.0.1" } }
  })

describeServers("Streamable HTTP: sessions", (start) => {
  it("DELETE ends the session (200); then POST, GET and DELETE → 404", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const other = new WireClient(h)
    await other.initialize()
    const deleted = await c.delete()
    expect(deleted.status).toBe(200)
    expect((await c.send("ping")).status).toBe(404)
    expect((await c.get()).status).toBe(404)
    expect((await c.delete()).status).toBe(404)
    // Other sessions live on.
    expect((await other.send("ping")).status).toBe(200)
    // DELETE without a session: 400.
    const anonymous = new WireClient(h)
    expect((await anonymous.delete()).status).toBe(400)
  })

  it("ending a session interrupts what it had in flight, ends its streams and frees its events", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const id = c.sessionId!
    const standalone = new SseReader(await c.get())
    await standalone.next()
    const key = freshKey()
    const call = new SseReader(
      await c.send("tools/call", {
        name: "controlled",
        arguments: { key, before: 1, tick: 5 },
        _meta: { progressToken: "t" }
      }, "running")
    )
    for (let i = 0; i < 3; i++) await call.message()
    expect((await h.store.held(id)).length).toBeGreaterThan(0)
    expect((await c.delete()).status).toBe(200)
    await awaitDeferred(control(key).interrupted, 5000, "the running tool to be interrupted")
    expect(isDone(control(key).done)).toBe(false)
    // Both streams end, without a response for the request.
    expect(messagesOf(await call.rest()).some((m) => m.id === "running")).toBe(false)
    expect(await standalone.rest()).toEqual([])
    await eventually(async () => (await h.store.held(id)).length === 0)
    expect(await h.store.held(id)).toEqual([])
    expect((await c.get()).status).toBe(404)
    expect((await c.get({ headers: { "last-event-id": "s1_0" } })).status).toBe(404)
  })

  it("idle sessions expire after sessionIdleTimeout; active ones and ones with a GET stream stay", async () => {
    // The server's clock is a TestClock: 700 ms pass in 14 steps, whatever the machine's speed.
    const h = await start({ sessionIdleTimeout: "200 millis" }, { testClock: true })
    const idle = new WireClient(h)
    await idle.initialize()
    await idle.call("tools/call", { name: "progress", arguments: {}, _meta: { progressToken: 1 } })
    expect((await h.store.held(idle.sessionId!)).length).toBeGreaterThan(0)
    const listening = new WireClient(h)
    await listening.initialize()
    const stream = await listening.get()
    expect(stream.status).toBe(200)
    const busy = new WireClient(h)
    await busy.initialize()
    // A session in use stays: a request every 50 ms, meanwhile.
    const statuses: Array<number> = []
    for (let elapsed = 0; elapsed < 700; elapsed += 50) {
      await h.adjust("50 millis")
      statuses.push((await busy.send("ping")).status)
    }
    // The idle one (last seen 700 ms ago) is gone, its events with it; the listening one, last
    // seen as long ago, stays.
    expect((await idle.send("ping")).status).toBe(404)
    await eventually(async () => (await h.store.held(idle.sessionId!)).length === 0)
    expect(await h.store.held(idle.sessionId!)).toEqual([])
    expect(statuses.length).toBeGreaterThan(5)
    expect(new Set(statuses)).toEqual(new Set([200]))
    expect((await listening.send("ping")).status).toBe(200)
  })

  it("a session whose client left with a request that never ends expires, the request interrupted", async () => {
    // Before: the request kept the session for good; 20 such filled maxSessions 20 for good.
    const h = await start({ sessionIdleTimeout: "200 millis", maxSessions: 2, maxSessionsPerHolder: 2 }, {
      testClock: true
    })
    const keys = [freshKey(), freshKey()]
    const pinned = await Promise.all(keys.map(async (key) => {
      const c = new WireClient(h)
      await c.initialize()
      const controller = new AbortController()
      // Nothing is sent before the answer (no progress token): the POST waits with no headers yet.
      const response = c.send("tools/call", { name: "controlled", arguments: { key } }, c.id(), controller.signal)
      response.catch(() => {})
      await awaitDeferred(control(key).started)
      // The client goes away; in this era that cancels nothing.
      controller.abort()
      return c
    }))
    await h.dropped(2)
    // Full: a third session is refused while the two are held.
    expect((await new WireClient(h).post(initialize())).status).toBe(503)
    // Within the timeout the sessions stay (the client could come back with Last-Event-ID).
    await h.adjust("100 millis")
    expect(keys.map((key) => isDone(control(key).interrupted))).toEqual([false, false])
    for (let elapsed = 0; elapsed < 400; elapsed += 50) await h.adjust("50 millis")
    for (const key of keys) await awaitDeferred(control(key).interrupted)
    for (const c of pinned) expect((await c.send("ping")).status).toBe(404)
    const fresh = new WireClient(h)
    await fresh.initialize()
    expect((await fresh.send("ping")).status).toBe(200)
  })

  it("by default a request runs an hour at most: then it is interrupted and answered -32603", async () => {
    // The TestClock fires every sleep on its way, each after a turn of the event loop: the task store's
    // sweep, every second by default, would be 3,660 turns (20 s here, past 30 s on a loaded machine).
    // A store swept hourly leaves the requests' own sweep (every 15 s): about 250.
    const h = await start({}, { testClock: true, taskStore: TaskStore.layerMemory({ sweepInterval: "1 hour" }) })
    const key = freshKey()
    const c = new WireClient(h)
    await c.initialize()
    const response = c.send("tools/call", { name: "controlled", arguments: { key } }, "long")
    await awaitDeferred(control(key).started)
    await h.adjust("59 minutes")
    expect(isDone(control(key).interrupted)).toBe(false)
    await h.adjust("2 minutes")
    await awaitDeferred(control(key).interrupted)
    expect(await (await response).json()).toEqual({
      jsonrpc: "2.0",
      id: "long",
      error: { code: -32603, message: "Request exceeded the server's maximum duration" }
    })
  })

  it("a request in flight with its client still connected keeps its session past the idle timeout", async () => {
    const h = await start({ sessionIdleTimeout: "200 millis" }, { testClock: true })
    const key = freshKey()
    const c = new WireClient(h)
    await c.initialize()
    const response = c.send("tools/call", { name: "controlled", arguments: { key } })
    await awaitDeferred(control(key).started)
    for (let elapsed = 0; elapsed < 600; elapsed += 50) await h.adjust("50 millis")
    expect(isDone(control(key).interrupted)).toBe(false)
    Effect.runSync(Deferred.succeed(control(key).gate, undefined))
    const answer = await (await response).json()
    expect(answer.result.content[0].text).toBe(`done ${key}`)
    expect((await c.send("ping")).status).toBe(200)
  })

  it("MCP-Protocol-Version is checked on GET and DELETE too", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    expect((await c.get({ headers: { "mcp-protocol-version": "1999-01-01" } })).status).toBe(400)
    const del = await fetch(h.url, {
      method: "DELETE",
      headers: { "mcp-session-id": c.sessionId!, "mcp-protocol-version": "1999-01-01" }
    })
    expect(del.status).toBe(400)
    expect((await c.send("ping")).status).toBe(200)
  })
})

describeServers("Streamable HTTP: Origin and Host", (start) => {
  it("a foreign Origin or Host → 403 (a JSON-RPC error without id)", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const evil = { origin: "http://evil.example.com" }
    const forbidden = [
      await c.post({ jsonrpc: "2.0", id: 2, method: "ping" }, { headers: evil }),
      await fetch(h.url, {
        method: "POST",
        headers: { accept: ACCEPT, "content-type": "application/json", ...evil },
        body: initialize()
      }),
      await c.get({ headers: evil }),
      await fetch(h.url, { method: "DELETE", headers: { "mcp-session-id": c.sessionId!, ...evil } }),
      await c.post({ jsonrpc: "2.0", id: 3, method: "ping" }, { headers: { origin: "http://localhost.evil.com" } }),
      await c.post({ jsonrpc: "2.0", id: 4, method: "ping" }, { headers: { origin: "null" } })
    ]
    for (const response of forbidden) {
      expect(response.status).toBe(403)
      const body = await response.json()
      expect(body.id).toBeNull()
      expect(body.error.code).toBeTypeOf("number")
    }
    // The session survived the forbidden DELETE.
    expect((await c.send("ping")).status).toBe(200)
    const host = await rawRequest({
      port: h.port,
      method: "POST",
      path: "/mcp",
      headers: { host: "evil.example.com", accept: ACCEPT, "content-type": "application/json" },
      body: initialize()
    })
    expect(host.status).toBe(403)
    expect(JSON.parse(host.body).id).toBeNull()
    const hostWithPort = await rawRequest({
      port: h.port,
      method: "POST",
      path: "/mcp",
      headers: { host: `evil.example.com:${h.port}`, accept: ACCEPT, "content-type": "application/json" },
      body: initialize()
    })
    expect(hostWithPort.status).toBe(403)
  })

  it("localhost with its own Origin is fine", async () => {
    const h = await start()
    for (const name of ["localhost", "127.0.0.1"]) {
      const response = await rawRequest({
        port: h.port,
        method: "POST",
        path: "/mcp",
        headers: {
          host: `${name}:${h.port}`,
          origin: `http://${name}:${h.port}`,
          accept: ACCEPT,
          "content-type": "application/json"
        },
        body: initialize()
      })
      expect(response.status).toBe(200)
      expect(response.headers["mcp-session-id"]).toBeDefined()
    }
  })

  it("custom allowedOrigins and allowedHosts replace the defaults", async () => {
    const h = await start({ allowedOrigins: ["https://app.example.com"], allowedHosts: ["mcp.example.com"] })
    const post = (headers: Record<string, string>) =>
      rawRequest({
        port: h.port,
        method: "POST",
        path: "/mcp",
        headers: { accept: ACCEPT, "content-type": "application/json", ...headers },
        body: initialize()
      })
    expect((await post({ host: `mcp.example.com:${h.port}`, origin: "https://app.example.com" })).status).toBe(200)
    expect((await post({ host: "mcp.example.com" })).status).toBe(200)
    expect((await post({ host: `mcp.example.com:${h.port}`, origin: `http://localhost:${h.port}` })).status).toBe(403)
    expect((await post({ host: `mcp.example.com:${h.port}`, origin: "http://app.example.com" })).status).toBe(403)
    expect((await post({ host: `localhost:${h.port}` })).status).toBe(403)
    expect((await post({ host: `127.0.0.1:${h.port}` })).status).toBe(403)

    const open = await start({ allowedOrigins: "*", allowedHosts: "*" })
    const anything = await rawRequest({
      port: open.port,
      method: "POST",
      path: "/mcp",
      headers: {
        host: "evil.example.com",
        origin: "http://evil.example.com",
        accept: ACCEPT,
        "content-type": "application/json"
      },
      body: initialize()
    })
    expect(anything.status).toBe(200)
  })

  it("binds 127.0.0.1 by default", async () => {
    const h = await start()
    const connect = (host: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect({ host, port: h.port })
        socket.setTimeout(2000, () => {
          socket.destroy()
          resolve("timeout")
        })
        socket.once("connect", () => {
          socket.destroy()
          resolve("connected")
        })
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"))
      })
    expect(await connect("127.0.0.1")).toBe("connected")
    const external = Object.values(os.networkInterfaces()).flat().find((i) =>
      i !== undefined && !i.internal && i.family === "IPv4"
    )
    if (external !== undefined) expect(await connect(external.address)).not.toBe("connected")
  })
})

describeServers("legacy HTTP+SSE (2024-11-05)", (start) => {
  const openSse = async (h: Harness, headers: Record<string, string> = {}) => {
    const aborter = h.controller()
    const response = await fetch(`${h.origin}/sse`, {
      headers: { accept: "text/event-stream", ...headers },
      signal: aborter.signal
    })
    return { response, aborter }
  }

  it("GET /sse: endpoint first; POSTs there answer 202; responses arrive as `event: message`", async () => {
    const h = await start()
    const { response } = await openSse(h)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const reader = new SseReader(response)
    const endpoint = await reader.next()
    expect(endpoint?.event).toBe("endpoint")
    const url = new URL(endpoint!.data!, `${h.origin}/sse`)
    expect(url.origin).toBe(h.origin)
    expect(url.pathname).toBe("/messages")
    const sessionId = url.searchParams.get("sessionId")
    expect(sessionId).toMatch(/^[\x21-\x7E]{22,}$/)
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body)
      })

    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "legacy", version: "1" } }
    })
    expect(init.status).toBe(202)
    const result = await reader.next()
    expect(result?.event).toBe("message")
    const message = JSON.parse(result!.data!)
    expect(message).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2024-11-05" } })
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202)
    // A tool with progress: everything on the one stream, as `event: message`, without ids.
    expect(
      (await post({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "progress", arguments: {}, _meta: { progressToken: "p" } }
      })).status
    ).toBe(202)
    const frames = [await reader.next(), await reader.next(), await reader.next(), await reader.next()]
    expect(frames.every((f) => f?.event === "message" && f.id === undefined)).toBe(true)
    expect(frames.map((f) => JSON.parse(f!.data!)).map((m) => m.method ?? m.id)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      2
    ])
    // Wrong content type, unknown or missing session.
    expect((await post({ jsonrpc: "2.0", id: 3, method: "ping" }, { "content-type": "text/plain" })).status).toBe(415)
    const unknown = new URL(url)
    unknown.searchParams.set("sessionId", "nope")
    expect(
      (await fetch(unknown, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status
    )
      .toBe(404)
    expect(
      (await fetch(`${h.origin}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}"
      }))
        .status
    ).toBe(400)
  })

  it("Origin rules apply to both endpoints", async () => {
    const h = await start()
    const { response: evil } = await openSse(h, { origin: "http://evil.example.com" })
    expect(evil.status).toBe(403)
    const { response } = await openSse(h, { origin: `http://localhost:${h.port}` })
    expect(response.status).toBe(200)
    const endpoint = await new SseReader(response).next()
    const url = new URL(endpoint!.data!, `${h.origin}/sse`)
    const post = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.example.com" },
      body: initialize("2024-11-05")
    })
    expect(post.status).toBe(403)
  })

  it("closing the SSE connection ends the session", async () => {
    const h = await start()
    const { aborter, response } = await openSse(h)
    const reader = new SseReader(response)
    const url = new URL((await reader.next())!.data!, `${h.origin}/sse`)
    const ping = () =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
      })
    expect((await ping()).status).toBe(202)
    aborter.abort()
    await eventually(async () => (await ping()).status === 404)
  })

  it("a legacy session is not a Streamable HTTP session (404 on /mcp)", async () => {
    const h = await start()
    const { response } = await openSse(h)
    const url = new URL((await new SseReader(response).next())!.data!, `${h.origin}/sse`)
    const id = url.searchParams.get("sessionId")!
    const post = await fetch(h.url, {
      method: "POST",
      headers: { accept: ACCEPT, "content-type": "application/json", "mcp-session-id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      signal: AbortSignal.timeout(3000)
    })
    expect(post.status).toBe(404)
    const get = await fetch(h.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": id },
      signal: AbortSignal.timeout(3000)
    })
    expect(get.status).toBe(404)
    // And the other way round.
    const c = new WireClient(h)
    await c.initialize()
    const other = new URL(url)
    other.searchParams.set("sessionId", c.sessionId!)
    const legacyPost = await fetch(other, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
    })
    expect(legacyPost.status).toBeGreaterThanOrEqual(400)
    expect((await c.send("ping")).status).toBe(200)
  })
})
