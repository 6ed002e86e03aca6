/**
 * The README and the guides of `docs/`: every TypeScript sample they show is a file of this folder, so that `tsc -b`
 * type-checks it and the tests here run it where it runs. A sample fenced ```` ```ts ```` is a whole file, as it is
 * (a reader can copy it); one fenced ```` ```ts excerpt ```` is a contiguous part of one. Every link between the
 * pages (and from the packages' own READMEs) leads to a page and a heading that exist, the README links to every
 * guide, and the README's test command is what CI runs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../..")

const guides = fs.readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).sort().map((name) =>
  `docs/${name}`
)
const pages = ["README.md", ...guides]
/** The packages' own READMEs: their links are checked too. */
const packageReadmes = fs.readdirSync(path.join(root, "packages")).map((name) => `packages/${name}/README.md`).filter((
  page
) => fs.existsSync(path.join(root, page)))
const text = (page: string) => fs.readFileSync(path.join(root, page), "utf8")

/** The samples: every `.ts` file of this folder, as a reader would copy it. */
const samples = fs.readdirSync(here).filter((name) => name.endsWith(".ts")).map((name) => ({
  name,
  text: fs.readFileSync(path.join(here, name), "utf8").trim()
}))

interface Block {
  readonly lang: string
  readonly info: string
  readonly code: string
  readonly line: number
}

/** The fenced code blocks of a page: the language, the rest of the info string, the code, and the opening's line. */
const blocks = (markdown: string): ReadonlyArray<Block> => {
  const out: Array<Block> = []
  const lines = markdown.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})([^`]*)$/.exec(lines[i]!)
    if (open === null) continue
    const fence = open[1]!
    const [lang = "", ...rest] = open[2]!.trim().split(/\s+/)
    const start = i
    const code: Array<string> = []
    for (i++; i < lines.length && lines[i]!.trim() !== fence; i++) code.push(lines[i]!)
    out.push({ lang, info: rest.join(" "), code: code.join("\n").trim(), line: start + 1 })
  }
  return out
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const slug = (heading: string) =>
  heading.trim().toLowerCase().replace(/`/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

const anchors = (markdown: string): ReadonlySet<string> => {
  const prose = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "")
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!)))
}

describe("the README and the guides", () => {
  it("exist: a README under 250 lines, and guides that say first what they are for", () => {
    assert.isAtMost(text("README.md").split("\n").length, 250)
    assert.isAtLeast(guides.length, 10)
    for (const guide of guides) {
      const [title, blank, first] = text(guide).split("\n")
      assert.match(title!, /^# \S/, `${guide} starts with its title`)
      assert.strictEqual(blank, "", guide)
      assert.match(first!, /^[A-Z`[]/, `${guide} says what it is for, in a sentence, under its title`)
    }
  })

  for (const page of pages) {
    it(`${page}: every TypeScript sample is a file of test/readme (or a part of one, when fenced as an excerpt)`, () => {
      const code = blocks(text(page)).filter((block) => /^(ts|typescript|tsx|js|javascript|mjs|mts)$/.test(block.lang))
      for (const block of code) {
        const where = `${page}:${block.line}`
        assert.include(["ts", "typescript"], block.lang, `${where}: samples are TypeScript, fenced as ts`)
        if (block.info === "") {
          assert.isDefined(
            samples.find((sample) => sample.text === block.code),
            `${where}: a sample is a whole file of test/readme, as it is (or fence it as \`ts excerpt\`)`
          )
        } else {
          assert.strictEqual(block.info, "excerpt", `${where}: the only mark a sample may carry is \`excerpt\``)
          assert.isDefined(
            samples.find((sample) => sample.text.includes(block.code)),
            `${where}: an excerpt is a part of a file of test/readme, as it is there`
          )
        }
      }
    })
  }

  for (const page of [...pages, ...packageReadmes]) {
    it(`${page}: every link to a page of the repository leads to it, and to a heading it has`, () => {
      const markdown = text(page)
      const prose = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "")
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        const [file, anchor] = target!.split("#")
        const linked = file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file!))
        assert.isTrue(fs.existsSync(path.join(root, linked)), `${page}: ${target} leads to ${linked}, which exists`)
        if (anchor !== undefined) {
          assert.isTrue(anchors(text(linked)).has(anchor), `${page}: ${linked} has a heading for #${anchor}`)
        }
      }
    })
  }

  it("the README links to every guide", () => {
    const readme = text("README.md")
    for (const guide of guides) assert.include(readme, `](${guide})`, `the README links to ${guide}`)
  })

  it("the README's test command is what CI runs, and its start command installs the same way", () => {
    const commands = blocks(text("README.md")).filter((block) => block.lang === "sh").flatMap((block) =>
      block.code.split("\n")
    ).filter((line) => line.startsWith("npx -y pnpm@"))
    const test = commands.find((line) => line.endsWith(" test"))
    const start = commands.find((line) => line.endsWith(" start"))
    assert.isDefined(test, "the README has the command that installs everything and runs every test")
    assert.isDefined(start, "the README has the command that installs everything and starts the demo")
    const ci = fs.readFileSync(path.join(root, ".ci/run"), "utf8")
    assert.include(ci.split("\n"), `${test} || exit 1`, ".ci/run runs the README's test command, exactly")
    assert.strictEqual(start!.replace(/ start$/, ""), test!.replace(/ test$/, ""))
  })
})
