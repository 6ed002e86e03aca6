/**
 * The official TypeScript SDK (`@modelcontextprotocol/server` 2.4.0) serving the same
 * `add` tool as `apps/everything`, over stdio: the reference the stdio benchmark compares
 * against.
 *
 * - default: `server.connect(new StdioServerTransport())`, the hand-wired handshake-era server;
 * - `--serve-stdio`: `serveStdio(factory)` from `@modelcontextprotocol/server/stdio`, the entry
 *   that also serves 2026-07-28 (the opening request picks the era; one instance from the factory
 *   is pinned for the connection): the counterpart of ours in the 2026-07-28 stdio benchmark.
 *
 * `node dist/sdk-add-server.js [--serve-stdio]`
 */
import { McpServer } from "@modelcontextprotocol/server"
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import * as z from "zod"

const newServer = () => {
  const server = new McpServer({ name: "sdk-add", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool("add", {
    description: "Add two numbers",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() })
  }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }))
  return server
}

if (process.argv.includes("--serve-stdio")) serveStdio(newServer)
else await newServer().connect(new StdioServerTransport())
