// The published layout as a tsc-compiled program sees it: where each entry point resolves to, a deep entry, one
// identity per class and Tag whichever entry point it comes from, and every name of every entry point defined once
// its module is loaded (a bundle that evaluates a module of a cycle before what it reads leaves an alias undefined).
import { McpError } from "@effect-mcp/core"
import * as McpErrorDeep from "@effect-mcp/core/McpError"
import { McpServer } from "@effect-mcp/server"
import * as McpServerDeep from "@effect-mcp/server/McpServer"
import * as RelayTable from "@effect-mcp/server/RelayTable"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const entries = [
  "@effect-mcp/core",
  "@effect-mcp/core/McpError",
  "@effect-mcp/server",
  "@effect-mcp/server/RelayTable",
  "@effect-mcp/client",
  "@effect-mcp/platform-node"
]
/** `package/entry: name` of every exported name that is undefined, over every entry point of ours installed. */
const undefinedExports = async (): Promise<ReadonlyArray<string>> => {
  const scope = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "@effect-mcp")
  const found: Array<string> = []
  for (const name of ["core", "server", "client", "platform-node"]) {
    const bundle = path.join(scope, name, "bundle")
    const files = (folder: string): ReadonlyArray<string> =>
      fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? entry.name === "internal" ? [] : files(path.join(folder, entry.name))
          : entry.name.endsWith(".js")
          ? [path.join(folder, entry.name)]
          : []
      )
    for (const file of files(bundle)) {
      let loaded: Record<string, unknown>
      try {
        loaded = await import(pathToFileURL(file).href)
      } catch (error) {
        // An entry point for an optional peer dependency the project does not install (@effect/ai, OpenTelemetry).
        if ((error as { readonly code?: unknown }).code === "ERR_MODULE_NOT_FOUND") continue
        throw error
      }
      for (const [exported, value] of Object.entries(loaded)) {
        if (value === undefined) found.push(`${name}/${path.relative(bundle, file)}: ${exported}`)
      }
    }
  }
  return found
}
const table = RelayTable.make()
table.delete("none")
console.log(JSON.stringify({
  resolved: Object.fromEntries(
    entries.map((entry) => [entry, import.meta.resolve(entry).replace(/^.*\/node_modules\//, "")])
  ),
  relay: table.get("none") === undefined,
  tag: McpServer.McpServer === McpServerDeep.McpServer,
  error: new McpErrorDeep.ParseError({ message: "x" }) instanceof McpError.ParseError,
  undefinedExports: await undefinedExports()
}))
