// The published layout as a tsc-compiled program sees it: where each entry point resolves to, a deep entry, and
// one identity per class and Tag whichever entry point it comes from.
import { McpError } from "@effect-mcp/core"
import * as McpErrorDeep from "@effect-mcp/core/McpError"
import { McpServer } from "@effect-mcp/server"
import * as McpServerDeep from "@effect-mcp/server/McpServer"
import * as RelayTable from "@effect-mcp/server/RelayTable"

const entries = [
  "@effect-mcp/core",
  "@effect-mcp/core/McpError",
  "@effect-mcp/server",
  "@effect-mcp/server/RelayTable",
  "@effect-mcp/client",
  "@effect-mcp/platform-node"
]
const table = RelayTable.make()
table.delete("none")
console.log(JSON.stringify({
  resolved: Object.fromEntries(
    entries.map((entry) => [entry, import.meta.resolve(entry).replace(/^.*\/node_modules\//, "")])
  ),
  relay: table.get("none") === undefined,
  tag: McpServer.McpServer === McpServerDeep.McpServer,
  error: new McpErrorDeep.ParseError({ message: "x" }) instanceof McpError.ParseError
}))
