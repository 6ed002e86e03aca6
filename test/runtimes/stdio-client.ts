/**
 * Our client over stdio from another runtime (the stdio runtime test's fixture, bundled for Node
 * and run by Bun or Deno): it spawns the server given after `--` (`NodeMcpClient.layerStdio`, on
 * the runtime's `node:child_process`), speaks `--era` to it (list, call, a multi-round trip: the
 * elicitation answered here), and writes what it saw as one JSON line on stdout.
 */
import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const argv = process.argv.slice(2)
const era = argv[argv.indexOf("--era") + 1] as "stateless" | "handshake"
const [command, ...args] = argv.slice(argv.indexOf("--") + 1)

const client = McpClient.layer({
  clientInfo: { name: "stdio-runtime-client", version: "1.0.0" },
  era,
  handlers: {
    elicitation: () =>
      Effect.succeed({ action: "accept" as const, content: { username: "ada", email: "ada@example.com" } })
  }
}).pipe(Layer.provide(NodeMcpClient.layerStdio({ command, args, stderr: "ignore" })))

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
