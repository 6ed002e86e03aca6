/**
 * A handshake session's requests in flight over Streamable HTTP are bounded (`maxRequestsInFlight`).
 *
 * In that era a POST whose connection closes is no cancellation (its stream may be resumed with
 * `Last-Event-ID`): the request runs on, up to `maxRequestDuration` (an hour by default). A hostile
 * client that POSTs long requests (`tasks/result` on a task that works for an hour, a slow tool)
 * and cuts each connection held a fiber and its channel per request, as many as it sent: 5,000
 * such `tasks/result` took the demo server from 24.6 to 98.4 MiB of heap after GC (4,693 fibers
 * live; `test/hostile/probes/cut-waits.mjs`). Now past the bound a POST of requests gets 429 with a
 * JSON-RPC error carrying its id, nothing of it runs, and what is in flight is untouched;
 * notifications still pass, and a request cancelled frees its place.
 *
 * Before: the request past the bound was served (200, the echo's result).
 *
 * Also: the bound over a holder's sessions and over all sessions (`maxRequestsInFlightPerHolder`,
 * `maxRequestsInFlightTotal`; before, only `maxSessions` × `maxRequestsInFlight`), the legacy
 * HTTP+SSE transport's bound, 2026-07-28 requests per holder and in total (before: no bound but the
 * connections'), and a POST cut by its client settling its Web handler's promise at
 * once (before, it stayed pending until the request was answered).
 */
import { handshakeHeaders, statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { onTestFinished } from "vitest"
import * as HttpTransport from "../src/HttpTransport.js"
import * as McpServer from "../src/McpServer.js"
import * as Tool from "../src/Tool.js"

const url = "http://localhost/mcp"

/** What the hanging tool saw: each call started and each interrupted, with a wake-up for waiters. */
const seen = { started: 0, interrupted: 0, wake: [] as Array<() => void> }
const tell = () => {
  for (const wake of seen.wake.splice(0)) wake()
}
const until = (check: () => boolean) =>
  new Promise<void>((resolve) => {
    const look = () => (check() ? resolve() : seen.wake.push(look))
    look()
  })

const Hang = Tool.make("hang", {}, () =>
  Effect.zipRight(
    Effect.sync(() => {
      seen.started++
      tell()
    }),
    Effect.onInterrupt(Effect.never, () =>
      Effect.sync(() => {
        seen.interrupted++
        tell()
      }))
  ))

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(`echo: ${text}`)
)

/** A 2025-11-25 session opened on `web`: its POST (a signal may cut it), and its id. */
const sessionOn = async (web: { readonly handler: (request: Request) => Promise<Response> }) => {
  const post = (message: Record<string, unknown>, session?: string, signal?: AbortSignal) =>
    web.handler(
      new Request(url, {
        method: "POST",
        headers: handshakeHeaders(session),
        body: JSON.stringify(message),
        ...(signal === undefined ? {} : { signal })
      })
    )
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cut", version: "1" } }
  })
  const session = init.headers.get("mcp-session-id")!
  await init.text()
  expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202)
  return { post, session }
}

const serverLayer = McpServer.layer({
  serverInfo: { name: "in-flight", version: "1.0.0" },
  revisions: ["2025-11-25"],
  tools: [Hang, Echo]
})

describe("a handshake session's requests in flight over HTTP", () => {
  it("past maxRequestsInFlight: 429 with the request's id; cut POSTs still count; a cancel frees a place", async () => {
    seen.started = seen.interrupted = 0
    const web = HttpTransport.toWebHandler(serverLayer, { maxRequestsInFlight: 5 })
    onTestFinished(() => web.dispose())
    const { post, session } = await sessionOn(web)

    // Five calls that never end, each POST cut once its call started: in this era they run on.
    const cuts = Array.from({ length: 5 }, () => new AbortController())
    cuts.forEach((cut, i) =>
      void post({ jsonrpc: "2.0", id: 100 + i, method: "tools/call", params: { name: "hang" } }, session, cut.signal)
        .catch(() => undefined)
    )
    await until(() => seen.started === 5)
    // (Their handlers' promises settle at once; their calls run on, as the era has it.)
    for (const cut of cuts) cut.abort()
    expect(seen.interrupted).toBe(0)

    // The sixth request of the session, however short, is refused at once with its id.
    const refused = await post(
      { jsonrpc: "2.0", id: 200, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } },
      session
    )
    expect(refused.status).toBe(429)
    expect(await refused.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 200,
      error: { code: -32000, message: expect.stringContaining("maxRequestsInFlight") }
    })
    expect(seen.interrupted).toBe(0)

    // A notification still passes; the cancelled call frees its place.
    expect(
      (await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 100 } }, session)).status
    ).toBe(202)
    await until(() => seen.interrupted === 1)
    const served = await post(
      { jsonrpc: "2.0", id: 201, method: "tools/call", params: { name: "echo", arguments: { text: "y" } } },
      session
    )
    expect(served.status).toBe(200)
    expect(await served.text()).toContain("echo: y")
  })

  it("a holder's sessions and all sessions together: 429 past maxRequestsInFlightPerHolder and maxRequestsInFlightTotal", async () => {
    seen.started = seen.interrupted = 0
    // Clients told apart by a header (as `holderOf` reads one a platform sets).
    const web = HttpTransport.toWebHandler(serverLayer, {
      maxRequestsInFlight: 5,
      maxRequestsInFlightPerHolder: 6,
      maxRequestsInFlightTotal: 8,
      holderOf: (exchange) => exchange.header("x-holder")
    })
    onTestFinished(() => web.dispose())
    const post = (holder: string, message: Record<string, unknown>, session?: string) =>
      web.handler(
        new Request(url, {
          method: "POST",
          headers: { ...handshakeHeaders(session), "x-holder": holder },
          body: JSON.stringify(message)
        })
      )
    const open = async (holder: string) => {
      const init = await post(holder, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: holder, version: "1" } }
      })
      const session = init.headers.get("mcp-session-id")!
      await init.text()
      expect((await post(holder, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202)
      return session
    }
    const hang = (holder: string, session: string, id: number) =>
      void post(holder, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "hang" } }, session)
    const echo = (holder: string, session: string, id: number) =>
      post(
        holder,
        { jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } },
        session
      )

    // Holder a: four calls in one session, two in another: its six.
    const a1 = await open("a")
    const a2 = await open("a")
    for (let i = 0; i < 4; i++) hang("a", a1, 100 + i)
    for (let i = 0; i < 2; i++) hang("a", a2, 200 + i)
    await until(() => seen.started === 6)
    // Its second session holds two of its five, but the holder holds its six.
    const perHolder = await echo("a", a2, 300)
    expect(perHolder.status).toBe(429)
    expect(await perHolder.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 300,
      error: { code: -32000, message: expect.stringContaining("maxRequestsInFlightPerHolder") }
    })
    // Holder b: two calls, and all sessions hold their eight.
    const b = await open("b")
    for (let i = 0; i < 2; i++) hang("b", b, 400 + i)
    await until(() => seen.started === 8)
    const total = await echo("b", b, 500)
    expect(total.status).toBe(429)
    expect(await total.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 500,
      error: { code: -32000, message: expect.stringContaining("maxRequestsInFlightTotal") }
    })
    expect(seen.interrupted).toBe(0)

    // One of a's calls cancelled: b is served again; a session ended frees all of its places.
    expect(
      (await post("a", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 100 } }, a1)).status
    ).toBe(202)
    await until(() => seen.interrupted === 1)
    const served = await echo("b", b, 501)
    expect(served.status).toBe(200)
    expect(await served.text()).toContain("echo: x")
    const ended = await web.handler(
      new Request(url, { method: "DELETE", headers: { ...handshakeHeaders(a1), "x-holder": "a" } })
    )
    expect(ended.status).toBe(200)
    await until(() => seen.interrupted === 4)
    const again = await echo("a", a2, 301)
    expect(again.status).toBe(200)
    expect(await again.text()).toContain("echo: x")
  })

  it("legacy HTTP+SSE: past maxRequestsInFlight a POST gets 429 with its id; a cancel frees a place", async () => {
    seen.started = seen.interrupted = 0
    const web = HttpTransport.toWebHandler(
      McpServer.layer({ serverInfo: { name: "in-flight", version: "1.0.0" }, tools: [Hang, Echo] }),
      { maxRequestsInFlight: 2 }
    )
    onTestFinished(() => web.dispose())
    const stream = await web.handler(new Request("http://localhost/sse", { headers: { accept: "text/event-stream" } }))
    expect(stream.status).toBe(200)
    // The stream read as it comes: its text so far, and a wait for a piece of it.
    const reader = stream.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    const read = async (piece: string) => {
      while (!text.includes(piece)) {
        const { done, value } = await reader.read()
        if (done) throw new Error(`the stream ended before ${piece}`)
        text += decoder.decode(value, { stream: true })
      }
    }
    onTestFinished(() => void reader.cancel())
    await read("event: endpoint")
    await read("\n\n")
    const endpoint = /data: ?(\S+)/.exec(text.slice(text.indexOf("event: endpoint")))![1]
    const post = (message: Record<string, unknown>) =>
      web.handler(
        new Request(new URL(endpoint, "http://localhost"), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(message)
        })
      )
    expect(
      (await post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "legacy", version: "1" } }
      })).status
    ).toBe(202)
    await read(`"id":0`)
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202)

    for (const id of [100, 101]) {
      expect((await post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "hang" } })).status).toBe(202)
    }
    await until(() => seen.started === 2)
    const refused = await post({
      jsonrpc: "2.0",
      id: 200,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } }
    })
    expect(refused.status).toBe(429)
    expect(await refused.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 200,
      error: { code: -32000, message: expect.stringContaining("maxRequestsInFlight") }
    })

    expect((await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 100 } })).status)
      .toBe(202)
    await until(() => seen.interrupted === 1)
    expect(
      (await post({
        jsonrpc: "2.0",
        id: 201,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "y" } }
      }))
        .status
    ).toBe(202)
    await read("echo: y")
    expect(text).not.toContain("echo: x")
  })

  it(
    "a 2025-11-25 POST cut by its client: the Web handler's promise settles at once, the request runs on",
    async () => {
      seen.started = seen.interrupted = 0
      const web = HttpTransport.toWebHandler(serverLayer, {})
      onTestFinished(() => web.dispose())
      const { post, session } = await sessionOn(web)

      const cut = new AbortController()
      let settled = false
      const pending = post(
        { jsonrpc: "2.0", id: 100, method: "tools/call", params: { name: "hang" } },
        session,
        cut.signal
      )
        .then(() => settled = true, () => settled = true)
      await until(() => seen.started === 1)
      expect(settled).toBe(false)
      cut.abort()
      // Settles without the call being answered (it never is) ...
      await pending
      expect(settled).toBe(true)
      // ... and the call runs on, for a resumption, until cancelled.
      expect(seen.interrupted).toBe(0)
      expect(
        (await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 100 } }, session)).status
      ).toBe(202)
      await until(() => seen.interrupted === 1)
    },
    15_000
  )

  it(
    "2026-07-28: requests served on their POSTs, per holder and in total, 429 past the bounds; a cut POST frees its place",
    async () => {
      seen.started = seen.interrupted = 0
      const web = HttpTransport.toWebHandler(
        McpServer.layer({
          serverInfo: { name: "in-flight", version: "1.0.0" },
          revisions: ["2026-07-28"],
          tools: [Hang, Echo]
        }),
        {
          maxRequestsInFlightPerHolder: 3,
          maxRequestsInFlightTotal: 5,
          holderOf: (exchange) => exchange.header("x-holder")
        }
      )
      onTestFinished(() => web.dispose())
      const call = (
        holder: string,
        id: number,
        name: string,
        args: Record<string, unknown> = {},
        signal?: AbortSignal
      ) =>
        web.handler(
          new Request(url, {
            method: "POST",
            headers: { ...statelessHeaders("tools/call", name), "x-holder": holder },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id,
              method: "tools/call",
              params: {
                name,
                arguments: args,
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}
                }
              }
            }),
            ...(signal === undefined ? {} : { signal })
          })
        )
      const cuts = Array.from({ length: 3 }, () => new AbortController())
      cuts.forEach((cut, i) => void call("a", 100 + i, "hang", {}, cut.signal).catch(() => undefined))
      await until(() => seen.started === 3)
      const perHolder = await call("a", 103, "hang")
      expect(perHolder.status).toBe(429)
      expect(await perHolder.json()).toMatchObject({
        id: 103,
        error: { code: -32000, message: expect.stringContaining("maxRequestsInFlightPerHolder") }
      })
      for (const id of [200, 201]) void call("b", id, "hang").catch(() => undefined)
      await until(() => seen.started === 5)
      const total = await call("b", 202, "hang")
      expect(total.status).toBe(429)
      expect(await total.json()).toMatchObject({
        id: 202,
        error: { code: -32000, message: expect.stringContaining("maxRequestsInFlightTotal") }
      })
      expect(seen.started).toBe(5)
      // A POST cut is this era's cancellation: its call ends, its place is free.
      cuts[0].abort()
      await until(() => seen.interrupted === 1)
      const served = await call("b", 203, "echo", { text: "z" })
      expect(served.status).toBe(200)
      expect(await served.text()).toContain("echo: z")
    },
    15_000
  )
})
