/**
 * 2026-07-28 HTTP: each POST is its request's only channel (its sink). What the request causes
 * (progress, its answer) goes on its own response, never another's, however many are in flight;
 * and when the server shuts down while a request runs, its JSON response ends with an error that
 * carries its own id (the back end knows whose response it is; an engine's client id did not say).
 */
import { statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import { assert, describe, expect, it } from "@effect/vitest"
import { awaitDeferred, control, freshKey, readAll, release, serverPaths, startServer } from "./utils/http.js"

const V = "2026-07-28"
const statelessOnly = { revisions: [V] } as const

const meta = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "sink-test", version: "0.0.1" },
  ...extra
})

/** POSTs one `tools/call` with its standard headers. */
const call = (
  url: string,
  id: number | string,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown>,
  signal: AbortSignal
) =>
  fetch(url, {
    method: "POST",
    headers: statelessHeaders("tools/call", name),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, _meta: meta(extra) }
    }),
    signal
  })

for (const path of serverPaths) {
  describe(`HTTP 2026-07-28: one request, one channel [${path}]`, () => {
    it("fifty requests in flight at once, each with its progress: every response carries its own, none crossed", async () => {
      const h = await startServer(path, {}, statelessOnly)
      const signal = h.controller().signal
      const keys = Array.from({ length: 50 }, () => freshKey())
      // Every one held open at its gate, its first progress sent: all fifty in flight together.
      const pending = keys.map((key, i) =>
        call(h.url, i % 2 === 0 ? i : `s${i}`, "controlled", { key, before: 1, after: 1 }, {
          progressToken: `t${i}`
        }, signal)
      )
      await Promise.all(keys.map((key) => awaitDeferred(control(key).started, 20_000, `call ${key} started`)))
      for (const key of keys.slice().reverse()) release(key)
      const responses = await Promise.all(pending)
      const bodies = await Promise.all(responses.map(readAll))
      bodies.forEach((messages, i) => {
        const id = i % 2 === 0 ? i : `s${i}`
        expect(messages.map((m) => m.method ?? "answer")).toEqual([
          "notifications/progress",
          "notifications/progress",
          "answer"
        ])
        for (const progress of messages.slice(0, 2)) assert.strictEqual(progress.params.progressToken, `t${i}`)
        expect(messages[2]).toMatchObject({ id, result: { content: [{ text: `done ${keys[i]}` }] } })
      })
    })

    it("shutting down while a request runs: its response is 503 with an error carrying its id", async () => {
      const h = await startServer(path, {}, statelessOnly)
      const key = freshKey()
      // Not aborted when the harness closes: the response is read as the server stops.
      const pending = call(h.url, 41, "controlled", { key, before: 0 }, {}, new AbortController().signal)
      await awaitDeferred(control(key).started, 20_000, "the call's start")
      const closing = h.close()
      const response = await pending
      expect(response.status).toBe(503)
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        id: 41,
        error: { code: -32603, message: "The server is shutting down" }
      })
      await closing
      await awaitDeferred(control(key).interrupted, 20_000, "the handler's interruption")
    })
  })
}
