/**
 * The official TypeScript SDK's entry for fetch platforms serving the `add` tool, stateless
 * (2026-07-28), for the runtime benchmarks (`runtimes.ts`): `createMcpHandler(factory, { legacy:
 * "reject" })` from `@modelcontextprotocol/server` 2.4.0 (built once; its factory makes a fresh
 * `McpServer` for every request, as the entry is designed), behind the SDK's Web-standard Host and
 * Origin guards for localhost (`hostHeaderValidationResponse`, `originValidationResponse`: the
 * entry itself checks neither; ours does by default). The same server as
 * `sdk-stateless-http-server.ts` on `node:http`. As a Worker: `worker` (the handler built once per
 * isolate, at module scope).
 *
 * `construct n`: n calls of the factory in a row (a new `McpServer` and its `add` tool), µs each:
 * what the entry spends building a server for every request, before serving it.
 */
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse
} from "@modelcontextprotocol/server"
import * as z from "zod"
import type { Served } from "./web-serve.js"

// The schemas are made once and shared by every request's server, so a request costs only the SDK's own work.
const inputSchema = z.object({ a: z.number(), b: z.number() })
const outputSchema = z.object({ sum: z.number() })

const newServer = () => {
  const server = new McpServer({ name: "sdk-add", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema, outputSchema },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } })
  )
  return server
}

const handler = createMcpHandler(newServer, {
  legacy: "reject",
  onerror: (error) => console.error(`sdk: ${error.message}`)
})

const hosts = localhostAllowedHostnames()
const origins = localhostAllowedOrigins()

const fetch = (request: Request): Promise<Response> | Response =>
  hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins) ??
    handler.fetch(request)

const construct = async (n: number): Promise<string> => {
  const start = performance.now()
  const kept: Array<McpServer> = []
  for (let i = 0; i < n; i++) kept.push(newServer())
  const micros = ((performance.now() - start) * 1000) / n
  return `${micros.toFixed(1)} µs per server (${n}, factory only: new McpServer + registerTool)`
}

export const served: Served = { fetch, construct }

export const worker = { fetch }
