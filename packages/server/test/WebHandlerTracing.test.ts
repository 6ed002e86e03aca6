/**
 * `HttpTransport.toWebHandler` and tracing: the fetch handler makes its exchanges straight from the
 * `Request` (no @effect/platform request, so no `http.server` span of the platform, as on the
 * `node:http` path): with a tracer that records, the request's own span is recorded; with Effect's
 * default tracer, nothing is, and the answer is the same either way.
 */
import { statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Tracer from "effect/Tracer"
import { onTestFinished } from "vitest"
import * as HttpTransport from "../src/HttpTransport.js"
import * as McpServer from "../src/McpServer.js"
import * as Tool from "../src/Tool.js"

const Echo = Tool.make(
  "echo",
  { parameters: Schema.Struct({ text: Schema.String }) },
  ({ text }) => Effect.succeed(`echo: ${text}`)
)

const server = McpServer.layer({
  serverInfo: { name: "web-tracing", version: "1.0.0" },
  revisions: ["2026-07-28"],
  tools: [Echo]
})

const call = () =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: statelessHeaders("tools/call", "echo"),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "echo",
        arguments: { text: "hi" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    })
  })

const answered = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "echo: hi" }] } }

/** Effect's default tracer, recording the names of the spans it is asked for. */
const recording = (names: Array<string>): Tracer.Tracer => {
  const native = Effect.runSync(Effect.tracer)
  return Tracer.make({
    span: (name, ...rest) => {
      names.push(name)
      return native.span(name, ...rest)
    },
    context: native.context
  })
}

describe("HttpTransport.toWebHandler, tracing", () => {
  it("with a tracer that records: the request's span, and no span of the platform", async () => {
    const names: Array<string> = []
    const web = HttpTransport.toWebHandler(Layer.provide(server, Layer.setTracer(recording(names))))
    onTestFinished(() => web.dispose())
    const response = await web.handler(call())
    expect(await response.json()).toMatchObject(answered)
    expect(names).toContain("tools/call echo")
    expect(names.filter((name) => name.startsWith("http.server"))).toEqual([])
  })

  it("with Effect's default tracer: the same answer", async () => {
    const web = HttpTransport.toWebHandler(server)
    onTestFinished(() => web.dispose())
    const response = await web.handler(call())
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject(answered)
  })
})
