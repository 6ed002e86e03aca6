/**
 * The skills extension (SEP-2640) at the wire: the declaration, `skills/list` and `skills/get`
 * (entries with the frontmatter verbatim and every file's digest and size, pages, caching hints),
 * the files through `resources/list` and `resources/read`, `resources/directory/read`, the
 * handshake era, and the rules and limits a set of skills is checked against when it is made.
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as Skills from "../src/Skills.js"
import { connect, meta } from "./utils/TestClient.js"

const serverInfo = { name: "skills-test", version: "1.0.0" }
const dual = { serverInfo, revisions: ["2025-11-25", "2026-07-28"] } as const

const pdfSkill = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\n" +
  "metadata:\n  version: \"2.1\"\n  tags: [pdf, forms]\n---\n\n# PDF\n\nSee references/FORMS.md.\n"
const forms = "# Forms\n\nZürich ✓\n"
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00])
const refunds = "---\nname: refunds\ndescription: Process refunds\n---\nBody\n"

const files: Skills.Files = {
  "pdf-processing/SKILL.md": pdfSkill,
  "pdf-processing/references/FORMS.md": forms,
  "pdf-processing/assets/logo.png": png,
  "acme/billing/refunds/SKILL.md": refunds,
  "README.md": "not a skill's file"
}

const sha256 = (bytes: string | Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`
const size = (bytes: string | Uint8Array) => typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.length

const withSkills = (given: Skills.Files = files, options?: Skills.Options) =>
  Effect.provide(Skills.layer(given, options))

const extension = "io.modelcontextprotocol/skills"

describe("Skills: the declaration", () => {
  it.scoped("2026-07-28: the extension in server/discover, directoryRead, and resources", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const result = yield* client.result("server/discover", { _meta: meta() })
      assert.deepStrictEqual(result.capabilities.extensions, { [extension]: { directoryRead: true } })
      assert.isDefined(result.capabilities.resources)
      assert.isUndefined(validate("2026-07-28", "DiscoverResult", result))
    }).pipe(withSkills()))

  it.scoped("directoryRead: false declares an empty object and serves no resources/directory/read", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const result = yield* client.result("server/discover", { _meta: meta() })
      assert.deepStrictEqual(result.capabilities.extensions, { [extension]: {} })
      const error = yield* client.error("resources/directory/read", { uri: "skill://pdf-processing", _meta: meta() })
      assert.strictEqual(error.code, -32601)
    }).pipe(withSkills(files, { directoryRead: false })))

  it.scoped("a server without Skills declares no extension and has no skills methods", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const result = yield* client.result("server/discover", { _meta: meta() })
      assert.isUndefined(result.capabilities.extensions)
      assert.strictEqual((yield* client.error("skills/list", { _meta: meta() })).code, -32601)
    }))
})

describe("Skills: skills/list and skills/get", () => {
  it.scoped("entries: the SKILL.md URI, the frontmatter verbatim, every file with its digest and size", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const result = yield* client.result("skills/list", { _meta: meta() })
      assert.strictEqual(result.resultType, "complete")
      assert.strictEqual(result.ttlMs, 0)
      assert.strictEqual(result.cacheScope, "public")
      assert.isUndefined(result.nextCursor)
      assert.deepStrictEqual(result.skills, [
        {
          uri: "skill://acme/billing/refunds/SKILL.md",
          frontmatter: { name: "refunds", description: "Process refunds" },
          resources: [{ uri: "skill://acme/billing/refunds/SKILL.md", digest: sha256(refunds), size: size(refunds) }]
        },
        {
          uri: "skill://pdf-processing/SKILL.md",
          frontmatter: {
            name: "pdf-processing",
            description: "Extract, fill, and assemble PDF documents",
            license: "MIT",
            metadata: { version: "2.1", tags: ["pdf", "forms"] }
          },
          resources: [
            { uri: "skill://pdf-processing/SKILL.md", digest: sha256(pdfSkill), size: size(pdfSkill) },
            { uri: "skill://pdf-processing/assets/logo.png", digest: sha256(png), size: png.length },
            { uri: "skill://pdf-processing/references/FORMS.md", digest: sha256(forms), size: size(forms) }
          ]
        }
      ])
    }).pipe(withSkills()))

  it.scoped("pages of whole entries, the cursor honoured; a cursor not ours is -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const first = yield* client.result("skills/list", { _meta: meta() })
      assert.deepStrictEqual(first.skills.map((s: any) => s.uri), ["skill://acme/billing/refunds/SKILL.md"])
      assert.isString(first.nextCursor)
      const second = yield* client.result("skills/list", { cursor: first.nextCursor, _meta: meta() })
      assert.deepStrictEqual(second.skills.map((s: any) => s.uri), ["skill://pdf-processing/SKILL.md"])
      assert.strictEqual(second.skills[0].resources.length, 3)
      assert.isUndefined(second.nextCursor)
      const error = yield* client.error("skills/list", { cursor: "%%%", _meta: meta() })
      assert.strictEqual(error.code, -32602)
    }).pipe(withSkills(files, { pageSize: 1 })))

  it.scoped("the caching hints given, on resources/directory/read too", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const list = yield* client.result("skills/list", { _meta: meta() })
      const get = yield* client.result("skills/get", { uri: "skill://acme/billing/refunds/SKILL.md", _meta: meta() })
      const dir = yield* client.result("resources/directory/read", { uri: "skill://acme", _meta: meta() })
      for (const result of [list, get, dir]) {
        assert.strictEqual(result.ttlMs, 60_000)
        assert.strictEqual(result.cacheScope, "private")
      }
    }).pipe(withSkills(files, { ttlMs: 60_000, cacheScope: "private" })))

  it.scoped("skills/get: the entry as listed, no cursor; an unknown URI is -32602 naming it", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const list = yield* client.result("skills/list", { _meta: meta() })
      const got = yield* client.result("skills/get", { uri: "skill://pdf-processing/SKILL.md", _meta: meta() })
      assert.deepStrictEqual(got.skill, list.skills[1])
      assert.strictEqual(got.resultType, "complete")
      assert.isUndefined(got.nextCursor)
      for (
        const uri of ["skill://nope/SKILL.md", "skill://pdf-processing/references/FORMS.md", "skill://pdf-processing"]
      ) {
        const error = yield* client.error("skills/get", { uri, _meta: meta() })
        assert.strictEqual(error.code, -32602)
        assert.deepStrictEqual(error.data, { uri })
        assert.include(error.message, uri)
      }
    }).pipe(withSkills()))

  it.scoped("the handshake era (2025-11-25): the same methods, without the 2026-07-28 envelope", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const init = yield* client.initialize("2025-11-25")
      // Declared in 2025-11-25's open capabilities (as the suite's servers do); not before.
      assert.deepStrictEqual(Object.keys(init.capabilities.extensions), ["io.modelcontextprotocol/skills"])
      assert.isDefined(init.capabilities.resources)
      const list = yield* client.result("skills/list", {})
      assert.strictEqual(list.skills.length, 2)
      assert.isUndefined(list.resultType)
      assert.isUndefined(list.ttlMs)
      const got = yield* client.result("skills/get", { uri: "skill://pdf-processing/SKILL.md" })
      assert.strictEqual(got.skill.frontmatter.name, "pdf-processing")
      const dir = yield* client.result("resources/directory/read", { uri: "skill://pdf-processing" })
      assert.strictEqual(dir.resources.length, 3)
      assert.isUndefined(dir.resultType)
      assert.isUndefined(dir.ttlMs)
      assert.isUndefined(dir.cacheScope)
    }).pipe(withSkills()))
})

describe("Skills: the files are resources", () => {
  it.scoped("resources/list: each file, SKILL.md named and described by its frontmatter; nothing outside a skill", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const result = yield* client.result("resources/list", { _meta: meta() })
      assert.isUndefined(validate("2026-07-28", "ListResourcesResult", result))
      const byUri = new Map(result.resources.map((r: any) => [r.uri, r]))
      assert.deepStrictEqual(byUri.get("skill://pdf-processing/SKILL.md"), {
        uri: "skill://pdf-processing/SKILL.md",
        name: "pdf-processing",
        description: "Extract, fill, and assemble PDF documents",
        mimeType: "text/markdown",
        size: size(pdfSkill)
      })
      assert.deepStrictEqual(byUri.get("skill://pdf-processing/references/FORMS.md"), {
        uri: "skill://pdf-processing/references/FORMS.md",
        name: "pdf-processing/references/FORMS.md",
        mimeType: "text/markdown",
        size: size(forms)
      })
      assert.deepStrictEqual(Array.from(byUri.keys()).sort(), [
        "skill://acme/billing/refunds/SKILL.md",
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/assets/logo.png",
        "skill://pdf-processing/references/FORMS.md"
      ])
    }).pipe(withSkills()))

  it.scoped("resources/read: text as the bytes digested, binary as a blob; a file of no skill is not served", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const md = yield* client.result("resources/read", { uri: "skill://pdf-processing/SKILL.md", _meta: meta() })
      assert.deepStrictEqual(md.contents, [{
        uri: "skill://pdf-processing/SKILL.md",
        mimeType: "text/markdown",
        text: pdfSkill
      }])
      const text = yield* client.result("resources/read", {
        uri: "skill://pdf-processing/references/FORMS.md",
        _meta: meta()
      })
      assert.strictEqual(sha256(text.contents[0].text), sha256(forms))
      const blob = yield* client.result("resources/read", {
        uri: "skill://pdf-processing/assets/logo.png",
        _meta: meta()
      })
      assert.strictEqual(blob.contents[0].mimeType, "image/png")
      assert.strictEqual(sha256(Buffer.from(blob.contents[0].blob, "base64")), sha256(png))
      const missing = yield* client.error("resources/read", { uri: "skill://README.md", _meta: meta() })
      assert.strictEqual(missing.code, -32602)
    }).pipe(withSkills()))
})

describe("Skills: resources/directory/read", () => {
  it.scoped("a skill's root: its direct children, subdirectories as inode/directory", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const result = yield* client.result("resources/directory/read", { uri: "skill://pdf-processing", _meta: meta() })
      assert.strictEqual(result.resultType, "complete")
      // The caching hints other 2026-07-28 results carry (the SDK v2 skills client and the
      // Inspector refuse a directory result without them).
      assert.strictEqual(result.ttlMs, 0)
      assert.strictEqual(result.cacheScope, "public")
      assert.deepStrictEqual(result.resources, [
        {
          uri: "skill://pdf-processing/SKILL.md",
          name: "pdf-processing",
          description: "Extract, fill, and assemble PDF documents",
          mimeType: "text/markdown",
          size: size(pdfSkill)
        },
        { uri: "skill://pdf-processing/assets", name: "assets", mimeType: "inode/directory" },
        { uri: "skill://pdf-processing/references", name: "references", mimeType: "inode/directory" }
      ])
      for (const resource of result.resources) assert.isUndefined(validate("2026-07-28", "Resource", resource))
      const sub = yield* client.result("resources/directory/read", {
        uri: "skill://pdf-processing/references",
        _meta: meta()
      })
      assert.deepStrictEqual(sub.resources.map((r: any) => r.uri), ["skill://pdf-processing/references/FORMS.md"])
    }).pipe(withSkills()))

  it.scoped("prefix directories list what leads to a skill", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const acme = yield* client.result("resources/directory/read", { uri: "skill://acme", _meta: meta() })
      assert.deepStrictEqual(acme.resources, [{
        uri: "skill://acme/billing",
        name: "billing",
        mimeType: "inode/directory"
      }])
    }).pipe(withSkills()))

  it.scoped("a file or an unknown URI: -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      for (const uri of ["skill://pdf-processing/SKILL.md", "skill://nope", "skill://pdf-processing/"]) {
        const error = yield* client.error("resources/directory/read", { uri, _meta: meta() })
        assert.strictEqual(error.code, -32602, uri)
      }
    }).pipe(withSkills()))

  it.scoped("pages: nextCursor round-trips", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual)
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page: any = yield* client.result("resources/directory/read", {
          uri: "skill://pdf-processing",
          ...(cursor !== undefined ? { cursor } : {}),
          _meta: meta()
        })
        assert.isAtMost(page.resources.length, 2)
        seen.push(...page.resources.map((r: any) => r.uri))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, [
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/assets",
        "skill://pdf-processing/references"
      ])
    }).pipe(withSkills(files, { pageSize: 2 })))
})

describe("Skills: nesting, schemes and encoding", () => {
  it.scoped("a nested skill's files are its enclosing skill's too; both are listed", () =>
    Effect.gen(function*() {
      const outer = "---\nname: outer\ndescription: Outer\n---\n"
      const inner = "---\nname: inner\ndescription: Inner\n---\n"
      const client = yield* connect(dual).pipe(withSkills({ "outer/SKILL.md": outer, "outer/inner/SKILL.md": inner }))
      const list = yield* client.result("skills/list", { _meta: meta() })
      const byUri = new Map(list.skills.map((s: any) => [s.uri, s.resources.map((r: any) => r.uri)]))
      assert.deepStrictEqual(byUri.get("skill://outer/SKILL.md"), [
        "skill://outer/SKILL.md",
        "skill://outer/inner/SKILL.md"
      ])
      assert.deepStrictEqual(byUri.get("skill://outer/inner/SKILL.md"), ["skill://outer/inner/SKILL.md"])
    }))

  it.scoped("another scheme; path segments percent-encoded", () =>
    Effect.gen(function*() {
      const client = yield* connect(dual).pipe(
        withSkills({ "docs/SKILL.md": "---\nname: docs\ndescription: D\n---\n", "docs/a b#c.md": "x" }, {
          scheme: "acme-skills"
        })
      )
      const got = yield* client.result("skills/get", { uri: "acme-skills://docs/SKILL.md", _meta: meta() })
      assert.deepStrictEqual(got.skill.resources.map((r: any) => r.uri), [
        "acme-skills://docs/SKILL.md",
        "acme-skills://docs/a%20b%23c.md"
      ])
      const read = yield* client.result("resources/read", { uri: "acme-skills://docs/a%20b%23c.md", _meta: meta() })
      assert.strictEqual(read.contents[0].text, "x")
    }))
})

describe("Skills: the rules and limits, checked when made", () => {
  const skill = (name: string, extra = "") => `---\nname: ${name}\ndescription: Does things\n${extra}---\nBody\n`
  const refused = (given: Skills.Files, options?: Skills.Options) => Effect.flip(Skills.make(given, options))

  it.effect("each rule broken is a SkillsError naming the file and the rule", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Skills.Files, string, string]> = [
        [{ "a/SKILL.md": skill("b") }, "a/SKILL.md", "frontmatter name"],
        [{ "Bad_Name/SKILL.md": skill("Bad_Name") }, "Bad_Name/SKILL.md", "not a skill name"],
        [{ "a--b/SKILL.md": skill("a--b") }, "a--b/SKILL.md", "not a skill name"],
        [{ "a/SKILL.md": "---\nname: a\n---\n" }, "a/SKILL.md", "description"],
        [{ "a/SKILL.md": "no frontmatter" }, "a/SKILL.md", "frontmatter"],
        [{ "a/SKILL.md": "---\nname: a\ndescription: [unclosed\n---\n" }, "a/SKILL.md", "not YAML"],
        [{ "a/SKILL.md": "---\nname: a\nname: a\ndescription: d\n---\n" }, "a/SKILL.md", "not YAML"],
        [{ "a/SKILL.md": "---\n- a\n---\n" }, "a/SKILL.md", "not a mapping"],
        [{ "a/SKILL.md": skill("a", "x: .inf\n") }, "a/SKILL.md", "not JSON"],
        [{ "a/SKILL.md": skill("a", "metadata:\n  io.modelcontextprotocol/x: 1\n") }, "a/SKILL.md", "reserved"],
        [{ "SKILL.md": skill("a") }, "SKILL.md", "at the root"],
        [{ "a/../b/SKILL.md": skill("b") }, "a/../b/SKILL.md", ".."],
        [{ "/a/SKILL.md": skill("a") }, "/a/SKILL.md", "absolute"],
        [{ "a/SKILL.md": new Uint8Array([0xff, 0xfe, 0x00]) }, "a/SKILL.md", "UTF-8"]
      ]
      for (const [given, path, words] of cases) {
        const error = yield* refused(given)
        assert.strictEqual(error._tag, "SkillsError")
        assert.strictEqual(error.path, path, error.message)
        assert.include(error.reason, words, error.message)
      }
    }))

  it.effect("the limits: files per skill, bytes per file and per skill, skills, files, bytes in all", () =>
    Effect.gen(function*() {
      const three = { "a/SKILL.md": skill("a"), "a/x.md": "xx", "a/y.md": "yy" }
      assert.include((yield* refused(three, { limits: { maxFilesPerSkill: 2 } })).reason, "maxFilesPerSkill")
      assert.include((yield* refused(three, { limits: { maxFileSize: 30 } })).reason, "maxFileSize")
      assert.include((yield* refused(three, { limits: { maxSkillSize: 40 } })).reason, "maxSkillSize")
      assert.include((yield* refused(three, { limits: { maxFiles: 2 } })).reason, "maxFiles")
      assert.include((yield* refused(three, { limits: { maxTotalSize: 40 } })).reason, "maxTotalSize")
      const two = { "a/SKILL.md": skill("a"), "b/SKILL.md": skill("b") }
      assert.include((yield* refused(two, { limits: { maxSkills: 1 } })).reason, "maxSkills")
      // Within them, made.
      const made = yield* Skills.make(three, { limits: { maxFilesPerSkill: 3 } })
      assert.strictEqual(made.skills[0].files.length, 3)
    }))

  it.effect("the extension's own limits by default: 512 files per skill", () =>
    Effect.gen(function*() {
      const many: Record<string, string> = { "a/SKILL.md": skill("a") }
      for (let i = 0; i < 511; i++) many[`a/f${i}.txt`] = ""
      assert.strictEqual((yield* Skills.make(many)).skills[0].entry.resources.length, 512)
      many["a/one-more.txt"] = ""
      assert.include((yield* refused(many)).reason, "maxFilesPerSkill (512)")
    }))
})
