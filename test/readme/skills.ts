import { McpClient, McpClientTransport, Skills as Host } from "@effect-mcp/client"
import { NodeSkills } from "@effect-mcp/platform-node"
import { McpServer, Skills } from "@effect-mcp/server"
import { Effect, Layer } from "effect"

// Skills in memory (or a folder: NodeSkills.layerDirectory("./skills")); each directory with a
// SKILL.md is a skill, its files resources at skill://<skill path>/<file>.
export const PdfSkills = Skills.layer({
  "pdf-processing/SKILL.md":
    "---\nname: pdf-processing\ndescription: Fill in PDF forms\n---\n\nSee references/FORMS.md.\n",
  "pdf-processing/references/FORMS.md": "# Forms\n\nThe fields of each form.\n"
})

export const SkillsServer = McpServer.layer({
  serverInfo: { name: "docs", version: "1.0.0" },
  revisions: ["2025-11-25", "2026-07-28"]
}).pipe(Layer.provide(PdfSkills))

export const FolderServer = McpServer.layer({ serverInfo: { name: "docs", version: "1.0.0" } }).pipe(
  Layer.provide(NodeSkills.layerDirectory("./skills"))
)

// The host: list (no file read), load (SKILL.md read and verified), read a file when it is needed.
export const forms = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const [entry] = yield* Host.list(client)
  const skill = yield* Host.load(client, entry)
  const file = yield* skill.read("references/FORMS.md")
  return { instructions: skill.text, forms: file.text }
}).pipe(
  Effect.provide(
    McpClient.layer({ clientInfo: { name: "host", version: "1.0.0" } }).pipe(
      Layer.provide(
        McpClientTransport.layerMemory((protocol) => McpServer.serve(protocol).pipe(Effect.provide(SkillsServer)))
      )
    )
  )
)
