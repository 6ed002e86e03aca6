/**
 * The README's "A project of your own", every line of it, as a user runs them: `npm init`, the install lines
 * with every extra the section offers (`@effect-mcp/redis`, the telemetry packages, `@effect/ai`), its
 * `tsconfig.json`, in a plain npm project outside the workspace (no `--legacy-peer-deps`). Our packages come from
 * their packed tarballs, as a registry would serve them; everything else from the registry. Then every sample the
 * README and the guides show whole is compiled there with the project's own `tsc` (so a sample that needs a
 * package no install line names, or a type that does not compile without the workspace around it, fails here),
 * and the README's first server runs from `dist/server.js`.
 *
 * The install lines run as one `npm install` (one resolution; npm's cache is the user's, shared with test/pack).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { env, packAll, root, run, sectionBlocks, withTarballs } from "../support/Packed.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
const guides = fs.readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) =>
  fs.readFileSync(path.join(root, "docs", name), "utf8")
)

/** The commands of the section's shell blocks, a line each, comments dropped. */
const commands = sectionBlocks(readme, "A project of your own", "sh").flatMap((block) => block.split("\n")).map((
  line
) => line.trim()).filter((line) => line.length > 0 && !line.startsWith("#"))

/** The files of this folder that the README and the guides show whole. */
const shown = (): ReadonlyArray<string> => {
  const whole = new Set(
    [readme, ...guides].flatMap((page) => [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trim()))
  )
  return fs.readdirSync(here).filter((name) =>
    name.endsWith(".ts") && whole.has(fs.readFileSync(path.join(here, name), "utf8").trim())
  )
}

/** The first line a child writes on stdout, once it is whole. */
const firstLine = (child: ReturnType<typeof spawn>): Promise<string> =>
  new Promise((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk) => {
      out += chunk
      const end = out.indexOf("\n")
      if (end !== -1) resolve(out.slice(0, end))
    })
    child.on("exit", (code) => reject(new Error(`exited with ${code} before answering`)))
  })

describe("the README's project of your own, with every extra", () => {
  it("offers Redis, telemetry and @effect/ai, with ranges", () => {
    const installs = commands.filter((line) => /^npm (install|i)\b/.test(line)).join(" ")
    for (const name of ["@effect-mcp/core", "@effect-mcp/redis", "@effect/opentelemetry@^0.", "@effect/ai@^0."]) {
      assert.include(installs, name)
    }
  })

  it("installs from the packed packages, compiles every sample shown whole, and runs the first server", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "effect-mcp-project-"))
    try {
      const tarballs = await packAll()
      const project = path.join(work, "project")
      fs.mkdirSync(project)
      const [init, ...rest] = commands
      assert.strictEqual(init, "npm init -y && npm pkg set type=module")
      await run("sh", ["-c", init!], project)
      // Every install line's packages, in one install: the flags (--save-dev) matter to a package's manifest only.
      const specs = rest.map((line) => {
        assert.match(line, /^npm install( --save-dev)? /, `${line}: an install line`)
        return line.replace(/^npm install( --save-dev)? /, "")
      })
      await run(
        "sh",
        ["-c", `${withTarballs(`npm install ${specs.join(" ")}`, tarballs)} --no-audit --no-fund`],
        project
      )
      fs.writeFileSync(path.join(project, "tsconfig.json"), sectionBlocks(readme, "A project of your own", "json")[0]!)
      const samples = shown()
      for (const file of ["greet.ts", "server.ts", "Greet.test.ts", "cluster.ts", "telemetry.ts", "weather.ts"]) {
        assert.include(samples, file)
      }
      for (const file of samples) fs.copyFileSync(path.join(here, file), path.join(project, file))
      // A folder beside them (tests, say) leaves the server's output where the README says it is.
      fs.mkdirSync(path.join(project, "test"))
      fs.writeFileSync(path.join(project, "test", "more.ts"), "export const more = 1\n")

      await run(process.execPath, [path.join(project, "node_modules/typescript/bin/tsc"), "-p", "."], project)

      const child = spawn(process.execPath, ["dist/server.js"], { cwd: project, env, stdio: ["pipe", "pipe", "pipe"] })
      try {
        const answered = firstLine(child)
        child.stdin.write(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
          }) + "\n"
        )
        assert.strictEqual(JSON.parse(await answered).result.serverInfo.name, "demo")
      } finally {
        child.kill()
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 400_000)
})
