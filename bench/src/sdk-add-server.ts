/**
 * The official TypeScript SDK (`@modelcontextprotocol/server` 2.4.0) serving the same
 * `add` tool as `apps/everything`, over stdio: the reference the stdio benchmark compares
 * against. Run as `node dist/sdk-add-server.js`.
 */
import { McpServer } from "@modelcontextprotocol/server"
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import * as z from "zod"

const server = new McpServer({ name: "sdk-add", version: "1.0.0" }, { capabilities: { tools: {} } })

server.registerTool("add", {
  description: "Add two numbers",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() })
}, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }))

await server.connect(new StdioServerTransport())
