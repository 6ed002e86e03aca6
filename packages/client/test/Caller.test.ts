/**
 * `McpClient.currentCaller`: the handler of a server's ask sees the caller of the request that
 * raised it. A handshake server over Streamable HTTP asks on the request's own event stream; two
 * callers with requests in flight at once each get their own asks.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as http from "node:http"
import type * as net from "node:net"

const json = (response: http.ServerResponse, body: unknown, headers: http.OutgoingHttpHeaders = {}) => {
  response.writeHead(200, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

/**
 * A handshake server whose `tools/call` asks an elicitation on the call's stream, then answers
 * with what the elicitation got, once both calls in flight asked (so they overlap).
 */
const server = Effect.acquireRelease(
  Effect.async<http.Server>((resume) => {
    const streams = new Map<string, { readonly response: http.ServerResponse; readonly id: unknown }>()
    const waiting: Array<() => void> = []
    const server = http.createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => body += chunk.toString())
      request.on("end", () => {
        if (request.method !== "POST") {
          response.writeHead(405)
          return response.end()
        }
        const message = JSON.parse(body)
        if (message.method === "initialize") {
          return json(response, {
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: "2025-11-25",
              capabilities: { tools: {} },
              serverInfo: { name: "s", version: "1" }
            }
          }, { "mcp-session-id": "s1" })
        }
        if (message.method === "tools/call") {
          response.writeHead(200, { "content-type": "text/event-stream" })
          const ask = `ask-${message.id}`
          streams.set(ask, { response, id: message.id })
          const send = () =>
            response.write(`data: ${
              JSON.stringify({
                jsonrpc: "2.0",
                id: ask,
                method: "elicitation/create",
                params: { mode: "form", message: "Who?", requestedSchema: { type: "object", properties: {} } }
              })
            }\n\n`)
          waiting.push(send)
          if (waiting.length === 2) waiting.splice(0).forEach((f) => f())
          return
        }
        if (message.method === undefined && streams.has(message.id)) {
          const { id, response: stream } = streams.get(message.id)!
          streams.delete(message.id)
          response.writeHead(202)
          response.end()
          stream.end(`data: ${
            JSON.stringify({
              jsonrpc: "2.0",
              id,
              result: { content: [{ type: "text", text: String(message.result.content.who) }] }
            })
          }\n\n`)
          return
        }
        response.writeHead(202)
        response.end()
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

describe("McpClient.currentCaller", () => {
  it.scopedLive("a handshake server's ask on a request's stream is handled as that request's caller", () =>
    Effect.gen(function*() {
      const port = ((yield* server).address() as net.AddressInfo).port
      const context = yield* Layer.build(
        McpClient.layer({
          clientInfo: { name: "t", version: "1" },
          era: "handshake",
          handlers: {
            elicitation: () =>
              Effect.map(FiberRef.get(McpClient.currentCaller), (caller) => ({
                action: "accept" as const,
                content: { who: String(caller) }
              }))
          }
        }).pipe(
          Layer.provide(McpClientTransport.layerHttp({ url: `http://127.0.0.1:${port}/mcp` })),
          Layer.provide(FetchHttpClient.layer)
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      const textOf = (caller: string | undefined) => {
        const call = Effect.map(client.callTool("who", {}), (result) => (result.content[0] as { text: string }).text)
        return caller === undefined ? call : Effect.locally(call, McpClient.currentCaller, caller)
      }
      const [ada, bob] = yield* Effect.all([textOf("ada"), textOf("bob")], { concurrency: "unbounded" })
      assert.deepStrictEqual([ada, bob], ["ada", "bob"])
      // Nobody set it: the handler sees undefined.
      const [one, two] = yield* Effect.all([textOf(undefined), textOf("carol")], { concurrency: "unbounded" })
      assert.deepStrictEqual([one, two], ["undefined", "carol"])
    }))
})
