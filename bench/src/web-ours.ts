/**
 * effect-mcp serving the `add` tool (`ours-add.ts`), stateless (2026-07-28 alone), as a
 * Web-standard fetch handler for the runtime benchmarks (`runtimes.ts`): on Bun and Deno
 * `HttpTransport.toWebHandler` (the server built once, by the first request), as a Worker
 * `HttpTransport.toWorkerHandler` (built once per isolate, by its first request), with their
 * defaults (Host and Origin allow-lists for loopback).
 *
 * `construct n`: n handlers in a row, each built, its first `tools/call` answered, then disposed,
 * ms each: what building ours costs, which it pays once per process or isolate.
 */
import * as HttpTransport from "@effect-mcp/server/HttpTransport"
import { stateless } from "./envelope.js"
import { serverOf } from "./ours-add.js"
import type { Served } from "./web-serve.js"

const server = serverOf("stateless")

const web = HttpTransport.toWebHandler(server)

const call = () =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "add"
    },
    body: stateless.addCall(1)
  })

const construct = async (n: number): Promise<string> => {
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    const fresh = HttpTransport.toWebHandler(server)
    const response = await fresh.handler(call())
    const text = await response.text()
    if (!text.includes("\"sum\":2")) throw new Error(`a fresh handler answered ${response.status} ${text}`)
    await fresh.dispose()
  }
  const millis = (performance.now() - start) / n
  return `${millis.toFixed(2)} ms per handler (${n}, built + its first call answered + disposed)`
}

export const served: Served = { fetch: web.handler, construct }

export const worker = HttpTransport.toWorkerHandler(server)
