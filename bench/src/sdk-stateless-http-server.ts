/**
 * The official TypeScript SDK serving the `add` tool over Streamable HTTP in the stateless
 * 2026-07-28 revision, the way its documentation sets it up on plain `node:http`:
 * `createMcpHandler(factory)` from `@modelcontextprotocol/server` 2.4.0 (a fresh `McpServer`
 * from the factory for every request, as the entry is designed), wrapped once with
 * `toNodeHandler` from `@modelcontextprotocol/node` 2.1.2, behind the `Host` / `Origin` guards
 * the node package recommends (the entry itself validates neither). Answers take the SDK's
 * default `responseMode: "auto"`: one JSON body unless the handler sends something before its
 * result (`add` does not), like ours.
 *
 * `--legacy` (the entry's default, `legacy: "stateless"`) also serves 2025-era requests, each
 * by a fresh instance, like our dual server; without it the endpoint is modern-only
 * (`legacy: "reject"`), like our stateless-only server.
 *
 * Control (`control.ts`): `addTool` registers one more tool (`extra-1`, …) on the instances the
 * factory makes from then on, and publishes `notifications/tools/list_changed` to the open
 * `subscriptions/listen` streams (`handler.notify.toolsChanged()`); it answers `added <name>`.
 *
 * `node dist/sdk-stateless-http-server.js --port N [--legacy]`
 */
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { createServer } from "node:http"
import * as z from "zod"
import { flag, port, ready } from "./control.js"

// The schemas are made once and shared by every request's server, so a request costs only the SDK's own work.
const inputSchema = z.object({ a: z.number(), b: z.number() })
const outputSchema = z.object({ sum: z.number() })

/** The tools `addTool` added so far. */
const extras: Array<string> = []

const newServer = () => {
  const server = new McpServer({ name: "sdk-add", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: true } }
  })
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema, outputSchema },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } })
  )
  for (const name of extras) {
    server.registerTool(name, { description: "Added while running" }, async () => ({
      content: [{ type: "text", text: "ok" }]
    }))
  }
  return server
}

const handler = createMcpHandler(newServer, {
  legacy: flag("legacy") ? "stateless" : "reject",
  onerror: (error) => process.stderr.write(`sdk: ${error.message}\n`)
})
const serve = toNodeHandler(handler)

const validHost = localhostHostValidation()
const validOrigin = localhostOriginValidation()

createServer((request, response) => {
  if (!validHost(request, response) || !validOrigin(request, response)) return
  // A node:http request is one (its `method` is only typed optional, for client-side messages).
  void serve(request as Parameters<typeof serve>[0], response)
}).listen(port(), "127.0.0.1", () =>
  ready({
    addTool: async () => {
      const name = `extra-${extras.length + 1}`
      extras.push(name)
      handler.notify.toolsChanged()
      return `added ${name}`
    }
  }))
