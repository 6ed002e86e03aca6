/**
 * `mcp skills` (apps/cli, built) against apps/everything over stdio, which serves its own
 * `apps/everything/skills` (or `--skills <dir>`): list, get, and pull (every file verified, then
 * written under `<dir>/<skill path>/`, byte for byte the served folder's).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const mcpMain = Programs.mcpMain
const everything = Programs.demoMain
const skillsFolder = path.join(root, "apps/everything/skills")
const stdio = `stdio:${process.execPath} ${everything} stdio`

const mcp = (...args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [mcpMain, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Every file under `dir`, by path relative to it. */
const tree = (dir: string): Record<string, string> =>
  Object.fromEntries(
    (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<fs.Dirent>)
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const file = path.join(entry.parentPath, entry.name)
        return [path.relative(dir, file).split(path.sep).join("/"), fs.readFileSync(file, "utf8")]
      })
  )

const temporary = () => fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-skills-cli-"))

describe("mcp skills", () => {
  it("list: the demo's skills, readable and as JSON", async () => {
    const readable = await mcp("skills", "list", stdio)
    assert.strictEqual(readable.code, 0, readable.stderr)
    assert.match(readable.stdout, /^skill:\/\/everything-tour\/SKILL\.md\s+everything-tour: Find your way/m)
    assert.match(readable.stdout, /^skill:\/\/effect-mcp\/writing-tools\/SKILL\.md\s+writing-tools: /m)
    const listed = JSON.parse((await mcp("skills", "list", stdio, "--json")).stdout)
    assert.deepStrictEqual(listed.map((s: any) => s.uri), [
      "skill://effect-mcp/writing-tools/SKILL.md",
      "skill://everything-tour/SKILL.md"
    ])
  })

  it("get: one entry, its files with sizes and digests; an unknown URI fails with the server's -32602", async () => {
    const got = await mcp("skills", "get", stdio, "skill://everything-tour/SKILL.md", "--json")
    assert.strictEqual(got.code, 0, got.stderr)
    const entry = JSON.parse(got.stdout)
    assert.strictEqual(entry.frontmatter.name, "everything-tour")
    assert.deepStrictEqual(entry.resources.map((r: any) => r.uri), [
      "skill://everything-tour/SKILL.md",
      "skill://everything-tour/references/ERAS.md",
      "skill://everything-tour/references/TOOLS.md"
    ])
    const readable = await mcp("skills", "get", stdio, "skill://everything-tour/SKILL.md")
    assert.match(readable.stdout, /^skill:\/\/everything-tour\/references\/TOOLS\.md\s+\d+ bytes\s+sha256:/m)
    const missing = await mcp("skills", "get", stdio, "skill://nope/SKILL.md")
    assert.strictEqual(missing.code, 1)
    assert.include(missing.stderr, "No skill is served at skill://nope/SKILL.md")
  })

  it("pull: every skill written under <dir>/<skill path>/, as served", async () => {
    const dir = temporary()
    try {
      const pulled = await mcp("skills", "pull", stdio, dir)
      assert.strictEqual(pulled.code, 0, pulled.stderr)
      assert.deepStrictEqual(tree(dir), tree(skillsFolder))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("pull --skill: the one named (by name or URI); a name not listed fails and writes nothing", async () => {
    const dir = temporary()
    try {
      const pulled = await mcp("skills", "pull", stdio, dir, "--skill", "writing-tools", "--json")
      assert.strictEqual(pulled.code, 0, pulled.stderr)
      assert.deepStrictEqual(JSON.parse(pulled.stdout).map((p: any) => p.uri), [
        "skill://effect-mcp/writing-tools/SKILL.md"
      ])
      assert.deepStrictEqual(Object.keys(tree(dir)).sort(), [
        "effect-mcp/writing-tools/SKILL.md",
        "effect-mcp/writing-tools/examples/GREET.md",
        "effect-mcp/writing-tools/references/CHECKLIST.md"
      ])
      const other = temporary()
      const none = await mcp("skills", "pull", stdio, other, "--skill", "nope")
      assert.strictEqual(none.code, 1)
      assert.include(none.stderr, "no listed skill is named nope")
      assert.deepStrictEqual(fs.readdirSync(other), [])
      fs.rmSync(other, { recursive: true, force: true })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("a demo given a folder whose skill breaks a rule does not start: the reason on stderr", async () => {
    const dir = temporary()
    try {
      fs.mkdirSync(path.join(dir, "a"))
      fs.writeFileSync(path.join(dir, "a", "SKILL.md"), "---\nname: b\ndescription: d\n---\n")
      const result = await mcp("skills", "list", `${stdio} --skills ${dir}`)
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, "the server exited with code 1")
      assert.include(result.stderr, "SkillsError: Skills: a/SKILL.md: its frontmatter name")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
