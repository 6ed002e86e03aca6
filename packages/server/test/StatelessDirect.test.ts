/**
 * 2026-07-28 over HTTP, at the wire (JSON text in and out through a web handler): a request whose
 * answer is there at once is answered by the back end on its own response, without the engine
 * (`Stateless.Direct`); everything else goes to the engine, which answers it as before. What the
 * engine would record of a request it still records: a defect is logged and answered -32603, and
 * with Debug logging on, each request has its line (the back end leaves such requests to the
 * engine). These hold before and after the direct path: they keep it honest.
 */
import { HttpTransport, McpServer, Tool } from "@effect-mcp/server"
import { statelessHeaders } from "@effect-mcp/test-support/HttpWire"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import { onTestFinished } from "vitest"

const V = "2026-07-28"

const numbers = Schema.Struct({ a: Schema.Number, b: Schema.Number })
/** Done at once: its handler is an `Effect.succeed`. */
const Add = Tool.make(
  "add",
  { parameters: numbers, success: Schema.Struct({ sum: Schema.Number }) },
  ({ a, b }) => Effect.succeed({ sum: a + b })
)
/** Not done at once: it yields before answering. */
const Later = Tool.make(
  "later",
  { parameters: numbers, success: Schema.Struct({ sum: Schema.Number }) },
  ({ a, b }) => Effect.as(Effect.yieldNow(), { sum: a + b })
)
/** A defect, at once. */
const Boom = Tool.make("boom", {}, () => Effect.die(new Error("boom")))
/** A defect as it is called: it throws instead of returning an Effect. */
const Throws = Tool.make("throws", {}, (): Effect.Effect<Tool.Result> => {
  throw new Error("sync bug")
})

const serve = (level: LogLevel.LogLevel) => {
  const logged: Array<string> = []
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => logged.push(`${logLevel.label} ${String(message)}`))
  )
  const app = HttpTransport.layer({}).pipe(
    Layer.provideMerge(McpServer.layer({
      serverInfo: { name: "direct", version: "1.0.0" },
      revisions: [V],
      tools: [Add, Later, Boom, Throws]
    })),
    Layer.provide(Logger.minimumLogLevel(level)),
    Layer.provide(logger)
  )
  const { dispose, handler } = HttpLayerRouter.toWebHandler(app, { disableLogger: true })
  onTestFinished(() => dispose())
  let ids = 0
  const call = async (name: string, args: Record<string, unknown>) => {
    const id = ++ids
    const response = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { host: "localhost", ...statelessHeaders("tools/call", name) },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            name,
            arguments: args,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": V,
              "io.modelcontextprotocol/clientCapabilities": {}
            }
          }
        })
      })
    )
    return { id, status: response.status, body: JSON.parse(await response.text()) }
  }
  return { call, logged }
}

describe("2026-07-28 over HTTP: answered at once, or by the engine", () => {
  it("results at once and later, a protocol error, a defect: each answered with its id, as before", async () => {
    const { call, logged } = serve(LogLevel.Info)
    const now = await call("add", { a: 2, b: 3 })
    expect(now.status).toBe(200)
    expect(now.body).toMatchObject({
      jsonrpc: "2.0",
      id: now.id,
      result: {
        resultType: "complete",
        structuredContent: { sum: 5 },
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "direct" } }
      }
    })
    const later = await call("later", { a: 4, b: 5 })
    expect(later.status).toBe(200)
    expect(later.body).toMatchObject({
      id: later.id,
      result: { resultType: "complete", structuredContent: { sum: 9 } }
    })
    // The arguments do not decode: a tool error (2025-11-25 and later), at once.
    const bad = await call("add", { a: "two", b: 3 })
    expect(bad.body).toMatchObject({ id: bad.id, result: { isError: true } })
    // An unknown tool: -32602, 400.
    const unknown = await call("nope", {})
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({ id: unknown.id, error: { code: -32602 } })
    // A defect: -32603 for that request, and a log line naming the tool.
    const boom = await call("boom", {})
    expect(boom.body).toMatchObject({ id: boom.id, error: { code: -32603, message: "Internal error" } })
    expect(logged.filter((line) => line.startsWith("ERROR effect-mcp: tools/call boom failed"))).toHaveLength(1)
    // At Info level, no line per request.
    expect(logged.filter((line) => line.startsWith("DEBUG effect-mcp: tools/call"))).toEqual([])
  })

  it("a handler that throws as it is called: -32603 for that request, logged, and the server goes on", async () => {
    const { call, logged } = serve(LogLevel.Info)
    const thrown = await call("throws", {})
    expect(thrown.body).toMatchObject({ id: thrown.id, error: { code: -32603, message: "Internal error" } })
    expect(logged.filter((line) => line.startsWith("ERROR effect-mcp: tools/call throws failed"))).toHaveLength(1)
    const next = await call("add", { a: 1, b: 2 })
    expect(next.body).toMatchObject({ id: next.id, result: { structuredContent: { sum: 3 } } })
  })

  it("with Debug logging on, a request done at once still has its line (the engine answers it)", async () => {
    const { call, logged } = serve(LogLevel.Debug)
    const now = await call("add", { a: 1, b: 1 })
    expect(now.body).toMatchObject({ id: now.id, result: { structuredContent: { sum: 2 } } })
    const unknown = await call("nope", {})
    expect(unknown.body).toMatchObject({ id: unknown.id, error: { code: -32602 } })
    const lines = logged.filter((line) => line.startsWith("DEBUG effect-mcp: tools/call"))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^DEBUG effect-mcp: tools\/call add ok in \d+\.\d ms$/)
    expect(lines[1]).toMatch(/^DEBUG effect-mcp: tools\/call nope error -32602 in \d+\.\d ms$/)
  })
})
