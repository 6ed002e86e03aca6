/**
 * Our client from another runtime (the runtime tests' fixture, bundled for Node and run by Bun or
 * Deno): over stdio, it spawns the server given after `--` (`NodeMcpClient.layerStdio`, on the
 * runtime's `node:child_process`); with `--url U`, it speaks Streamable HTTP to `U`
 * (`McpClientTransport.layerHttp` on the runtime's own `fetch`). It speaks `--era` (list, call, a
 * multi-round trip: the elicitation answered here), and writes what it saw as one JSON line on
 * stdout.
 */
import { McpClient, McpClientTransport } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const argv = process.argv.slice(2)
const era = argv[argv.indexOf("--era") + 1] as "stateless" | "handshake"
const url = argv.includes("--url") ? argv[argv.indexOf("--url") + 1] : undefined
const [command, ...args] = argv.slice(argv.indexOf("--") + 1)

const transport = url !== undefined
  ? McpClientTransport.layerHttp({ url }).pipe(Layer.provide(FetchHttpClient.layer))
  : NodeMcpClient.layerStdio({ command, args, stderr: "ignore" })

const client = McpClient.layer({
  clientInfo: { name: "stdio-runtime-client", version: "1.0.0" },
  era,
  handlers: {
    elicitation: () =>
      Effect.succeed({ action: "accept" as const, content: { username: "ada", email: "ada@example.com" } })
  }
}).pipe(Layer.provide(transport))

Effect.runPromise(
  Effect.gen(function*() {
    const mcp = yield* McpClient.McpClient
    const tools = (yield* mcp.listTools).map((tool) => tool.name)
    const simple = yield* mcp.callTool("test_simple_text")
    const asked = yield* mcp.callTool("test_elicitation", { message: "Who are you?" })
    return { era: mcp.era, revision: mcp.revision, tools, simple: simple.content, asked: asked.content }
  }).pipe(Effect.provide(client), Effect.scoped)
).then(
  (seen) => process.stdout.write(`${JSON.stringify(seen)}\n`),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 1
  }
)
