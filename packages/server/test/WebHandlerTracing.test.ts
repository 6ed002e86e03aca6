/**
 * `HttpTransport.toWebHandler` and tracing: @effect/platform wraps every request of a fetch handler
 * in an `http.server` span (its URL parsed, its headers redacted). With Effect's default tracer,
 * which records nothing, the handler leaves that span out (a third of the platform's time per
 * request on Deno, `pnpm bench:runtimes`); with a tracer that records, it is kept, the parent of
 * our own span of the request, and the answer is the same either way.
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
  it("with a tracer that records: the platform's http.server span, and ours under it", async () => {
    const names: Array<string> = []
    const web = HttpTransport.toWebHandler(Layer.provide(server, Layer.setTracer(recording(names))))
    onTestFinished(() => web.dispose())
    const response = await web.handler(call())
    expect(await response.json()).toMatchObject(answered)
    expect(names).toContain("http.server POST")
    expect(names).toContain("tools/call echo")
  })

  it("with Effect's default tracer: the same answer", async () => {
    const web = HttpTransport.toWebHandler(server)
    onTestFinished(() => web.dispose())
    const response = await web.handler(call())
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject(answered)
  })
})
