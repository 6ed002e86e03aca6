/**
 * The floor of the stdio benchmark: `readline` over stdin, `JSON.parse` of each line, and a
 * `JSON.stringify`d JSON-RPC result line on stdout for each request: `tools/call` gets the sum
 * of its arguments, `initialize` a minimal result, anything else `{}`; notifications get
 * nothing. No validation, no sessions, no MCP beyond the answers' shape.
 *
 * `node dist/bare-stdio-server.js`
 */
import { createInterface } from "node:readline"

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })

lines.on("line", (line) => {
  if (line.length === 0) return
  const message = JSON.parse(line)
  if (message.id === undefined) return
  let result: unknown = {}
  if (message.method === "tools/call") {
    const sum = message.params.arguments.a + message.params.arguments.b
    result = { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } }
  } else if (message.method === "initialize") {
    result = {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "bare", version: "1.0.0" }
    }
  }
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n")
})
