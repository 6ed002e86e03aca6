/**
 * Interop, MCP Apps: the official TypeScript SDK client (`@modelcontextprotocol/client` 2.4.0), declaring
 * the extension `io.modelcontextprotocol/ui` as a host does, talks to the demo server (`apps/everything`,
 * bundled as `pnpm start` runs it, `test/support/Programs.ts`): it lists the view and the linked tools,
 * reads the view and calls the app-only tool; the same client without the declaration is shown neither the
 * view nor the app-only tool. What it received validates against the Apps schema of ext-apps.
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const main = Programs.demoMain

const UI = "io.modelcontextprotocol/ui"
const MIME = "text/html;profile=mcp-app"
const viewUri = "ui://everything/counter"

/** Runs `use` with an official client of the demo over stdio, declaring `capabilities`. */
const withClient = async <A>(capabilities: Record<string, unknown>, use: (client: Client) => Promise<A>) => {
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "tsc -b tsconfig.json" first`)
  const client = new Client({ name: "apps-interop", version: "1.0.0" }, { capabilities })
  const transport = new StdioClientTransport({ command: process.execPath, args: [main, "stdio"], cwd: root })
  await client.connect(transport)
  try {
    return await use(client)
  } finally {
    await client.close().catch(() => undefined)
  }
}

const noError = (set: Parameters<typeof validate>[0], name: string, value: unknown) =>
  assert.isUndefined(validate(set, name, value), `${name}: ${JSON.stringify(value)}`)

describe("official Client 2.4.0 ↔ apps/everything, MCP Apps", () => {
  it("declaring the extension: the view listed and read, the tools linked, the app-only tool called", async () => {
    await withClient({ extensions: { [UI]: { mimeTypes: [MIME] } } }, async (client) => {
      assert.deepStrictEqual(client.getServerCapabilities()?.extensions?.[UI], {})
      const { tools } = await client.listTools()
      const show = tools.find((t) => t.name === "show_counter")!
      const increment = tools.find((t) => t.name === "counter_increment")!
      assert.deepStrictEqual(show._meta?.ui, { resourceUri: viewUri })
      assert.strictEqual(show._meta?.["ui/resourceUri"], viewUri)
      assert.deepStrictEqual(increment._meta?.ui, { resourceUri: viewUri, visibility: ["app"] })
      noError("ext-apps", "McpUiToolMeta", show._meta?.ui)
      noError("ext-apps", "McpUiToolMeta", increment._meta?.ui)

      const { resources } = await client.listResources()
      const listed = resources.find((r) => r.uri === viewUri)!
      assert.strictEqual(listed.mimeType, MIME)
      const read = await client.readResource({ uri: viewUri })
      const [content] = read.contents as Array<any>
      assert.deepStrictEqual([content.uri, content.mimeType], [viewUri, MIME])
      assert.match(content.text, /^<!doctype html>/)
      noError("ext-apps", "McpUiResourceMeta", content._meta.ui)

      const shown = await client.callTool({ name: "show_counter", arguments: { start: 1 } })
      assert.deepStrictEqual(shown.structuredContent, { count: 1 })
      const incremented = await client.callTool({ name: "counter_increment", arguments: { count: 1 } })
      assert.deepStrictEqual(incremented.content, [{ type: "text", text: "The counter is 2" }])
    })
  })

  it("without the declaration: no view, no app-only tool, the linked tool as text", async () => {
    await withClient({}, async (client) => {
      const { tools } = await client.listTools()
      assert.notInclude(tools.map((t) => t.name), "counter_increment")
      assert.isUndefined(tools.find((t) => t.name === "show_counter")!._meta)
      const { resources } = await client.listResources()
      assert.notInclude(resources.map((r) => r.uri), viewUri)
      const shown = await client.callTool({ name: "show_counter", arguments: {} })
      assert.deepStrictEqual(shown.content, [{ type: "text", text: "The counter is 0" }])
    })
  })
})
