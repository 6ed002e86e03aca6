import { McpClient } from "@effect-mcp/client"
import { NodeMcpClient } from "@effect-mcp/platform-node"
import { Effect, Layer } from "effect"

const Client = McpClient.layer({ clientInfo: { name: "me", version: "1.0.0" } }).pipe(
  Layer.provide(NodeMcpClient.layerStdio({ command: "node", args: ["dist/server.js"] }))
)

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools
  const result = yield* client.callTool(tools[0]!.name, { a: 20, b: 22 })
  // Typed by the method catalog: `content` is the content blocks of every revision.
  const typed = yield* client.request("tools/call", { name: "add", arguments: { a: 1, b: 2 } })
  const first = typed.content[0]
  const text: string | undefined = first?.type === "text" ? first.text : undefined
  return { era: client.era, tools: tools.map((t) => t.name), structuredContent: result.structuredContent, text }
})

/** Never run: with plain tsc, a misspelt field of a catalog method is a compile error. */
export const misspelt = (client: McpClient.Service) =>
  // @ts-expect-error `nme` is not a field of tools/call
  client.request("tools/call", { nme: "x" })

Effect.runPromise(program.pipe(Effect.provide(Client), Effect.scoped)).then((out) => console.log(JSON.stringify(out)))
