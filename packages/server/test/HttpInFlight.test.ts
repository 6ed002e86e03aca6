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
 */
import { handshakeHeaders } from "@effect-mcp/test-support/HttpWire"
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

    // Five calls that never end, each POST cut once its call started: in this era they run on.
    const cuts = Array.from({ length: 5 }, () => new AbortController())
    cuts.forEach((cut, i) =>
      void post({ jsonrpc: "2.0", id: 100 + i, method: "tools/call", params: { name: "hang" } }, session, cut.signal)
        .catch(() => undefined)
    )
    await until(() => seen.started === 5)
    // (Their handlers' promises stay pending: in this era a POST is answered when its request is.)
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
})
