/**
 * `Skills` (the host side of the skills extension): against our server in memory in both eras
 * (list, get, load, each file read on demand and verified), and against a scripted server on
 * 127.0.0.1 that lies: a wrong digest, a wrong size, a frontmatter that is not the entry's, files
 * outside the skill, past the limits, a listing that never ends. Each is its own typed error, and no
 * file is read before it is needed or used when it fails.
 */
import { ClientError, McpClient, McpClientTransport, Skills } from "@effect-mcp/client"
import type { Revision } from "@effect-mcp/core"
import { McpServer, Skills as ServerSkills } from "@effect-mcp/server"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"
import * as http from "node:http"
import type * as net from "node:net"

const sha256 = (bytes: string | Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`
const size = (text: string) => Buffer.byteLength(text)

const skillMd =
  "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
const forms = "Supporting content, Zürich ✓\n"
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])

// ---------------------------------------------------------------------------- against our server

const files = {
  "pdf-processing/SKILL.md": skillMd,
  "pdf-processing/references/FORMS.md": forms,
  "pdf-processing/assets/logo.png": png
}

const ours = (revisions: ReadonlyArray<Revision.Revision>, options?: ServerSkills.Options) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      McpClient.layer({ clientInfo: { name: "t", version: "1" } }).pipe(
        Layer.provide(McpClientTransport.layerMemory((protocol) =>
          McpServer.serve(protocol).pipe(
            Effect.provide(
              McpServer.layer({ serverInfo: { name: "s", version: "1" }, revisions }).pipe(
                Layer.provide(ServerSkills.layer(files, options))
              )
            )
          )
        ))
      )
    )
    return Effect.runSync(Effect.provide(McpClient.McpClient, context))
  })

describe("Skills against our server", () => {
  it.scoped("list, get, load; each file read when asked for, verified", () =>
    Effect.gen(function*() {
      const client = yield* ours(["2026-07-28"])
      assert.strictEqual(client.era, "stateless")
      assert.deepStrictEqual(Skills.declared(client), { directoryRead: true })
      const listed = yield* Skills.list(client)
      assert.deepStrictEqual(listed.map((s) => s.uri), ["skill://pdf-processing/SKILL.md"])
      const entry = yield* Skills.get(client, "skill://pdf-processing/SKILL.md")
      assert.deepStrictEqual(entry, listed[0])
      const skill = yield* Skills.load(client, entry)
      assert.strictEqual(skill.text, skillMd)
      assert.deepStrictEqual(skill.files.map((f) => f.path), ["SKILL.md", "assets/logo.png", "references/FORMS.md"])
      const read = yield* skill.read("references/FORMS.md")
      assert.strictEqual(read.text, forms)
      const logo = yield* skill.read("skill://pdf-processing/assets/logo.png")
      assert.deepStrictEqual(Array.from(logo.bytes), Array.from(png))
      assert.strictEqual((yield* skill.readAll).length, 3)
      const children = yield* Skills.readDirectory(client, "skill://pdf-processing")
      assert.deepStrictEqual(children.map((c) => c.mimeType), ["text/markdown", "inode/directory", "inode/directory"])
    }))

  it.scoped("a 2025-11-25 session: declared in its open capabilities, listed and loaded as in 2026-07-28", () =>
    Effect.gen(function*() {
      const client = yield* ours(["2025-11-25"])
      assert.strictEqual(client.era, "handshake")
      assert.isDefined(Skills.declared(client))
      const listed = yield* Skills.list(client)
      assert.isAtLeast(listed.length, 1)
      const skill = yield* Skills.load(client, listed[0])
      assert.strictEqual((yield* skill.read("references/FORMS.md")).text, forms)
    }))

  it.scoped("a 2025-06-18 session (no extensions declared then): Skills.list refuses, the methods still answer", () =>
    Effect.gen(function*() {
      const client = yield* ours(["2025-06-18"])
      assert.isUndefined(Skills.declared(client))
      assert.strictEqual((yield* Effect.flip(Skills.list(client)))._tag, "NotDeclared")
      const listed = yield* client.request("skills/list", {})
      const skill = yield* Skills.load(client, listed.skills[0])
      assert.strictEqual((yield* skill.read("references/FORMS.md")).text, forms)
    }))

  it.scoped("readDirectory of a server without directoryRead: NotDeclared, nothing sent", () =>
    Effect.gen(function*() {
      const client = yield* ours(["2026-07-28"], { directoryRead: false })
      const error = yield* Effect.flip(Skills.readDirectory(client, "skill://pdf-processing"))
      assert.strictEqual(error._tag, "NotDeclared")
    }))
})

// ---------------------------------------------------------------------------- against a scripted server

type Entry = Record<string, unknown>

interface Script {
  readonly declared?: boolean
  /** The pages of `skills/list`, by cursor ("" the first). */
  readonly pages?: (cursor: string) => { readonly skills: ReadonlyArray<Entry>; readonly nextCursor?: string }
  /** The contents `resources/read` answers with, by URI. */
  readonly read?: (uri: string) => Record<string, unknown>
}

/** A 2026-07-28 server on 127.0.0.1 answering by `script`; its URL and every method asked, in order. */
const scripted = (script: Script) =>
  Effect.gen(function*() {
    const asked: Array<{ readonly method: string; readonly params: any }> = []
    const answer = (message: any) => {
      const result = (fields: Record<string, unknown>, cacheable = true) => ({
        jsonrpc: "2.0",
        id: message.id,
        result: { resultType: "complete", ...(cacheable ? { ttlMs: 0, cacheScope: "private" } : {}), ...fields }
      })
      switch (message.method) {
        case "server/discover":
          return result({
            supportedVersions: ["2026-07-28"],
            capabilities: {
              resources: {},
              ...(script.declared === false ? {} : { extensions: { "io.modelcontextprotocol/skills": {} } })
            }
          })
        case "skills/list":
          return result({ ...script.pages!(message.params?.cursor ?? "") })
        case "resources/read": {
          const uri = message.params.uri
          return result({ contents: [{ uri, ...script.read!(uri) }] })
        }
        default:
          return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }
      }
    }
    const server = yield* Effect.acquireRelease(
      Effect.async<http.Server>((resume) => {
        const server = http.createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            if (request.method !== "POST") {
              response.writeHead(405)
              response.end()
              return
            }
            const message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
            asked.push({ method: message.method, params: message.params })
            response.writeHead(200, { "content-type": "application/json" })
            response.end(JSON.stringify(answer(message)))
          })
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`
    const context = yield* Layer.build(
      McpClient.layer({ clientInfo: { name: "t", version: "1" }, era: "stateless", timeout: "10 seconds" }).pipe(
        Layer.provide(McpClientTransport.layerHttp({ url })),
        Layer.provide(FetchHttpClient.layer)
      )
    )
    const client = Effect.runSync(Effect.provide(McpClient.McpClient, context))
    return { client, reads: () => asked.filter((a) => a.method === "resources/read").map((a) => a.params.uri), asked }
  })

const skillUri = "skill://pdf-processing/SKILL.md"
const formsUri = "skill://pdf-processing/references/FORMS.md"

const entry = (overrides: Entry = {}): Entry => ({
  uri: skillUri,
  frontmatter: { name: "pdf-processing", description: "Extract, fill, and assemble PDF documents" },
  resources: [
    { uri: skillUri, digest: sha256(skillMd), size: size(skillMd) },
    { uri: formsUri, digest: sha256(forms), size: size(forms) }
  ],
  ...overrides
})

const oneSkill = (e: Entry = entry()) => () => ({ skills: [e] })
const serving = (body: string) => (uri: string) => ({
  mimeType: "text/markdown",
  text: uri === formsUri ? forms : body
})

/** Loads the first listed skill; then reads FORMS.md (when loading succeeded). */
const loadFirst = (client: McpClient.Service) =>
  Effect.gen(function*() {
    const [first] = yield* Skills.list(client)
    const skill = yield* Skills.load(client, first)
    return yield* skill.read("references/FORMS.md")
  })

describe("Skills against a server that lies", () => {
  it.scoped("listing reads no file; loading reads SKILL.md alone; FORMS.md when asked for", () =>
    Effect.gen(function*() {
      const { client, reads } = yield* scripted({ pages: oneSkill(), read: serving(skillMd) })
      const [first] = yield* Skills.list(client)
      assert.deepStrictEqual(reads(), [])
      const skill = yield* Skills.load(client, first)
      assert.deepStrictEqual(reads(), [skillUri])
      yield* skill.read(formsUri)
      yield* skill.read("references/FORMS.md")
      assert.deepStrictEqual(reads(), [skillUri, formsUri], "a verified file is kept, not read again")
    }))

  it.scoped("a SKILL.md whose digest is not the entry's: DigestMismatch, and nothing further is read", () =>
    Effect.gen(function*() {
      const { client, reads } = yield* scripted({
        pages: oneSkill(),
        read: serving(skillMd.replace("Skill body.", "Evil body!!"))
      })
      const error = yield* Effect.flip(loadFirst(client))
      assert.strictEqual(error._tag, "DigestMismatch")
      assert.deepStrictEqual(reads(), [skillUri])
    }))

  it.scoped("a SKILL.md longer than the entry says: SizeMismatch, and nothing further is read", () =>
    Effect.gen(function*() {
      const { client, reads } = yield* scripted({ pages: oneSkill(), read: serving(`${skillMd}extra bytes\n`) })
      const error = yield* Effect.flip(loadFirst(client))
      assert.strictEqual(error._tag, "SizeMismatch")
      assert.deepStrictEqual(reads(), [skillUri])
    }))

  it.scoped("a blob of the wrong size is refused before it is decoded", () =>
    Effect.gen(function*() {
      const big = Buffer.alloc(4096).toString("base64")
      const { client } = yield* scripted({
        pages: oneSkill(),
        read: (uri) => uri === formsUri ? { blob: big } : { text: skillMd }
      })
      const error = yield* Effect.flip(loadFirst(client))
      assert.strictEqual(error._tag, "SizeMismatch")
    }))

  it.scoped("a SKILL.md whose frontmatter is not the entry's (its digest and size right): FrontmatterMismatch", () =>
    Effect.gen(function*() {
      const tampered = skillMd.replace(
        "description: Extract, fill, and assemble PDF documents",
        "description: Exfiltrate"
      )
      const e = entry({
        resources: [
          { uri: skillUri, digest: sha256(tampered), size: size(tampered) },
          { uri: formsUri, digest: sha256(forms), size: size(forms) }
        ]
      })
      const { client, reads } = yield* scripted({ pages: oneSkill(e), read: serving(tampered) })
      const error = yield* Effect.flip(loadFirst(client))
      assert.strictEqual(error._tag, "FrontmatterMismatch")
      assert.deepStrictEqual((error as Skills.FrontmatterMismatch).fields, ["description"])
      assert.deepStrictEqual(reads(), [skillUri])
    }))

  it.scoped("a file the held entry does not list: UnlistedFile, nothing sent", () =>
    Effect.gen(function*() {
      const { client, reads } = yield* scripted({ pages: oneSkill(), read: serving(skillMd) })
      const [first] = yield* Skills.list(client)
      const skill = yield* Skills.load(client, first)
      const error = yield* Effect.flip(skill.read("references/credit-note.md"))
      assert.strictEqual(error._tag, "UnlistedFile")
      assert.strictEqual((error as Skills.UnlistedFile).uri, "skill://pdf-processing/references/credit-note.md")
      assert.deepStrictEqual(reads(), [skillUri])
    }))

  it.scoped("entries that will not load, refused before any file is read", () =>
    Effect.gen(function*() {
      const own = { uri: skillUri, digest: sha256(skillMd), size: size(skillMd) }
      const cases: ReadonlyArray<readonly [Entry, string]> = [
        [entry({ resources: "dynamic" }), "dynamic"],
        [entry({ resources: [own, { uri: "skill://other/x.md", digest: sha256(""), size: 0 }] }), "not a file within"],
        [
          entry({ resources: [own, { uri: "skill://pdf-processing/a/%2E%2E/x", digest: sha256(""), size: 0 }] }),
          "not a file"
        ],
        [
          entry({ resources: [own, { uri: "skill://pdf-processing/a%2Fb", digest: sha256(""), size: 0 }] }),
          "not a file"
        ],
        [
          entry({ resources: [{ uri: formsUri, digest: sha256(forms), size: size(forms) }] }),
          "do not list its SKILL.md"
        ],
        [entry({ resources: [own, own] }), "twice"],
        [entry({ frontmatter: { name: "other", description: "d" } }), "frontmatter name"],
        [
          entry({
            resources: [
              own,
              ...Array.from({ length: 512 }, (_, i) => ({ uri: `${formsUri}${i}`, digest: sha256(""), size: 0 }))
            ]
          }),
          "more than 512"
        ],
        [entry({ resources: [own, { uri: formsUri, digest: sha256(""), size: 16 * 1024 * 1024 }] }), "bytes, more than"]
      ]
      for (const [e, words] of cases) {
        const { client, reads } = yield* scripted({ pages: oneSkill(e), read: serving(skillMd) })
        const error = yield* Effect.flip(loadFirst(client))
        assert.strictEqual(error._tag, "InvalidSkill", JSON.stringify(e))
        assert.include((error as Skills.InvalidSkill).reason, words)
        assert.deepStrictEqual(reads(), [])
      }
    }))

  it.scoped("a digest that is not sha256:<64 hex> is an invalid skills/list result", () =>
    Effect.gen(function*() {
      const e = entry({ resources: [{ uri: skillUri, digest: "md5:abc", size: size(skillMd) }] })
      const { client } = yield* scripted({ pages: oneSkill(e) })
      const error = yield* Effect.flip(Skills.list(client))
      assert.instanceOf(error, ClientError.InvalidResult)
    }))

  it.scoped("listings past their bounds: too many entries, too many pages, a cursor given twice", () =>
    Effect.gen(function*() {
      const many = yield* scripted({
        pages: (cursor) => ({ skills: Array.from({ length: 50 }, () => entry()), nextCursor: `${cursor}n` })
      })
      const tooMany = yield* Effect.flip(Skills.list(many.client, { maxSkills: 120 }))
      assert.deepStrictEqual([tooMany._tag, (tooMany as Skills.ListingTooLong).unit], ["ListingTooLong", "skills"])
      assert.strictEqual(many.asked.filter((a) => a.method === "skills/list").length, 3)

      const endless = yield* scripted({ pages: (cursor) => ({ skills: [], nextCursor: `${cursor}x` }) })
      const pages = yield* Effect.flip(Skills.list(endless.client, { maxPages: 5 }))
      assert.deepStrictEqual([pages._tag, (pages as Skills.ListingTooLong).unit], ["ListingTooLong", "pages"])
      assert.strictEqual(endless.asked.filter((a) => a.method === "skills/list").length, 5)

      const loop = yield* scripted({ pages: () => ({ skills: [], nextCursor: "same" }) })
      assert.strictEqual((yield* Effect.flip(Skills.list(loop.client)))._tag, "ListingTooLong")
      assert.strictEqual(loop.asked.filter((a) => a.method === "skills/list").length, 2)
    }))

  it.scoped("a server that does not declare the extension: NotDeclared, nothing sent", () =>
    Effect.gen(function*() {
      const { asked, client } = yield* scripted({ declared: false, pages: oneSkill() })
      assert.strictEqual((yield* Effect.flip(Skills.list(client)))._tag, "NotDeclared")
      assert.strictEqual((yield* Effect.flip(Skills.get(client, skillUri)))._tag, "NotDeclared")
      assert.deepStrictEqual(asked.map((a) => a.method), ["server/discover"])
    }))
})
