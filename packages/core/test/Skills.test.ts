/**
 * The skills extension in core: its catalog rows (no official JSON Schema has them: generated
 * params and results round-trip through the wire, the parts that are core types validate against
 * the official schema, and 2026-07-28 results carry their envelope), and `SkillFormat` (frontmatter,
 * names, URIs, digests, comparison).
 */
import { validate } from "@effect-mcp/test-support/OfficialSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Method from "../src/Method.js"
import * as Revision from "../src/Revision.js"
import { parseOptions } from "../src/Schema/Base.js"
import * as Skills from "../src/Schema/Skills.js"
import * as SkillFormat from "../src/SkillFormat.js"
import * as Wire from "../src/Wire.js"

const methods = ["skills/list", "skills/get", "resources/directory/read"] as const
const wire = (value: unknown) => Wire.parse(JSON.stringify(value))

describe("the skills methods in the catalog", () => {
  it("are the extension's, client requests, in every revision", () => {
    for (const name of methods) {
      const definition = Method.definition(name)!
      assert.strictEqual(definition.extension, Skills.extensionId)
      assert.strictEqual(definition.direction, "client")
      assert.deepStrictEqual(definition.revisions, Revision.all)
    }
    assert.isTrue(Method.catalog["skills/list"].paginated && Method.catalog["skills/list"].cacheable)
    assert.isTrue(Method.catalog["skills/get"].cacheable && !Method.catalog["skills/get"].paginated)
    assert.isTrue(
      Method.catalog["resources/directory/read"].paginated && Method.catalog["resources/directory/read"].cacheable
    )
  })

  it("resources/directory/read (2026-07-28): the hints read when given, accepted when a peer leaves them out", () => {
    const entry = Method.lookup("2026-07-28", "resources/directory/read")!
    const bare = { resultType: "complete", resources: [] }
    const hinted = { ...bare, ttlMs: 60_000, cacheScope: "private" }
    assert.deepStrictEqual(Either.getOrThrow(entry.decodeResult!(hinted)), hinted)
    assert.deepStrictEqual(Either.getOrThrow(entry.decodeResult!(bare)), bare)
    assert.isTrue(Either.isLeft(entry.decodeResult!({ ...bare, ttlMs: -1 })))
    assert.isTrue(Either.isLeft(entry.decodeResult!({ ...bare, cacheScope: "everyone" })))
  })

  describe.each(Revision.all)("at %s", (revision) => {
    for (const name of methods) {
      const entry = Method.lookup(revision, name)!
      it(`${name}: generated params and results round-trip through the wire`, () => {
        const encodeParams = Schema.encodeSync(entry.shape.params, parseOptions)
        FastCheck.assert(
          FastCheck.property(Arbitrary.make(entry.shape.params), (params) => {
            const encoded = wire(encodeParams(params))
            assert.deepStrictEqual(Either.getOrThrow(entry.decodeParams(encoded)), wire(params))
            if (revision === "2026-07-28") {
              const meta = (encoded as { readonly _meta: unknown })._meta
              assert.isUndefined(validate("2026-07-28", "RequestMetaObject", meta))
            }
          }),
          { numRuns: 25 }
        )
        FastCheck.assert(
          FastCheck.property(Arbitrary.make(entry.shape.result!), (result) => {
            const encoded = wire(Either.getOrThrow(entry.encodeResult!(result))) as any
            assert.deepStrictEqual(Either.getOrThrow(entry.decodeResult!(encoded)), wire(result))
            if (name === "resources/directory/read") {
              for (const child of encoded.resources) assert.isUndefined(validate("2026-07-28", "Resource", child))
            }
            if (revision === "2026-07-28") {
              assert.strictEqual(encoded.resultType, "complete")
              // resources/directory/read: the hints are optional on the wire (the server test checks ours write them).
              if (name !== "resources/directory/read" || "ttlMs" in encoded) assert.isNumber(encoded.ttlMs)
              if (name !== "resources/directory/read" || "cacheScope" in encoded) assert.isString(encoded.cacheScope)
            }
          }),
          { numRuns: 25 }
        )
      })
    }
  })

  it("a digest other than sha256:<64 lowercase hex> does not decode", () => {
    const decode = Method.lookup("2026-07-28", "skills/get")!.decodeResult!
    const result = (digest: string) => ({
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "public",
      skill: {
        uri: "skill://a/SKILL.md",
        frontmatter: { name: "a", description: "d" },
        resources: [{ uri: "skill://a/SKILL.md", digest, size: 1 }]
      }
    })
    assert.isTrue(Either.isRight(decode(result(`sha256:${"a".repeat(64)}`))))
    for (const digest of [`sha256:${"A".repeat(64)}`, `sha256:${"a".repeat(63)}`, `md5:${"a".repeat(64)}`]) {
      assert.isTrue(Either.isLeft(decode(result(digest))), digest)
    }
  })
})

describe("SkillFormat", () => {
  it.effect("parseFrontmatter: the leading --- block as JSON; or why not", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* SkillFormat.parseFrontmatter(
          "---\nname: a\ndescription: d\nmetadata:\n  n: 1\n  list: [x, y]\n---\nBody"
        ),
        Either.right({ name: "a", description: "d", metadata: { n: 1, list: ["x", "y"] } })
      )
      // A byte order mark, CRLF, a block at the end of the file.
      assert.deepStrictEqual(
        yield* SkillFormat.parseFrontmatter("\uFEFF---\r\nname: a\r\n---"),
        Either.right({ name: "a" })
      )
      // YAML 1.2 core schema: no timestamps, so a date stays the string JSON carries.
      assert.deepStrictEqual(
        yield* SkillFormat.parseFrontmatter("---\nd: 2026-01-01\n---\n"),
        Either.right({ d: "2026-01-01" })
      )
      const refused: ReadonlyArray<readonly [string, string]> = [
        ["no block", "does not begin"],
        ["\n---\nname: a\n---\n", "does not begin"],
        ["---\nname: [\n---\n", "not YAML"],
        ["---\na: 1\na: 2\n---\n", "not YAML"],
        ["---\n- a\n---\n", "not a mapping"],
        ["---\njust text\n---\n", "not a mapping"],
        ["---\nx: .nan\n---\n", "not JSON"]
      ]
      for (const [text, words] of refused) {
        const parsed = yield* SkillFormat.parseFrontmatter(text)
        assert.isTrue(Either.isLeft(parsed), text)
        assert.include(Either.isLeft(parsed) ? parsed.left : "", words, text)
      }
    }))

  it.effect("parseFrontmatter: aliases expand a bounded number of times", () =>
    Effect.gen(function*() {
      // Each anchor six times the one before: 10 * 6^20 strings, were every alias expanded.
      const names = Array.from({ length: 21 }, (_, i) => `k${i}`)
      const lines = [
        `k0: &k0 [x, x, x, x, x, x, x, x, x, x]`,
        ...names.slice(1).map((name, i) => {
          const before = `*${names[i]}`
          return `${name}: &${name} [${Array(6).fill(before).join(", ")}]`
        })
      ]
      const parsed = yield* SkillFormat.parseFrontmatter(`---\n${lines.join("\n")}\n---\n`)
      assert.include(Either.isLeft(parsed) ? parsed.left : "", "resource exhaustion")
      // A few aliases are fine.
      assert.deepStrictEqual(
        yield* SkillFormat.parseFrontmatter("---\na: &a [x]\nb: [*a, *a]\n---\n"),
        Either.right({ a: ["x"], b: [["x"], ["x"]] })
      )
    }))

  it("isValidName: the Agent Skills naming rules", () => {
    for (const name of ["a", "pdf-processing", "a1-b2", "x".repeat(64)]) {
      assert.isTrue(SkillFormat.isValidName(name), name)
    }
    for (const name of ["", "-a", "a-", "a--b", "A", "a_b", "a.b", "x".repeat(65), "zürich"]) {
      assert.isFalse(SkillFormat.isValidName(name), name)
    }
  })

  it("nameOf and rootOf: the skill of a SKILL.md URI", () => {
    assert.strictEqual(SkillFormat.nameOf("skill://acme/billing/refunds/SKILL.md"), "refunds")
    assert.strictEqual(SkillFormat.rootOf("skill://acme/billing/refunds/SKILL.md"), "skill://acme/billing/refunds")
    assert.strictEqual(SkillFormat.nameOf("github://o/r/skills/refunds/SKILL.md"), "refunds")
    for (const uri of ["skill://SKILL.md", "skill://a/README.md", "no-scheme/SKILL.md", "skill://a//SKILL.md"]) {
      assert.isUndefined(SkillFormat.nameOf(uri), uri)
      assert.isUndefined(SkillFormat.rootOf(uri), uri)
    }
  })

  it.effect("digest: sha256: and 64 lowercase hex digits", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* SkillFormat.digest(SkillFormat.utf8("abc")),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
      )
      assert.strictEqual(
        yield* SkillFormat.digest(new Uint8Array(0)),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
      )
    }))

  it("frontmatterDifferences: field by field, key order aside, a missing field as null", () => {
    const file = { name: "a", description: "d", metadata: { x: 1, y: [1, { z: true }] } }
    assert.deepStrictEqual(
      SkillFormat.frontmatterDifferences(file, {
        metadata: { y: [1, { z: true }], x: 1 },
        description: "d",
        name: "a"
      }),
      []
    )
    assert.deepStrictEqual(SkillFormat.frontmatterDifferences(file, { ...file, description: "e" }), ["description"])
    assert.deepStrictEqual(SkillFormat.frontmatterDifferences(file, { ...file, license: "MIT" }), ["license"])
    assert.deepStrictEqual(SkillFormat.frontmatterDifferences({ ...file, license: null }, file), [])
    assert.deepStrictEqual(
      SkillFormat.frontmatterDifferences(file, { ...file, metadata: { x: 1, y: [1, { z: false }] } }),
      ["metadata"]
    )
  })
})
