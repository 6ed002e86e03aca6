/**
 * The official SDK's 1.x client (`@modelcontextprotocol/sdk` 1.32.2, what most deployed hosts
 * run) against our server over Streamable HTTP. Unlike 2.x it checks `structuredContent` against
 * the tool's `outputSchema` even on an `isError` result, so a typed failure of a tool with a
 * `success` schema must not be sent as structured content (it rides in `_meta`).
 */
import { NodeMcpServer } from "@effect-mcp/platform-node"
import { McpServer, Tool } from "@effect-mcp/server"
import { Services } from "@effect-mcp/test-support"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

class Refused extends Schema.TaggedError<Refused>()("Refused", { reason: Schema.String }) {}

const Divide = Tool.make(
  "divide",
  {
    parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
    success: Schema.Struct({ quotient: Schema.Number }),
    failure: Refused
  },
  ({ a, b }) => b === 0 ? Effect.fail(new Refused({ reason: "division by zero" })) : Effect.succeed({ quotient: a / b })
)

const Check = Tool.make("check", { failure: Refused }, () => Effect.fail(new Refused({ reason: "no" })))

const freePort = (): Promise<number> => Effect.runPromise(Services.freePort)

let runtime: ManagedRuntime.ManagedRuntime<never, unknown>
let url: URL

beforeAll(async () => {
  const port = await freePort()
  url = new URL(`http://127.0.0.1:${port}/mcp`)
  runtime = ManagedRuntime.make(
    NodeMcpServer.layerHttp({ port }).pipe(
      Layer.provide(McpServer.layer({ serverInfo: { name: "v1-interop", version: "1.0.0" }, tools: [Divide, Check] }))
    )
  )
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
})

describe("the official SDK 1.x client", () => {
  it("calls tools; a typed failure of a tool with an outputSchema is an isError result it accepts", async () => {
    const client = new Client({ name: "sdk-v1", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(url))
    try {
      const { tools } = await client.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name), ["check", "divide"])
      const ok = await client.callTool({ name: "divide", arguments: { a: 6, b: 3 } })
      assert.deepStrictEqual(ok.structuredContent, { quotient: 2 })
      const refused = await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } })
      assert.isTrue(refused.isError)
      assert.isUndefined(refused.structuredContent)
      assert.deepStrictEqual(refused._meta?.["dev.effect-mcp/failure"], { reason: "division by zero", _tag: "Refused" })
      // No outputSchema: the failure is structured content.
      const checked = await client.callTool({ name: "check", arguments: {} })
      assert.isTrue(checked.isError)
      assert.deepStrictEqual(checked.structuredContent, { reason: "no", _tag: "Refused" })
    } finally {
      await client.close()
    }
  })
})
