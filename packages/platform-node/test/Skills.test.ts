/**
 * `NodeSkills`: a folder of skills in a temporary directory, read into `Skills` (what is served and
 * what is passed over: dot files, links, files outside every skill), served by a server over the
 * in-memory transport, and the folders that fail (missing, a file past its limit, a broken rule).
 */
import { MemoryTransport } from "@effect-mcp/core"
import { McpServer } from "@effect-mcp/server"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeSkills } from "../src/index.js"

/** A fresh directory under the system's temporary one, removed afterwards. */
const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "effect-mcp-skills-"))),
  (directory) => Effect.sync(() => fs.rmSync(directory, { recursive: true, force: true }))
)

/** Writes files (by path relative to `root`). */
const write = (root: string, files: Readonly<Record<string, string | Uint8Array>>) => {
  for (const [relative, content] of Object.entries(files)) {
    const file = nodePath.join(root, ...relative.split("/"))
    fs.mkdirSync(nodePath.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
  }
}

const sha256 = (bytes: string | Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`

const skillMd = "---\nname: pdf-processing\ndescription: Fill in PDF forms\n---\n\nSee references/FORMS.md.\n"

describe("NodeSkills.makeDirectory", () => {
  it.scoped("reads the skills of a folder; dot files, links and files outside every skill are passed over", () =>
    Effect.gen(function*() {
      const root = yield* temporaryDirectory
      const outside = yield* temporaryDirectory
      write(outside, { "secret.txt": "not yours" })
      write(root, {
        "pdf-processing/SKILL.md": skillMd,
        "pdf-processing/references/FORMS.md": "# Forms\n",
        "pdf-processing/scripts/fill.py": "print('hi')\n",
        "pdf-processing/.env": "TOKEN=1",
        "pdf-processing/.git/config": "[core]",
        "notes.txt": "outside every skill"
      })
      fs.symlinkSync(nodePath.join(outside, "secret.txt"), nodePath.join(root, "pdf-processing", "link.txt"))
      fs.symlinkSync(outside, nodePath.join(root, "pdf-processing", "linked-dir"))
      const skills = yield* NodeSkills.makeDirectory(root)
      assert.strictEqual(skills.skills.length, 1)
      const [skill] = skills.skills
      assert.strictEqual(skill.uri, "skill://pdf-processing/SKILL.md")
      assert.deepStrictEqual(skill.entry.frontmatter, { name: "pdf-processing", description: "Fill in PDF forms" })
      assert.deepStrictEqual(skill.entry.resources, [
        { uri: "skill://pdf-processing/SKILL.md", digest: sha256(skillMd), size: Buffer.byteLength(skillMd) },
        { uri: "skill://pdf-processing/references/FORMS.md", digest: sha256("# Forms\n"), size: 8 },
        { uri: "skill://pdf-processing/scripts/fill.py", digest: sha256("print('hi')\n"), size: 12 }
      ])
      assert.deepStrictEqual(Array.from(skills.files.keys()).sort(), [
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/references/FORMS.md",
        "skill://pdf-processing/scripts/fill.py"
      ])
    }))

  it.scoped("nested skill paths: acme/billing/refunds", () =>
    Effect.gen(function*() {
      const root = yield* temporaryDirectory
      write(root, { "acme/billing/refunds/SKILL.md": "---\nname: refunds\ndescription: Refunds\n---\n" })
      const skills = yield* NodeSkills.makeDirectory(root)
      assert.deepStrictEqual(skills.skills.map((s) => [s.uri, s.path, s.name]), [
        ["skill://acme/billing/refunds/SKILL.md", "acme/billing/refunds", "refunds"]
      ])
    }))

  it.scoped("a folder that fails: missing, a file past maxFileSize, too many files, a broken rule", () =>
    Effect.gen(function*() {
      const root = yield* temporaryDirectory
      const missing = yield* Effect.flip(NodeSkills.makeDirectory(nodePath.join(root, "nope")))
      assert.strictEqual(missing._tag, "SkillsError")
      assert.include(missing.reason, "ENOENT")

      write(root, { "a/SKILL.md": "---\nname: a\ndescription: A\n---\n", "a/big.bin": new Uint8Array(2048) })
      const big = yield* Effect.flip(NodeSkills.makeDirectory(root, { limits: { maxFileSize: 1024 } }))
      assert.strictEqual(big.path, "a/big.bin")
      assert.include(big.reason, "maxFileSize")

      const many = yield* Effect.flip(NodeSkills.makeDirectory(root, { limits: { maxFiles: 1 } }))
      assert.include(many.reason, "maxFiles")

      write(root, { "b/SKILL.md": "---\nname: c\ndescription: B\n---\n" })
      const wrong = yield* Effect.flip(NodeSkills.makeDirectory(root))
      assert.strictEqual(wrong.path, "b/SKILL.md")
      assert.include(wrong.reason, "frontmatter name")
    }))
})

describe("NodeSkills: hard links", () => {
  it.scoped("a hard link in the folder is passed over as a symbolic link is: listed nowhere, not read (-32602)", () =>
    Effect.gen(function*() {
      const root = yield* temporaryDirectory
      const outside = yield* temporaryDirectory
      write(outside, { "secret.txt": "not yours" })
      write(root, { "pdf-processing/SKILL.md": skillMd, "pdf-processing/references/FORMS.md": "# Forms\n" })
      // The same file as one outside the folder (both in the system's temporary directory).
      fs.linkSync(
        nodePath.join(outside, "secret.txt"),
        nodePath.join(root, "pdf-processing", "references", "secret.txt")
      )
      const server = yield* McpServer.make({ serverInfo: { name: "t", version: "1" }, revisions: ["2026-07-28"] })
        .pipe(Effect.provide(NodeSkills.layerDirectory(root)))
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(server.serve(protocol))
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
      }
      const ask = (id: number, method: string, params: object) =>
        Effect.zipRight(
          remote.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } })),
          Effect.map(remote.read, (text) => JSON.parse(text))
        )
      const list = yield* ask(1, "skills/list", {})
      assert.deepStrictEqual(list.result.skills[0].resources.map((r: any) => r.uri), [
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/references/FORMS.md"
      ])
      const read = yield* ask(2, "resources/read", { uri: "skill://pdf-processing/references/secret.txt" })
      assert.strictEqual(read.error.code, -32602)
      assert.isUndefined(read.result)
      const dir = yield* ask(3, "resources/directory/read", { uri: "skill://pdf-processing/references" })
      assert.deepStrictEqual(dir.result.resources.map((r: any) => r.uri), [
        "skill://pdf-processing/references/FORMS.md"
      ])
    }))
})

// Before: every file of more than one link was passed over, with no way to serve them: skills installed from pnpm's
// store (every file a hard link into it) served nothing at all.
describe("NodeSkills: allowHardLinks", () => {
  /** A folder of skills as pnpm leaves it: every file a hard link to one in its store; a symbolic link too. */
  const installed = Effect.gen(function*() {
    const store = yield* temporaryDirectory
    const root = yield* temporaryDirectory
    write(store, { "a1/SKILL.md": skillMd, "b2/FORMS.md": "# Forms\n", "c3/secret.txt": "not linked in" })
    fs.mkdirSync(nodePath.join(root, "pdf-processing", "references"), { recursive: true })
    fs.linkSync(nodePath.join(store, "a1/SKILL.md"), nodePath.join(root, "pdf-processing", "SKILL.md"))
    fs.linkSync(nodePath.join(store, "b2/FORMS.md"), nodePath.join(root, "pdf-processing", "references", "FORMS.md"))
    fs.symlinkSync(
      nodePath.join(store, "c3/secret.txt"),
      nodePath.join(root, "pdf-processing", "references", "secret.txt")
    )
    return root
  })

  /** The answers of a server with the folder's skills to `skills/list` and a `resources/read` of FORMS.md. */
  const served = (root: string, options?: NodeSkills.DirectoryOptions) =>
    Effect.gen(function*() {
      const server = yield* McpServer.make({ serverInfo: { name: "t", version: "1" }, revisions: ["2026-07-28"] })
        .pipe(Effect.provide(NodeSkills.layerDirectory(root, options)))
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(server.serve(protocol))
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
      }
      const ask = (id: number, method: string, params: object) =>
        Effect.zipRight(
          remote.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } })),
          Effect.map(remote.read, (text) => JSON.parse(text))
        )
      const list = yield* ask(1, "skills/list", {})
      const read = yield* ask(2, "resources/read", { uri: "skill://pdf-processing/references/FORMS.md" })
      const secret = yield* ask(3, "resources/read", { uri: "skill://pdf-processing/references/secret.txt" })
      return { list, read, secret }
    })

  it.scoped("by default, a folder of hard links serves nothing", () =>
    Effect.gen(function*() {
      const { list, read } = yield* served(yield* installed)
      assert.deepStrictEqual(list.result.skills, [])
      assert.strictEqual(read.error.code, -32602)
    }))

  it.scoped("allowHardLinks: the hard links are served; a symbolic link still is not", () =>
    Effect.gen(function*() {
      const { list, read, secret } = yield* served(yield* installed, { allowHardLinks: true })
      assert.deepStrictEqual(list.result.skills.map((s: any) => [s.uri, s.resources.map((r: any) => r.uri)]), [
        ["skill://pdf-processing/SKILL.md", [
          "skill://pdf-processing/SKILL.md",
          "skill://pdf-processing/references/FORMS.md"
        ]]
      ])
      assert.strictEqual(read.result.contents[0].text, "# Forms\n")
      assert.strictEqual(secret.error.code, -32602)
    }))
})

describe("NodeSkills.layerDirectory", () => {
  it.scoped("a server with the layer serves the folder's skills", () =>
    Effect.gen(function*() {
      const root = yield* temporaryDirectory
      write(root, { "pdf-processing/SKILL.md": skillMd, "pdf-processing/references/FORMS.md": "# Forms\n" })
      const server = yield* McpServer.make({ serverInfo: { name: "t", version: "1" }, revisions: ["2026-07-28"] })
        .pipe(Effect.provide(NodeSkills.layerDirectory(root)))
      const { protocol, remote } = yield* MemoryTransport.connection
      yield* Effect.forkScoped(server.serve(protocol))
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
      }
      const ask = (id: number, method: string, params: object) =>
        Effect.zipRight(
          remote.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } })),
          Effect.map(remote.read, (text) => JSON.parse(text))
        )
      const list = yield* ask(1, "skills/list", {})
      assert.deepStrictEqual(list.result.skills.map((s: any) => s.uri), ["skill://pdf-processing/SKILL.md"])
      const read = yield* ask(2, "resources/read", { uri: "skill://pdf-processing/references/FORMS.md" })
      assert.strictEqual(read.result.contents[0].text, "# Forms\n")
      const dir = yield* ask(3, "resources/directory/read", { uri: "skill://pdf-processing/references" })
      assert.deepStrictEqual(dir.result.resources.map((r: any) => r.uri), [
        "skill://pdf-processing/references/FORMS.md"
      ])
    }))
})
