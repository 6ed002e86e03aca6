/**
 * Defects found by probing the HTTP server, one test each (every one failed before its fix):
 * HEAD and other unserved methods, the session cap and failed initializes, a request cancelled
 * before it sent anything, the event store's byte budget and resumption gaps, the maximum
 * request lifetime, strict Host parsing, legacy bad bodies, media types, and an import of the
 * Node package that must not touch stdin.
 */
import { EventStore } from "@effect-mcp/server"
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
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
  release,
  type ServerOptions,
  SseReader,
  WireClient
} from "./utils/http.js"

const initializeBody = (protocolVersion = "2025-11-25", params: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "wire-test", version: "0.0.1" },
      ...params
    }
  })

/** A JSON-RPC error without an id (`{"jsonrpc":"2.0","id":null,"error":{code,message}}`) as application/json. */
const expectRpcError = (
  response: { readonly status: number; readonly contentType: string | null | undefined; readonly body: string },
  status: number
) => {
  expect({ status: response.status, contentType: response.contentType }).toEqual({
    status,
    contentType: expect.stringMatching(/^application\/json/)
  })
  const body = JSON.parse(response.body)
  expect(body).toEqual({
    jsonrpc: "2.0",
    id: null,
    error: expect.objectContaining({ code: expect.any(Number), message: expect.any(String) })
  })
  expect(Number.isInteger(body.error.code)).toBe(true)
  return body
}

const fetched = async (response: Response) => ({
  status: response.status,
  contentType: response.headers.get("content-type"),
  body: await response.text()
})

/** Opens a legacy SSE stream; its `/messages` URL. */
const openLegacy = async (h: Harness) => {
  const response = await fetch(`${h.origin}/sse`, {
    headers: { accept: "text/event-stream" },
    signal: h.controller().signal
  })
  expect(response.status).toBe(200)
  const reader = new SseReader(response)
  const endpoint = await reader.next()
  expect(endpoint?.event).toBe("endpoint")
  return { reader, url: new URL(endpoint!.data!, `${h.origin}/sse`) }
}

describeServers("HTTP defects: methods other than the served ones", (start) => {
  const served = { "/mcp": ["GET", "POST", "DELETE"], "/sse": ["GET"], "/messages": ["POST"] } as const

  it("PUT, PATCH and OPTIONS on /mcp, /sse and /messages: 405, an Allow header, a JSON-RPC error body", async () => {
    const h = await start()
    for (const [endpoint, methods] of Object.entries(served)) {
      for (const method of ["PUT", "PATCH", "OPTIONS"]) {
        const response = await rawRequest({
          port: h.port,
          method,
          path: endpoint,
          headers: { host: `127.0.0.1:${h.port}`, accept: ACCEPT, "content-type": "application/json" },
          ...(method === "OPTIONS" ? {} : { body: "{}" })
        })
        const where = `${method} ${endpoint}`
        expect({ where, status: response.status }).toEqual({ where, status: 405 })
        expectRpcError({ ...response, contentType: response.headers["content-type"] }, 405)
        const allow = (response.headers["allow"] ?? "").split(",").map((m) => m.trim()).filter((m) => m !== "")
        expect({ where, allow: allow.filter((m) => methods.includes(m as never)).sort() }).toEqual({
          where,
          allow: [...methods].sort()
        })
      }
    }
  })

  it("HEAD /sse: 405 with an Allow header, and no legacy session (the response ends)", async () => {
    const h = await start()
    const response = await fetch(`${h.origin}/sse`, {
      method: "HEAD",
      headers: { accept: "text/event-stream" },
      signal: h.controller().signal
    })
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toMatch(/GET/)
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    // No session behind it: the server ended the response (a session's stream would stay open).
    const served = h.responses.filter((r) => r.method === "HEAD")
    expect(served.length).toBe(1)
    expect(await Promise.race([served[0].closed, deadline(2000, "the HEAD /sse response to end")])).toEqual({
      finished: true
    })
  })

  it("HEAD /mcp: 405 with an Allow header", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    for (const headers of [{}, { "mcp-session-id": c.sessionId!, "mcp-protocol-version": c.version }]) {
      const response = await fetch(h.url, {
        method: "HEAD",
        headers: { accept: "text/event-stream", ...headers },
        signal: h.controller().signal
      })
      expect(response.status).toBe(405)
      expect(response.headers.get("allow")).toMatch(/POST/)
      expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    }
  })

  it("HEAD /mcp on a session does not take its GET stream: a GET after it opens (200)", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    await fetch(h.url, {
      method: "HEAD",
      headers: { accept: "text/event-stream", "mcp-session-id": c.sessionId!, "mcp-protocol-version": c.version },
      signal: h.controller().signal
    })
    const get = await c.get()
    expect(get.status).toBe(200)
    expect(get.headers.get("content-type")).toMatch(/^text\/event-stream/)
  })
})

describeServers("HTTP defects: the session cap", (start) => {
  const post = (h: Harness, body: string) =>
    fetch(h.url, { method: "POST", headers: { accept: ACCEPT, "content-type": "application/json" }, body })

  it("maxSessions: when full, initialize gets 503 with a JSON-RPC error body; a freed place can be taken", async () => {
    // One client (one address) may hold them all here: the cap itself is what is tested.
    const h = await start({ maxSessions: 2, maxSessionsPerHolder: 2 })
    const a = new WireClient(h)
    const b = new WireClient(h)
    await a.initialize()
    await b.initialize()
    const full = await post(h, initializeBody())
    expect(full.status).toBe(503)
    expect(full.headers.get("mcp-session-id")).toBeNull()
    expect(full.headers.get("content-type")).toMatch(/^application\/json/)
    const body = await full.json()
    expect(body.jsonrpc).toBe("2.0")
    expect([null, 1]).toContain(body.id)
    expect(Number.isInteger(body.error?.code)).toBe(true)
    expect(body.error.message).toBeTypeOf("string")
    // The sessions already there are served; one ended frees its place.
    expect((await a.send("ping")).status).toBe(200)
    expect((await a.delete()).status).toBe(200)
    expect((await post(h, initializeBody())).status).toBe(200)
  })

  it("a failed initialize (invalid params, -32602) creates no session: no Mcp-Session-Id", async () => {
    const h = await start()
    const response = await post(h, initializeBody("2025-11-25", { capabilities: "none", clientInfo: 42 }))
    const body = await response.json()
    expect(body.error?.code).toBe(-32602)
    expect(response.headers.get("mcp-session-id")).toBeNull()
  })

  it("a failed initialize does not count against maxSessions", async () => {
    const h = await start({ maxSessions: 1 })
    for (let i = 0; i < 3; i++) {
      const failed = await post(h, initializeBody("2025-11-25", { capabilities: "none", clientInfo: 42 }))
      expect((await failed.json()).error?.code).toBe(-32602)
    }
    const c = new WireClient(h)
    await c.initialize() // the one place is still free
    // ...and now it is taken.
    expect((await post(h, initializeBody())).status).toBe(503)
  })
})

describeServers("HTTP defects: a request cancelled before it sent anything", (start) => {
  for (const version of ["2025-11-25", "2025-06-18"]) {
    it(`${version}: its POST's response ends right after notifications/cancelled`, async () => {
      const h = await start()
      const c = new WireClient(h, { version })
      await c.initialize()
      const key = freshKey()
      // `before: 0`: the tool waits for its gate before it sends anything.
      const pending = c.send("tools/call", { name: "controlled", arguments: { key, before: 0 } }, "quiet-call")
      await awaitDeferred(control(key).started, 5000, "the tool to start")
      const cancelled = await c.notify("notifications/cancelled", { requestId: "quiet-call" })
      expect(cancelled.status).toBe(202)
      await awaitDeferred(control(key).interrupted, 5000, "the tool to be interrupted")
      const response = await Promise.race([pending, deadline(2000, "the response of the cancelled request")])
      expect(response.status).toBeLessThan(300)
      // The response (JSON, SSE or empty) ends, with no answer for the cancelled request.
      const type = response.headers.get("content-type") ?? ""
      const messages = type.startsWith("text/event-stream")
        ? messagesOf(await new SseReader(response).rest(2000))
        : await response.text().then((text) => (text === "" ? [] : [JSON.parse(text)]))
      expect(messages.filter((m) => m.id === "quiet-call")).toEqual([])
      expect(isDone(control(key).done)).toBe(false)
    })
  }
})

describeServers("HTTP defects: the event store's byte budget", (start) => {
  const budget = 2048

  const startBudgeted = () => start({}, { eventStore: EventStore.makeMemory({ maxBytesPerSession: budget }) })

  /** A call with 40 progress events (about 4 KiB), run to its end; its frames. */
  const chatty = async (c: WireClient) => {
    const key = freshKey()
    const response = await c.send("tools/call", {
      name: "controlled",
      arguments: { key, before: 40, after: 0 },
      _meta: { progressToken: "budget" }
    }, "chatty")
    const reader = new SseReader(response)
    const head = [await reader.next(), await reader.next()]
    release(key)
    return [...head, ...await reader.rest()].filter((f) => f !== undefined)
  }

  it("maxBytesPerSession bounds the bytes a session's events keep", async () => {
    const h = await startBudgeted()
    const c = new WireClient(h)
    await c.initialize()
    const frames = await chatty(c)
    expect(messagesOf(frames).length).toBe(41)
    const sent = frames.reduce((n, f) => n + Buffer.byteLength(f.data ?? ""), 0)
    expect(sent).toBeGreaterThan(budget)
    const held = await h.store.held(c.sessionId!)
    expect(held.reduce((n, e) => n + Buffer.byteLength(e.data), 0)).toBeLessThanOrEqual(budget)
  })

  it("a Last-Event-ID whose events were evicted: 4xx with a JSON-RPC error body, not an empty 200", async () => {
    const h = await startBudgeted()
    const c = new WireClient(h)
    await c.initialize()
    const frames = await chatty(c)
    // From the priming event: the oldest events are gone, the replay would have a hole.
    const resumed = await c.get({ headers: { "last-event-id": frames[0].id! } })
    const error = await fetched(resumed)
    expect(error.status).toBeGreaterThanOrEqual(400)
    expect(error.status).toBeLessThan(500)
    expectRpcError(error, error.status)
    // From the last event, nothing is missing: served as before.
    const last = await c.get({ headers: { "last-event-id": frames[frames.length - 1].id! } })
    expect(last.status).toBe(200)
  })

  it("a Last-Event-ID of an unknown stream: 4xx with a JSON-RPC error body, not an empty 200", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const resumed = await fetched(await c.get({ headers: { "last-event-id": EventStore.eventId("s999", 0) } }))
    expect(resumed.status).toBeGreaterThanOrEqual(400)
    expect(resumed.status).toBeLessThan(500)
    expectRpcError(resumed, resumed.status)
  })
})

describeServers("HTTP defects: the maximum lifetime of a request", (start) => {
  const options: ServerOptions = { maxRequestDuration: "1 minute", sessionIdleTimeout: "1 minute" }

  /** Lets `seconds` of the server's TestClock pass in 5-second steps (a periodic sweep gets every tick). */
  const elapse = async (h: Harness, seconds: number) => {
    for (let t = 0; t < seconds; t += 5) await h.adjust("5 seconds")
  }

  it("maxRequestDuration: a request running longer is interrupted and its stream ends", async () => {
    const h = await start(options, { testClock: true })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const reader = new SseReader(
      await c.send("tools/call", {
        name: "controlled",
        arguments: { key, before: 1 },
        _meta: { progressToken: 1 }
      }, "forever")
    )
    expect((await reader.message()).params.progress).toBe(1)
    // Within its lifetime it runs on...
    await elapse(h, 50)
    expect((await c.send("ping")).status).toBe(200)
    expect(isDone(control(key).interrupted)).toBe(false)
    // ...past it (and a sweep's slack: twice the maximum), it is interrupted and its stream ends.
    await elapse(h, 70)
    await awaitDeferred(control(key).interrupted, 5000, "the request to be interrupted after maxRequestDuration")
    expect(messagesOf(await reader.rest(2000)).some((m) => m.id === "forever" && m.result !== undefined)).toBe(false)
  })

  it("maxRequestDuration: an abandoned request ends, then its session can expire", async () => {
    const h = await start(options, { testClock: true })
    const c = new WireClient(h)
    await c.initialize()
    const key = freshKey()
    const aborter = h.controller()
    const reader = new SseReader(
      await c.send(
        "tools/call",
        {
          name: "controlled",
          arguments: { key, before: 1 },
          _meta: { progressToken: 1 }
        },
        "abandoned",
        aborter.signal
      )
    )
    expect((await reader.message()).params.progress).toBe(1)
    aborter.abort()
    await h.dropped()
    expect((await h.store.held(c.sessionId!)).length).toBeGreaterThan(0)
    await elapse(h, 120)
    await awaitDeferred(control(key).interrupted, 5000, "the request to be interrupted after maxRequestDuration")
    // Idle since the request ended: the session goes once the idle timeout (and a sweep) passed.
    await elapse(h, 120)
    await eventually(async () => (await h.store.held(c.sessionId!)).length === 0)
    expect((await c.send("ping")).status).toBe(404)
  })
})

describeServers("HTTP defects: Host is parsed, not cut at the first colon", (start) => {
  it("[::1].evil.com, [::1]evil, 127.0.0.1:3000:evil → 403; [::1]:3000, localhost:3000, 127.0.0.1 → served", async () => {
    const h = await start()
    const statuses: Record<string, number> = {}
    for (
      const host of ["[::1]:3000", "localhost:3000", "127.0.0.1", "[::1].evil.com", "[::1]evil", "127.0.0.1:3000:evil"]
    ) {
      const response = await rawRequest({
        port: h.port,
        method: "POST",
        path: "/mcp",
        headers: { host, accept: ACCEPT, "content-type": "application/json" },
        body: initializeBody()
      })
      statuses[host] = response.status
    }
    expect(statuses).toEqual({
      "[::1]:3000": 200,
      "localhost:3000": 200,
      "127.0.0.1": 200,
      "[::1].evil.com": 403,
      "[::1]evil": 403,
      "127.0.0.1:3000:evil": 403
    })
  })
})

describeServers("HTTP defects: a bad body on the legacy /messages endpoint", (start) => {
  it("invalid JSON: 400 with a JSON-RPC error (-32700) as application/json; not a message: 400, -32600", async () => {
    const h = await start()
    const { url } = await openLegacy(h)
    const post = (body: string) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then(fetched)
    expect(expectRpcError(await post("{\"jsonrpc\": \"2.0\", "), 400).error.code).toBe(-32700)
    const notMessage = await post(JSON.stringify({ hello: "world" }))
    expect({ status: notMessage.status, contentType: notMessage.contentType }).toEqual({
      status: 400,
      contentType: expect.stringMatching(/^application\/json/)
    })
    expect(JSON.parse(notMessage.body).error.code).toBe(-32600)
  })
})

describeServers("HTTP defects: media types are parsed, not searched for substrings", (start) => {
  it("POST: Accept and Content-Type", async () => {
    const h = await start()
    const post = (headers: Record<string, string>) =>
      rawRequest({
        port: h.port,
        method: "POST",
        path: "/mcp",
        headers: { host: `127.0.0.1:${h.port}`, ...headers },
        body: initializeBody()
      }).then((r) => r.status)
    const json = { "content-type": "application/json" }
    expect({
      "application/json;q=0.9, text/event-stream": await post({
        accept: "application/json;q=0.9, text/event-stream",
        ...json
      }),
      "application/*, text/*": await post({ accept: "application/*, text/*", ...json }),
      "application/jsonx, text/event-streams": await post({ accept: "application/jsonx, text/event-streams", ...json }),
      "content-type application/json; charset=utf-8": await post({
        accept: ACCEPT,
        "content-type": "application/json; charset=utf-8"
      }),
      "content-type application/json-seq": await post({ accept: ACCEPT, "content-type": "application/json-seq" })
    }).toEqual({
      "application/json;q=0.9, text/event-stream": 200,
      "application/*, text/*": 200,
      "application/jsonx, text/event-streams": 406,
      "content-type application/json; charset=utf-8": 200,
      "content-type application/json-seq": 415
    })
  })

  it("GET: Accept text/* opens the stream, text/event-streams is refused (406)", async () => {
    const h = await start()
    const c = new WireClient(h)
    await c.initialize()
    const refused = await c.get({ headers: { accept: "text/event-streams" } })
    const starred = await c.get({ headers: { accept: "text/*" } })
    expect({ "text/event-streams": refused.status, "text/*": starred.status }).toEqual({
      "text/event-streams": 406,
      "text/*": 200
    })
  })
})

describe("HTTP defects: importing @effect-mcp/platform-node", () => {
  const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

  it("does not read process.stdin at module load", async () => {
    // A child process: the getter of `process.stdin` is watched before the package (its src, through
    // the `@effect-mcp/source` condition) is imported by name.
    const probe = `
      const descriptor = Object.getOwnPropertyDescriptor(process, "stdin")
      let stack
      Object.defineProperty(process, "stdin", {
        ...descriptor,
        get() {
          stack ??= new Error("process.stdin was read").stack
          return descriptor.get.call(this)
        }
      })
      const module = await import("@effect-mcp/platform-node")
      console.log(JSON.stringify({ imported: typeof module.NodeMcpServer, stack: stack ?? null }))
    `
    const output = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--conditions=@effect-mcp/source", "--import", "tsx", "--input-type=module", "-e", probe],
        { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] }
      )
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      child.once("error", reject)
      child.once("close", (code) => resolve({ code, stdout, stderr }))
    })
    expect(output.code, output.stderr).toBe(0)
    const result = JSON.parse(output.stdout.trim().split("\n").pop()!)
    expect(result.imported).toBe("object")
    expect(result.stack).toBeNull()
  }, 30_000)
})

const deadline = (ms: number, what: string) =>
  new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms).unref())
